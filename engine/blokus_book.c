/* blokus_book.c -- mcts-v2's Duo opening book (see blokus_book.h).
 *
 * The moves themselves are in blokus_book_table.h, written by
 * gen_blokus_book; this file finds a position's entry. A position after
 * one move is recognised by the cells of color 0 (the only piece on the
 * board), read back into a move, so the lookup needs no game history. */
#include "engine/blokus_book.h"

#include "engine/blokus_tables.h"

/* An answer of the book: after color 0's first move `first` (the stored
 * one of it and its mirror image), color 1 plays `reply`. */
struct book_answer {
    blokus_move first;
    blokus_move reply;
};

#include "engine/blokus_book_table.h"

#define ANSWER_COUNT ((int)(sizeof(BOOK_ANSWERS) / sizeof(BOOK_ANSWERS[0])))

blokus_move blokus_move_transposed(blokus_move move)
{
    int cells[BLOKUS_MAX_PIECE_SIZE][2];
    int count = blokus_move_cells(move, cells);
    for (int i = 0; i < count; i++) {
        int row = cells[i][0];
        cells[i][0] = cells[i][1];
        cells[i][1] = row;
    }
    blokus_move mirrored = move;
    if (count > 0)
        blokus_move_from_cells(cells, count, &mirrored);
    return mirrored;
}

blokus_move blokus_book_canonical(blokus_move move)
{
    blokus_move mirrored = blokus_move_transposed(move);
    return blokus_move_key(mirrored) < blokus_move_key(move) ? mirrored : move;
}

/* Color 0's only piece on the board, read back from its cells. */
static bool first_move_on_board(const blokus_state *state, blokus_move *out)
{
    int cells[BLOKUS_MAX_PIECE_SIZE][2], count = 0;
    for (int row = 0; row < state->size; row++) {
        for (int col = 0; col < state->size; col++) {
            if (blokus_cell(state, row, col) != 0)
                continue;
            if (count == BLOKUS_MAX_PIECE_SIZE)
                return false;
            cells[count][0] = row;
            cells[count++][1] = col;
        }
    }
    return blokus_move_from_cells(cells, count, out) == 0;
}

/* The answer to color 0's first move on the board, mirrored when that
 * move is the mirror image of the stored one. */
static bool find_answer(const blokus_state *state, blokus_move *out)
{
    blokus_move first;
    if (!first_move_on_board(state, &first))
        return false;
    blokus_move stored = blokus_book_canonical(first);
    for (int i = 0; i < ANSWER_COUNT; i++) {
        if (!blokus_move_equal(BOOK_ANSWERS[i].first, stored))
            continue;
        bool is_mirrored = !blokus_move_equal(stored, first);
        *out = is_mirrored ? blokus_move_transposed(BOOK_ANSWERS[i].reply) : BOOK_ANSWERS[i].reply;
        return true;
    }
    return false;
}

bool blokus_book_find(const blokus_state *state, blokus_move *out)
{
    if (state->mode != BLOKUS_MODE_DUO || state->is_over)
        return false;
    blokus_move move;
    if (state->ply == 0 && state->to_move == 0)
        move = BOOK_OPENING;
    else if (state->ply != 1 || state->to_move != 1 || !find_answer(state, &move))
        return false;
    if (blokus_check(state, move) != 0)
        return false;
    *out = move;
    return true;
}

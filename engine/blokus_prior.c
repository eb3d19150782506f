/* blokus_prior.c -- the features of a move and the learned prior's scores.
 *
 * Every feature but the piece is counted over the rows the move's
 * footprint touches, from per-row masks of the position gathered once per
 * list (struct board_view): a few mask operations per row, no loop over
 * cells (the open sides of new attach cells are counted by adding the
 * four side masks bit by bit). "Opponent" is a color owned
 * by another player than the mover; a color of the mover's own (2p's
 * partner color) is a partner. The features are integers; the scores are
 * the weighted sums in fixed point (BLOKUS_PRIOR_UNIT), so the search
 * compares and sorts integers as it does the heuristic's points. */
#include "engine/blokus_prior.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "engine/bits.h"
#include "engine/blokus_prior_weights.h"

/* The centre terms: BLOKUS_PRIOR_OPENING_CENTRE counts while the color has
 * placed fewer pieces (as the heuristic's centre term does). */
#define OPENING_PIECES 4

/* Per-row masks of the other colors, gathered once per list. */
struct board_view {
    uint32_t opponent_attach[BLOKUS_PADDED_ROWS];
    uint32_t partner_attach[BLOKUS_PADDED_ROWS];
    uint32_t opponent_free[BLOKUS_PADDED_ROWS];
    uint32_t opponent_own[BLOKUS_PADDED_ROWS];
    /* cells an opponent may use beside (not on) an opponent's attach cell */
    uint32_t near_opponent_attach[BLOKUS_PADDED_ROWS];
    bool is_opening;
};

/* The cells sharing a side with a cell of `rows` (row `row` of them). */
static uint32_t side_neighbours(const uint32_t *rows, int row, int size)
{
    uint32_t above = row > 0 ? rows[row - 1] : 0, below = row + 1 < size ? rows[row + 1] : 0;
    return above | below | rows[row] << 1 | rows[row] >> 1;
}

static void board_view_init(const blokus_state *state, struct board_view *view)
{
    int mover = blokus_player_to_move(state);
    memset(view, 0, sizeof(*view));
    for (int other = 0; other < state->color_count; other++) {
        int owner = blokus_color_owner(state, other);
        if (other == state->to_move || owner < 0)
            continue;
        for (int row = 0; row < state->size; row++) {
            if (owner == mover) {
                view->partner_attach[row] |= state->attach[other][row];
                continue;
            }
            view->opponent_attach[row] |= state->attach[other][row];
            view->opponent_free[row] |= state->free[other][row];
            view->opponent_own[row] |= state->own[other][row];
        }
    }
    for (int row = 0; row < state->size; row++)
        view->near_opponent_attach[row] = side_neighbours(view->opponent_attach, row, state->size) &
                                          view->opponent_free[row] & ~view->opponent_attach[row];
    int placed = BLOKUS_PIECE_COUNT - bits_count(state->pieces_left[state->to_move]);
    view->is_opening = placed < OPENING_PIECES;
}

/* Adds to terms[BLOKUS_PRIOR_NEW_ATTACH_OPEN_0 + n] the cells of
 * `new_attach` (row i of the footprint) with n open sides: the four side
 * masks are added bit by bit (ones, twos, fours) to count each cell's. A
 * new attach cell has two open sides at most. */
static void count_open_sides(const uint32_t *free_after, int i, uint32_t new_attach, int *terms)
{
    uint32_t up = free_after[i - 1], down = free_after[i + 1];
    uint32_t left = free_after[i] << 1, right = free_after[i] >> 1;
    uint32_t half1 = up ^ down, carry1 = up & down, half2 = left ^ right, carry2 = left & right;
    uint32_t ones = half1 ^ half2, carry3 = half1 & half2;
    uint32_t twos = carry1 ^ carry2 ^ carry3, fours = carry1 & carry2;
    uint32_t by_count[3] = {~ones & ~twos & ~fours, ones & ~twos & ~fours, ~ones & twos & ~fours};
    for (int n = 0; n < 3; n++)
        terms[BLOKUS_PRIOR_NEW_ATTACH_OPEN_0 + n] += bits_count(new_attach & by_count[n]);
}

/* The terms of one placement into terms[BLOKUS_PRIOR_TERM_COUNT]. Rows
 * are those of the footprint; free_after has one more on each side, for
 * the open sides of new attach cells. */
static void move_terms(const blokus_state *state, const struct board_view *view, blokus_move move,
                       int *terms)
{
    int color = state->to_move;
    blokus_footprint footprint;
    uint32_t free_after[BLOKUS_MAX_PIECE_SIZE + 4], new_attach[BLOKUS_MAX_PIECE_SIZE + 2];
    blokus_move_footprint(state, move, &footprint);
    memset(terms, 0, sizeof(int) * BLOKUS_PRIOR_TERM_COUNT);
    int above = footprint.first_row - 1, below = footprint.first_row + footprint.count;
    free_after[0] = above >= 0 ? state->free[color][above] : 0;
    free_after[footprint.count + 1] = below < state->size ? state->free[color][below] : 0;
    for (int i = 0; i < footprint.count; i++) {
        int row = footprint.first_row + i;
        uint32_t cells = footprint.cells[i], attach = state->attach[color][row];
        uint32_t free_before = state->free[color][row];
        free_after[i + 1] = free_before & ~cells & ~footprint.edges[i];
        uint32_t attach_after = (attach | footprint.corners[i]) & free_after[i + 1];
        new_attach[i] = attach_after & ~attach;
        terms[BLOKUS_PRIOR_ATTACH_GAIN] += bits_count(attach_after) - bits_count(attach);
        terms[BLOKUS_PRIOR_BLOCKED] += bits_count(view->opponent_attach[row] & cells) -
                                       bits_count(view->partner_attach[row] & cells);
        terms[BLOKUS_PRIOR_OWN_ATTACH_COVER] += bits_count(attach & cells);
        terms[BLOKUS_PRIOR_OPPONENT_FREE] += bits_count(view->opponent_free[row] & cells);
        terms[BLOKUS_PRIOR_CONTESTED] += bits_count(new_attach[i] & view->opponent_free[row]);
        terms[BLOKUS_PRIOR_CONTACT] += bits_count(footprint.edges[i] & view->opponent_own[row]);
        terms[BLOKUS_PRIOR_NEAR_OPPONENT_ATTACH] +=
            bits_count(view->near_opponent_attach[row] & cells);
        terms[BLOKUS_PRIOR_SIDES_GIVEN_UP] += bits_count(footprint.edges[i] & ~cells & free_before);
    }
    for (int i = 0; i < footprint.count; i++)
        count_open_sides(free_after, i + 1, new_attach[i], terms);
    int centre = blokus_centre_closeness(state, move);
    terms[BLOKUS_PRIOR_SIZE] = BLOKUS_PIECES[move.piece].size;
    terms[BLOKUS_PRIOR_OPENING_CENTRE] = view->is_opening ? centre : 0;
    terms[BLOKUS_PRIOR_CENTRE] = centre;
}

const blokus_prior_weights *blokus_prior_weights_for(const blokus_state *state)
{
    return state->mode == BLOKUS_MODE_DUO ? &BLOKUS_PRIOR_DUO : &BLOKUS_PRIOR_CLASSIC;
}

void blokus_prior_terms(const blokus_state *state, const blokus_move *moves, int count, int *terms)
{
    struct board_view view;
    board_view_init(state, &view);
    for (int i = 0; i < count; i++) {
        int *out = terms + (size_t)i * BLOKUS_PRIOR_TERM_COUNT;
        if (moves[i].piece == BLOKUS_PASS)
            memset(out, 0, sizeof(int) * BLOKUS_PRIOR_TERM_COUNT);
        else
            move_terms(state, &view, moves[i], out);
    }
}

void blokus_prior_score_moves(const blokus_state *state, const blokus_prior_weights *weights,
                              const blokus_move *moves, int count, int *scores)
{
    struct board_view view;
    board_view_init(state, &view);
    if (!weights)
        weights = blokus_prior_weights_for(state);
    for (int i = 0; i < count; i++) {
        int terms[BLOKUS_PRIOR_TERM_COUNT];
        if (moves[i].piece == BLOKUS_PASS) {
            scores[i] = 0;
            continue;
        }
        move_terms(state, &view, moves[i], terms);
        double sum = weights->weights[BLOKUS_PRIOR_TERM_COUNT + moves[i].piece];
        for (int k = 0; k < BLOKUS_PRIOR_TERM_COUNT; k++)
            sum += weights->weights[k] * terms[k];
        scores[i] = (int)lround(sum * BLOKUS_PRIOR_UNIT);
    }
}

/* blokus_movelists.c -- legal move generation from precomputed lists.
 *
 * Every legal placement covers one of the color's attach cells, so the
 * generator only looks at those. For each, it reads which of the cell's
 * eight neighbours the color may cover, walks the precomputed placements
 * through the cell (engine/blokus_cell_moves.h) in the groups whose edge
 * neighbours are all coverable (the others are never touched), rules out
 * with one test per entry the ones covering a forbidden diagonal neighbour
 * or a piece already used, and checks the rest row by row against the
 * free cells. A first move has one attach cell, the start cell, so it is a
 * filter of that cell's list instead of a scan of all 91 orientations.
 *
 * A placement covering two attach cells is in both lists. It is listed
 * once by a marker kept in the board itself: an attach cell, once walked,
 * leaves the cells a placement may cover, so a placement is emitted at the
 * first of its attach cells only, and the marked cell also counts as a
 * forbidden neighbour of the cells walked after it.
 *
 * The walk's cost grows with the number of attach cells, the whole-board
 * scan of blokus_movegen.c costs about the same in every position, so a
 * color with more than a few attach cells has its moves listed by the scan
 * (in its engine form); the walk answers the openings, every first move,
 * the endgames, and "can this color still move?" (the first fit ends the
 * walk). The former scan is the reference the tests compare the walk with,
 * and `tessera bench engine` times the engine against it. */
#include <string.h>

#include "engine/bits.h"
#include "engine/blokus.h"
#include "engine/blokus_cell_moves.h"

/* Past this many attach cells the scan lists a color's moves faster than
 * the walk: timed per position over random games, the walk costs about a
 * fifth of a scan per attach cell and wins clearly below five; in `tessera
 * bench engine` any limit from 5 to 8 gives the same figures within the
 * machine's noise. */
#define LIST_WALK_MAX_ATTACH_CELLS 5

/* Which neighbours of an attach cell a placement through it may cover. */
struct cell_pattern {
    uint32_t free_edges;          /* edge mask bits: the edge neighbours coverable */
    uint32_t forbidden_diagonals; /* diagonal bits not coverable, in entry position */
};

static const struct blokus_cell_moves *board_lists(const blokus_state *state)
{
    return state->size == BLOKUS_DUO_SIZE ? &BLOKUS_CELL_MOVES_DUO : &BLOKUS_CELL_MOVES_CLASSIC;
}

/* The cells (row, col - 1), (row, col), (row, col + 1) of a row as bits
 * 0..2. The row is shifted left first so column -1 reads as not free. */
static inline uint32_t three_cells(uint32_t row_bits, int col)
{
    return ((row_bits << 1) >> col) & 7u;
}

static inline uint32_t bit(uint32_t bits, int index)
{
    return (bits >> index) & 1u;
}

/* The pattern of (row, col) in `allowed`; rows off the board are never
 * allowed (row + 1 reads a padding row of zeros on the last board row). */
static struct cell_pattern pattern_at(const uint32_t *allowed, int row, int col)
{
    uint32_t above = row > 0 ? three_cells(allowed[row - 1], col) : 0;
    uint32_t beside = three_cells(allowed[row], col);
    uint32_t below = three_cells(allowed[row + 1], col);
    uint32_t free_diagonals =
        bit(above, 0) | bit(above, 2) << 1 | bit(below, 0) << 2 | bit(below, 2) << 3;
    struct cell_pattern pattern = {bit(above, 1) | bit(beside, 0) << 1 | bit(beside, 2) << 2 |
                                       bit(below, 1) << 3,
                                   (~free_diagonals & 0xFu) << BLOKUS_CELL_MOVE_DIAGONAL_SHIFT};
    return pattern;
}

/* Whether the placement of an entry covers cells of `allowed` only. All
 * five rows are tested, so the loop has no exit to mispredict: the rows of
 * an orientation past its height are empty, and `allowed` has padding rows
 * below the board. */
static inline bool entry_fits(const uint32_t *allowed, uint32_t entry)
{
    const uint8_t *row_masks = BLOKUS_ORIENTATIONS[entry & BLOKUS_CELL_MOVE_ID_BITS].row_masks;
    const uint32_t *rows = &allowed[(entry >> BLOKUS_CELL_MOVE_ROW_SHIFT) & 0x1F];
    int col = (int)(entry >> BLOKUS_CELL_MOVE_COL_SHIFT) & 0x1F;
    uint32_t clash = 0;
    for (int i = 0; i < BLOKUS_MAX_PIECE_SIZE; i++)
        clash |= ((uint32_t)row_masks[i] << col) & ~rows[i];
    return clash == 0;
}

static inline blokus_move entry_move(uint32_t entry)
{
    blokus_move move = {(uint8_t)((entry >> BLOKUS_CELL_MOVE_PIECE_SHIFT) & 0x1F),
                        (uint8_t)((entry >> BLOKUS_CELL_MOVE_INDEX_SHIFT) & 0x7),
                        (int8_t)((entry >> BLOKUS_CELL_MOVE_ROW_SHIFT) & 0x1F),
                        (int8_t)((entry >> BLOKUS_CELL_MOVE_COL_SHIFT) & 0x1F)};
    return move;
}

/* Writes the placements of the pieces in `left` through attach cell (row,
 * col) that cover `allowed` cells only, stopping at `limit`; returns how
 * many it wrote. The edge groups walked are the subsets of the coverable
 * edge neighbours, the empty one included. */
static int walk_cell(const struct blokus_cell_moves *lists, const uint32_t *allowed, uint32_t left,
                     int row, int col, blokus_move *moves, int limit)
{
    struct cell_pattern pattern = pattern_at(allowed, row, col);
    const uint32_t *starts =
        &lists->starts[(row * lists->size + col) * BLOKUS_CELL_MOVE_EDGE_MASKS];
    int count = 0;
    for (uint32_t edges = pattern.free_edges;; edges = (edges - 1) & pattern.free_edges) {
        for (uint32_t i = starts[edges]; i < starts[edges + 1]; i++) {
            uint32_t entry = lists->entries[i];
            if ((entry & pattern.forbidden_diagonals) ||
                !bit(left, (int)(entry >> BLOKUS_CELL_MOVE_PIECE_SHIFT) & 0x1F) ||
                !entry_fits(allowed, entry))
                continue;
            moves[count++] = entry_move(entry);
            if (count == limit)
                return count;
        }
        if (edges == 0)
            return count;
    }
}

static int attach_cell_count(const blokus_state *state, int color)
{
    int count = 0;
    for (int row = 0; row < state->size; row++)
        count += bits_count(state->attach[color][row]);
    return count;
}

int blokus_walk_generate_for(const blokus_state *state, int color, blokus_move *moves)
{
    uint32_t left = state->pieces_left[color];
    if ((state->out_mask & (1u << color)) || left == 0)
        return 0;
    const struct blokus_cell_moves *lists = board_lists(state);
    uint32_t allowed[BLOKUS_PADDED_ROWS];
    memcpy(allowed, state->free[color], sizeof(allowed));
    int count = 0;
    for (int row = 0; row < state->size; row++)
        for (uint32_t bits = state->attach[color][row]; bits; bits &= bits - 1) {
            int col = __builtin_ctz(bits);
            count += walk_cell(lists, allowed, left, row, col, moves + count, BLOKUS_MAX_MOVES);
            allowed[row] &= ~(1u << col); /* the marker: walked */
        }
    return count;
}

int blokus_generate_for(const blokus_state *state, int color, blokus_move *moves)
{
    if (attach_cell_count(state, color) > LIST_WALK_MAX_ATTACH_CELLS)
        return blokus_fast_scan_generate_for(state, color, moves);
    return blokus_walk_generate_for(state, color, moves);
}

int blokus_generate(const blokus_state *state, blokus_move *moves)
{
    if (state->is_over)
        return 0;
    return blokus_generate_for(state, state->to_move, moves);
}

bool blokus_find_move(const blokus_state *state, int color, blokus_move *out)
{
    out->piece = BLOKUS_PASS;
    uint32_t left = state->pieces_left[color];
    if ((state->out_mask & (1u << color)) || left == 0)
        return false;
    const struct blokus_cell_moves *lists = board_lists(state);
    for (int row = 0; row < state->size; row++)
        for (uint32_t bits = state->attach[color][row]; bits; bits &= bits - 1)
            if (walk_cell(lists, state->free[color], left, row, __builtin_ctz(bits), out, 1))
                return true;
    return false;
}

bool blokus_has_move(const blokus_state *state, int color)
{
    blokus_move move;
    return blokus_find_move(state, color, &move);
}

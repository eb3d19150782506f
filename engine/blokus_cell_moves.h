/* blokus_cell_moves.h -- the placements through each cell, precomputed.
 *
 * For a board of side `size` and cell (r, c), the placements that cover
 * the cell and lie wholly on the board, and cover exactly the cell's edge
 * neighbours in `edge_mask`, are
 *   entries[starts[(r * size + c) * 16 + edge_mask] ..
 *           starts[(r * size + c) * 16 + edge_mask + 1])
 * with edge_mask bit 0 the cell above, 1 the one left, 2 right, 3 below.
 * A generator that knows which edge neighbours a color may cover walks the
 * groups of the subsets of those only, so it never touches a placement
 * that runs into a forbidden edge neighbour: Pentobi's lists per pattern of
 * forbidden neighbours, without storing a placement once per pattern. Each
 * entry packs:
 *   bits 0-6    global orientation id (BLOKUS_ORIENTATIONS)
 *   bits 7-11   origin row
 *   bits 12-16  origin column
 *   bits 17-20  diagonal neighbours covered: (-1,-1) (-1,+1) (+1,-1) (+1,+1)
 *   bits 21-25  piece
 *   bits 26-28  orientation index within the piece
 * so the move is read from the entry alone, and the diagonal neighbours
 * and the pieces already used are ruled out without a table.
 * Written at build time by gen_blokus_tables.c; internal to the engine. */
#ifndef TESSERA_BLOKUS_CELL_MOVES_H
#define TESSERA_BLOKUS_CELL_MOVES_H

#include <stdint.h>

#define BLOKUS_CELL_MOVE_EDGE_MASKS     16
#define BLOKUS_CELL_MOVE_ID_BITS        0x7Fu
#define BLOKUS_CELL_MOVE_ROW_SHIFT      7
#define BLOKUS_CELL_MOVE_COL_SHIFT      12
#define BLOKUS_CELL_MOVE_DIAGONAL_SHIFT 17
#define BLOKUS_CELL_MOVE_PIECE_SHIFT    21
#define BLOKUS_CELL_MOVE_INDEX_SHIFT    26

struct blokus_cell_moves {
    int size;
    const uint32_t *starts;
    const uint32_t *entries;
};

extern const struct blokus_cell_moves BLOKUS_CELL_MOVES_CLASSIC;
extern const struct blokus_cell_moves BLOKUS_CELL_MOVES_DUO;

#endif

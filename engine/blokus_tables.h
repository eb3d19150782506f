/* blokus_tables.h -- the constant Blokus piece and orientation tables.
 *
 * The 21 pieces and their 91 distinct orientations (rotations and
 * reflections, de-duplicated) are computed at build time by
 * gen_blokus_tables.c from the drawings of the pieces, so the engine has no
 * start-up step and no mutable globals. Orientations of one piece are
 * contiguous: piece p owns ids first_orientation .. first_orientation +
 * orientation_count - 1, and orientation index i of p is global id
 * first_orientation + i. Cells are (row, col) offsets from the orientation's
 * origin, the top-left corner of its bounding box, sorted row-major. */
#ifndef TESSERA_BLOKUS_TABLES_H
#define TESSERA_BLOKUS_TABLES_H

#include <stdint.h>

#define BLOKUS_PIECE_COUNT       21
#define BLOKUS_ORIENTATION_COUNT 91
#define BLOKUS_MAX_PIECE_SIZE    5
#define BLOKUS_SQUARES_PER_COLOR 89

struct blokus_piece {
    const char *name;          /* standard name: "I1", "V3", "F", "Z5", ... */
    uint8_t size;              /* squares */
    uint8_t first_orientation; /* global id of orientation 0 */
    uint8_t orientation_count; /* 1 .. 8 */
};

struct blokus_orientation {
    uint8_t piece;                            /* index into BLOKUS_PIECES */
    uint8_t index;                            /* orientation index within the piece */
    uint8_t size;                             /* squares, 1 .. 5 */
    uint8_t height;                           /* bounding box rows */
    uint8_t width;                            /* bounding box columns */
    uint8_t cells[BLOKUS_MAX_PIECE_SIZE][2];  /* (row, col), row-major */
    uint8_t row_masks[BLOKUS_MAX_PIECE_SIZE]; /* bit c set: (row, c) covered */
};

extern const struct blokus_piece BLOKUS_PIECES[BLOKUS_PIECE_COUNT];
extern const struct blokus_orientation BLOKUS_ORIENTATIONS[BLOKUS_ORIENTATION_COUNT];

#endif

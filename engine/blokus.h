/* blokus.h -- Blokus rules: state, legal moves, scoring.
 *
 * A blokus_state is a plain value (about 1.2 KB, no pointers): copying it is
 * how search forks a position, so there is no undo. It is kept as bitboards,
 * one uint32_t per board row (bit c = column c), per color:
 *   own     cells the color covers,
 *   free    cells the color may still cover (on the board, empty, not edge-
 *           adjacent to its own pieces),
 *   attach  free cells diagonal to its own pieces (before its first move:
 *           its start cell); every new piece must cover one of them.
 * place() updates these incrementally around the placed piece only, and the
 * move generator walks precomputed lists of the placements through each
 * attach cell, or scans the whole board when there are many of them (see
 * blokus_movelists.c), so no move list is ever allocated.
 *
 * Colors 0 blue, 1 yellow, 2 red, 3 green play in rotation (Duo: 0 and 1).
 * A color with no legal placement passes automatically; once a color cannot
 * move it never can again (the board only fills), so it is marked out. The
 * game ends when every color is out. `ply` counts recorded turns: placements
 * and explicit passes (a lobby's timeout policy); automatic passes are not
 * turns. Rows and columns are 0-based, (0,0) is the top-left cell. */
#ifndef TESSERA_BLOKUS_H
#define TESSERA_BLOKUS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/blokus_tables.h"
#include "engine/engine_error.h"

#define BLOKUS_COLORS       4
#define BLOKUS_MAX_PLAYERS  4
#define BLOKUS_CLASSIC_SIZE 20
#define BLOKUS_DUO_SIZE     14
/* Board rows plus four rows of zeros, so reading a piece's rows below an
 * origin on the last board row never leaves the array. */
#define BLOKUS_PADDED_ROWS 24
/* Upper bound on the legal moves of one color in any position: the number
 * of placements of all orientations on an empty classic board. */
#define BLOKUS_MAX_MOVES 30433
/* blokus_move.piece of an explicit pass. */
#define BLOKUS_PASS 0xFF

typedef enum blokus_mode {
    BLOKUS_MODE_4P, /* four players, one color each */
    BLOKUS_MODE_3P, /* three players; color 3 is shared, played in turn, scores for nobody */
    BLOKUS_MODE_2P, /* two players: player 0 has colors 0 and 2, player 1 colors 1 and 3 */
    BLOKUS_MODE_DUO /* 14x14, two players, colors 0 and 1, start cells (4,4) and (9,9) */
} blokus_mode;

typedef enum blokus_scoring {
    BLOKUS_SCORING_SQUARES, /* squares placed (the Botpot rule, the default) */
    BLOKUS_SCORING_OFFICIAL /* -1 per unplaced square, +15 all placed, +5 if I1 was last */
} blokus_scoring;

/* A placement: orientation `orientation` (index within the piece) of
 * `piece`, with the orientation's origin (top-left of its bounding box) at
 * (row, col). piece == BLOKUS_PASS is a pass. */
typedef struct blokus_move {
    uint8_t piece;
    uint8_t orientation;
    int8_t row;
    int8_t col;
} blokus_move;

/* Whether two moves are the same: the same placement, or both a pass. */
static inline bool blokus_move_equal(blokus_move a, blokus_move b)
{
    return a.piece == b.piece && a.orientation == b.orientation && a.row == b.row && a.col == b.col;
}

typedef struct blokus_state {
    uint32_t own[BLOKUS_COLORS][BLOKUS_PADDED_ROWS];
    uint32_t free[BLOKUS_COLORS][BLOKUS_PADDED_ROWS];
    uint32_t attach[BLOKUS_COLORS][BLOKUS_PADDED_ROWS];
    uint32_t pieces_left[BLOKUS_COLORS]; /* bit p set: piece p not yet placed */
    uint8_t squares[BLOKUS_COLORS];      /* squares covered */
    uint8_t last_piece[BLOKUS_COLORS];   /* piece placed last, BLOKUS_PASS if none */
    uint8_t mode;                        /* blokus_mode */
    uint8_t scoring;                     /* blokus_scoring */
    uint8_t size;                        /* board side: 20 or 14 */
    uint8_t color_count;                 /* colors in rotation: 4, or 2 for Duo */
    uint8_t to_move;                     /* color to move (meaningless once over) */
    uint8_t out_mask;                    /* bit c set: color c can never move again */
    uint8_t shared_turns;                /* 3p: turns color 3 has taken, modulo 3 */
    uint8_t is_over;
    uint32_t ply; /* recorded turns so far */
    /* Per color, a placement found legal earlier (piece BLOKUS_PASS: none).
     * While it stays legal the color can still move, which is all the turn
     * order needs to know: checking it costs a few row tests where a search
     * for a move costs a generator walk. A hint, never part of a result. */
    blokus_move witness[BLOKUS_COLORS];
} blokus_state;

/* Parses "4p", "3p", "2p", "duo" / "squares", "official". 0 or -1. */
int blokus_mode_parse(const char *name, blokus_mode *mode);
int blokus_scoring_parse(const char *name, blokus_scoring *scoring);
/* Finds a piece by its standard name ("I1", "F", "Z5", ...). 0 or -1. */
int blokus_piece_parse(const char *name, int *piece);
const char *blokus_mode_name(blokus_mode mode);
const char *blokus_scoring_name(blokus_scoring scoring);

/* Number of players (seats) of a mode: 4, 3, 2 or 2. */
int blokus_player_count(blokus_mode mode);

/* The empty board of a mode, color 0 to move. */
void blokus_init(blokus_state *state, blokus_mode mode, blokus_scoring scoring);

/* The start cell color `color` must cover with its first piece. */
void blokus_start_cell(const blokus_state *state, int color, int *row, int *col);

/* The player who moves for the color to move (3p: color 3 rotates between
 * players 0, 1, 2). -1 when the game is over. */
int blokus_player_to_move(const blokus_state *state);

/* The player whose score a color's squares count for; -1 for 3p's color 3. */
int blokus_color_owner(const blokus_state *state, int color);

/* The color covering a cell, or -1 if empty or off the board. */
int blokus_cell(const blokus_state *state, int row, int col);

/* Whether `color` may cover (row, col) with a new piece at all (Botpot's
 * complement of unavailable_spots), and whether the cell is one a new piece
 * may attach through (Botpot's required_positions). */
bool blokus_is_free_cell(const blokus_state *state, int color, int row, int col);
bool blokus_is_attach_cell(const blokus_state *state, int color, int row, int col);

/* Checks a placement for the color to move: 0, or the engine_error naming
 * the first rule it breaks. Changes nothing. */
int blokus_check(const blokus_state *state, blokus_move move);

/* Checks that `player` is to move and the move is legal, then applies it.
 * A pass (piece BLOKUS_PASS) is accepted from the player to move. */
int blokus_play(blokus_state *state, int player, blokus_move move);

/* Applies a move known to be legal (from the generator, or checked) or a
 * pass, then advances the turn past colors that cannot move. */
void blokus_apply(blokus_state *state, blokus_move move);

/* Takes a color out of the game for good (its player resigned): it never
 * moves again, and the turn moves on if it was to move. */
void blokus_retire_color(blokus_state *state, int color);

/* Writes every legal placement of the color to move into `moves` (room for
 * BLOKUS_MAX_MOVES) and returns the count; 0 once the game is over. Each
 * move once, in an order of the generator's own (callers that need one
 * sort). */
int blokus_generate(const blokus_state *state, blokus_move *moves);

/* Same for any color, whether or not it is to move. */
int blokus_generate_for(const blokus_state *state, int color, blokus_move *moves);

/* The list walk alone (blokus_movelists.c), whatever the number of attach
 * cells: blokus_generate_for uses it for colors with few of them and
 * blokus_fast_scan_generate_for for the others. Same moves. */
int blokus_walk_generate_for(const blokus_state *state, int color, blokus_move *moves);

/* Whether `color` has at least one legal placement (stops at the first). */
bool blokus_has_move(const blokus_state *state, int color);

/* The first legal placement of `color` the list generator meets: true and
 * *out, or false and *out a pass when the color has none. */
bool blokus_find_move(const blokus_state *state, int color, blokus_move *out);

/* Number of legal placement sequences of `depth` plies from `state` (the
 * move-generator check). `buffers` has room for depth * BLOKUS_MAX_MOVES
 * moves; the last ply is counted, not applied. */
uint64_t blokus_perft(const blokus_state *state, int depth, blokus_move *buffers);

/* The reference: the engine's former generator, a whole-board bitboard
 * scan (blokus_movegen.c), kept so that tests check the list generator
 * against it and `tessera bench engine` times both in one run. The scan
 * finds the same moves as blokus_generate_for (ordered by orientation,
 * then origin) and the same answer as blokus_has_move. */
int blokus_scan_generate_for(const blokus_state *state, int color, blokus_move *moves);
bool blokus_scan_has_move(const blokus_state *state, int color);

/* The same scan as the engine runs it for colors with many attach cells:
 * Duo's rows packed two to a word and only the rows with moves walked out
 * (blokus_movegen.c). Same moves, same order as blokus_scan_generate_for. */
int blokus_fast_scan_generate_for(const blokus_state *state, int color, blokus_move *moves);

/* blokus_apply and blokus_perft as the engine ran them on the scan alone:
 * the next color's "can it move?" and perft's moves come from the scan.
 * Same results, the former speed. */
void blokus_scan_apply(blokus_state *state, blokus_move move);
uint64_t blokus_scan_perft(const blokus_state *state, int depth, blokus_move *buffers);

/* Finds the move covering exactly `cells` (count (row, col) pairs, any
 * order) for the color to move: 0 and *out, or ENGINE_E_NOT_A_PIECE when
 * the cells form no piece. The move is not checked for legality. */
int blokus_move_from_cells(const int cells[][2], int count, blokus_move *out);

/* The board cells a placement covers; returns their number (0 for a pass). */
int blokus_move_cells(blokus_move move, int cells[BLOKUS_MAX_PIECE_SIZE][2]);

/* The board rows around a placement, from the row above it to the row
 * below it (clipped to the board). For each: the piece's cells, the cells
 * sharing an edge with them, and the cells diagonal to them (which may
 * also be edge cells). What applying a move and judging one both need. */
typedef struct blokus_footprint {
    int first_row; /* board row of index 0 */
    int count;     /* rows described */
    uint32_t cells[BLOKUS_MAX_PIECE_SIZE + 2];
    uint32_t edges[BLOKUS_MAX_PIECE_SIZE + 2];
    uint32_t corners[BLOKUS_MAX_PIECE_SIZE + 2];
} blokus_footprint;

/* The footprint of a placement (not a pass) on `state`'s board. */
void blokus_move_footprint(const blokus_state *state, blokus_move move, blokus_footprint *out);

/* Closeness of a placement's most central cell to the board centre, in
 * steps: 0 in a corner, one less than the board size next to the centre. */
int blokus_centre_closeness(const blokus_state *state, blokus_move move);

/* Room for the sides or corners of any orientation. */
#define BLOKUS_MAX_OUTLINE 16

/* Botpot's outline of an orientation, as (row, col) offsets from its
 * origin (so -1 and height/width occur): `sides` are the cells sharing an
 * edge with the piece, `corners` the cells touching it only diagonally.
 * Returns the number of sides or corners written. */
int blokus_orientation_sides(int orientation_id, int sides[BLOKUS_MAX_OUTLINE][2]);
int blokus_orientation_corners(int orientation_id, int corners[BLOKUS_MAX_OUTLINE][2]);

/* Global orientation id (index into BLOKUS_ORIENTATIONS) of a placement. */
int blokus_orientation_id(blokus_move move);

/* A placement's index among all orientations and origins of the classic
 * board (Duo's fit in), in [0, BLOKUS_MOVE_KEYS): for tables indexed by
 * move. Not for a pass. */
#define BLOKUS_MOVE_KEYS (BLOKUS_ORIENTATION_COUNT * BLOKUS_CLASSIC_SIZE * BLOKUS_CLASSIC_SIZE)
int blokus_move_key(blokus_move move);

/* Score of one color under the state's scoring (3p's color 3 included). */
int blokus_color_score(const blokus_state *state, int color);

/* Score of each player (blokus_player_count entries). */
void blokus_scores(const blokus_state *state, int scores[BLOKUS_MAX_PLAYERS]);

/* Bit p set for each player with the highest score (ties share the win). */
unsigned blokus_winners(const blokus_state *state);

#endif

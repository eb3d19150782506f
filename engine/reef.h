/* reef.h -- Reef Builder rules: state, piece generator, legal actions, scoring.
 *
 * Reef Builder is a single-player endurance puzzle on an 8x6 board: place
 * two-cell pieces, every same-color orthogonal group of 4 or more cells
 * "blooms" (clears) and scores, and the run ends when no piece fits anywhere.
 * docs/ARCHITECTURE.md, "Reef Builder rules" is the specification this module
 * follows, and "Reef Builder piece generator" there defines reef-gen-1.
 *
 * A reef_state is a plain value (under 100 bytes, no pointers): copying it is
 * how a bot forks a position, so there is no undo. The board is kept as one
 * 48-bit mask per color, bit (row * REEF_COLS + col), so finding groups is a
 * few shifts per step of a flood fill and "does any piece still fit" is two
 * AND operations. The state also carries the piece generator, which makes a
 * game a pure function of its seed and its action list: replaying them is how
 * the server rebuilds (and verifies) a run.
 *
 * Every function that takes an action validates it first: a refused action
 * returns a negative engine_error and leaves the state untouched, so user
 * input can be passed straight in. Rows and columns are 0-based, (0,0) is the
 * top-left cell. */
#ifndef TESSERA_REEF_H
#define TESSERA_REEF_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine_error.h"
#include "engine/rng.h"

#define REEF_ROWS         8
#define REEF_COLS         6
#define REEF_CELLS        (REEF_ROWS * REEF_COLS)
#define REEF_COLORS       5
#define REEF_SKIPS        3
#define REEF_ORIENTATIONS 4
/* Every (row, col, orientation) plus the skip: a safe size for action lists. */
#define REEF_MAX_ACTIONS (REEF_CELLS * REEF_ORIENTATIONS + 1)
/* A piece has two cells and each bloom contains one of them. */
#define REEF_MAX_BLOOMS 2
/* Groups of this size or more bloom. */
#define REEF_BLOOM_SIZE 4
#define REEF_SKIP_COST  50
/* Runs played well never end (a good bot survives 100,000 actions), so a
 * room caps each board, an hour or so of human play; runs of at most this
 * many turns are the ones the Reef leaderboards compare. */
#define REEF_STANDARD_TURNS 1000
/* Streaks past this many blooms multiply no more (x3). */
#define REEF_MAX_STREAK_STEP 4

typedef enum reef_color {
    REEF_EMPTY = 0,
    REEF_RED = 1,
    REEF_BLUE = 2,
    REEF_GREEN = 3,
    REEF_YELLOW = 4,
    REEF_PURPLE = 5
} reef_color;

/* The two halves of a piece: anchor A and partner B, each a reef_color. */
typedef struct reef_piece {
    uint8_t a;
    uint8_t b;
} reef_piece;

typedef enum reef_action_type { REEF_ACTION_PLACE = 0, REEF_ACTION_SKIP = 1 } reef_action_type;

/* A placement puts A at (row, col) and B at the orientation's offset:
 * 0 right of A, 90 below, 180 left, 270 above (degrees). A skip ignores
 * row, col and orientation. */
typedef struct reef_action {
    reef_action_type type;
    int row;
    int col;
    int orientation;
} reef_action;

/* reef-gen-1: splitmix64 seeded with the game seed, plus the index k of the
 * next piece to draw (the palette widens and doubles grow with k). */
typedef struct reef_generator {
    rng rng;
    uint64_t drawn;
} reef_generator;

typedef struct reef_state {
    uint64_t color_cells[REEF_COLORS]; /* [color - 1]: 48-bit mask of its cells */
    reef_generator generator;          /* positioned after `next` */
    reef_piece current;
    reef_piece next;
    int64_t score;
    uint32_t streak;     /* consecutive blooming placements, uncapped */
    uint32_t turns;      /* actions played: placements and skips */
    uint32_t placements; /* pieces placed */
    uint32_t blooms;     /* groups cleared in the whole run */
    uint8_t skips_left;
    uint8_t is_over;
} reef_state;

/* One cleared group: its color, its size and its cells (bit row*6+col). */
typedef struct reef_bloom {
    uint8_t color;
    uint8_t size;
    uint64_t cells;
} reef_bloom;

/* What reef_play did. points is the score change: bloom points, 0, or the
 * (negative) skip cost after flooring the score at 0. Blooms are listed
 * anchor's group first. */
typedef struct reef_result {
    int64_t points;
    int bloom_count;
    reef_bloom blooms[REEF_MAX_BLOOMS];
    bool is_over;
} reef_result;

typedef struct reef_cell {
    int row;
    int col;
} reef_cell;

/* A position to start from instead of the empty board: for tests, puzzles
 * and tools, never for a scored run (only reef_init's runs are genuine).
 * `board` lists the 48 cells row by row as 'R','B','G','Y','P' or '.';
 * whitespace is skipped, so rows may be written as separate strings. The
 * pieces drawn after `next` are reef-gen-1's draws 2, 3, ... of `seed`. */
typedef struct reef_setup {
    uint64_t seed;
    const char *board;
    reef_piece current;
    reef_piece next;
    int64_t score;
    uint32_t streak;
    uint32_t skips_left;
} reef_setup;

/* The letter of a color ('R','B','G','Y','P'; '.' for REEF_EMPTY), or '?' for
 * a value that is no color. */
char reef_color_letter(int color);

/* The color of a letter ('.' is REEF_EMPTY), or ENGINE_E_BAD_ARGUMENT. Upper
 * case only, as the public game writes them. */
int reef_color_from_letter(char letter);

/* The most piece kinds reef_piece_chances lists: the unordered color pairs. */
#define REEF_PIECE_KINDS (REEF_COLORS * (REEF_COLORS + 1) / 2)

/* The pieces reef-gen-1 may draw as piece k = `draw` and their chances, in
 * units of 1 / (100 n^2) for a palette of n colors: what a player can know
 * of a piece not yet shown. A mixed piece and its mirror (AB, BA) cover the
 * same placements, so they are one entry (a <= b). Returns the count. */
int reef_piece_chances(uint64_t draw, reef_piece pieces[REEF_PIECE_KINDS],
                       int64_t chances[REEF_PIECE_KINDS]);

/* A generator about to draw piece k = 0 of `seed`. */
reef_generator reef_generator_init(uint64_t seed);

/* Draws the next piece exactly as reef-gen-1 specifies. */
reef_piece reef_generator_next(reef_generator *generator);

/* Starts a run: empty board, score 0, streak 0, three skips, current and
 * next piece are draws 0 and 1 of `seed`. */
void reef_init(reef_state *state, uint64_t seed);

/* Starts from a described position (see reef_setup). Returns 0, or
 * ENGINE_E_BAD_ARGUMENT if a letter, a piece color, the score, the skips or
 * the cell count is invalid, or a group of 4+ cells is already on the board;
 * *state is then untouched. A board where nothing fits gives an ended run. */
int reef_init_custom(reef_state *state, const reef_setup *setup);

/* 0 if `action` may be played now, else why not: ENGINE_E_GAME_OVER,
 * ENGINE_E_BAD_ARGUMENT (unknown type, or a corrupted current piece), ENGINE_E_NO_SKIPS,
 * ENGINE_E_BAD_ORIENTATION, ENGINE_E_OUT_OF_BOUNDS or ENGINE_E_OCCUPIED. */
int reef_check(const reef_state *state, reef_action action);

/* Checks, then plays `action`: place and bloom, or skip; then draw the next
 * piece and end the run if nothing fits. Returns 0 or reef_check's error
 * (state unchanged). `result` may be NULL. */
int reef_play(reef_state *state, reef_action action, reef_result *result);

/* Writes every legal action to `out`: the placements that fit in ascending
 * (row, col, orientation) order, then the skip if any skip is left.
 * Returns the count, 0 once the run has ended. */
int reef_legal_actions(const reef_state *state, reef_action out[REEF_MAX_ACTIONS]);

/* Number of placements that fit (the orientations of each adjacent pair of
 * empty cells); 0 exactly when the run is over. */
int reef_fitting_placements(const reef_state *state);

/* The points of the given simultaneous blooms (group sizes) at `streak`:
 * sum of 50N-100, +50 per group beyond the first, times the multiplier. */
int64_t reef_bloom_points(const uint8_t sizes[], int count, uint32_t streak);

/* `base` times the streak multiplier (x1, x1.5, x2, x2.5, x3 for streak
 * 0, 1, 2, 3, >=4), floored; computed in integer halves. */
int64_t reef_apply_streak(int64_t base, uint32_t streak);

/* The color at (row, col), or ENGINE_E_OUT_OF_BOUNDS. */
int reef_cell_color(const reef_state *state, int row, int col);

/* Mask of all occupied cells (bit row*6+col). */
uint64_t reef_occupied(const reef_state *state);

/* The cells orthogonally adjacent to some cell of `mask`, on the board. */
uint64_t reef_mask_neighbors(uint64_t mask);

/* The group of the cells of `seed`: grown through orthogonal neighbours
 * within `color_mask` (seed cells outside it are ignored). */
uint64_t reef_mask_group(uint64_t seed, uint64_t color_mask);

/* Lists the cells of a 48-bit mask in row-major order; returns the count. */
int reef_mask_cells(uint64_t mask, reef_cell out[REEF_CELLS]);

/* Writes the board as 8 rows of 6 letters separated by '\n' plus a final
 * NUL (REEF_BOARD_TEXT bytes): the reef_setup.board format. */
#define REEF_BOARD_TEXT (REEF_ROWS * (REEF_COLS + 1))
void reef_board_text(const reef_state *state, char out[REEF_BOARD_TEXT]);

/* The placement action A at (row, col), B at `orientation` degrees. */
reef_action reef_place(int row, int col, int orientation);

/* The skip action. */
reef_action reef_skip(void);

/* The score so far (never negative). */
int64_t reef_score(const reef_state *state);

/* Consecutive blooming placements so far (the multiplier caps at 4). */
uint32_t reef_streak(const reef_state *state);

/* Skips still available, 0 to 3. */
int reef_skips_left(const reef_state *state);

/* True once no piece fits anywhere; nothing more can be played. */
bool reef_is_over(const reef_state *state);

/* The piece the next placement puts down. */
reef_piece reef_current(const reef_state *state);

/* The piece after it, visible to the player. */
reef_piece reef_next(const reef_state *state);

/* Actions played so far (placements and skips). */
uint32_t reef_turns(const reef_state *state);

/* Pieces placed so far (turns minus skips). */
uint32_t reef_placements(const reef_state *state);

/* Groups bloomed so far in the whole run. */
uint32_t reef_blooms(const reef_state *state);

/* Pieces drawn from the generator so far, current and next included. */
uint64_t reef_pieces_drawn(const reef_state *state);

/* The day's seed, the same for everyone that UTC day: the date written as
 * the number YYYYMMDD (2026-11-24 -> 20261124). `unix_ms` is milliseconds
 * since the Unix epoch (negative before it). */
uint64_t reef_daily_seed(int64_t unix_ms);

#endif

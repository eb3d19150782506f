/* blokus_movegen.c -- legal move generation, whole board at a time.
 *
 * An orientation with origin (r, c) fits when every cell (dr, dc) of it is
 * free, and is legal when one of them is also an attach cell. Bit c of
 * free[r + dr] >> dc says whether cell (dr, dc) is free for origin (r, c),
 * so ANDing those shifted rows over the orientation's cells gives, in one
 * pass, the fitting origins of all columns of a row; ORing the same shifts
 * of the attach rows gives the origins that touch an attach cell. The five
 * column shifts of both boards are computed once per call, after which each
 * orientation costs (cells x rows) word operations that the compiler
 * vectorizes, independent of how many attach cells there are. Each
 * (orientation, origin) pair is produced once, so no de-duplication is
 * needed, and off-board origins fall out because rows and columns past the
 * board edge are never free. */
#include "engine/blokus.h"

#include <string.h>

/* At most this many origin rows are scanned: the whole classic board. */
#define SCAN_ROWS BLOKUS_CLASSIC_SIZE
#define SHIFTS    BLOKUS_MAX_PIECE_SIZE
/* Shifted rows: a scan rounded up to 4 rows may start 3 rows past the last
 * board row and read 4 rows below that. */
#define SHIFTED_ROWS (BLOKUS_PADDED_ROWS + 4)

/* free and attach rows of one color, pre-shifted right by 0..4 columns, and
 * the band of origin rows worth scanning: a piece can only cover an attach
 * cell from an origin at most 4 rows above it. */
struct shifted_boards {
    uint32_t free[SHIFTS][SHIFTED_ROWS];
    uint32_t attach[SHIFTS][SHIFTED_ROWS];
    int first_row; /* first origin row scanned */
    int rows;      /* origin rows scanned, a multiple of 4; 0 when nothing attaches */
};

static void shift_boards(const blokus_state *s, int color, struct shifted_boards *b)
{
    int lowest = -1, highest = -1;
    for (int r = 0; r < s->size; r++)
        if (s->attach[color][r]) {
            lowest = lowest < 0 ? r : lowest;
            highest = r;
        }
    b->first_row = lowest > 4 ? lowest - 4 : 0;
    b->rows = lowest < 0 ? 0 : (highest - b->first_row + 4) & ~3;
    for (int dc = 0; dc < SHIFTS; dc++) {
        for (int r = 0; r < BLOKUS_PADDED_ROWS; r++) {
            b->free[dc][r] = s->free[color][r] >> dc;
            b->attach[dc][r] = s->attach[color][r] >> dc;
        }
        memset(&b->free[dc][BLOKUS_PADDED_ROWS], 0, sizeof(uint32_t) * 4);
        memset(&b->attach[dc][BLOKUS_PADDED_ROWS], 0, sizeof(uint32_t) * 4);
    }
}

/* Four consecutive rows, one SIMD register (SSE2 on any x86-64). */
typedef uint32_t row_quad __attribute__((vector_size(16)));

static inline row_quad load_quad(const uint32_t *rows)
{
    row_quad q;
    memcpy(&q, rows, sizeof(q));
    return q;
}

/* Legal origins of one orientation in the scanned band: origins[i] holds
 * origin row b->first_row + i. Returns the OR of all rows (non-zero when
 * any origin is legal). Rows go four at a time, all cells of the piece per
 * quad, so both accumulators stay in registers. */
static inline uint32_t orientation_origins(const struct shifted_boards *b,
                                           const struct blokus_orientation *o,
                                           uint32_t origins[SCAN_ROWS])
{
    row_quad any = {0, 0, 0, 0};
    for (int r = 0; r < b->rows; r += 4) {
        int row = b->first_row + r;
        row_quad fits = load_quad(&b->free[o->cells[0][1]][row + o->cells[0][0]]);
        row_quad touches = load_quad(&b->attach[o->cells[0][1]][row + o->cells[0][0]]);
        for (int i = 1; i < o->size; i++) {
            fits &= load_quad(&b->free[o->cells[i][1]][row + o->cells[i][0]]);
            touches |= load_quad(&b->attach[o->cells[i][1]][row + o->cells[i][0]]);
        }
        fits &= touches;
        memcpy(&origins[r], &fits, sizeof(fits));
        any |= fits;
    }
    return any[0] | any[1] | any[2] | any[3];
}

static int emit_origins(const struct shifted_boards *b, const struct blokus_orientation *o,
                        const uint32_t *origins, blokus_move *moves, int count)
{
    for (int i = 0; i < b->rows; i++) {
        uint32_t bits = origins[i];
        int row = b->first_row + i;
        while (bits) {
            blokus_move m = {o->piece, o->index, (int8_t)row, (int8_t)__builtin_ctz(bits)};
            moves[count++] = m;
            bits &= bits - 1;
        }
    }
    return count;
}

int blokus_generate_for(const blokus_state *s, int color, blokus_move *moves)
{
    if (s->out_mask & (1u << color))
        return 0;
    struct shifted_boards b;
    shift_boards(s, color, &b);
    int count = 0;
    uint32_t left = s->pieces_left[color];
    for (int id = 0; id < BLOKUS_ORIENTATION_COUNT; id++) {
        const struct blokus_orientation *o = &BLOKUS_ORIENTATIONS[id];
        uint32_t origins[SCAN_ROWS];
        if (!(left & (1u << o->piece)))
            continue;
        if (orientation_origins(&b, o, origins))
            count = emit_origins(&b, o, origins, moves, count);
    }
    return count;
}

int blokus_generate(const blokus_state *s, blokus_move *moves)
{
    if (s->is_over)
        return 0;
    return blokus_generate_for(s, s->to_move, moves);
}

bool blokus_has_move(const blokus_state *s, int color)
{
    if (s->out_mask & (1u << color))
        return false;
    struct shifted_boards b;
    shift_boards(s, color, &b);
    uint32_t left = s->pieces_left[color];
    /* Largest pieces first: they are the likeliest to fit anywhere early,
     * and the answer is needed only once. */
    for (int id = BLOKUS_ORIENTATION_COUNT - 1; id >= 0; id--) {
        const struct blokus_orientation *o = &BLOKUS_ORIENTATIONS[id];
        uint32_t origins[SCAN_ROWS];
        if ((left & (1u << o->piece)) && orientation_origins(&b, o, origins))
            return true;
    }
    return false;
}

uint64_t blokus_perft(const blokus_state *s, int depth, blokus_move *buffers)
{
    int count = blokus_generate(s, buffers);
    if (depth <= 1)
        return (uint64_t)count;
    uint64_t total = 0;
    for (int i = 0; i < count; i++) {
        blokus_state child = *s;
        blokus_apply(&child, buffers[i]);
        total += blokus_perft(&child, depth - 1, buffers + BLOKUS_MAX_MOVES);
    }
    return total;
}

/* blokus_movegen.c -- the whole-board scan generator.
 *
 * This was the engine's only generator; the list walk of blokus_movelists.c
 * now lists the moves of colors with few attach cells and this scan those
 * of the others. Kept unchanged (blokus_scan_*), it is also the reference
 * the tests check the walk against, and `tessera bench engine` times the
 * engine against the scan alone as the engine ran before.
 *
 * An orientation with origin (r, c) fits when every cell (dr, dc) of it is
 * free, and is legal when one of them is also an attach cell. Bit c of
 * free[r + dr] >> dc says whether cell (dr, dc) is free for origin (r, c),
 * so ANDing those shifted rows over the orientation's cells gives, in one
 * pass, the fitting origins of all columns of a row; ORing the same shifts
 * of the attach rows gives the origins that touch an attach cell. The five
 * column shifts of both boards are computed once per call, only for the
 * band of rows from which a piece can reach an attach cell; after that each
 * orientation costs (cells x rows / 8) vector operations, eight rows per
 * vector, independent of how many attach cells there are. The generator is
 * compiled twice (AVX2 and plain x86-64) and the loader picks the one the
 * CPU runs. Each (orientation, origin) pair is produced once, so no
 * de-duplication is needed, and off-board origins fall out because rows
 * and columns past the board edge are never free.
 *
 * The engine's own scan (blokus_fast_scan_generate_for) differs in two
 * measured ways, the reference keeping the former code path exactly: a Duo
 * band of more than eight rows is packed two board rows to a 32-bit word,
 * so one vector covers it where the reference needs two, and the moves are
 * written out only from the rows that have any, found without a branch
 * (the former per-row test mispredicted on most rows). Together they make
 * random games 1.15-1.3x faster (`tessera bench engine`). */
#include "engine/blokus.h"

#include <string.h>

/* The generator is compiled for AVX2 and for plain x86-64, the loader
 * picking one (GCC; clang 14 does not emit the clones' resolver). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CLONED_FOR_AVX2 __attribute__((target_clones("avx2", "default")))
#else
#define CLONED_FOR_AVX2
#endif

/* Rows go through the SIMD loops eight at a time. */
#define LANES 8
/* At most this many origin rows are scanned: the classic board, rounded up
 * to whole vectors. */
#define SCAN_ROWS 24
#define SHIFTS    BLOKUS_MAX_PIECE_SIZE
/* Shifted rows: a scan rounded up to 8 rows may run 7 rows past the last
 * board row and read 4 rows below that. */
#define SHIFTED_ROWS 32

/* free and attach rows of one color, pre-shifted right by 0..4 columns, and
 * the band of origin rows worth scanning: a piece can only cover an attach
 * cell from an origin at most 4 rows above it. */
struct shifted_boards {
    uint32_t free[SHIFTS][SHIFTED_ROWS];
    uint32_t attach[SHIFTS][SHIFTED_ROWS];
    int first_row;  /* first origin row scanned */
    int rows;       /* origin rows scanned, a multiple of LANES; 0 when nothing attaches */
    bool is_packed; /* two board rows per row, see pack_boards */
};

/* Board rows past the padded board read as zero. */
static inline uint32_t row_or_zero(const uint32_t *rows, int row)
{
    return row < BLOKUS_PADDED_ROWS ? rows[row] : 0;
}

/* The engine's scan of a board at most 16 columns wide (Duo) whose band
 * needs two vectors of rows: row r of the shifted boards holds board row r
 * in its low half and board row r + LANES in its high half (each shifted
 * before packing, so no bit crosses the halves). The bitwise operations of
 * the scan act on both halves at once, so the band takes one vector. */
static void pack_boards(const blokus_state *state, int color, struct shifted_boards *boards)
{
    boards->rows = LANES;
    boards->is_packed = true;
    int end = boards->first_row + LANES + BLOKUS_MAX_PIECE_SIZE - 1;
    for (int r = boards->first_row; r < end; r++) {
        uint32_t free_low = row_or_zero(state->free[color], r);
        uint32_t free_high = row_or_zero(state->free[color], r + LANES);
        uint32_t attach_low = row_or_zero(state->attach[color], r);
        uint32_t attach_high = row_or_zero(state->attach[color], r + LANES);
        for (int dc = 0; dc < SHIFTS; dc++) {
            boards->free[dc][r] = free_low >> dc | (free_high >> dc) << 16;
            boards->attach[dc][r] = attach_low >> dc | (attach_high >> dc) << 16;
        }
    }
}

/* Only the rows a scan of the band reads are shifted: origin rows plus the
 * four below them (rows past the padded board read as zero). `may_pack`:
 * the engine's scan, which packs a Duo band of two vectors into one. */
static void shift_boards(const blokus_state *state, int color, struct shifted_boards *boards,
                         bool may_pack)
{
    int lowest = -1, highest = -1;
    for (int r = 0; r < state->size; r++)
        if (state->attach[color][r]) {
            lowest = lowest < 0 ? r : lowest;
            highest = r;
        }
    boards->first_row = lowest > 4 ? lowest - 4 : 0;
    boards->rows = lowest < 0 ? 0 : (highest - boards->first_row + LANES) & ~(LANES - 1);
    boards->is_packed = false;
    if (may_pack && state->size <= 16 && boards->rows == 2 * LANES) {
        pack_boards(state, color, boards);
        return;
    }
    int end = boards->first_row + boards->rows + BLOKUS_MAX_PIECE_SIZE - 1;
    for (int r = boards->first_row; r < end; r++) {
        uint32_t free_row = r < BLOKUS_PADDED_ROWS ? state->free[color][r] : 0;
        uint32_t attach_row = r < BLOKUS_PADDED_ROWS ? state->attach[color][r] : 0;
        for (int dc = 0; dc < SHIFTS; dc++) {
            boards->free[dc][r] = free_row >> dc;
            boards->attach[dc][r] = attach_row >> dc;
        }
    }
}

/* Eight consecutive rows: one AVX2 register, or two SSE2 ones. */
typedef uint32_t row_vector __attribute__((vector_size(4 * LANES)));

/* Through a pointer: a 32-byte vector passed by value changes the ABI. */
static inline void load_rows(row_vector *out, const uint32_t *rows)
{
    memcpy(out, rows, sizeof(*out));
}

/* Legal origins of one orientation in the scanned band: origins[i] holds
 * origin row b->first_row + i. Returns the OR of all rows (non-zero when
 * any origin is legal). Rows go LANES at a time, all cells of the piece per
 * vector, so both accumulators stay in registers. */
static inline uint32_t orientation_origins(const struct shifted_boards *boards,
                                           const struct blokus_orientation *orientation,
                                           uint32_t origins[SCAN_ROWS])
{
    row_vector any = {0};
    for (int r = 0; r < boards->rows; r += LANES) {
        int row = boards->first_row + r;
        row_vector fits, touches, cell_free, cell_attach;
        load_rows(&fits, &boards->free[orientation->cells[0][1]][row + orientation->cells[0][0]]);
        load_rows(&touches,
                  &boards->attach[orientation->cells[0][1]][row + orientation->cells[0][0]]);
        for (int i = 1; i < orientation->size; i++) {
            load_rows(&cell_free,
                      &boards->free[orientation->cells[i][1]][row + orientation->cells[i][0]]);
            load_rows(&cell_attach,
                      &boards->attach[orientation->cells[i][1]][row + orientation->cells[i][0]]);
            fits &= cell_free;
            touches |= cell_attach;
        }
        fits &= touches;
        memcpy(&origins[r], &fits, sizeof(fits));
        any |= fits;
    }
    uint32_t result = 0;
    for (int lane = 0; lane < LANES; lane++)
        result |= any[lane];
    return result;
}

static int emit_origins(const struct shifted_boards *boards,
                        const struct blokus_orientation *orientation, const uint32_t *origins,
                        blokus_move *moves, int count)
{
    for (int i = 0; i < boards->rows; i++) {
        uint32_t bits = origins[i];
        int row = boards->first_row + i;
        while (bits) {
            blokus_move move = {orientation->piece, orientation->index, (int8_t)row,
                                (int8_t)__builtin_ctz(bits)};
            moves[count++] = move;
            bits &= bits - 1;
        }
    }
    return count;
}

/* The engine's emission: the rows holding origins are found first, without
 * a branch, and only they are walked; packed rows are unpacked first. */
static int emit_busy_rows(const struct shifted_boards *boards,
                          const struct blokus_orientation *orientation, const uint32_t *scanned,
                          blokus_move *moves, int count)
{
    uint32_t unpacked[2 * LANES];
    const uint32_t *origins = scanned;
    int rows = boards->rows;
    if (boards->is_packed) {
        for (int i = 0; i < LANES; i++) {
            unpacked[i] = scanned[i] & 0xFFFFu;
            unpacked[i + LANES] = scanned[i] >> 16;
        }
        origins = unpacked;
        rows = 2 * LANES;
    }
    uint32_t busy = 0;
    /* At most SCAN_ROWS rows, always; said so for the compiler, which
     * cannot see it through the struct and warns of reading past them. */
    for (int i = 0; i < rows && i < SCAN_ROWS; i++)
        busy |= (uint32_t)(origins[i] != 0) << i;
    blokus_move move = {orientation->piece, orientation->index, 0, 0};
    for (; busy; busy &= busy - 1) {
        int i = __builtin_ctz(busy);
        move.row = (int8_t)(boards->first_row + i);
        for (uint32_t bits = origins[i]; bits; bits &= bits - 1) {
            move.col = (int8_t)__builtin_ctz(bits);
            moves[count++] = move;
        }
    }
    return count;
}

/* The scan, the former way (the reference) or the engine's. */
static inline int scan_generate(const blokus_state *state, int color, blokus_move *moves,
                                bool is_engine)
{
    if (state->out_mask & (1u << color))
        return 0;
    struct shifted_boards boards;
    shift_boards(state, color, &boards, is_engine);
    int count = 0;
    uint32_t left = state->pieces_left[color];
    for (int id = 0; id < BLOKUS_ORIENTATION_COUNT; id++) {
        const struct blokus_orientation *orientation = &BLOKUS_ORIENTATIONS[id];
        uint32_t origins[SCAN_ROWS];
        if (!(left & (1u << orientation->piece)))
            continue;
        if (!orientation_origins(&boards, orientation, origins))
            continue;
        count = is_engine ? emit_busy_rows(&boards, orientation, origins, moves, count)
                          : emit_origins(&boards, orientation, origins, moves, count);
    }
    return count;
}

CLONED_FOR_AVX2 int blokus_scan_generate_for(const blokus_state *state, int color,
                                             blokus_move *moves)
{
    return scan_generate(state, color, moves, false);
}

CLONED_FOR_AVX2 int blokus_fast_scan_generate_for(const blokus_state *state, int color,
                                                  blokus_move *moves)
{
    return scan_generate(state, color, moves, true);
}

CLONED_FOR_AVX2 bool blokus_scan_has_move(const blokus_state *state, int color)
{
    if (state->out_mask & (1u << color))
        return false;
    struct shifted_boards boards;
    shift_boards(state, color, &boards, false);
    uint32_t left = state->pieces_left[color];
    /* Largest pieces first: they are the likeliest to fit anywhere early,
     * and the answer is needed only once. */
    for (int id = BLOKUS_ORIENTATION_COUNT - 1; id >= 0; id--) {
        const struct blokus_orientation *orientation = &BLOKUS_ORIENTATIONS[id];
        uint32_t origins[SCAN_ROWS];
        if ((left & (1u << orientation->piece)) &&
            orientation_origins(&boards, orientation, origins))
            return true;
    }
    return false;
}

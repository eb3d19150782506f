/* blokus.c -- Blokus rules on bitboards: setup, turn order, checking and
 * applying moves, scoring.
 *
 * Applying a move only touches the rows from one above the piece to one
 * below it: the piece's cells leave every color's free set, its edge
 * neighbours leave its own color's free set, its diagonal neighbours join
 * its own attach set, and every attach set is trimmed to its free set.
 * Move generation lives in blokus_movelists.c (the reference scan in
 * blokus_movegen.c). */
#include "engine/blokus.h"

#include <stdlib.h>
#include <string.h>

#define PIECE_I1 0

static const char *const MODE_NAMES[] = {"4p", "3p", "2p", "duo"};
static const char *const SCORING_NAMES[] = {"squares", "official"};

/* Start cells (row, col) per color on the classic board; Duo's two colors
 * use DUO_START instead. */
static const int CLASSIC_START[BLOKUS_COLORS][2] = {{0, 0}, {0, 19}, {19, 19}, {19, 0}};
static const int DUO_START[2][2] = {{4, 4}, {9, 9}};

static int parse_name(const char *name, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

int blokus_mode_parse(const char *name, blokus_mode *mode)
{
    int index = parse_name(name, MODE_NAMES, 4);
    if (index < 0)
        return -1;
    *mode = (blokus_mode)index;
    return 0;
}

int blokus_scoring_parse(const char *name, blokus_scoring *scoring)
{
    int index = parse_name(name, SCORING_NAMES, 2);
    if (index < 0)
        return -1;
    *scoring = (blokus_scoring)index;
    return 0;
}

int blokus_piece_parse(const char *name, int *piece)
{
    const char *names[BLOKUS_PIECE_COUNT];
    for (int p = 0; p < BLOKUS_PIECE_COUNT; p++)
        names[p] = BLOKUS_PIECES[p].name;
    int index = parse_name(name, names, BLOKUS_PIECE_COUNT);
    if (index < 0)
        return -1;
    *piece = index;
    return 0;
}

const char *blokus_mode_name(blokus_mode mode)
{
    return MODE_NAMES[mode];
}

const char *blokus_scoring_name(blokus_scoring scoring)
{
    return SCORING_NAMES[scoring];
}

int blokus_player_count(blokus_mode mode)
{
    static const int counts[] = {4, 3, 2, 2};
    return counts[mode];
}

void blokus_start_cell(const blokus_state *state, int color, int *row, int *col)
{
    const int *cell = state->mode == BLOKUS_MODE_DUO ? DUO_START[color] : CLASSIC_START[color];
    *row = cell[0];
    *col = cell[1];
}

void blokus_init(blokus_state *state, blokus_mode mode, blokus_scoring scoring)
{
    memset(state, 0, sizeof(*state));
    state->mode = (uint8_t)mode;
    state->scoring = (uint8_t)scoring;
    state->size = mode == BLOKUS_MODE_DUO ? BLOKUS_DUO_SIZE : BLOKUS_CLASSIC_SIZE;
    state->color_count = mode == BLOKUS_MODE_DUO ? 2 : BLOKUS_COLORS;
    uint32_t full_row = (1u << state->size) - 1;
    for (int color = 0; color < state->color_count; color++) {
        int row, col;
        for (int r = 0; r < state->size; r++)
            state->free[color][r] = full_row;
        blokus_start_cell(state, color, &row, &col);
        state->attach[color][row] = 1u << col;
        state->pieces_left[color] = (1u << BLOKUS_PIECE_COUNT) - 1;
        state->last_piece[color] = BLOKUS_PASS;
    }
    for (int color = 0; color < BLOKUS_COLORS; color++)
        state->witness[color].piece = BLOKUS_PASS;
    for (int color = state->color_count; color < BLOKUS_COLORS; color++)
        state->out_mask |= (uint8_t)(1u << color);
}

int blokus_color_owner(const blokus_state *state, int color)
{
    switch ((blokus_mode)state->mode) {
    case BLOKUS_MODE_2P:
        return color % 2;
    case BLOKUS_MODE_3P:
        return color == 3 ? -1 : color;
    default:
        return color;
    }
}

int blokus_player_to_move(const blokus_state *state)
{
    if (state->is_over)
        return -1;
    if (state->mode == BLOKUS_MODE_3P && state->to_move == 3)
        return state->shared_turns % 3;
    return blokus_color_owner(state, state->to_move);
}

static bool on_board(const blokus_state *state, int row, int col)
{
    return row >= 0 && col >= 0 && row < state->size && col < state->size;
}

static bool bit_at(const uint32_t *rows, int row, int col)
{
    return (rows[row] >> col) & 1u;
}

int blokus_cell(const blokus_state *state, int row, int col)
{
    if (!on_board(state, row, col))
        return -1;
    for (int color = 0; color < state->color_count; color++)
        if (bit_at(state->own[color], row, col))
            return color;
    return -1;
}

bool blokus_is_free_cell(const blokus_state *state, int color, int row, int col)
{
    return on_board(state, row, col) && bit_at(state->free[color], row, col);
}

bool blokus_is_attach_cell(const blokus_state *state, int color, int row, int col)
{
    return on_board(state, row, col) && bit_at(state->attach[color], row, col);
}

int blokus_orientation_id(blokus_move move)
{
    return BLOKUS_PIECES[move.piece].first_orientation + move.orientation;
}

int blokus_move_key(blokus_move move)
{
    return (blokus_orientation_id(move) * BLOKUS_CLASSIC_SIZE + move.row) * BLOKUS_CLASSIC_SIZE +
           move.col;
}

int blokus_move_cells(blokus_move move, int cells[BLOKUS_MAX_PIECE_SIZE][2])
{
    if (move.piece == BLOKUS_PASS)
        return 0;
    const struct blokus_orientation *orientation =
        &BLOKUS_ORIENTATIONS[blokus_orientation_id(move)];
    for (int i = 0; i < orientation->size; i++) {
        cells[i][0] = move.row + orientation->cells[i][0];
        cells[i][1] = move.col + orientation->cells[i][1];
    }
    return orientation->size;
}

static bool orientation_covers(const struct blokus_orientation *orientation, int row, int col)
{
    return row >= 0 && col >= 0 && row < orientation->height && col < orientation->width &&
           ((orientation->row_masks[row] >> col) & 1u);
}

/* The cells around an orientation that touch it along an edge (sides) or
 * only at a corner (corners), scanned row-major. */
static int outline(int orientation_id, bool want_sides, int out[BLOKUS_MAX_OUTLINE][2])
{
    const struct blokus_orientation *orientation = &BLOKUS_ORIENTATIONS[orientation_id];
    int count = 0;
    for (int row = -1; row <= orientation->height; row++)
        for (int col = -1; col <= orientation->width; col++) {
            if (orientation_covers(orientation, row, col))
                continue;
            bool is_side = orientation_covers(orientation, row - 1, col) ||
                           orientation_covers(orientation, row + 1, col) ||
                           orientation_covers(orientation, row, col - 1) ||
                           orientation_covers(orientation, row, col + 1);
            bool is_corner = !is_side && (orientation_covers(orientation, row - 1, col - 1) ||
                                          orientation_covers(orientation, row - 1, col + 1) ||
                                          orientation_covers(orientation, row + 1, col - 1) ||
                                          orientation_covers(orientation, row + 1, col + 1));
            if (want_sides ? is_side : is_corner) {
                out[count][0] = row;
                out[count][1] = col;
                count++;
            }
        }
    return count;
}

int blokus_orientation_sides(int orientation_id, int sides[BLOKUS_MAX_OUTLINE][2])
{
    return outline(orientation_id, true, sides);
}

int blokus_orientation_corners(int orientation_id, int corners[BLOKUS_MAX_OUTLINE][2])
{
    return outline(orientation_id, false, corners);
}

/* Coordinates beyond this are off every board by far; refusing them keeps
 * the arithmetic below (and the int8_t of a move) from overflowing. */
#define CELL_COORDINATE_LIMIT 100

int blokus_move_from_cells(const int cells[][2], int count, blokus_move *out)
{
    if (count < 1 || count > BLOKUS_MAX_PIECE_SIZE)
        return ENGINE_E_NOT_A_PIECE;
    for (int i = 0; i < count; i++)
        if (abs(cells[i][0]) > CELL_COORDINATE_LIMIT || abs(cells[i][1]) > CELL_COORDINATE_LIMIT)
            return ENGINE_E_OUT_OF_BOUNDS;
    int min_row = cells[0][0], min_col = cells[0][1];
    for (int i = 1; i < count; i++) {
        if (cells[i][0] < min_row)
            min_row = cells[i][0];
        if (cells[i][1] < min_col)
            min_col = cells[i][1];
    }
    uint8_t masks[BLOKUS_MAX_PIECE_SIZE] = {0};
    for (int i = 0; i < count; i++) {
        int dr = cells[i][0] - min_row, dc = cells[i][1] - min_col;
        if (dr >= BLOKUS_MAX_PIECE_SIZE || dc >= BLOKUS_MAX_PIECE_SIZE)
            return ENGINE_E_NOT_A_PIECE;
        if (masks[dr] & (1u << dc))
            return ENGINE_E_NOT_A_PIECE; /* the same cell twice */
        masks[dr] |= (uint8_t)(1u << dc);
    }
    for (int id = 0; id < BLOKUS_ORIENTATION_COUNT; id++) {
        const struct blokus_orientation *orientation = &BLOKUS_ORIENTATIONS[id];
        if (orientation->size != count || memcmp(orientation->row_masks, masks, sizeof(masks)) != 0)
            continue;
        out->piece = orientation->piece;
        out->orientation = orientation->index;
        out->row = (int8_t)min_row;
        out->col = (int8_t)min_col;
        return 0;
    }
    return ENGINE_E_NOT_A_PIECE;
}

/* Edge-adjacent cells of `color`'s pieces on one row (not board-clipped). */
static uint32_t own_edge_neighbours(const blokus_state *state, int color, int row)
{
    const uint32_t *own = state->own[color];
    uint32_t above = row > 0 ? own[row - 1] : 0;
    return above | own[row + 1] | (own[row] << 1) | (own[row] >> 1);
}

/* Checks geometry, overlap and own-color contact; the rules in the order a
 * player would want them explained. */
static int check_placement(const blokus_state *state, blokus_move move)
{
    int color = state->to_move;
    if (move.piece >= BLOKUS_PIECE_COUNT ||
        move.orientation >= BLOKUS_PIECES[move.piece].orientation_count)
        return ENGINE_E_BAD_PIECE;
    if (!(state->pieces_left[color] & (1u << move.piece)))
        return ENGINE_E_PIECE_USED;
    const struct blokus_orientation *orientation =
        &BLOKUS_ORIENTATIONS[blokus_orientation_id(move)];
    if (move.row < 0 || move.col < 0 || move.row + orientation->height > state->size ||
        move.col + orientation->width > state->size)
        return ENGINE_E_OUT_OF_BOUNDS;
    bool covers_attach = false, touches_edge = false;
    for (int i = 0; i < orientation->height; i++) {
        int row = move.row + i;
        uint32_t piece_row = (uint32_t)orientation->row_masks[i] << move.col;
        for (int other = 0; other < state->color_count; other++)
            if (state->own[other][row] & piece_row)
                return ENGINE_E_OCCUPIED;
        touches_edge |= (own_edge_neighbours(state, color, row) & piece_row) != 0;
        covers_attach |= (state->attach[color][row] & piece_row) != 0;
    }
    bool is_first = state->squares[color] == 0;
    if (is_first && !covers_attach)
        return ENGINE_E_NOT_ON_START;
    if (touches_edge)
        return ENGINE_E_EDGE_CONTACT;
    if (!covers_attach)
        return ENGINE_E_NO_CORNER;
    return 0;
}

int blokus_check(const blokus_state *state, blokus_move move)
{
    if (state->is_over)
        return ENGINE_E_GAME_OVER;
    return check_placement(state, move);
}

int blokus_play(blokus_state *state, int player, blokus_move move)
{
    if (state->is_over)
        return ENGINE_E_GAME_OVER;
    if (player != blokus_player_to_move(state))
        return ENGINE_E_NOT_YOUR_TURN;
    if (move.piece != BLOKUS_PASS) {
        int rc = check_placement(state, move);
        if (rc != 0)
            return rc;
    }
    blokus_apply(state, move);
    return 0;
}

/* Answers "can this color move?" for the turn order: the engine's way, or
 * the reference scan for blokus_scan_apply. */
typedef bool (*can_move_fn)(blokus_state *state, int color);

/* Whether `move` is still a legal placement of `color`: its piece is left,
 * its cells are free for the color and one of them is an attach cell. */
static bool is_still_legal(const blokus_state *state, int color, blokus_move move)
{
    if (move.piece == BLOKUS_PASS || !(state->pieces_left[color] & (1u << move.piece)))
        return false;
    const struct blokus_orientation *orientation =
        &BLOKUS_ORIENTATIONS[blokus_orientation_id(move)];
    uint32_t covers_attach = 0;
    for (int i = 0; i < orientation->height; i++) {
        uint32_t piece_row = (uint32_t)orientation->row_masks[i] << move.col;
        if (piece_row & ~state->free[color][move.row + i])
            return false;
        covers_attach |= piece_row & state->attach[color][move.row + i];
    }
    return covers_attach != 0;
}

/* The engine's way: the color's witness while it is still legal, else a
 * search for a move, which becomes the new witness. */
static bool can_move_witnessed(blokus_state *state, int color)
{
    if (state->out_mask & (1u << color))
        return false;
    if (is_still_legal(state, color, state->witness[color]))
        return true;
    return blokus_find_move(state, color, &state->witness[color]);
}

static bool can_move_scanned(blokus_state *state, int color)
{
    return blokus_scan_has_move(state, color);
}

/* Hands the turn to the next color in rotation that can still move; a color
 * found without a move is marked out for good. Ends the game when none can
 * (the color that just moved is checked last). */
static void advance_turn(blokus_state *state, can_move_fn can_move)
{
    if (state->mode == BLOKUS_MODE_3P && state->to_move == 3)
        state->shared_turns = (uint8_t)((state->shared_turns + 1) % 3);
    for (int step = 1; step <= state->color_count; step++) {
        int color = (state->to_move + step) % state->color_count;
        if (state->out_mask & (1u << color))
            continue;
        if (can_move(state, color)) {
            state->to_move = (uint8_t)color;
            return;
        }
        state->out_mask |= (uint8_t)(1u << color);
    }
    state->is_over = 1;
}

void blokus_move_footprint(const blokus_state *state, blokus_move move, blokus_footprint *out)
{
    const struct blokus_orientation *orientation =
        &BLOKUS_ORIENTATIONS[blokus_orientation_id(move)];
    /* rows[i] is board row m.row - 1 + i; rows 0 and height + 1 are empty */
    uint32_t rows[BLOKUS_MAX_PIECE_SIZE + 2] = {0};
    for (int i = 0; i < orientation->height; i++)
        rows[i + 1] = (uint32_t)orientation->row_masks[i] << move.col;
    int first = move.row > 0 ? 0 : 1;
    int last = move.row + orientation->height < state->size ? orientation->height + 1
                                                            : orientation->height;
    out->first_row = move.row - 1 + first;
    out->count = last - first + 1;
    for (int i = first; i <= last; i++) {
        uint32_t above = i > 0 ? rows[i - 1] : 0;
        uint32_t below = i <= orientation->height ? rows[i + 1] : 0;
        out->cells[i - first] = rows[i];
        out->edges[i - first] = above | below | (rows[i] << 1) | (rows[i] >> 1);
        out->corners[i - first] = ((above | below) << 1) | ((above | below) >> 1);
    }
}

int blokus_centre_closeness(const blokus_state *state, blokus_move move)
{
    const struct blokus_orientation *orientation =
        &BLOKUS_ORIENTATIONS[blokus_orientation_id(move)];
    int centre_twice = state->size - 1, nearest = 2 * centre_twice;
    for (int i = 0; i < orientation->size; i++) {
        int row = move.row + orientation->cells[i][0], col = move.col + orientation->cells[i][1];
        int distance = abs(2 * row - centre_twice) + abs(2 * col - centre_twice);
        if (distance < nearest)
            nearest = distance;
    }
    return (2 * centre_twice - nearest) / 2;
}

static void place_piece(blokus_state *state, blokus_move move)
{
    int color = state->to_move;
    blokus_footprint footprint;
    blokus_move_footprint(state, move, &footprint);
    for (int i = 0; i < footprint.count; i++) {
        int row = footprint.first_row + i;
        state->own[color][row] |= footprint.cells[i];
        for (int other = 0; other < state->color_count; other++) {
            state->free[other][row] &= ~footprint.cells[i];
            state->attach[other][row] &= state->free[other][row];
        }
        state->free[color][row] &= ~footprint.edges[i];
        state->attach[color][row] =
            (state->attach[color][row] | footprint.corners[i]) & state->free[color][row];
    }
    state->pieces_left[color] &= ~(1u << move.piece);
    state->squares[color] = (uint8_t)(state->squares[color] + BLOKUS_PIECES[move.piece].size);
    state->last_piece[color] = move.piece;
}

static void apply_with(blokus_state *state, blokus_move move, can_move_fn can_move)
{
    if (move.piece != BLOKUS_PASS)
        place_piece(state, move);
    state->ply++;
    advance_turn(state, can_move);
}

void blokus_apply(blokus_state *state, blokus_move move)
{
    apply_with(state, move, can_move_witnessed);
}

void blokus_scan_apply(blokus_state *state, blokus_move move)
{
    apply_with(state, move, can_move_scanned);
}

/* Perft by the engine's generator, or (is_scan) as the engine ran it with
 * the reference scan alone. */
static uint64_t perft(const blokus_state *state, int depth, blokus_move *buffers, bool is_scan)
{
    if (depth <= 0)
        return 1; /* the empty sequence */
    if (state->is_over)
        return 0;
    int count = is_scan ? blokus_scan_generate_for(state, state->to_move, buffers)
                        : blokus_generate_for(state, state->to_move, buffers);
    if (depth <= 1)
        return (uint64_t)count;
    uint64_t total = 0;
    for (int i = 0; i < count; i++) {
        blokus_state child = *state;
        apply_with(&child, buffers[i], is_scan ? can_move_scanned : can_move_witnessed);
        total += perft(&child, depth - 1, buffers + BLOKUS_MAX_MOVES, is_scan);
    }
    return total;
}

uint64_t blokus_perft(const blokus_state *state, int depth, blokus_move *buffers)
{
    return perft(state, depth, buffers, false);
}

uint64_t blokus_scan_perft(const blokus_state *state, int depth, blokus_move *buffers)
{
    return perft(state, depth, buffers, true);
}

void blokus_retire_color(blokus_state *state, int color)
{
    if (state->is_over || (state->out_mask & (1u << color)))
        return;
    state->out_mask |= (uint8_t)(1u << color);
    if (state->to_move == color)
        advance_turn(state, can_move_witnessed);
    else if ((state->out_mask & 0xF) == 0xF)
        state->is_over = 1;
}

int blokus_color_score(const blokus_state *state, int color)
{
    if (state->scoring == BLOKUS_SCORING_SQUARES)
        return state->squares[color];
    int score = state->squares[color] - BLOKUS_SQUARES_PER_COLOR;
    if (state->pieces_left[color] == 0)
        score += state->last_piece[color] == PIECE_I1 ? 20 : 15;
    return score;
}

void blokus_scores(const blokus_state *state, int scores[BLOKUS_MAX_PLAYERS])
{
    memset(scores, 0, sizeof(int) * BLOKUS_MAX_PLAYERS);
    for (int color = 0; color < state->color_count; color++) {
        int owner = blokus_color_owner(state, color);
        if (owner >= 0)
            scores[owner] += blokus_color_score(state, color);
    }
}

unsigned blokus_winners(const blokus_state *state)
{
    int scores[BLOKUS_MAX_PLAYERS];
    blokus_scores(state, scores);
    int players = blokus_player_count((blokus_mode)state->mode);
    int best = scores[0];
    for (int p = 1; p < players; p++)
        if (scores[p] > best)
            best = scores[p];
    unsigned winners = 0;
    for (int p = 0; p < players; p++)
        if (scores[p] == best)
            winners |= 1u << p;
    return winners;
}

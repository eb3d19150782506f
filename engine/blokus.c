/* blokus.c -- Blokus rules on bitboards: setup, turn order, checking and
 * applying moves, scoring.
 *
 * Applying a move only touches the rows from one above the piece to one
 * below it: the piece's cells leave every color's free set, its edge
 * neighbours leave its own color's free set, its diagonal neighbours join
 * its own attach set, and every attach set is trimmed to its free set.
 * Move generation lives in blokus_movegen.c. */
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

void blokus_start_cell(const blokus_state *s, int color, int *row, int *col)
{
    const int *cell = s->mode == BLOKUS_MODE_DUO ? DUO_START[color] : CLASSIC_START[color];
    *row = cell[0];
    *col = cell[1];
}

void blokus_init(blokus_state *s, blokus_mode mode, blokus_scoring scoring)
{
    memset(s, 0, sizeof(*s));
    s->mode = (uint8_t)mode;
    s->scoring = (uint8_t)scoring;
    s->size = mode == BLOKUS_MODE_DUO ? BLOKUS_DUO_SIZE : BLOKUS_CLASSIC_SIZE;
    s->color_count = mode == BLOKUS_MODE_DUO ? 2 : BLOKUS_COLORS;
    uint32_t full_row = (1u << s->size) - 1;
    for (int color = 0; color < s->color_count; color++) {
        int row, col;
        for (int r = 0; r < s->size; r++)
            s->free[color][r] = full_row;
        blokus_start_cell(s, color, &row, &col);
        s->attach[color][row] = 1u << col;
        s->pieces_left[color] = (1u << BLOKUS_PIECE_COUNT) - 1;
        s->last_piece[color] = BLOKUS_PASS;
    }
    for (int color = s->color_count; color < BLOKUS_COLORS; color++)
        s->out_mask |= (uint8_t)(1u << color);
}

int blokus_color_owner(const blokus_state *s, int color)
{
    switch ((blokus_mode)s->mode) {
    case BLOKUS_MODE_2P:
        return color % 2;
    case BLOKUS_MODE_3P:
        return color == 3 ? -1 : color;
    default:
        return color;
    }
}

int blokus_player_to_move(const blokus_state *s)
{
    if (s->is_over)
        return -1;
    if (s->mode == BLOKUS_MODE_3P && s->to_move == 3)
        return s->shared_turns % 3;
    return blokus_color_owner(s, s->to_move);
}

static bool on_board(const blokus_state *s, int row, int col)
{
    return row >= 0 && col >= 0 && row < s->size && col < s->size;
}

static bool bit_at(const uint32_t *rows, int row, int col)
{
    return (rows[row] >> col) & 1u;
}

int blokus_cell(const blokus_state *s, int row, int col)
{
    if (!on_board(s, row, col))
        return -1;
    for (int color = 0; color < s->color_count; color++)
        if (bit_at(s->own[color], row, col))
            return color;
    return -1;
}

bool blokus_is_free_cell(const blokus_state *s, int color, int row, int col)
{
    return on_board(s, row, col) && bit_at(s->free[color], row, col);
}

bool blokus_is_attach_cell(const blokus_state *s, int color, int row, int col)
{
    return on_board(s, row, col) && bit_at(s->attach[color], row, col);
}

int blokus_orientation_id(blokus_move m)
{
    return BLOKUS_PIECES[m.piece].first_orientation + m.orientation;
}

int blokus_move_cells(blokus_move m, int cells[BLOKUS_MAX_PIECE_SIZE][2])
{
    if (m.piece == BLOKUS_PASS)
        return 0;
    const struct blokus_orientation *o = &BLOKUS_ORIENTATIONS[blokus_orientation_id(m)];
    for (int i = 0; i < o->size; i++) {
        cells[i][0] = m.row + o->cells[i][0];
        cells[i][1] = m.col + o->cells[i][1];
    }
    return o->size;
}

static bool orientation_covers(const struct blokus_orientation *o, int row, int col)
{
    return row >= 0 && col >= 0 && row < o->height && col < o->width &&
           ((o->row_masks[row] >> col) & 1u);
}

/* The cells around an orientation that touch it along an edge (sides) or
 * only at a corner (corners), scanned row-major. */
static int outline(int orientation_id, bool want_sides, int out[BLOKUS_MAX_OUTLINE][2])
{
    const struct blokus_orientation *o = &BLOKUS_ORIENTATIONS[orientation_id];
    int count = 0;
    for (int row = -1; row <= o->height; row++)
        for (int col = -1; col <= o->width; col++) {
            if (orientation_covers(o, row, col))
                continue;
            bool is_side =
                orientation_covers(o, row - 1, col) || orientation_covers(o, row + 1, col) ||
                orientation_covers(o, row, col - 1) || orientation_covers(o, row, col + 1);
            bool is_corner = !is_side && (orientation_covers(o, row - 1, col - 1) ||
                                          orientation_covers(o, row - 1, col + 1) ||
                                          orientation_covers(o, row + 1, col - 1) ||
                                          orientation_covers(o, row + 1, col + 1));
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
        const struct blokus_orientation *o = &BLOKUS_ORIENTATIONS[id];
        if (o->size != count || memcmp(o->row_masks, masks, sizeof(masks)) != 0)
            continue;
        out->piece = o->piece;
        out->orientation = o->index;
        out->row = (int8_t)min_row;
        out->col = (int8_t)min_col;
        return 0;
    }
    return ENGINE_E_NOT_A_PIECE;
}

/* Edge-adjacent cells of `color`'s pieces on one row (not board-clipped). */
static uint32_t own_edge_neighbours(const blokus_state *s, int color, int row)
{
    const uint32_t *own = s->own[color];
    uint32_t above = row > 0 ? own[row - 1] : 0;
    return above | own[row + 1] | (own[row] << 1) | (own[row] >> 1);
}

/* Checks geometry, overlap and own-color contact; the rules in the order a
 * player would want them explained. */
static int check_placement(const blokus_state *s, blokus_move m)
{
    int color = s->to_move;
    if (m.piece >= BLOKUS_PIECE_COUNT || m.orientation >= BLOKUS_PIECES[m.piece].orientation_count)
        return ENGINE_E_BAD_PIECE;
    if (!(s->pieces_left[color] & (1u << m.piece)))
        return ENGINE_E_PIECE_USED;
    const struct blokus_orientation *o = &BLOKUS_ORIENTATIONS[blokus_orientation_id(m)];
    if (m.row < 0 || m.col < 0 || m.row + o->height > s->size || m.col + o->width > s->size)
        return ENGINE_E_OUT_OF_BOUNDS;
    bool covers_attach = false, touches_edge = false;
    for (int i = 0; i < o->height; i++) {
        int row = m.row + i;
        uint32_t piece_row = (uint32_t)o->row_masks[i] << m.col;
        for (int other = 0; other < s->color_count; other++)
            if (s->own[other][row] & piece_row)
                return ENGINE_E_OCCUPIED;
        touches_edge |= (own_edge_neighbours(s, color, row) & piece_row) != 0;
        covers_attach |= (s->attach[color][row] & piece_row) != 0;
    }
    bool is_first = s->squares[color] == 0;
    if (is_first && !covers_attach)
        return ENGINE_E_NOT_ON_START;
    if (touches_edge)
        return ENGINE_E_EDGE_CONTACT;
    if (!covers_attach)
        return ENGINE_E_NO_CORNER;
    return 0;
}

int blokus_check(const blokus_state *s, blokus_move m)
{
    if (s->is_over)
        return ENGINE_E_GAME_OVER;
    return check_placement(s, m);
}

int blokus_play(blokus_state *s, int player, blokus_move m)
{
    if (s->is_over)
        return ENGINE_E_GAME_OVER;
    if (player != blokus_player_to_move(s))
        return ENGINE_E_NOT_YOUR_TURN;
    if (m.piece != BLOKUS_PASS) {
        int rc = check_placement(s, m);
        if (rc != 0)
            return rc;
    }
    blokus_apply(s, m);
    return 0;
}

/* Hands the turn to the next color in rotation that can still move; a color
 * found without a move is marked out for good. Ends the game when none can
 * (the color that just moved is checked last). */
static void advance_turn(blokus_state *s)
{
    if (s->mode == BLOKUS_MODE_3P && s->to_move == 3)
        s->shared_turns = (uint8_t)((s->shared_turns + 1) % 3);
    for (int step = 1; step <= s->color_count; step++) {
        int color = (s->to_move + step) % s->color_count;
        if (s->out_mask & (1u << color))
            continue;
        if (blokus_has_move(s, color)) {
            s->to_move = (uint8_t)color;
            return;
        }
        s->out_mask |= (uint8_t)(1u << color);
    }
    s->is_over = 1;
}

void blokus_move_footprint(const blokus_state *s, blokus_move m, blokus_footprint *out)
{
    const struct blokus_orientation *o = &BLOKUS_ORIENTATIONS[blokus_orientation_id(m)];
    /* rows[i] is board row m.row - 1 + i; rows 0 and height + 1 are empty */
    uint32_t rows[BLOKUS_MAX_PIECE_SIZE + 2] = {0};
    for (int i = 0; i < o->height; i++)
        rows[i + 1] = (uint32_t)o->row_masks[i] << m.col;
    int first = m.row > 0 ? 0 : 1;
    int last = m.row + o->height < s->size ? o->height + 1 : o->height;
    out->first_row = m.row - 1 + first;
    out->count = last - first + 1;
    for (int i = first; i <= last; i++) {
        uint32_t above = i > 0 ? rows[i - 1] : 0;
        uint32_t below = i <= o->height ? rows[i + 1] : 0;
        out->cells[i - first] = rows[i];
        out->edges[i - first] = above | below | (rows[i] << 1) | (rows[i] >> 1);
        out->corners[i - first] = ((above | below) << 1) | ((above | below) >> 1);
    }
}

static void place_piece(blokus_state *s, blokus_move m)
{
    int color = s->to_move;
    blokus_footprint f;
    blokus_move_footprint(s, m, &f);
    for (int i = 0; i < f.count; i++) {
        int row = f.first_row + i;
        s->own[color][row] |= f.cells[i];
        for (int other = 0; other < s->color_count; other++) {
            s->free[other][row] &= ~f.cells[i];
            s->attach[other][row] &= s->free[other][row];
        }
        s->free[color][row] &= ~f.edges[i];
        s->attach[color][row] = (s->attach[color][row] | f.corners[i]) & s->free[color][row];
    }
    s->pieces_left[color] &= ~(1u << m.piece);
    s->squares[color] = (uint8_t)(s->squares[color] + BLOKUS_PIECES[m.piece].size);
    s->last_piece[color] = m.piece;
}

void blokus_apply(blokus_state *s, blokus_move m)
{
    if (m.piece != BLOKUS_PASS)
        place_piece(s, m);
    s->ply++;
    advance_turn(s);
}

void blokus_retire_color(blokus_state *s, int color)
{
    if (s->is_over || (s->out_mask & (1u << color)))
        return;
    s->out_mask |= (uint8_t)(1u << color);
    if (s->to_move == color)
        advance_turn(s);
    else if ((s->out_mask & 0xF) == 0xF)
        s->is_over = 1;
}

int blokus_color_score(const blokus_state *s, int color)
{
    if (s->scoring == BLOKUS_SCORING_SQUARES)
        return s->squares[color];
    int score = s->squares[color] - BLOKUS_SQUARES_PER_COLOR;
    if (s->pieces_left[color] == 0)
        score += s->last_piece[color] == PIECE_I1 ? 20 : 15;
    return score;
}

void blokus_scores(const blokus_state *s, int scores[BLOKUS_MAX_PLAYERS])
{
    memset(scores, 0, sizeof(int) * BLOKUS_MAX_PLAYERS);
    for (int color = 0; color < s->color_count; color++) {
        int owner = blokus_color_owner(s, color);
        if (owner >= 0)
            scores[owner] += blokus_color_score(s, color);
    }
}

unsigned blokus_winners(const blokus_state *s)
{
    int scores[BLOKUS_MAX_PLAYERS];
    blokus_scores(s, scores);
    int players = blokus_player_count((blokus_mode)s->mode);
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

/* game_json.c -- JSON codecs for Blokus and Reef states and actions.
 *
 * Decoders are as strict as the message decoder: exact field sets, exact
 * types, coordinates within a sane range (the engine then says whether a
 * placement is on the board). Encoders build fresh jansson values; the
 * caller owns the reference it gets. */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/game_json.h"

/* Coordinates beyond this are malformed rather than merely off the board. */
#define COORDINATE_LIMIT 100

static bool has_only_fields(const json_t *object, const char *const *allowed, const char **extra)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)object, key, value)
    {
        bool is_allowed = false;
        for (int i = 0; allowed[i]; i++)
            is_allowed |= strcmp(key, allowed[i]) == 0;
        if (!is_allowed) {
            *extra = key;
            return false;
        }
    }
    return true;
}

static int get_int(const json_t *object, const char *name, int min, int max, int *out,
                   protocol_failure *failure)
{
    json_t *value = json_object_get(object, name);
    if (!value)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "missing field 'action.%s'", name);
    if (!json_is_integer(value) || json_integer_value(value) < min ||
        json_integer_value(value) > max)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'action.%s' must be an integer from %d to %d", name, min, max);
    *out = (int)json_integer_value(value);
    return 0;
}

static int blokus_piece_by_name(const json_t *value)
{
    if (json_is_integer(value)) {
        json_int_t index = json_integer_value(value);
        return index >= 0 && index < BLOKUS_PIECE_COUNT ? (int)index : -1;
    }
    const char *name = json_string_value(value);
    int piece;
    return name && blokus_piece_parse(name, &piece) == 0 ? piece : -1;
}

static bool is_coordinate(const json_t *value)
{
    json_int_t number = json_integer_value(value);
    return json_is_integer(value) && number >= -COORDINATE_LIMIT && number <= COORDINATE_LIMIT;
}

static int decode_blokus_cells(const json_t *cells, blokus_move *out, protocol_failure *failure)
{
    int coordinates[BLOKUS_MAX_PIECE_SIZE][2];
    size_t count = json_array_size(cells);
    if (!json_is_array(cells) || count < 1 || count > BLOKUS_MAX_PIECE_SIZE)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'action.cells' must be an array of 1 to 5 [row, col] pairs");
    for (size_t i = 0; i < count; i++) {
        json_t *cell = json_array_get(cells, i);
        json_t *row = json_array_get(cell, 0), *col = json_array_get(cell, 1);
        if (json_array_size(cell) != 2 || !is_coordinate(row) || !is_coordinate(col))
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                                 "'action.cells[%zu]' must be [row, col] integers", i);
        coordinates[i][0] = (int)json_integer_value(row);
        coordinates[i][1] = (int)json_integer_value(col);
    }
    int rc = blokus_move_from_cells((const int(*)[2])coordinates, (int)count, out);
    return rc == 0 ? 0 : protocol_fail_engine(failure, rc);
}

int game_json_blokus_action(const json_t *action, blokus_move *out, protocol_failure *failure)
{
    static const char *const CELL_FIELDS[] = {"cells", NULL};
    static const char *const PIECE_FIELDS[] = {"piece", "orientation", "row", "col", NULL};
    const char *extra = NULL;
    if (!json_is_object(action))
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "'action' must be an object");
    if (json_object_get(action, "cells")) {
        if (!has_only_fields(action, CELL_FIELDS, &extra))
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "unknown field 'action.%s'",
                                 extra);
        return decode_blokus_cells(json_object_get(action, "cells"), out, failure);
    }
    if (!has_only_fields(action, PIECE_FIELDS, &extra))
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "unknown field 'action.%s'", extra);
    int piece = blokus_piece_by_name(json_object_get(action, "piece"));
    if (piece < 0)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'action.piece' must be a piece name such as \"I1\" or \"F\", "
                             "or a piece index from 0 to %d",
                             BLOKUS_PIECE_COUNT - 1);
    int orientation = 0, row = 0, col = 0;
    int rc = get_int(action, "orientation", 0, 7, &orientation, failure);
    if (rc == 0)
        rc = get_int(action, "row", -COORDINATE_LIMIT, COORDINATE_LIMIT, &row, failure);
    if (rc == 0)
        rc = get_int(action, "col", -COORDINATE_LIMIT, COORDINATE_LIMIT, &col, failure);
    if (rc != 0)
        return rc;
    out->piece = (uint8_t)piece;
    out->orientation = (uint8_t)orientation;
    out->row = (int8_t)row;
    out->col = (int8_t)col;
    return 0;
}

json_t *game_json_blokus_move(blokus_move move)
{
    if (move.piece == BLOKUS_PASS)
        return json_pack("{s:b}", "pass", 1);
    return json_pack("{s:s, s:i, s:i, s:i}", "piece", BLOKUS_PIECES[move.piece].name, "orientation",
                     move.orientation, "row", move.row, "col", move.col);
}

/* The board is read a row at a time from the state's bitboards (blokus.h:
 * bit c of a row is column c), not a call per cell: game.state is written
 * after every move. */
void game_json_write_blokus_board(json_out *writer, const blokus_state *state)
{
    char line[BLOKUS_CLASSIC_SIZE + 3];
    json_out_raw(writer, "[", 1);
    for (int r = 0; r < state->size; r++) {
        line[0] = '"';
        memset(line + 1, '.', (size_t)state->size);
        for (int color = 0; color < state->color_count; color++)
            for (uint32_t cells = state->own[color][r]; cells; cells &= cells - 1)
                line[1 + __builtin_ctz(cells)] = (char)('0' + color);
        line[state->size + 1] = '"';
        line[state->size + 2] = r + 1 < state->size ? ',' : ']';
        json_out_raw(writer, line, (size_t)state->size + 3);
    }
}

void game_json_write_blokus_pieces_left(json_out *writer, const blokus_state *state)
{
    json_out_raw(writer, "[", 1);
    for (int color = 0; color < state->color_count; color++) {
        json_out_raw(writer, color ? ",[" : "[", color ? 2 : 1);
        bool is_first = true;
        for (int piece = 0; piece < BLOKUS_PIECE_COUNT; piece++) {
            if (!(state->pieces_left[color] & (1u << piece)))
                continue;
            if (!is_first)
                json_out_raw(writer, ",", 1);
            json_out_string(writer, BLOKUS_PIECES[piece].name);
            is_first = false;
        }
        json_out_raw(writer, "]", 1);
    }
    json_out_raw(writer, "]", 1);
}

/* Board coordinates and orientation indexes: 0 .. 99, no sign. */
/* Writes 0 .. 99 at `at`; the end of the digits. */
static char *put_small(char *at, int value)
{
    if (value >= 10)
        *at++ = (char)('0' + value / 10);
    *at++ = (char)('0' + value % 10);
    return at;
}

/* [[r,c],...] of the cells set in `rows` (a bitboard, or its complement
 * when `is_inverted`), in one piece (room for every cell: "[19,19]," each). */
static void write_cells(json_out *writer, const blokus_state *state, const uint32_t *rows,
                        bool is_inverted)
{
    char *start = json_out_space(writer, (size_t)state->size * (size_t)state->size * 8 + 2);
    if (!start)
        return;
    uint32_t on_board = (1u << state->size) - 1;
    char *at = start;
    *at++ = '[';
    for (int r = 0; r < state->size; r++)
        for (uint32_t cells = (is_inverted ? ~rows[r] : rows[r]) & on_board; cells;
             cells &= cells - 1) {
            if (at - start > 1)
                *at++ = ',';
            *at++ = '[';
            at = put_small(at, r);
            *at++ = ',';
            at = put_small(at, __builtin_ctz(cells));
            *at++ = ']';
        }
    *at++ = ']';
    json_out_advance(writer, (size_t)(at - start));
}

void game_json_write_blokus_hints(json_out *writer, const blokus_state *state, int color)
{
    json_out_text(writer, "{\"attach\":");
    write_cells(writer, state, state->attach[color], false);
    json_out_text(writer, ",\"unavailable\":");
    write_cells(writer, state, state->free[color], true);
    json_out_raw(writer, "}", 1);
}

/* The longest a move is written: {"piece":"I1","orientation":7,...}. */
#define MOVE_TEXT_MAX 72

/* A move's text in three pieces, each copied with a fixed-size memcpy
 * (room for the longest; the list has hundreds of moves, so no loop over
 * letters or digits): {"piece":"F","orientation":3,"row": per piece and
 * orientation index, 12,"col": per row and 12} per column. */
struct move_part {
    char text[40];
    uint8_t length;
};
static struct move_part MOVE_HEADS[BLOKUS_PIECE_COUNT][8];
static struct move_part MOVE_ROWS[BLOKUS_CLASSIC_SIZE];
static struct move_part MOVE_COLS[BLOKUS_CLASSIC_SIZE];
static pthread_once_t move_parts_once = PTHREAD_ONCE_INIT;

static void move_part_set(struct move_part *part, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    part->length = (uint8_t)vsnprintf(part->text, sizeof(part->text), format, arguments);
    va_end(arguments);
}

static void make_move_parts(void)
{
    for (int piece = 0; piece < BLOKUS_PIECE_COUNT; piece++)
        for (int index = 0; index < 8; index++)
            move_part_set(
                &MOVE_HEADS[piece][index],
                "{\"piece\":\"%s\",\"orientation\":%d,\"row\":", BLOKUS_PIECES[piece].name, index);
    for (int i = 0; i < BLOKUS_CLASSIC_SIZE; i++) {
        move_part_set(&MOVE_ROWS[i], "%d,\"col\":", i);
        move_part_set(&MOVE_COLS[i], "%d}", i);
    }
}

/* Copies `part` to `at`, which has room for all of part->text; the end of
 * its text. */
static inline char *put_part(char *at, const struct move_part *part, size_t room)
{
    memcpy(at, part->text, room);
    return at + part->length;
}

/* The bytes copied of a row's and a column's part: the longest ("19,\"col\":",
 * "19}") and some, read from parts of 40. */
#define MOVE_ROW_COPY 16
#define MOVE_COL_COPY 4

/* One move, written at `at` (room for MOVE_TEXT_MAX bytes); returns the
 * end. The parts must be made (move_parts_once). */
static char *put_move(char *at, blokus_move move, bool is_first)
{
    if (!is_first)
        *at++ = ',';
    at = put_part(at, &MOVE_HEADS[move.piece][move.orientation], sizeof(MOVE_HEADS[0][0].text));
    at = put_part(at, &MOVE_ROWS[move.row], MOVE_ROW_COPY);
    return put_part(at, &MOVE_COLS[move.col], MOVE_COL_COPY);
}

void game_json_write_blokus_legal_moves(json_out *writer, const blokus_state *state)
{
    static _Thread_local blokus_move moves[BLOKUS_MAX_MOVES];
    int count = blokus_generate(state, moves);
    char *start = json_out_space(writer, (size_t)count * MOVE_TEXT_MAX + 2);
    if (!start)
        return;
    pthread_once(&move_parts_once, make_move_parts);
    char *at = start;
    *at++ = '[';
    for (int i = 0; i < count; i++)
        at = put_move(at, moves[i], i == 0);
    *at++ = ']';
    json_out_advance(writer, (size_t)(at - start));
}

void game_json_write_blokus_move(json_out *writer, blokus_move move)
{
    if (move.piece == BLOKUS_PASS) {
        json_out_text(writer, "{\"pass\":true}");
        return;
    }
    pthread_once(&move_parts_once, make_move_parts);
    char *start = json_out_space(writer, MOVE_TEXT_MAX);
    if (start)
        json_out_advance(writer, (size_t)(put_move(start, move, true) - start));
}

void game_json_write_move(json_out *writer, game_move move)
{
    if (move.kind == GAME_MOVE_BLOKUS) {
        game_json_write_blokus_move(writer, move.blokus);
        return;
    }
    json_t *action = game_json_reef_action_value(move.reef);
    json_out_value(writer, action); /* NULL marks the writer failed */
    json_decref(action);
}

char *game_json_blokus_legal_moves_text(const blokus_state *state)
{
    json_out writer = JSON_OUT_EMPTY;
    game_json_write_blokus_legal_moves(&writer, state);
    return json_out_take(&writer, NULL);
}

static json_t *cell_pair(int row, int col)
{
    return json_pack("[i, i]", row, col);
}

static json_t *offsets_json(const int offsets[][2], int count)
{
    json_t *list = json_array();
    for (int i = 0; i < count; i++)
        json_array_append_new(list, cell_pair(offsets[i][0], offsets[i][1]));
    return list;
}

static json_t *orientation_json(int id)
{
    const struct blokus_orientation *shape = &BLOKUS_ORIENTATIONS[id];
    int cells[BLOKUS_MAX_PIECE_SIZE][2], outline[BLOKUS_MAX_OUTLINE][2];
    for (int i = 0; i < shape->size; i++) {
        cells[i][0] = shape->cells[i][0];
        cells[i][1] = shape->cells[i][1];
    }
    json_t *json =
        json_pack("{s:i, s:s, s:i, s:i, s:o}", "id", id, "piece", BLOKUS_PIECES[shape->piece].name,
                  "orientation", shape->index, "size", shape->size, "cells",
                  offsets_json((const int(*)[2])cells, shape->size));
    int count = blokus_orientation_sides(id, outline);
    json_object_set_new(json, "sides", offsets_json((const int(*)[2])outline, count));
    count = blokus_orientation_corners(id, outline);
    json_object_set_new(json, "corners", offsets_json((const int(*)[2])outline, count));
    return json;
}

json_t *game_json_blokus_orientations(void)
{
    json_t *table = json_array();
    for (int id = 0; id < BLOKUS_ORIENTATION_COUNT; id++)
        json_array_append_new(table, orientation_json(id));
    return table;
}

int game_json_reef_action(const json_t *action, reef_action *out, protocol_failure *failure)
{
    static const char *const PLACE_FIELDS[] = {"type", "row", "col", "orientation", NULL};
    static const char *const SKIP_FIELDS[] = {"type", NULL};
    const char *extra = NULL;
    const char *type = json_string_value(json_object_get(action, "type"));
    if (!json_is_object(action) || !type)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "an action is {type:\"place\", row, col, orientation} or "
                             "{type:\"skip\"}");
    if (strcmp(type, "skip") == 0) {
        if (!has_only_fields(action, SKIP_FIELDS, &extra))
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "unknown field 'action.%s'",
                                 extra);
        *out = reef_skip();
        return 0;
    }
    if (strcmp(type, "place") != 0)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'action.type' must be \"place\" or \"skip\"");
    if (!has_only_fields(action, PLACE_FIELDS, &extra))
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "unknown field 'action.%s'", extra);
    int row = 0, col = 0, orientation = 0;
    int rc = get_int(action, "row", -COORDINATE_LIMIT, COORDINATE_LIMIT, &row, failure);
    if (rc == 0)
        rc = get_int(action, "col", -COORDINATE_LIMIT, COORDINATE_LIMIT, &col, failure);
    if (rc == 0)
        rc = get_int(action, "orientation", 0, 359, &orientation, failure);
    if (rc == 0)
        *out = reef_place(row, col, orientation);
    return rc;
}

json_t *game_json_reef_action_value(reef_action action)
{
    if (action.type == REEF_ACTION_SKIP)
        return json_pack("{s:s}", "type", "skip");
    return json_pack("{s:s, s:i, s:i, s:i}", "type", "place", "row", action.row, "col", action.col,
                     "orientation", action.orientation);
}

/* The tag is set (and the rest zeroed) first; the game's codec fills the move. */
int game_json_action(const json_t *action, game_move *out, protocol_failure *failure)
{
    if (json_object_get(action, "type")) {
        *out = game_move_of_reef(reef_skip());
        return game_json_reef_action(action, &out->reef, failure);
    }
    *out = game_move_of_blokus((blokus_move){0});
    return game_json_blokus_action(action, &out->blokus, failure);
}

json_t *game_json_move(game_move move)
{
    return move.kind == GAME_MOVE_BLOKUS ? game_json_blokus_move(move.blokus)
                                         : game_json_reef_action_value(move.reef);
}

json_t *game_json_reef_board(const reef_state *state)
{
    char text[REEF_BOARD_TEXT];
    reef_board_text(state, text);
    json_t *rows = json_array();
    for (int r = 0; r < REEF_ROWS; r++)
        json_array_append_new(rows, json_stringn(text + r * (REEF_COLS + 1), REEF_COLS));
    return rows;
}

json_t *game_json_reef_piece(reef_piece piece)
{
    char half_a[2] = {reef_color_letter(piece.a), '\0'},
         half_b[2] = {reef_color_letter(piece.b), '\0'};
    return json_pack("{s:s, s:s}", "a", half_a, "b", half_b);
}

json_t *game_json_reef_legal_actions(const reef_state *state)
{
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(state, actions);
    json_t *list = json_array();
    for (int i = 0; i < count; i++)
        json_array_append_new(list, game_json_reef_action_value(actions[i]));
    return list;
}

static json_t *reef_bloom_value(const reef_bloom *bloom)
{
    reef_cell cells[REEF_CELLS];
    int count = reef_mask_cells(bloom->cells, cells);
    json_t *list = json_array();
    for (int i = 0; i < count; i++)
        json_array_append_new(list, cell_pair(cells[i].row, cells[i].col));
    char color[2] = {reef_color_letter(bloom->color), '\0'};
    return json_pack("{s:s, s:i, s:o}", "color", color, "size", bloom->size, "cells", list);
}

json_t *game_json_reef_result(const reef_result *result)
{
    json_t *blooms = json_array();
    for (int i = 0; i < result->bloom_count; i++)
        json_array_append_new(blooms, reef_bloom_value(&result->blooms[i]));
    return json_pack("{s:I, s:o}", "points", (json_int_t)result->points, "blooms", blooms);
}

json_t *game_json_seed_value(uint64_t seed)
{
    if (seed <= INT64_MAX)
        return json_integer((json_int_t)seed);
    char digits[24];
    snprintf(digits, sizeof(digits), "%" PRIu64, seed);
    return json_string(digits);
}

void game_json_write_seed(uint64_t seed, json_out *out)
{
    if (seed <= INT64_MAX) {
        json_out_int(out, (int64_t)seed);
        return;
    }
    char digits[24];
    snprintf(digits, sizeof(digits), "%" PRIu64, seed);
    json_out_string(out, digits);
}

int game_json_seed_text(const char *text, size_t length, uint64_t *out)
{
    uint64_t seed = 0;
    if (length == 0)
        return PROTOCOL_E_BAD_MESSAGE;
    for (size_t i = 0; i < length; i++) {
        if (text[i] < '0' || text[i] > '9')
            return PROTOCOL_E_BAD_MESSAGE;
        uint64_t digit = (uint64_t)(text[i] - '0');
        if (seed > (UINT64_MAX - digit) / 10)
            return PROTOCOL_E_BAD_MESSAGE;
        seed = seed * 10 + digit;
    }
    *out = seed;
    return 0;
}

int game_json_seed(const json_t *value, const char *name, uint64_t *out, protocol_failure *failure)
{
    if (json_is_integer(value) && json_integer_value(value) >= 0) {
        *out = (uint64_t)json_integer_value(value);
        return 0;
    }
    if (json_is_string(value) &&
        game_json_seed_text(json_string_value(value), json_string_length(value), out) == 0)
        return 0;
    return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                         "'%s' must be an integer from 0 to 2^64-1 (a decimal string past 2^63)",
                         name);
}

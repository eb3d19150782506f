/* game_wire.c -- the games' JSON views (game_wire.h): options, state,
 * legal moves, a move's outcome, each dispatched on the game's kind.
 *
 * Blokus's state is written directly (json_out.h): it goes to every member
 * after every move, and through jansson objects it costs more than the
 * move. Reef's boards are small and built as jansson values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/game_wire.h"
#include "protocol/game_json.h"

#define REEF_RACE_SEATS 4

/* ---- options ------------------------------------------------------------- */

static int parse_game_mode(const char *game_name, const char *mode, game_options *out,
                           protocol_failure *failure)
{
    if (strcmp(game_name, "blokus") == 0) {
        out->kind = GAME_BLOKUS;
        if (blokus_mode_parse(mode, &out->blokus_mode) != 0)
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                                 "blokus 'mode' must be \"4p\", \"3p\", \"2p\" or \"duo\"");
        out->seat_count = blokus_player_count(out->blokus_mode);
        return 0;
    }
    if (strcmp(game_name, "reef-builder") == 0) {
        out->kind = GAME_REEF;
        out->is_race = strcmp(mode, "race") == 0;
        if (!out->is_race && strcmp(mode, "solo") != 0)
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                                 "reef-builder 'mode' must be \"solo\" or \"race\"");
        out->seat_count = out->is_race ? REEF_RACE_SEATS : 1;
        return 0;
    }
    return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                         "'game' must be \"blokus\" or \"reef-builder\"");
}

static int parse_scoring(const char *scoring, game_options *out, protocol_failure *failure)
{
    out->scoring = BLOKUS_SCORING_SQUARES;
    if (!scoring[0])
        return 0;
    if (out->kind == GAME_BLOKUS && blokus_scoring_parse(scoring, &out->scoring) == 0)
        return 0;
    if (out->kind == GAME_REEF)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "reef-builder has one scoring; leave 'scoring' out");
    return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                         "'scoring' must be \"squares\" or \"official\"");
}

static int parse_timeout(const char *timeout, game_timeout_policy *out, protocol_failure *failure)
{
    if (!timeout[0] || strcmp(timeout, "bot") == 0)
        *out = GAME_TIMEOUT_BOT;
    else if (strcmp(timeout, "pass") == 0)
        *out = GAME_TIMEOUT_PASS;
    else
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'timeout' must be \"bot\" or \"pass\"");
    return 0;
}

static int parse_max_turns(int64_t max_turns, game_options *out, protocol_failure *failure)
{
    if (out->kind == GAME_BLOKUS && max_turns)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'max_turns' applies to reef-builder only");
    out->max_turns = max_turns ? max_turns : REEF_STANDARD_TURNS;
    return 0;
}

int game_wire_options_parse(const protocol_room_create *create, uint64_t default_seed,
                            game_options *out, protocol_failure *failure)
{
    memset(out, 0, sizeof(*out));
    int rc = parse_game_mode(create->game, create->mode, out, failure);
    if (rc == 0)
        rc = parse_scoring(create->scoring, out, failure);
    if (rc == 0)
        rc = parse_timeout(create->timeout, &out->timeout, failure);
    if (rc == 0)
        rc = parse_max_turns(create->max_turns, out, failure);
    if (rc != 0)
        return rc;
    out->seed = create->has_seed ? create->seed : default_seed;
    out->has_clock = create->has_clock;
    out->clock_initial_ms = create->clock_initial_ms;
    out->clock_increment_ms = create->clock_increment_ms;
    return 0;
}

void game_wire_write_options(const game_options *options, json_out *out)
{
    json_out_text(out, "{\"seed\":");
    game_json_write_seed(options->seed, out);
    json_out_text(out, options->timeout == GAME_TIMEOUT_PASS ? ",\"timeout\":\"pass\""
                                                             : ",\"timeout\":\"bot\"");
    json_out_text(out, ",\"seats\":");
    json_out_int(out, options->seat_count);
    if (options->kind == GAME_BLOKUS) {
        json_out_text(out, ",\"scoring\":");
        json_out_string(out, blokus_scoring_name(options->scoring));
    } else {
        json_out_text(out, ",\"max_turns\":");
        json_out_int(out, options->max_turns);
    }
    if (options->has_clock) {
        json_out_text(out, ",\"clock\":{\"initial_ms\":");
        json_out_int(out, options->clock_initial_ms);
        json_out_text(out, ",\"increment_ms\":");
        json_out_int(out, options->clock_increment_ms);
        json_out_text(out, "}}");
    } else {
        json_out_text(out, ",\"clock\":null}");
    }
}

json_t *game_wire_options_json(const game_options *options)
{
    json_out text = JSON_OUT_EMPTY;
    game_wire_write_options(options, &text);
    return json_out_tree(&text);
}

int game_wire_options_default(const char *game_name, const char *mode, uint64_t seed,
                              game_options *out, protocol_failure *failure)
{
    protocol_room_create create;
    memset(&create, 0, sizeof(create));
    snprintf(create.game, sizeof(create.game), "%s", game_name);
    snprintf(create.mode, sizeof(create.mode), "%s", mode);
    return game_wire_options_parse(&create, seed, out, failure);
}

int game_wire_options_from_json(const json_t *json, const char *game_name, const char *mode,
                                game_options *out)
{
    protocol_failure failure;
    protocol_room_create create;
    memset(&create, 0, sizeof(create));
    snprintf(create.game, sizeof(create.game), "%s", game_name);
    snprintf(create.mode, sizeof(create.mode), "%s", mode);
    const char *scoring = json_string_value(json_object_get(json, "scoring"));
    const char *timeout = json_string_value(json_object_get(json, "timeout"));
    snprintf(create.scoring, sizeof(create.scoring), "%s", scoring ? scoring : "");
    snprintf(create.timeout, sizeof(create.timeout), "%s", timeout ? timeout : "");
    json_t *clock = json_object_get(json, "clock");
    create.has_clock = json_is_object(clock);
    create.clock_initial_ms = json_integer_value(json_object_get(clock, "initial_ms"));
    create.clock_increment_ms = json_integer_value(json_object_get(clock, "increment_ms"));
    create.max_turns = json_integer_value(json_object_get(json, "max_turns"));
    create.has_seed = true;
    if (game_json_seed(json_object_get(json, "seed"), "seed", &create.seed, &failure) != 0 ||
        game_wire_options_parse(&create, 0, out, &failure) != 0)
        return -1;
    json_int_t seats = json_integer_value(json_object_get(json, "seats"));
    if (seats >= 1 && seats <= out->seat_count)
        out->seat_count = (int)seats;
    return 0;
}

/* ---- Blokus -------------------------------------------------------------- */

static void blokus_write_state(const game *position, json_out *out)
{
    const blokus_state *board = &position->state.blokus;
    int64_t scores[GAME_MAX_SEATS];
    game_scores(position, scores);
    json_out_text(out, ",\"size\":");
    json_out_int(out, board->size);
    json_out_text(out, ",\"board\":");
    game_json_write_blokus_board(out, board);
    json_out_text(out, ",\"pieces_left\":");
    game_json_write_blokus_pieces_left(out, board);
    json_out_text(out, ",\"scores\":[");
    for (int seat = 0; seat < position->options.seat_count; seat++) {
        if (seat > 0)
            json_out_raw(out, ",", 1);
        json_out_int(out, scores[seat]);
    }
    json_out_text(out, "],\"to_move\":");
    if (game_is_over(position)) {
        json_out_text(out, "null");
        return;
    }
    json_out_text(out, "{\"seat\":");
    json_out_int(out, blokus_player_to_move(board));
    json_out_text(out, ",\"color\":");
    json_out_int(out, board->to_move);
    json_out_raw(out, "}", 1);
}

static void blokus_write_legal_moves(const game *position, int seat, json_out *out)
{
    if (game_seat_may_move(position, seat))
        game_json_write_blokus_legal_moves(out, &position->state.blokus);
    else
        json_out_text(out, "[]");
}

static void blokus_write_outcome(const game_outcome *outcome, json_out *out)
{
    json_out_text(out, ",\"color\":");
    json_out_int(out, outcome->color);
}

/* ---- Reef Builder --------------------------------------------------------- */

static json_t *reef_board_json(const game *position, int seat)
{
    const reef_state *board = &position->state.reef[seat];
    return json_pack("{s:i, s:o, s:o, s:o, s:I, s:I, s:i, s:s, s:I, s:b}", "seat", seat, "board",
                     game_json_reef_board(board), "current",
                     game_json_reef_piece(reef_current(board)), "next",
                     game_json_reef_piece(reef_next(board)), "score", (json_int_t)reef_score(board),
                     "streak", (json_int_t)reef_streak(board), "skipsLeft", reef_skips_left(board),
                     "phase", game_seat_may_move(position, seat) ? "playing" : "ended", "ply",
                     (json_int_t)reef_turns(board), "resigned", position->has_resigned[seat]);
}

/* Appends `value` (and releases it); NULL is out of memory. */
static void write_json(json_out *out, json_t *value)
{
    json_out_value(out, value);
    json_decref(value);
}

static void reef_write_state(const game *position, json_out *out)
{
    json_t *boards = json_array();
    for (int seat = 0; seat < position->options.seat_count; seat++)
        json_array_append_new(boards, reef_board_json(position, seat));
    json_out_text(out, ",\"boards\":");
    write_json(out, boards);
}

static void reef_write_legal_moves(const game *position, int seat, json_out *out)
{
    write_json(out, game_seat_may_move(position, seat)
                        ? game_json_reef_legal_actions(&position->state.reef[seat])
                        : json_array());
}

/* The placement's result, as the stateless API reports it. */
static void reef_write_outcome(const game_outcome *outcome, json_out *out)
{
    json_out_text(out, ",\"result\":");
    write_json(out, game_json_reef_result(&outcome->reef));
}

/* ---- dispatch ------------------------------------------------------------ */

void game_wire_write_state(const game *position, json_out *out)
{
    if (position->options.kind == GAME_BLOKUS)
        blokus_write_state(position, out);
    else
        reef_write_state(position, out);
}

bool game_wire_has_hints(const game *position, int seat)
{
    const blokus_state *board = &position->state.blokus;
    return position->options.kind == GAME_BLOKUS && seat >= 0 && !game_is_over(position) &&
           blokus_player_to_move(board) == seat;
}

void game_wire_write_hints(const game *position, json_out *out)
{
    const blokus_state *board = &position->state.blokus;
    json_out_text(out, ",\"hints\":");
    game_json_write_blokus_hints(out, board, board->to_move);
}

void game_wire_write_legal_moves(const game *position, int seat, json_out *out)
{
    if (position->options.kind == GAME_BLOKUS)
        blokus_write_legal_moves(position, seat, out);
    else
        reef_write_legal_moves(position, seat, out);
}

void game_wire_write_outcome(const game *position, const game_outcome *outcome, json_out *out)
{
    if (position->options.kind == GAME_BLOKUS)
        blokus_write_outcome(outcome, out);
    else
        reef_write_outcome(outcome, out);
}

void game_wire_write_move(const game *position, game_move move, const game_outcome *outcome,
                          json_out *out)
{
    json_out_text(out, ",\"action\":");
    game_json_write_move(out, move);
    game_wire_write_outcome(position, outcome, out);
}

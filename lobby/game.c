/* game.c -- game options, and dispatch of game.h to each game's rules. */
#include <stdio.h>
#include <string.h>

#include "engine/blokus_bot.h"
#include "engine/reef_bot.h"
#include "lobby/game_rules.h"
#include "protocol/game_json.h"

#define REEF_RACE_SEATS 4

static const struct game_rules *rules_of(const game *position)
{
    return position->options.kind == GAME_BLOKUS ? &GAME_BLOKUS_RULES : &GAME_REEF_RULES;
}

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

int game_options_parse(const protocol_room_create *create, uint64_t default_seed, game_options *out,
                       protocol_failure *failure)
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

json_t *game_options_json(const game_options *options)
{
    json_t *json = json_pack("{s:o, s:s, s:i}", "seed", game_json_seed_value(options->seed),
                             "timeout", options->timeout == GAME_TIMEOUT_PASS ? "pass" : "bot",
                             "seats", options->seat_count);
    if (options->kind == GAME_BLOKUS)
        json_object_set_new(json, "scoring", json_string(blokus_scoring_name(options->scoring)));
    else
        json_object_set_new(json, "max_turns", json_integer(options->max_turns));
    json_object_set_new(json, "clock",
                        options->has_clock
                            ? json_pack("{s:I, s:I}", "initial_ms",
                                        (json_int_t)options->clock_initial_ms, "increment_ms",
                                        (json_int_t)options->clock_increment_ms)
                            : json_null());
    return json;
}

int game_options_from_json(const json_t *json, const char *game_name, const char *mode,
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
        game_options_parse(&create, 0, out, &failure) != 0)
        return -1;
    json_int_t seats = json_integer_value(json_object_get(json, "seats"));
    if (seats >= 1 && seats <= out->seat_count)
        out->seat_count = (int)seats;
    return 0;
}

const char *game_kind_name(const game_options *options)
{
    return options->kind == GAME_BLOKUS ? "blokus" : "reef-builder";
}

const char *game_mode_name(const game_options *options)
{
    if (options->kind == GAME_BLOKUS)
        return blokus_mode_name(options->blokus_mode);
    return options->is_race ? "race" : "solo";
}

bool game_is_bot_name(const game_options *options, const char *bot)
{
    if (options->kind == GAME_BLOKUS) {
        blokus_bot_kind kind;
        return blokus_bot_parse(bot, &kind) == 0;
    }
    reef_bot_kind kind;
    return reef_bot_parse(bot, &kind) == 0;
}

void game_start(game *position, const game_options *options)
{
    memset(position, 0, sizeof(*position));
    position->options = *options;
    if (options->kind == GAME_BLOKUS) {
        blokus_init(&position->state.blokus, options->blokus_mode, options->scoring);
        return;
    }
    for (int seat = 0; seat < options->seat_count; seat++)
        reef_init(&position->state.reef[seat], options->seed);
}

bool game_is_over(const game *position)
{
    return rules_of(position)->is_over(position);
}

bool game_seat_may_move(const game *position, int seat)
{
    return rules_of(position)->seat_may_move(position, seat);
}

int64_t game_ply(const game *position, int seat)
{
    return rules_of(position)->ply(position, seat);
}

int game_decode_move(const game *position, int seat, const json_t *action, game_move *out,
                     protocol_failure *failure)
{
    int rc = rules_of(position)->parse_move(action, out, failure);
    if (rc != 0)
        return rc;
    rc = rules_of(position)->check_move(position, seat, *out);
    return rc == 0 ? 0 : protocol_fail_engine(failure, rc);
}

int game_check_move(const game *position, int seat, game_move move)
{
    return rules_of(position)->check_move(position, seat, move);
}

void game_apply(game *position, int seat, game_move move, game_outcome *outcome)
{
    rules_of(position)->apply(position, seat, move, outcome);
}

json_t *game_move_json(const game *position, game_move move)
{
    return rules_of(position)->move_json(move);
}

int game_move_from_json(const game *position, int seat, const json_t *action, game_move *out)
{
    protocol_failure failure;
    if (seat < 0 || seat >= position->options.seat_count)
        return -1;
    if (json_is_true(json_object_get(action, "pass")) && position->options.kind == GAME_BLOKUS) {
        *out = game_pass();
        return 0;
    }
    return rules_of(position)->parse_move(action, out, &failure) == 0 ? 0 : -1;
}

game_move game_pass(void)
{
    game_move move;
    memset(&move, 0, sizeof(move));
    move.blokus.piece = BLOKUS_PASS;
    return move;
}

void game_resign(game *position, int seat)
{
    position->has_resigned[seat] = true;
    rules_of(position)->resign(position, seat);
}

bool game_has_resigned(const game *position, int seat)
{
    return position->has_resigned[seat];
}

game_end game_end_reason(const game *position)
{
    if (position->options.kind == GAME_REEF)
        return GAME_END_BOARDS_ENDED;
    return position->state.blokus.is_over ? GAME_END_NO_MOVES : GAME_END_RESIGNATIONS;
}

int game_active_seats(const game *position)
{
    int active = 0;
    for (int seat = 0; seat < position->options.seat_count; seat++)
        active += !position->has_resigned[seat];
    return active;
}

void game_scores(const game *position, int64_t scores[GAME_MAX_SEATS])
{
    rules_of(position)->scores(position, scores);
}

int game_bot_move(const game *position, int seat, const char *bot, uint32_t think_ms, uint64_t seed,
                  const atomic_bool *cancel, game_move *out)
{
    return rules_of(position)->bot_move(position, seat, bot, think_ms, seed, cancel, out);
}

int game_timeout_move(const game *position, int seat, game_move *out)
{
    return rules_of(position)->timeout_move(position, seat, out);
}

void game_write_state(const game *position, int viewer_seat, json_out *out)
{
    rules_of(position)->write_state(position, viewer_seat, out);
}

void game_write_legal_moves(const game *position, int seat, json_out *out)
{
    rules_of(position)->write_legal_moves(position, seat, out);
}

void game_outcome_describe(const game *position, const game_outcome *outcome, json_t *event)
{
    rules_of(position)->describe_outcome(outcome, event);
}

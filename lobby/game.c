/* game.c -- dispatch of game.h to each game's rules.
 *
 * Each game's rules see moves of their own game only: a move of the other
 * game is refused here, before them (a player's as bad_message, a bot's or
 * the log's as the engine's bad argument). */
#include <assert.h>
#include <string.h>

#include "engine/blokus_bot.h"
#include "engine/reef_bot.h"
#include "lobby/game_rules.h"

static const struct game_rules *rules_of(const game *position)
{
    return position->options.kind == GAME_BLOKUS ? &GAME_BLOKUS_RULES : &GAME_REEF_RULES;
}

static bool is_own_move(const game *position, game_move move)
{
    return move.kind == (position->options.kind == GAME_BLOKUS ? GAME_MOVE_BLOKUS : GAME_MOVE_REEF);
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

/* A player sent the other game's action: bad_message saying what this
 * game's actions look like (docs/PROTOCOL.md, the games on the wire). */
static int refuse_other_game(const game *position, protocol_failure *failure)
{
    if (position->options.kind == GAME_BLOKUS)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "this room plays blokus: an action is {piece, orientation, row, col} "
                             "or {cells: [[row, col], ...]}");
    return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                         "this room plays reef-builder: an action is {type:\"place\", row, col, "
                         "orientation} or {type:\"skip\"}");
}

int game_check_action(const game *position, int seat, game_move move, protocol_failure *failure)
{
    if (!is_own_move(position, move))
        return refuse_other_game(position, failure);
    int rc = rules_of(position)->check_move(position, seat, move);
    return rc == 0 ? 0 : protocol_fail_engine(failure, rc);
}

int game_check_move(const game *position, int seat, game_move move)
{
    if (!is_own_move(position, move))
        return ENGINE_E_BAD_ARGUMENT;
    return rules_of(position)->check_move(position, seat, move);
}

void game_apply(game *position, int seat, game_move move, game_outcome *outcome)
{
    assert(is_own_move(position, move));
    rules_of(position)->apply(position, seat, move, outcome);
}

game_move game_pass(void)
{
    blokus_move pass = {.piece = BLOKUS_PASS};
    return game_move_of_blokus(pass);
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

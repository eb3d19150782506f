/* game_reef.c -- Reef Builder behind the game_rules table.
 *
 * Every seat has its own board from the same seed (solo is a race of one),
 * so seats move independently and a move names its board's own ply. A
 * resigned board simply stops; the race is over when every board is over
 * or stopped, and seats rank by score. */
#include <stddef.h>

#include "engine/reef_bot.h"
#include "lobby/game_rules.h"

/* A board is done when its run ended, its player resigned, or it reached
 * the room's turn cap. */
static bool reef_seat_is_done(const game *position, int seat)
{
    const reef_state *board = &position->state.reef[seat];
    return position->has_resigned[seat] || reef_is_over(board) ||
           (int64_t)reef_turns(board) >= position->options.max_turns;
}

static bool reef_game_is_over(const game *position)
{
    for (int seat = 0; seat < position->options.seat_count; seat++)
        if (!reef_seat_is_done(position, seat))
            return false;
    return true;
}

static bool reef_seat_may_move(const game *position, int seat)
{
    return seat >= 0 && seat < position->options.seat_count && !reef_seat_is_done(position, seat);
}

static int64_t reef_ply(const game *position, int seat)
{
    return reef_turns(&position->state.reef[seat]);
}

static int reef_check_move(const game *position, int seat, game_move move)
{
    return reef_check(&position->state.reef[seat], move.reef);
}

static void reef_apply_move(game *position, int seat, game_move move, game_outcome *outcome)
{
    reef_play(&position->state.reef[seat], move.reef, &outcome->reef);
}

static void reef_resign(game *position, int seat)
{
    (void)position;
    (void)seat; /* has_resigned, set by game_resign, is all a board needs */
}

static void reef_seat_scores(const game *position, int64_t scores[GAME_MAX_SEATS])
{
    for (int seat = 0; seat < GAME_MAX_SEATS; seat++)
        scores[seat] =
            seat < position->options.seat_count ? reef_score(&position->state.reef[seat]) : 0;
}

static int reef_bot_move(const game *position, int seat, const char *bot, uint32_t think_ms,
                         uint64_t seed, const atomic_bool *cancel, game_move *out)
{
    (void)think_ms;
    (void)seed;
    (void)cancel; /* the Reef bots are deterministic and fast */
    reef_bot_kind kind;
    int rc = reef_bot_parse(bot, &kind);
    if (rc != 0)
        return rc;
    reef_action chosen;
    rc = reef_bot_choose(kind, &position->state.reef[seat], &chosen);
    if (rc == 0)
        *out = game_move_of_reef(chosen);
    return rc;
}

static int reef_timeout_move(const game *position, int seat, game_move *out)
{
    if (position->options.timeout == GAME_TIMEOUT_PASS &&
        reef_skips_left(&position->state.reef[seat]) > 0) {
        *out = game_move_of_reef(reef_skip());
        return 0;
    }
    return reef_bot_move(position, seat, "greedy", 0, 0, NULL, out);
}

const struct game_rules GAME_REEF_RULES = {
    reef_game_is_over, reef_seat_may_move, reef_ply,      reef_check_move,   reef_apply_move,
    reef_resign,       reef_seat_scores,   reef_bot_move, reef_timeout_move,
};

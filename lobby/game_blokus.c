/* game_blokus.c -- Blokus behind the game_rules table.
 *
 * Seats are Blokus players. A resigned seat's colors are retired in the
 * engine; the shared color of 3p keeps rotating, and when its turn falls
 * to a resigned player the lobby plays a pass for them. A game with fewer
 * than two seats still playing is over. */
#include <string.h>

#include "engine/blokus_bot.h"
#include "lobby/game_rules.h"

static bool blokus_is_over(const game *position)
{
    return position->state.blokus.is_over ||
           (position->options.seat_count > 1 && game_active_seats(position) < 2);
}

static bool blokus_seat_may_move(const game *position, int seat)
{
    return !blokus_is_over(position) && blokus_player_to_move(&position->state.blokus) == seat;
}

static int64_t blokus_ply(const game *position, int seat)
{
    (void)seat;
    return position->state.blokus.ply;
}

static int blokus_check_move(const game *position, int seat, game_move move)
{
    (void)seat;
    return move.blokus.piece == BLOKUS_PASS ? 0
                                            : blokus_check(&position->state.blokus, move.blokus);
}

static void blokus_apply_move(game *position, int seat, game_move move, game_outcome *outcome)
{
    (void)seat;
    outcome->color = position->state.blokus.to_move;
    blokus_apply(&position->state.blokus, move.blokus);
}

static void blokus_resign(game *position, int seat)
{
    blokus_state *board = &position->state.blokus;
    for (int color = 0; color < board->color_count; color++)
        if (blokus_color_owner(board, color) == seat)
            blokus_retire_color(board, color);
}

static void blokus_seat_scores(const game *position, int64_t scores[GAME_MAX_SEATS])
{
    int player_scores[BLOKUS_MAX_PLAYERS];
    blokus_scores(&position->state.blokus, player_scores);
    for (int seat = 0; seat < GAME_MAX_SEATS; seat++)
        scores[seat] = seat < position->options.seat_count ? player_scores[seat] : 0;
}

static int blokus_bot_move(const game *position, int seat, const char *bot, uint32_t think_ms,
                           uint64_t seed, const atomic_bool *cancel, game_move *out)
{
    (void)seat;
    blokus_bot_kind kind;
    int rc = blokus_bot_parse(bot, &kind);
    if (rc != 0)
        return rc;
    if ((kind == BLOKUS_BOT_MCTS || kind == BLOKUS_BOT_MCTS2) && think_ms == 0)
        kind = BLOKUS_BOT_GREEDY; /* no time left to search: the heuristic's move */
    blokus_bot_budget budget = {think_ms, 0, cancel};
    blokus_move chosen;
    rc = blokus_bot_choose(kind, &position->state.blokus, &budget, seed, &chosen);
    if (rc == 0)
        *out = game_move_of_blokus(chosen);
    return rc;
}

static int blokus_timeout_move(const game *position, int seat, game_move *out)
{
    if (position->options.timeout == GAME_TIMEOUT_PASS) {
        *out = game_pass();
        return 0;
    }
    return blokus_bot_move(position, seat, "greedy", 0, position->state.blokus.ply, NULL, out);
}

const struct game_rules GAME_BLOKUS_RULES = {
    blokus_is_over, blokus_seat_may_move, blokus_ply,      blokus_check_move,   blokus_apply_move,
    blokus_resign,  blokus_seat_scores,   blokus_bot_move, blokus_timeout_move,
};

/* game_blokus.c -- Blokus behind the game_rules table.
 *
 * Seats are Blokus players. A resigned seat's colors are retired in the
 * engine; the shared color of 3p keeps rotating, and when its turn falls
 * to a resigned player the lobby plays a pass for them. A game with fewer
 * than two seats still playing is over. */
#include <string.h>

#include "engine/blokus_bot.h"
#include "lobby/game_rules.h"
#include "protocol/game_json.h"

static bool blokus_is_over(const game *g)
{
    return g->state.blokus.is_over || (g->options.seat_count > 1 && game_active_seats(g) < 2);
}

static bool blokus_seat_may_move(const game *g, int seat)
{
    return !blokus_is_over(g) && blokus_player_to_move(&g->state.blokus) == seat;
}

static int64_t blokus_ply(const game *g, int seat)
{
    (void)seat;
    return g->state.blokus.ply;
}

static int blokus_parse_move(const json_t *action, game_move *out, protocol_failure *failure)
{
    return game_json_blokus_action(action, &out->blokus, failure);
}

static int blokus_check_move(const game *g, int seat, game_move m)
{
    (void)seat;
    return m.blokus.piece == BLOKUS_PASS ? 0 : blokus_check(&g->state.blokus, m.blokus);
}

static void blokus_apply_move(game *g, int seat, game_move m, game_outcome *outcome)
{
    (void)seat;
    outcome->color = g->state.blokus.to_move;
    blokus_apply(&g->state.blokus, m.blokus);
}

static json_t *blokus_move_json(game_move m)
{
    return game_json_blokus_move(m.blokus);
}

static void blokus_resign(game *g, int seat)
{
    blokus_state *s = &g->state.blokus;
    for (int color = 0; color < s->color_count; color++)
        if (blokus_color_owner(s, color) == seat)
            blokus_retire_color(s, color);
}

static void blokus_seat_scores(const game *g, int64_t scores[GAME_MAX_SEATS])
{
    int player_scores[BLOKUS_MAX_PLAYERS];
    blokus_scores(&g->state.blokus, player_scores);
    for (int seat = 0; seat < GAME_MAX_SEATS; seat++)
        scores[seat] = seat < g->options.seat_count ? player_scores[seat] : 0;
}

static int blokus_bot_move(const game *g, int seat, const char *bot, uint32_t think_ms,
                           uint64_t seed, const atomic_bool *cancel, game_move *out)
{
    (void)seat;
    blokus_bot_kind kind;
    int rc = blokus_bot_parse(bot, &kind);
    if (rc != 0)
        return rc;
    if (kind == BLOKUS_BOT_MCTS && think_ms == 0)
        kind = BLOKUS_BOT_GREEDY; /* no time left to search: the heuristic's move */
    blokus_bot_budget budget = {think_ms, 0, cancel};
    return blokus_bot_choose(kind, &g->state.blokus, &budget, seed, &out->blokus);
}

static int blokus_timeout_move(const game *g, int seat, game_move *out)
{
    if (g->options.timeout == GAME_TIMEOUT_PASS) {
        *out = game_pass();
        return 0;
    }
    return blokus_bot_move(g, seat, "greedy", 0, g->state.blokus.ply, NULL, out);
}

static void blokus_write_state(const game *g, int viewer_seat, json_out *out)
{
    const blokus_state *s = &g->state.blokus;
    int64_t scores[GAME_MAX_SEATS];
    blokus_seat_scores(g, scores);
    json_out_text(out, ",\"size\":");
    json_out_int(out, s->size);
    json_out_text(out, ",\"board\":");
    game_json_write_blokus_board(out, s);
    json_out_text(out, ",\"pieces_left\":");
    game_json_write_blokus_pieces_left(out, s);
    json_out_text(out, ",\"scores\":[");
    for (int seat = 0; seat < g->options.seat_count; seat++) {
        if (seat > 0)
            json_out_raw(out, ",", 1);
        json_out_int(out, scores[seat]);
    }
    json_out_text(out, "],\"to_move\":");
    if (blokus_is_over(g)) {
        json_out_text(out, "null");
        return;
    }
    json_out_text(out, "{\"seat\":");
    json_out_int(out, blokus_player_to_move(s));
    json_out_text(out, ",\"color\":");
    json_out_int(out, s->to_move);
    json_out_raw(out, "}", 1);
    if (viewer_seat >= 0 && blokus_player_to_move(s) == viewer_seat) {
        json_out_text(out, ",\"hints\":");
        game_json_write_blokus_hints(out, s, s->to_move);
    }
}

static void blokus_write_legal_moves(const game *g, int seat, json_out *out)
{
    if (blokus_seat_may_move(g, seat))
        game_json_write_blokus_legal_moves(out, &g->state.blokus);
    else
        json_out_text(out, "[]");
}

static void blokus_describe_outcome(const game_outcome *outcome, json_t *event)
{
    json_object_set_new(event, "color", json_integer(outcome->color));
}

const struct game_rules GAME_BLOKUS_RULES = {
    blokus_is_over,           blokus_seat_may_move,    blokus_ply,          blokus_parse_move,
    blokus_check_move,        blokus_apply_move,       blokus_move_json,    blokus_resign,
    blokus_seat_scores,       blokus_bot_move,         blokus_timeout_move, blokus_write_state,
    blokus_write_legal_moves, blokus_describe_outcome,
};

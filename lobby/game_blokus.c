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

static int blokus_parse_move(const json_t *action, game_move *out, protocol_failure *failure)
{
    return game_json_blokus_action(action, &out->blokus, failure);
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

static json_t *blokus_move_json(game_move move)
{
    return game_json_blokus_move(move.blokus);
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
    if (kind == BLOKUS_BOT_MCTS && think_ms == 0)
        kind = BLOKUS_BOT_GREEDY; /* no time left to search: the heuristic's move */
    blokus_bot_budget budget = {think_ms, 0, cancel};
    return blokus_bot_choose(kind, &position->state.blokus, &budget, seed, &out->blokus);
}

static int blokus_timeout_move(const game *position, int seat, game_move *out)
{
    if (position->options.timeout == GAME_TIMEOUT_PASS) {
        *out = game_pass();
        return 0;
    }
    return blokus_bot_move(position, seat, "greedy", 0, position->state.blokus.ply, NULL, out);
}

static void blokus_write_state(const game *position, int viewer_seat, json_out *out)
{
    const blokus_state *board = &position->state.blokus;
    int64_t scores[GAME_MAX_SEATS];
    blokus_seat_scores(position, scores);
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
    if (blokus_is_over(position)) {
        json_out_text(out, "null");
        return;
    }
    json_out_text(out, "{\"seat\":");
    json_out_int(out, blokus_player_to_move(board));
    json_out_text(out, ",\"color\":");
    json_out_int(out, board->to_move);
    json_out_raw(out, "}", 1);
    if (viewer_seat >= 0 && blokus_player_to_move(board) == viewer_seat) {
        json_out_text(out, ",\"hints\":");
        game_json_write_blokus_hints(out, board, board->to_move);
    }
}

static void blokus_write_legal_moves(const game *position, int seat, json_out *out)
{
    if (blokus_seat_may_move(position, seat))
        game_json_write_blokus_legal_moves(out, &position->state.blokus);
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

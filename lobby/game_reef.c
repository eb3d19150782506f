/* game_reef.c -- Reef Builder behind the game_rules table.
 *
 * Every seat has its own board from the same seed (solo is a race of one),
 * so seats move independently and a move names its board's own ply. A
 * resigned board simply stops; the race is over when every board is over
 * or stopped, and seats rank by score. */
#include <stdlib.h>

#include "engine/reef_bot.h"
#include "lobby/game_rules.h"
#include "protocol/game_json.h"

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

static int reef_parse_move(const json_t *action, game_move *out, protocol_failure *failure)
{
    return game_json_reef_action(action, &out->reef, failure);
}

static int reef_check_move(const game *position, int seat, game_move move)
{
    return reef_check(&position->state.reef[seat], move.reef);
}

static void reef_apply_move(game *position, int seat, game_move move, game_outcome *outcome)
{
    reef_play(&position->state.reef[seat], move.reef, &outcome->reef);
}

static json_t *reef_move_json(game_move move)
{
    return game_json_reef_action_value(move.reef);
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
    return reef_bot_choose(kind, &position->state.reef[seat], &out->reef);
}

static int reef_timeout_move(const game *position, int seat, game_move *out)
{
    if (position->options.timeout == GAME_TIMEOUT_PASS &&
        reef_skips_left(&position->state.reef[seat]) > 0) {
        out->reef = reef_skip();
        return 0;
    }
    return reef_bot_move(position, seat, "greedy", 0, 0, NULL, out);
}

static json_t *reef_board_json(const game *position, int seat)
{
    const reef_state *board = &position->state.reef[seat];
    return json_pack("{s:i, s:o, s:o, s:o, s:I, s:I, s:i, s:s, s:I, s:b}", "seat", seat, "board",
                     game_json_reef_board(board), "current",
                     game_json_reef_piece(reef_current(board)), "next",
                     game_json_reef_piece(reef_next(board)), "score", (json_int_t)reef_score(board),
                     "streak", (json_int_t)reef_streak(board), "skipsLeft", reef_skips_left(board),
                     "phase", reef_seat_is_done(position, seat) ? "ended" : "playing", "ply",
                     (json_int_t)reef_turns(board), "resigned", position->has_resigned[seat]);
}

/* Appends `value` encoded (and releases it). */
static void write_json(json_out *out, json_t *value)
{
    char *text = value ? json_dumps(value, JSON_COMPACT) : NULL;
    json_decref(value);
    if (!text)
        out->has_failed = true;
    else
        json_out_text(out, text);
    free(text);
}

static void reef_write_state(const game *position, int viewer_seat, json_out *out)
{
    (void)viewer_seat; /* nothing is hidden in Reef */
    json_t *boards = json_array();
    for (int seat = 0; seat < position->options.seat_count; seat++)
        json_array_append_new(boards, reef_board_json(position, seat));
    json_out_text(out, ",\"boards\":");
    write_json(out, boards);
}

static void reef_write_legal_moves(const game *position, int seat, json_out *out)
{
    write_json(out, reef_seat_may_move(position, seat)
                        ? game_json_reef_legal_actions(&position->state.reef[seat])
                        : json_array());
}

/* The placement's result, as the stateless API reports it. */
static void reef_describe_outcome(const game_outcome *outcome, json_t *event)
{
    json_object_set_new(event, "result", game_json_reef_result(&outcome->reef));
}

const struct game_rules GAME_REEF_RULES = {
    reef_game_is_over,      reef_seat_may_move,    reef_ply,          reef_parse_move,
    reef_check_move,        reef_apply_move,       reef_move_json,    reef_resign,
    reef_seat_scores,       reef_bot_move,         reef_timeout_move, reef_write_state,
    reef_write_legal_moves, reef_describe_outcome,
};

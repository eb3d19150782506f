/* gen_history_game.c -- a game fed through match and stored as its
 * records (see gen_history_game.h).
 *
 * The game row is created the way room_open creates it (the options as
 * the room shows them, sorted, with "private"), under a room code drawn
 * from the plan's seed in the lobby's alphabet. Then every event is one
 * step: match_apply gives the next state and its records,
 * its records are applied to the store, the next state is adopted. Players'
 * moves go in as MATCH_EVENT_MOVE, which match checks as it does a
 * client's decoded move; built-in bots answer the bot request match
 * makes, as a bot job would. */
#include <stdio.h>
#include <stdlib.h>

#include "bench/gen_history_game.h"
#include "engine/reef_bot.h"
#include "engine/rng.h"
#include "lobby/game_wire.h"
#include "lobby/lobby.h"
#include "lobby/match_records.h"
#include "storage/store_port.h"

#define OWNER             1 /* the member who created the room */
#define ROOM_CODE_LENGTH  8
#define SEATING_MS        4000 /* from the room's creation to its start */
#define FASTEST_MOVE_MS   150
#define SLOWEST_MOVE_MS   6000
#define CHOICE_PRECISION  1000000
#define REEF_GREEDY_SHARE 0.25 /* of a player's skill: Reef runs end in tens of turns */

static const char ROOM_CODE_ALPHABET[] = "0123456789abcdefghjkmnpqrstvwxyz";

/* A game under way: its rules' state and where it is stored. */
struct play {
    store *storage;
    const history_game_plan *plan;
    int64_t game_id;
    match state;
    int64_t now_ms;
    rng choices;
};

static int create_row(struct play *play)
{
    const game_options *options = &play->plan->options;
    char code[ROOM_CODE_LENGTH + 1];
    for (int i = 0; i < ROOM_CODE_LENGTH; i++)
        code[i] = ROOM_CODE_ALPHABET[rng_below(&play->choices, 32)];
    code[ROOM_CODE_LENGTH] = '\0';
    json_t *options_json = game_wire_options_json(options);
    json_object_set_new(options_json, "private", json_false());
    char *text = options_json ? json_dumps(options_json, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(options_json);
    if (!text)
        return STORE_E_NOMEM;
    store_game_info info = {code,
                            game_kind_name(options),
                            game_mode_name(options),
                            text,
                            options->seed,
                            play->plan->created_at_ms,
                            play->plan->tournament_id,
                            play->plan->tournament_game};
    int rc = store_game_create(play->storage, &info, &play->game_id);
    free(text);
    return rc;
}

/* Runs one event: decided, stored, adopted. */
static int run(struct play *play, match_event *event, match_effects *effects)
{
    match next;
    protocol_failure failure;
    event->now_ms = play->now_ms;
    int rc = match_apply(&play->state, event, &next, effects, &failure);
    if (rc != 0) {
        fprintf(stderr, "gen_history_db: game %lld: the rules refused event %d: %s\n",
                (long long)play->game_id, (int)event->kind, failure.message);
        return HISTORY_GAME_REFUSED;
    }
    store_record records[MATCH_RECORDS_MAX];
    int count = 0;
    rc = match_records_of(play->game_id, &next, effects, NULL, records, &count);
    for (int i = 0; rc == 0 && i < count; i++)
        rc = store_record_apply(play->storage, &records[i]);
    if (rc == 0)
        play->state = next;
    return rc;
}

static int seat_everyone(struct play *play, match_effects *effects)
{
    const history_game_plan *plan = play->plan;
    int rc = 0;
    for (int seat = 0; rc == 0 && seat < plan->options.seat_count; seat++) {
        const history_seat_plan *seat_plan = &plan->seats[seat];
        match_event event = {.seat = seat, .member = OWNER};
        event.kind = seat_plan->player_id ? MATCH_EVENT_JOIN : MATCH_EVENT_ADD_BOT;
        event.player_id = seat_plan->player_id;
        event.bot = seat_plan->bot;
        rc = run(play, &event, effects);
    }
    play->now_ms += SEATING_MS;
    match_event start = {.kind = MATCH_EVENT_START, .member = OWNER};
    return rc == 0 ? run(play, &start, effects) : rc;
}

static bool chance(rng *generator, double probability)
{
    return rng_below(generator, CHOICE_PRECISION) < probability * CHOICE_PRECISION;
}

/* A random legal Reef placement (a skip only when no placement fits). */
static game_move random_reef_placement(const reef_state *board, rng *generator)
{
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(board, actions);
    int placements = 0;
    for (int i = 0; i < count; i++)
        if (actions[i].type == REEF_ACTION_PLACE)
            actions[placements++] = actions[i];
    return game_move_of_reef(placements ? actions[rng_below(generator, (uint32_t)placements)]
                                        : reef_skip());
}

/* The move the player of `seat` chooses (see gen_history_game.h). */
static int choose(struct play *play, int seat, game_move *move)
{
    const game *position = &play->state.game;
    double greedy_chance = play->plan->seats[seat].greedy_chance;
    if (position->options.kind == GAME_REEF)
        greedy_chance *= REEF_GREEDY_SHARE;
    bool is_greedy = chance(&play->choices, greedy_chance);
    uint64_t seed = rng_next(&play->choices);
    if (position->options.kind == GAME_REEF && !is_greedy) {
        *move = random_reef_placement(&position->state.reef[seat], &play->choices);
        return 0;
    }
    const char *bot = is_greedy || position->options.kind == GAME_REEF ? "greedy" : "random";
    return game_bot_move(position, seat, bot, 0, seed, NULL, move);
}

/* The player of `seat` moves: its action goes in as a client's would. */
static int player_moves(struct play *play, int seat, match_effects *effects)
{
    match_event event = {.kind = MATCH_EVENT_MOVE,
                         .player_id = play->plan->seats[seat].player_id,
                         .ply = game_ply(&play->state.game, seat)};
    if (choose(play, seat, &event.move) != 0) {
        fprintf(stderr, "gen_history_db: game %lld: no move for seat %d\n",
                (long long)play->game_id, seat);
        return HISTORY_GAME_REFUSED;
    }
    return run(play, &event, effects);
}

/* The built-in bot match asked for plays, as a bot job would. */
static int bot_moves(struct play *play, const match_bot_request *request, match_effects *effects)
{
    match_event event = {.kind = MATCH_EVENT_BOT_MOVE, .seat = request->seat, .ply = request->ply};
    int rc = game_bot_move(&play->state.game, request->seat, request->bot, 0, request->seed, NULL,
                           &event.move);
    return rc == 0 ? run(play, &event, effects) : HISTORY_GAME_REFUSED;
}

/* The seat to play next: the bot match waits for, or the first player
 * seat after `last` that may move (Reef boards take turns). */
static int next_player_seat(const match *state, int last)
{
    int count = state->options.seat_count;
    for (int step = 1; step <= count; step++) {
        int seat = (last + step) % count;
        if (state->seats[seat].kind == MATCH_SEAT_PLAYER && game_seat_may_move(&state->game, seat))
            return seat;
    }
    return -1;
}

static int play_out(struct play *play, match_effects *effects)
{
    const history_game_plan *plan = play->plan;
    int rc = 0, last = -1;
    while (rc == 0 && play->state.status == MATCH_PLAYING) {
        play->now_ms +=
            FASTEST_MOVE_MS + rng_below(&play->choices, SLOWEST_MOVE_MS - FASTEST_MOVE_MS);
        if (plan->resign_seat >= 0 && play->state.seq == plan->resign_after &&
            !game_has_resigned(&play->state.game, plan->resign_seat)) {
            match_event event = {.kind = MATCH_EVENT_RESIGN,
                                 .player_id = plan->seats[plan->resign_seat].player_id};
            rc = run(play, &event, effects);
        } else if (effects->wants_bot) {
            rc = bot_moves(play, &effects->bot, effects);
        } else if ((last = next_player_seat(&play->state, last)) >= 0) {
            rc = player_moves(play, last, effects);
        } else {
            fprintf(stderr, "gen_history_db: game %lld: nobody may move\n",
                    (long long)play->game_id);
            rc = HISTORY_GAME_REFUSED;
        }
    }
    return rc;
}

int history_game_play(store *storage, const history_game_plan *plan, history_game_outcome *outcome)
{
    lobby_config defaults = lobby_default_config();
    match_config config = {defaults.reconnect_grace_ms, defaults.finished_room_ttl_ms,
                           defaults.bot_think_ms};
    struct play play = {.storage = storage,
                        .plan = plan,
                        .now_ms = plan->created_at_ms,
                        .choices = rng_seeded(plan->seed)};
    match_init(&play.state, &config, &plan->options, OWNER);
    match_effects effects;
    int rc = create_row(&play);
    if (rc == 0)
        rc = seat_everyone(&play, &effects);
    if (rc == 0)
        rc = play_out(&play, &effects);
    if (rc != 0)
        return rc;
    outcome->game_id = play.game_id;
    outcome->moves = play.state.seq;
    outcome->finished_at_ms = play.now_ms;
    match_result_of(&play.state, &outcome->result);
    return 0;
}

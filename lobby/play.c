/* play.c -- moves, clocks, bots, resignations and the end of a game.
 *
 * Every change to a game goes through record() first: the action is
 * appended to the store and committed, and only then applied and
 * broadcast, so no client ever sees a move a crash could lose. A move
 * names the ply it was made against; a stale or repeated one is refused.
 *
 * Who moves: a seat is played by its player while present; by its
 * built-in bot; and by a stand-in bot (greedy) when its player left the
 * game or has been away longer than the reconnect grace. Bot moves are
 * computed on a worker thread from a copy of the game and played on
 * return only if the seat is still waiting for exactly that move. When a
 * clock runs out, the room's timeout policy plays for the seat. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"

#define STAND_IN_BOT "greedy"

struct bot_job {
    lobby_job base; /* first, so the host's lobby_job * is this job */
    struct lobby *lobby;
    uint64_t room_key;
    int seat;
    int64_t ply;
    char bot[PROTOCOL_WORD_MAX + 1];
    uint32_t think_ms;
    uint64_t seed;
    game game;
    game_move move;
    int result;
};

static bool seat_is_automatic(const struct room *r, int index, int64_t now)
{
    const struct seat *s = &r->seats[index];
    if (s->kind == SEAT_BOT || s->has_left)
        return true;
    return s->is_away && now - s->away_since_ms >= r->lobby->config.reconnect_grace_ms;
}

static json_t *scores_json(const struct room *r)
{
    int64_t scores[GAME_MAX_SEATS];
    game_scores(&r->game, scores);
    json_t *list = json_array();
    for (int seat = 0; seat < r->options.seat_count; seat++)
        json_array_append_new(list, json_integer(scores[seat]));
    return list;
}

/* Starts the clock of every seat that may now move and did not before, or
 * just moved; stops the others. */
static void update_turns(struct room *r, int mover, int64_t now)
{
    for (int seat = 0; seat < r->options.seat_count; seat++) {
        struct seat *s = &r->seats[seat];
        bool may_move = game_seat_may_move(&r->game, seat);
        if (may_move && (!s->is_on_turn || seat == mover))
            s->turn_started_ms = now;
        s->is_on_turn = may_move;
    }
}

/* Appends an action of `seat` to the store (committed on return). A turn
 * (a move) charges the seat's clock and earns the increment; a seat event
 * (resigning, leaving) leaves the clock alone. 0, or a failure: nothing
 * changed. */
static int record(struct room *r, int seat, const json_t *action, bool is_turn,
                  protocol_failure *failure)
{
    struct seat *s = &r->seats[seat];
    int64_t now = lobby_now(r->lobby);
    int64_t elapsed = is_turn && s->is_on_turn ? now - s->turn_started_ms : 0;
    int64_t clock_after = -1;
    if (r->options.has_clock) {
        clock_after = s->clock_ms - elapsed;
        clock_after = (clock_after > 0 ? clock_after : 0);
        clock_after += is_turn ? r->options.clock_increment_ms : 0;
    }
    char *text = json_dumps(action, JSON_COMPACT);
    store_move m = {r->game_id, r->seq,  seat,        (int)game_ply(&r->game, seat),
                    text,       elapsed, clock_after, now};
    int rc = text ? store_move_append(r->lobby->db, &m) : STORE_E_NOMEM;
    free(text);
    if (rc != 0)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL,
                             "the move could not be saved (%s); it was not played",
                             store_strerror(rc));
    r->seq++;
    if (r->options.has_clock)
        s->clock_ms = clock_after;
    return 0;
}

/* Sends `event` to every member, the requester (if any) with its id. */
static void announce(struct room *r, json_t *event, const protocol_request *request)
{
    if (request) {
        lobby_reply(r->lobby, request->connection, json_deep_copy(event), request->message->id);
        room_broadcast(r, event, request->session);
    } else {
        room_broadcast(r, event, NULL);
    }
}

static void finish(struct room *r);

/* After any change: the end of the game, or the new state to everyone and
 * the next turn. */
static void after_change(struct room *r)
{
    if (game_is_over(&r->game)) {
        finish(r);
        return;
    }
    room_broadcast_state(r);
    play_schedule(r);
}

static int commit_move(struct room *r, int seat, game_move m, const char *cause,
                       const protocol_request *request, protocol_failure *failure)
{
    int64_t ply = game_ply(&r->game, seat);
    json_t *action = game_move_json(&r->game, m);
    int rc = action ? record(r, seat, action, true, failure) : PROTOCOL_E_INTERNAL;
    if (rc != 0) {
        json_decref(action);
        return rc;
    }
    game before = r->game;
    game_apply(&r->game, seat, m);
    update_turns(r, seat, lobby_now(r->lobby));
    json_t *event = json_pack("{s:s, s:s, s:I, s:i, s:o}", "type", "game.moved", "room", r->code,
                              "ply", (json_int_t)ply, "seat", seat, "action", action);
    game_describe_move(&before, seat, m, event);
    json_object_set_new(event, "scores", scores_json(r));
    if (cause)
        json_object_set_new(event, "cause", json_string(cause));
    announce(r, event, request);
    after_change(r);
    return 0;
}

/* A background move (bot, timeout, automatic pass) that failed to save is
 * not retried here; the next tick schedules the seat again. */
static void commit_background_move(struct room *r, int seat, game_move m, const char *cause)
{
    protocol_failure failure;
    commit_move(r, seat, m, cause, NULL, &failure);
}

static void bot_work(lobby_job *base)
{
    struct bot_job *job = (struct bot_job *)base;
    job->result =
        game_bot_move(&job->game, job->seat, job->bot, job->think_ms, job->seed, &job->move);
}

static void bot_done(lobby_job *base)
{
    struct bot_job *job = (struct bot_job *)base;
    struct lobby *l = job->lobby;
    struct room *r = id_table_get(&l->rooms, job->room_key);
    l->jobs_in_flight--;
    if (r && job->seat < r->options.seat_count)
        r->seats[job->seat].is_job_pending = false;
    bool is_wanted = r && !l->is_shutting_down && r->status == ROOM_PLAYING &&
                     game_seat_may_move(&r->game, job->seat) &&
                     game_ply(&r->game, job->seat) == job->ply &&
                     seat_is_automatic(r, job->seat, lobby_now(l));
    if (is_wanted && job->result != 0)
        job->result = game_timeout_move(&r->game, job->seat, &job->move);
    if (is_wanted && job->result == 0)
        commit_background_move(r, job->seat, job->move,
                               r->seats[job->seat].kind == SEAT_BOT ? NULL : "stand_in");
    free(job);
}

static void start_bot(struct room *r, int seat)
{
    struct lobby *l = r->lobby;
    struct seat *s = &r->seats[seat];
    struct bot_job *job = calloc(1, sizeof(*job));
    if (!job)
        return;
    job->base.work = bot_work;
    job->base.done = bot_done;
    job->lobby = l;
    job->room_key = r->key;
    job->seat = seat;
    job->ply = game_ply(&r->game, seat);
    snprintf(job->bot, sizeof(job->bot), "%s", s->kind == SEAT_BOT ? s->bot : STAND_IN_BOT);
    job->think_ms = l->config.bot_think_ms;
    job->seed = r->options.seed ^ ((uint64_t)r->seq << 8) ^ (uint64_t)seat;
    job->game = r->game;
    if (l->host.queue_work(l->host.context, &job->base) != 0) {
        free(job); /* the seat stays waiting; the next tick tries again */
        return;
    }
    s->is_job_pending = true;
    l->jobs_in_flight++;
}

void play_schedule(struct room *r)
{
    if (r->status != ROOM_PLAYING || r->lobby->is_shutting_down)
        return;
    int64_t now = lobby_now(r->lobby);
    for (int seat = 0; seat < r->options.seat_count; seat++) {
        if (!game_seat_may_move(&r->game, seat))
            continue;
        if (r->game.has_resigned[seat]) {
            /* 3p: the shared color's turn fell to a player who resigned. */
            commit_background_move(r, seat, game_pass(), "resigned");
            return;
        }
        if (seat_is_automatic(r, seat, now) && !r->seats[seat].is_job_pending)
            start_bot(r, seat);
    }
}

void play_begin(struct room *r)
{
    game_start(&r->game, &r->options);
    r->status = ROOM_PLAYING;
    for (int seat = 0; seat < r->options.seat_count; seat++)
        r->seats[seat].clock_ms = r->options.clock_initial_ms;
    update_turns(r, -1, lobby_now(r->lobby));
    room_broadcast_room(r);
    after_change(r);
}

void play_resume(struct room *r)
{
    update_turns(r, -1, lobby_now(r->lobby));
    after_change(r);
}

void play_tick(struct room *r)
{
    int64_t now = lobby_now(r->lobby);
    for (int seat = 0; seat < r->options.seat_count && r->options.has_clock; seat++) {
        const struct seat *s = &r->seats[seat];
        game_move m;
        bool is_flagged =
            s->is_on_turn && !s->is_job_pending && now - s->turn_started_ms >= s->clock_ms;
        if (is_flagged && game_timeout_move(&r->game, seat, &m) == 0) {
            commit_background_move(r, seat, m, "timeout");
            return; /* the state changed; the next tick looks again */
        }
    }
    play_schedule(r);
}

/* The seat of the requester in a room under way, or a failure. */
static int playing_seat(struct lobby *l, const protocol_request *request, struct room **room)
{
    struct room *r = room_of_request(l, request);
    if (!r)
        return request->failure->code;
    int seat = room_seat_of(r, request->session);
    if (seat < 0 || r->seats[seat].has_left)
        return protocol_fail(request->failure, PROTOCOL_E_NOT_IN_ROOM,
                             "you have no seat in this game");
    if (r->status == ROOM_WAITING)
        return protocol_fail(request->failure, PROTOCOL_E_NOT_STARTED, "the game has not started");
    if (r->status == ROOM_FINISHED)
        return protocol_fail(request->failure, PROTOCOL_E_GAME_OVER, "the game is over");
    *room = r;
    return seat;
}

int play_move(struct lobby *l, const protocol_request *request)
{
    struct room *r = NULL;
    int seat = playing_seat(l, request, &r);
    if (seat < 0)
        return seat;
    const protocol_move *move = &request->message->body.move;
    int64_t ply = game_ply(&r->game, seat);
    if (move->ply != ply)
        return protocol_fail(request->failure, PROTOCOL_E_STALE_PLY,
                             "the move names ply %lld but the game is at ply %lld",
                             (long long)move->ply, (long long)ply);
    if (!game_seat_may_move(&r->game, seat))
        return protocol_fail(request->failure, PROTOCOL_E_NOT_YOUR_TURN, "it is not your turn");
    game_move m;
    int rc = game_decode_move(&r->game, seat, move->action, &m, request->failure);
    if (rc != 0)
        return rc;
    r->seats[seat].is_away = false;
    return commit_move(r, seat, m, NULL, request, request->failure);
}

int play_moves_list(struct lobby *l, const protocol_request *request)
{
    struct room *r = NULL;
    int seat = playing_seat(l, request, &r);
    if (seat < 0)
        return seat;
    json_t *reply = json_pack("{s:s, s:s, s:i, s:I}", "type", "game.moves", "room", r->code, "seat",
                              seat, "ply", (json_int_t)game_ply(&r->game, seat));
    char *moves = game_legal_moves_text(&r->game, seat);
    lobby_send_text(l, request->connection,
                    protocol_finish_with_text(reply, "moves", moves, request->message->id));
    return 0;
}

int play_resign(struct lobby *l, const protocol_request *request)
{
    struct room *r = NULL;
    int seat = playing_seat(l, request, &r);
    if (seat < 0)
        return seat;
    if (r->game.has_resigned[seat])
        return protocol_fail(request->failure, PROTOCOL_E_GAME_OVER, "you have already resigned");
    json_t *action = json_pack("{s:b}", "resign", 1);
    int rc = record(r, seat, action, false, request->failure);
    json_decref(action);
    if (rc != 0)
        return rc;
    game_resign(&r->game, seat);
    update_turns(r, seat, lobby_now(l));
    announce(r,
             json_pack("{s:s, s:s, s:i}", "type", "game.resigned", "room", r->code, "seat", seat),
             request);
    after_change(r);
    return 0;
}

int play_leave(struct room *r, int seat, protocol_failure *failure)
{
    json_t *action = json_pack("{s:b}", "leave", 1);
    int rc = record(r, seat, action, false, failure);
    json_decref(action);
    if (rc != 0)
        return rc;
    r->seats[seat].has_left = true;
    play_schedule(r);
    return 0;
}

/* Rank 1 is best. Blokus: a resigned seat ranks below every seat still in
 * play; Reef: by score alone (resigning just ends your run). */
static bool ranks_above(const struct room *r, const int64_t *scores, int a, int b)
{
    bool a_resigned = r->game.has_resigned[a], b_resigned = r->game.has_resigned[b];
    if (r->options.kind == GAME_BLOKUS && a_resigned != b_resigned)
        return !a_resigned;
    return scores[a] > scores[b];
}

static const char *end_reason(const struct room *r)
{
    if (r->options.kind == GAME_REEF)
        return "boards_ended";
    return r->game.state.blokus.is_over ? "no_moves" : "resignations";
}

/* Records the result, then tells everyone: the final state (status
 * finished), game.over, and the room. */
static void finish(struct room *r)
{
    int count = r->options.seat_count;
    int64_t scores[GAME_MAX_SEATS];
    store_seat_result results[GAME_MAX_SEATS];
    game_scores(&r->game, scores);
    json_t *ranks = json_array(), *winners = json_array();
    for (int seat = 0; seat < count; seat++) {
        int rank = 1;
        for (int other = 0; other < count; other++)
            rank += ranks_above(r, scores, other, seat);
        results[seat] = (store_seat_result){seat, scores[seat], rank, rank == 1 && count > 1};
        json_array_append_new(ranks, json_integer(rank));
        if (results[seat].is_winner)
            json_array_append_new(winners, json_integer(seat));
    }
    json_t *result = json_pack("{s:o, s:o, s:o, s:s}", "scores", scores_json(r), "ranks", ranks,
                               "winners", winners, "reason", end_reason(r));
    char *text = json_dumps(result, JSON_COMPACT | JSON_SORT_KEYS);
    int64_t now = lobby_now(r->lobby);
    lobby_log(r->lobby, "room %s game %lld over after %d moves: %s", r->code, (long long)r->game_id,
              r->seq, text ? text : "");
    store_game_finish(r->lobby->db, r->game_id, STORE_GAME_FINISHED, text, count, results, now);
    free(text);
    r->status = ROOM_FINISHED;
    r->finished_at_ms = now;
    for (int seat = 0; seat < count; seat++)
        r->seats[seat].is_on_turn = false;
    room_broadcast_state(r);
    room_broadcast(
        r, json_pack("{s:s, s:s, s:o}", "type", "game.over", "room", r->code, "result", result),
        NULL);
    room_broadcast_room(r);
}

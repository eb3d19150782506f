/* room_run.c -- room events: every one goes through here, one at a time
 * per room, and this is the one place its effects happen.
 *
 * The order is fixed and is the lobby's durability promise:
 *
 *   1. decide   match_apply: the next state and the effects (pure);
 *   2. store    the event's records (match_records.h) as one commit
 *               (runner.c): all of them in one transaction, or none;
 *   3. adopt    only once the store said so does the room take the next
 *               state;
 *   4. publish  replies and events to the members, each encoded once;
 *   5. schedule the bot move it waits for, its wake-up time, its end;
 *   6. post     a tournament game that just ended lets its tournament
 *               carry on -- later, from the runner's list, never from
 *               inside this event.
 *
 * If step 2 fails, the room keeps the state it had (which is what is
 * stored), nothing is published, the sender gets `storage_error`, and the
 * room is woken again LOBBY_RETRY_MS later; the next event starts from
 * that state, so everything works again once the store does.
 *
 * While a room's commit is out (its creation, or an event), its next
 * events wait in the room's queue, in order; other rooms go on. Nothing
 * runs nested: room_run runs an event at once only when the room is idle
 * and the runner is not already carrying something out; otherwise the
 * event waits for runner_drain (runner.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"
#include "lobby/match_records.h"
#include "lobby/room_arrange.h"
#include "lobby/tournament.h"

/* One event on its way through a room: the event and who sent it, kept
 * until it was carried out (the sender's player pinned, its request id
 * referenced, the bot name copied). */
struct room_event {
    match_event event;
    char bot[MATCH_BOT_NAME_SIZE];
    struct player *player;
    uint64_t connection;
    json_t *id;
    fifo_link waiting; /* in its room's events */
};

/* An event whose records are being stored, with what it leads to. */
struct room_commit {
    struct runner_commit base; /* first: the runner's commit is this one */
    struct room *room;
    struct room_event *event;
    match next;
    match_effects effects;
    store_record records[MATCH_RECORDS_MAX];
    struct room_commit *next_spare; /* in lobby->spare_commits */
};

/* At most this many finished commits are kept for the next events: a
 * commit is 17 KB, and a malloc that large first merges malloc's small
 * free chunks (malloc_consolidate), a cost every move would pay. */
#define SPARE_COMMITS_MAX 64

/* ---- events --------------------------------------------------------------- */

static struct room_event *event_new(const match_event *event, const room_sender *sender)
{
    struct room_event *copy = calloc(1, sizeof(*copy));
    if (!copy)
        return NULL;
    copy->event = *event;
    if (event->bot) {
        snprintf(copy->bot, sizeof(copy->bot), "%s", event->bot);
        copy->event.bot = copy->bot;
    }
    if (sender) {
        copy->player = sender->player;
        copy->connection = sender->connection;
        copy->id = json_incref((json_t *)sender->id);
    }
    if (copy->player)
        copy->player->pins++;
    return copy;
}

static void event_free(struct lobby *lobby, struct room_event *event)
{
    json_decref(event->id);
    if (event->player)
        lobby_player_unpin(lobby, event->player);
    uint64_t connection = event->connection;
    free(event);
    player_row_event_answered(lobby, connection); /* its sender's next messages go on */
}

static room_sender sender_of(const struct room_event *event)
{
    return (room_sender){event->player, event->connection, event->id};
}

/* ---- the lists ------------------------------------------------------------ */

static void mark_ready(struct room *room)
{
    if (room->is_ready || room->commit || fifo_is_empty(&room->events))
        return;
    room->is_ready = true;
    fifo_push(&room->lobby->ready, &room->ready);
}

static struct room *take_ready(struct lobby *lobby)
{
    struct room *room = FIFO_ITEM(fifo_pop(&lobby->ready), struct room, ready);
    if (room)
        room->is_ready = false;
    return room;
}

static void enqueue(struct room *room, struct room_event *event, bool is_first)
{
    if (is_first)
        fifo_push_front(&room->events, &event->waiting);
    else
        fifo_push(&room->events, &event->waiting);
    mark_ready(room);
}

static struct room_event *dequeue(struct room *room)
{
    return FIFO_ITEM(fifo_pop(&room->events), struct room_event, waiting);
}

/* ---- refusals ------------------------------------------------------------- */

void room_discard_arranged(struct room *room, const protocol_failure *failure)
{
    struct lobby *lobby = room->lobby;
    lobby_log(lobby, "room %s could not be arranged: %s", room->code, failure->message);
    if (lobby->arranging == room) { /* room_arrange returns it to its caller */
        lobby->arrange_failure = *failure;
        lobby->arranging = NULL;
    } else {
        for (int seat = 0; seat < GAME_MAX_SEATS; seat++)
            if (room->seated[seat] && room->seated[seat]->connection)
                lobby_send_failure(lobby, room->seated[seat]->connection, NULL, failure);
        room_run_refuse_queued(room, failure); /* those not seated yet */
    }
    if (room->game_id) { /* else its creation is what failed */
        store_record abort = {.kind = STORE_RECORD_GAME_ABORT, .at_ms = lobby_now(lobby)};
        abort.game_id = room->game_id;
        runner_store_alone(lobby, &abort);
    }
    if (room->tournament.id)
        tournament_game_discarded(lobby, room->tournament.id, room->tournament.game);
    room_free(room);
}

/* What follows a refusal: the sender hears it; a move that came too late
 * lets the timeout policy play at once; a failed store or a stale bot
 * answer is tried again. Returns whether the room still exists. */
static bool refuse(struct room *room, struct room_event *event, const protocol_failure *failure)
{
    struct lobby *lobby = room->lobby;
    if (event->connection)
        lobby_send_failure(lobby, event->connection, event->id, failure);
    if (room->is_arranged) {
        room_discard_arranged(room, failure);
        return false;
    }
    if (failure->code == PROTOCOL_E_STORAGE) {
        room_wake_retry(room, event->event.now_ms); /* the timer looks again */
    } else if (failure->code == PROTOCOL_E_OUT_OF_TIME) {
        /* The flag fell before the move was read: the mover heard so
         * first; the timeout policy plays now, not at the next tick. */
        match_event timer = {.kind = MATCH_EVENT_TIMER, .now_ms = event->event.now_ms};
        struct room_event *next = event_new(&timer, NULL);
        if (next)
            enqueue(room, next, true);
        else
            room_wake_retry(room, event->event.now_ms);
    } else if (event->event.kind == MATCH_EVENT_BOT_MOVE) {
        bots_requeue(room); /* a stale answer: the room waits for a newer move */
    }
    return true;
}

/* ---- carrying out --------------------------------------------------------- */

/* A room that just finished no longer counts against the room limits. */
static void count_finish(struct room *room, match_status before)
{
    if (before == MATCH_FINISHED || room->match.status != MATCH_FINISHED)
        return;
    room->lobby->open_room_count--;
    if (room->owner)
        room->owner->open_rooms--;
    char *result = match_records_result_text(&room->match);
    lobby_log(room->lobby, "room %s game %lld over after %d actions: %s", room->code,
              (long long)room->game_id, room->match.seq, result ? result : "");
    free(result);
}

/* The stored records of one event, counted for /metrics. */
static void count_records(struct lobby *lobby, const match *next, const match_effects *effects)
{
    int kind = lobby_kind_of(&next->options);
    for (int i = 0; i < effects->record_count; i++) {
        switch (effects->records[i].kind) {
        case MATCH_RECORD_START:
            lobby->counters.games_started[kind]++;
            break;
        case MATCH_RECORD_ACTION:
            lobby->counters.actions[kind]++;
            break;
        case MATCH_RECORD_FINISH:
            lobby->counters.games_finished[kind]++;
            break;
        case MATCH_RECORD_ABORT:
            lobby->counters.games_aborted[kind]++;
            break;
        case MATCH_RECORD_SEAT:
            break;
        }
    }
}

static void adopt(struct room *room, const match *next)
{
    match_status before = room->match.status;
    room->match = *next;
    room_sync_seats(room);
    if (before == MATCH_WAITING && next->status == MATCH_PLAYING) {
        room->is_arranged = false;
        lobby_log(room->lobby, "room %s started: game %lld, %d seats", room->code,
                  (long long)room->game_id, next->options.seat_count);
    }
    count_finish(room, before);
    room_list_update(room);
}

/* Steps 3 to 6 for a stored event, or the refusal of one that was not. */
static void complete(struct room_commit *commit)
{
    struct room *room = commit->room;
    struct room_event *event = commit->event;
    struct lobby *lobby = room->lobby;
    room->commit = NULL;
    int rc = commit->base.rc;
    if (rc != 0) {
        lobby_log(lobby, "room %s: could not store an event (%s); nothing changed", room->code,
                  store_strerror(rc));
        protocol_failure failure;
        protocol_fail(&failure, PROTOCOL_E_STORAGE,
                      "the change could not be saved (%s); nothing happened", store_strerror(rc));
        if (refuse(room, event, &failure))
            mark_ready(room);
        return;
    }
    bool is_tournament_game_over = room->tournament.id && room->match.status != MATCH_FINISHED &&
                                   commit->next.status == MATCH_FINISHED;
    count_records(lobby, &commit->next, &commit->effects);
    room_sender sender = sender_of(event);
    adopt(room, &commit->next);
    /* the seats of an arranged room hear of it once, started */
    bool is_quiet = room->is_arranged;
    for (int i = 0; !is_quiet && i < commit->effects.publish_count; i++)
        room_view_publish(room, &commit->effects.publishes[i], &sender, event->event.now_ms);
    if (is_tournament_game_over)
        tournament_post_game_over(lobby, room->tournament, &commit->base.batch);
    if (commit->effects.is_closed) {
        room_free(room);
        return;
    }
    room_wake_set(room, commit->effects.wake_at_ms);
    bots_want(room, &commit->effects);
    mark_ready(room);
    match_event_kind kind = event->event.kind;
    if (kind == MATCH_EVENT_LEAVE || kind == MATCH_EVENT_DISCONNECT || kind == MATCH_EVENT_TIMER)
        room_close_if_abandoned(room); /* a waiting room its last player left, or lost */
}

/* A commit, not zeroed (match_apply writes `next` and `effects`,
 * match_records_of each record it counts); NULL out of memory. */
static struct room_commit *commit_new(struct lobby *lobby)
{
    struct room_commit *commit = lobby->spare_commits;
    if (!commit)
        return malloc(sizeof(*commit));
    lobby->spare_commits = commit->next_spare;
    lobby->spare_commit_count--;
    return commit;
}

static void commit_free(struct room_commit *commit)
{
    struct lobby *lobby = commit->base.lobby;
    event_free(lobby, commit->event);
    if (lobby->spare_commit_count >= SPARE_COMMITS_MAX) {
        free(commit);
        return;
    }
    commit->next_spare = lobby->spare_commits;
    lobby->spare_commits = commit;
    lobby->spare_commit_count++;
}

void room_run_free_spares(struct lobby *lobby)
{
    while (lobby->spare_commits) {
        struct room_commit *commit = lobby->spare_commits;
        lobby->spare_commits = commit->next_spare;
        free(commit);
    }
    lobby->spare_commit_count = 0;
}

static void finish(struct runner_commit *base, bool is_live)
{
    struct room_commit *commit = (struct room_commit *)base;
    if (is_live)
        complete(commit);
    commit_free(commit);
}

/* The tournament entries of a room's seats, for its result's standings. */
static const match_records_tournament *tournament_seats(struct room *room,
                                                        match_records_tournament *out)
{
    if (!room->tournament.id)
        return NULL;
    *out = (match_records_tournament){room->tournament.id, 0, {0}};
    return tournament_entries(room->lobby, room->tournament, out) == 0 ? out : NULL;
}

/* Steps 1 and 2 of `event` in an idle room: 0 when carried out, a
 * protocol error when refused, ROOM_RUN_PENDING while stored. */
static int run_event(struct room *room, struct room_event *event)
{
    struct lobby *lobby = room->lobby;
    protocol_failure failure;
    struct room_commit *commit = commit_new(lobby);
    if (!commit) {
        protocol_fail(&failure, PROTOCOL_E_INTERNAL, "out of memory");
        if (refuse(room, event, &failure))
            mark_ready(room);
        event_free(lobby, event);
        return PROTOCOL_E_INTERNAL;
    }
    commit->base = (struct runner_commit){.lobby = lobby, .finish = finish};
    commit->room = room;
    commit->event = event;
    commit->base.batch = (store_batch){commit->records, 0, STORE_ORDER_ROOM};
    int rc = match_apply(&room->match, &event->event, &commit->next, &commit->effects, &failure);
    if (rc != 0) {
        if (refuse(room, event, &failure))
            mark_ready(room);
        commit_free(commit);
        return rc;
    }
    match_records_tournament tournament;
    commit->base.rc = match_records_of(room->game_id, &commit->next, &commit->effects,
                                       tournament_seats(room, &tournament), commit->records,
                                       &commit->base.batch.count);
    commit->base.batch.records = commit->records;
    if (commit->base.batch.count > 0 && leases_have_lapsed(lobby, event->event.now_ms))
        commit->base.rc = STORE_E_IO; /* another instance may hold the room by now */
    room->commit = &commit->base;
    rc = runner_submit(&commit->base);
    if (rc == RUNNER_PENDING)
        return ROOM_RUN_PENDING;
    return rc == STORE_OK ? 0 : PROTOCOL_E_STORAGE;
}

/* ---- entry points --------------------------------------------------------- */

int room_run(struct room *room, const match_event *event, const room_sender *sender)
{
    struct lobby *lobby = room->lobby;
    struct room_event *copy = event_new(event, sender);
    if (!copy) {
        protocol_failure failure;
        protocol_fail(&failure, PROTOCOL_E_INTERNAL, "out of memory");
        if (sender && sender->connection)
            lobby_send_failure(lobby, sender->connection, sender->id, &failure);
        return PROTOCOL_E_INTERNAL;
    }
    player_row_event_out(lobby, copy->connection);
    if (lobby->is_draining || room->commit || !fifo_is_empty(&room->events)) {
        enqueue(room, copy, false);
        runner_drain(lobby);
        return ROOM_RUN_PENDING;
    }
    lobby->is_draining = true;
    int rc = run_event(room, copy);
    lobby->is_draining = false;
    runner_drain(lobby);
    return rc;
}

bool room_run_next(struct lobby *lobby)
{
    struct room *room = take_ready(lobby);
    if (room)
        run_event(room, dequeue(room));
    return room != NULL;
}

void room_run_resume(struct room *room)
{
    mark_ready(room);
}

void room_run_refuse_queued(struct room *room, const protocol_failure *failure)
{
    struct lobby *lobby = room->lobby;
    struct room_event *event;
    while ((event = dequeue(room)) != NULL) {
        struct player *seated = NULL;
        if (room->is_arranged && event->event.kind == MATCH_EVENT_JOIN)
            seated = id_table_get(&lobby->players, (uint64_t)event->event.player_id);
        if (event->connection)
            lobby_send_failure(lobby, event->connection, event->id, failure);
        else if (seated && seated->connection)
            lobby_send_failure(lobby, seated->connection, NULL, failure);
        event_free(lobby, event);
    }
}

void runner_forget_room(struct room *room)
{
    struct lobby *lobby = room->lobby;
    if (room->is_ready)
        fifo_remove(&lobby->ready, &room->ready);
    room->is_ready = false;
    struct room_event *event;
    while ((event = dequeue(room)) != NULL)
        event_free(lobby, event);
    if (room->commit) {
        /* the runner only frees it when (or since) the store answers */
        room->commit->is_orphaned = true;
        room->commit = NULL;
    }
}

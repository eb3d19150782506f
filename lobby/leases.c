/* leases.c -- this instance's rooms when several instances share one
 * database (docs/ARCHITECTURE.md, "Several instances").
 *
 * Each room with a game under way has a lease naming the instance that
 * serves it (storage/store_leases.c); a room's creation writes it. This
 * file keeps them: every lease_ms / 3 it renews all of this instance's
 * leases in one record, and every lease_ms / 6 it takes the rooms whose
 * leases ran out -- an instance that died stopped renewing them -- and
 * rebuilds them from their stored records through the restart path
 * (restore.c), so their players, reconnecting, find them here. One of
 * each is out at a time.
 *
 * A room.join naming a room that is not here is looked up: a room served
 * elsewhere is answered `moved`, with where to connect (docs/PROTOCOL.md)
 * -- and, when its owner is overdue with renewing it, when: once the lease
 * has run out; one whose lease ran out is taken now, and the client told
 * to come back here in a moment.
 *
 * Tournaments have leases too, renewed and taken with the rooms': one
 * taken over is looked up and run here (tournament.c), its rooms with it;
 * a tournament.watch or .cancel of one run elsewhere is answered `moved`.
 * So has quick play (STORE_QUEUE_LEASE): the instance holding it runs the
 * one queue; a queue.join elsewhere is answered `moved` to it, and an
 * instance that loses it sends its waiting players on.
 *
 * Fencing: an instance that has not renewed for two thirds of a lease
 * stores no room event (leases_have_lapsed, room_run.c) until a renewal
 * commits; a renewal returns the rooms still held, and a room here that is
 * not among them was taken over meanwhile: its members are sent on and it
 * goes (a tournament likewise goes from here). A server without an
 * instance id does none of this. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"
#include "lobby/queue.h"
#include "lobby/tournament.h"

/* Leases are renewed three times a lease, and run-out ones looked for six
 * times; a client sent to wait for a takeover tries again after this, and
 * one sent to an overdue owner this long after its lease runs out. */
#define RENEWALS_PER_LEASE  3
#define TAKEOVERS_PER_LEASE 6
#define TAKEOVER_RETRY_MS   500
#define OVERDUE_MARGIN_MS   100

struct lease_commit {
    struct runner_commit base; /* first: the runner's commit is this one */
    store_record record;
};

static struct lease_commit *lease_commit_new(struct lobby *lobby, runner_finish *finish,
                                             store_record_kind kind, int64_t now)
{
    struct lease_commit *commit = calloc(1, sizeof(*commit));
    if (!commit) {
        lobby_log(lobby, "could not store a %s record: out of memory",
                  store_record_kind_name(kind));
        return NULL;
    }
    commit->base = (struct runner_commit){.lobby = lobby, .finish = finish};
    commit->record = (store_record){.kind = kind, .at_ms = now};
    commit->base.batch = (store_batch){&commit->record, 1, STORE_ORDER_SUBMITTED};
    return commit;
}

static bool is_queue(const char *lease)
{
    return strcmp(lease, STORE_QUEUE_LEASE) == 0;
}

/* Sends `moved`: the room (or, for STORE_QUEUE_LEASE, quick play; for a
 * tournament's lease, the tournament) is served by `instance`; come back
 * after `retry_ms`. */
static void send_moved(struct lobby *lobby, uint64_t connection, const json_t *id, const char *room,
                       char instance, int64_t retry_ms)
{
    char url[64];
    int64_t tournament = store_lease_tournament(room);
    bool is_room = !is_queue(room) && !tournament;
    if (is_room)
        snprintf(url, sizeof(url), "/ws?room=%s&instance=%c", room, instance);
    else
        snprintf(url, sizeof(url), "/ws?instance=%c", instance);
    char owner[2] = {instance, '\0'};
    json_t *moved = json_pack("{s:s, s:s, s:s, s:I}", "type", "moved", "instance", owner, "url",
                              url, "retry_ms", (json_int_t)retry_ms);
    if (moved && is_room)
        json_object_set_new(moved, "room", json_string(room));
    if (moved && tournament)
        json_object_set_new(moved, "tournament", json_integer(tournament));
    lobby_send_json(lobby, connection, moved, id);
}

void leases_send_queue_away(struct lobby *lobby, uint64_t connection)
{
    send_moved(lobby, connection, NULL, STORE_QUEUE_LEASE, lobby->config.instance,
               TAKEOVER_RETRY_MS);
}

/* Rooms a renewal found taken by another instance. */
struct lost_rooms {
    const store_rooms *held;
    int64_t renewed_from_ms; /* rooms leased before this should be among `held` */
    struct room **rooms;
    int count;
};

/* A room is judged only with no commit in flight: one may have dropped its
 * lease (a game's end) on another writer connection while the renewal
 * ran, unanswered yet. It is judged at the next renewal. */
static void find_lost(void *value, void *context)
{
    struct room *room = value;
    struct lost_rooms *lost = context;
    bool has_lease = room->game_id > 0 && room->match.status != MATCH_FINISHED && !room->commit &&
                     room->leased_at_ms > 0 && room->leased_at_ms < lost->renewed_from_ms;
    if (has_lease && !store_rooms_hold(lost->held, room->code))
        lost->rooms[lost->count++] = room;
}

/* Sends `moved` to a connected member of a room being given up. */
static void move_member(struct lobby *lobby, const struct player *member, const char *room)
{
    if (member && member->connection)
        send_moved(lobby, member->connection, NULL, room, lobby->config.instance, 0);
}

/* A room another instance took while this one could not renew its lease
 * (a stall, the database out of reach): its members are sent where it is
 * now (asked of the store by whoever they reach) and it goes from here. */
static void give_up(struct lobby *lobby, struct room *room)
{
    lobby_log(lobby, "room %s was taken over by another instance: its players are moved there",
              room->code);
    for (int seat = 0; seat < GAME_MAX_SEATS; seat++)
        move_member(lobby, room->seated[seat], room->code);
    for (int i = 0; i < room->spectator_count; i++)
        move_member(lobby, room->spectators[i], room->code);
    room_free(room);
}

/* Gives up the rooms here that `held`, the rooms a renewal sent at
 * `renewed_from_ms` found still this instance's, lacks: 0, or -1 (out of
 * memory: nothing was looked at). */
static int give_up_lost(struct lobby *lobby, const store_rooms *held, int64_t renewed_from_ms)
{
    struct lost_rooms lost = {held, renewed_from_ms,
                              calloc(lobby->rooms.count + 1, sizeof(struct room *)), 0};
    if (!lost.rooms)
        return -1;
    id_table_each(&lobby->rooms, find_lost, &lost);
    for (int i = 0; i < lost.count; i++)
        give_up(lobby, lost.rooms[i]);
    free(lost.rooms);
    return 0;
}

/* A renewal's answer: the leases run on (and room events may be stored)
 * once the rooms it shows taken are given up. */
static void renewed(struct runner_commit *base, bool is_live)
{
    struct lease_commit *commit = (struct lease_commit *)base;
    struct lobby *lobby = base->lobby;
    store_record_renew *renewal = &commit->record.renew;
    if (is_live) {
        lobby->is_renewing_leases = false;
        if (base->rc != STORE_OK)
            lobby_log(lobby, "could not renew this instance's leases: %s",
                      store_strerror(base->rc));
        else if (give_up_lost(lobby, &renewal->held, commit->record.at_ms) != 0)
            lobby_log(lobby, "could not check this instance's leases: out of memory");
        else
            lobby->leases_valid_until_ms = renewal->until_ms;
        if (base->rc == STORE_OK) {
            tournaments_give_up_lost(lobby, &renewal->held, commit->record.at_ms);
            bool holds_queue = store_rooms_hold(&renewal->held, STORE_QUEUE_LEASE);
            if (lobby->holds_queue && !holds_queue)
                queue_give_up(lobby); /* its players go on to the new holder */
            lobby->holds_queue = holds_queue;
        }
    }
    store_rooms_free(&renewal->held);
    free(commit);
}

static void renew(struct lobby *lobby, int64_t now)
{
    struct lease_commit *commit = lease_commit_new(lobby, renewed, STORE_RECORD_LEASES_RENEW, now);
    if (!commit)
        return;
    commit->record.renew = (store_record_renew){.instance = lobby->config.instance,
                                                .until_ms = now + lobby->config.lease_ms};
    lobby->is_renewing_leases = true;
    runner_submit(&commit->base);
}

bool leases_have_lapsed(const struct lobby *lobby, int64_t now)
{
    return lobby->config.instance && lobby->is_restored &&
           (lobby->has_let_go ||
            now >= lobby->leases_valid_until_ms - lobby->config.lease_ms / RENEWALS_PER_LEASE);
}

/* The leases given up at a clean stop, with the farewell notice. */
struct let_go_commit {
    struct runner_commit base; /* first: the runner's commit is this one */
    store_record records[2];
    char *farewell;
};

static void let_go(struct runner_commit *base, bool is_live)
{
    struct let_go_commit *commit = (struct let_go_commit *)base;
    if (is_live && base->rc != STORE_OK)
        lobby_log(base->lobby, "could not give this instance's leases up: %s (they run out)",
                  store_strerror(base->rc));
    else if (is_live)
        lobby_log(base->lobby, "leases given up: other instances take this one's rooms now");
    store_rooms_free(&commit->records[0].renew.held);
    free(commit->farewell);
    free(commit);
}

void leases_let_go(struct lobby *lobby)
{
    if (!lobby->config.instance || !lobby->is_restored || lobby->has_let_go)
        return;
    lobby->has_let_go = true; /* before anything else: no room event is stored after it */
    int64_t now = lobby_now(lobby);
    struct let_go_commit *commit = calloc(1, sizeof(*commit));
    if (!commit) {
        lobby_log(lobby, "could not give this instance's leases up: out of memory (they run out)");
        return;
    }
    commit->records[0] = (store_record){.kind = STORE_RECORD_LEASES_RENEW, .at_ms = now};
    commit->records[0].renew =
        (store_record_renew){.instance = lobby->config.instance, .until_ms = now};
    commit->farewell = listings_farewell(lobby, now);
    commit->records[1] =
        (store_record){.kind = STORE_RECORD_NOTIFY, .at_ms = now, .notice = commit->farewell};
    commit->base = (struct runner_commit){.lobby = lobby, .finish = let_go};
    /* After every room event submitted before the stop. */
    commit->base.batch =
        (store_batch){commit->records, commit->farewell ? 2 : 1, STORE_ORDER_AFTER_ALL};
    runner_submit(&commit->base);
}

/* The lookup of the tournaments this instance holds after a takeover
 * took some, with the rooms rebuilt by it, which go on once it is
 * answered. */
struct taken_tournaments {
    struct runner_commit base; /* first: the runner's commit is this one */
    store_record record;
    struct rebuilt_rooms rebuilt;
};

/* Those not run here yet are, from now on; then the rooms go on (whatever
 * the answer: a tournament not loaded only misses their ends). */
static void tournaments_found(struct runner_commit *base, bool is_live)
{
    struct taken_tournaments *commit = (struct taken_tournaments *)base;
    if (is_live && base->rc != STORE_OK)
        lobby_log(base->lobby, "could not load the tournaments taken over: %s",
                  store_strerror(base->rc));
    else if (is_live)
        tournaments_restore(base->lobby, &commit->record.find_tournaments);
    if (is_live)
        restore_resume(base->lobby, &commit->rebuilt);
    store_found_tournaments_free(&commit->record.find_tournaments);
    free(commit->rebuilt.codes);
    free(commit);
}

/* Looks the tournaments up (after the aborts, stored before in the
 * lobby's order), then carries `rebuilt` on. */
static void find_taken_tournaments(struct lobby *lobby, struct rebuilt_rooms rebuilt)
{
    struct taken_tournaments *commit = calloc(1, sizeof(*commit));
    if (!commit) {
        lobby_log(lobby, "could not load the tournaments taken over: out of memory");
        restore_resume(lobby, &rebuilt);
        return;
    }
    commit->base = (struct runner_commit){.lobby = lobby, .finish = tournaments_found};
    commit->record =
        (store_record){.kind = STORE_RECORD_FIND_TOURNAMENTS, .at_ms = lobby_now(lobby)};
    commit->record.find_tournaments.instance = lobby->config.instance;
    commit->rebuilt = rebuilt;
    commit->base.batch = (store_batch){&commit->record, 1, STORE_ORDER_SUBMITTED};
    runner_submit(&commit->base);
}

static void taken(struct runner_commit *base, bool is_live)
{
    struct lease_commit *commit = (struct lease_commit *)base;
    struct lobby *lobby = base->lobby;
    store_record_find_games *found = &commit->record.take.found;
    if (is_live) {
        lobby->is_taking_rooms = false;
        if (base->rc != STORE_OK)
            lobby_log(lobby, "could not take rooms over: %s", store_strerror(base->rc));
        struct rebuilt_rooms rebuilt = {0};
        if (base->rc == STORE_OK && found->count > 0)
            rebuilt = restore_taken_games(lobby, found); /* their aborts go to the store first... */
        if (base->rc == STORE_OK && commit->record.take.taken_too.has_queue) {
            lobby_log(lobby, "quick play is served here");
            lobby->holds_queue = true;
        }
        if (base->rc == STORE_OK && commit->record.take.taken_too.tournaments > 0)
            /* ...so the tournaments are read as they stand */
            find_taken_tournaments(lobby, rebuilt);
        else
            restore_resume(lobby, &rebuilt);
    }
    store_found_games_free(found);
    free(commit);
}

void leases_take_now(struct lobby *lobby)
{
    if (!lobby->config.instance || lobby->is_taking_rooms || lobby->is_shutting_down)
        return;
    int64_t now = lobby_now(lobby);
    struct lease_commit *commit = lease_commit_new(lobby, taken, STORE_RECORD_ROOMS_TAKE, now);
    if (!commit)
        return;
    commit->record.take = (store_record_take){.instance = lobby->config.instance,
                                              .until_ms = now + lobby->config.lease_ms};
    lobby->is_taking_rooms = true;
    lobby->take_rooms_at_ms = now + lobby->config.lease_ms / TAKEOVERS_PER_LEASE;
    runner_submit(&commit->base);
}

void leases_tick(struct lobby *lobby, int64_t now)
{
    if (!lobby->config.instance || !lobby->is_restored || lobby->is_shutting_down)
        return;
    if (!lobby->is_renewing_leases && now >= lobby->renew_leases_at_ms) {
        lobby->renew_leases_at_ms = now + lobby->config.lease_ms / RENEWALS_PER_LEASE;
        renew(lobby, now);
    }
    if (now >= lobby->take_rooms_at_ms)
        leases_take_now(lobby);
}

/* Whether what the lease `lease` names is served here. */
static bool is_served_here(struct lobby *lobby, const char *lease)
{
    int64_t tournament = store_lease_tournament(lease);
    if (tournament)
        return id_table_get(&lobby->tournaments, (uint64_t)tournament) != NULL;
    return is_queue(lease) ? lobby->holds_queue : room_find(lobby, lease) != NULL;
}

static int lease_found(struct lobby *lobby, struct client *client, struct client_lookup *lookup,
                       protocol_failure *failure)
{
    const store_record_find_lease *found = &lookup->record.find_lease;
    if (lookup->base.rc != STORE_OK)
        return protocol_fail(failure, PROTOCOL_E_STORAGE, "could not look the lease up: %s",
                             store_strerror(lookup->base.rc));
    char here = lobby->config.instance;
    if (is_served_here(lobby, found->room)) { /* taken over here meanwhile: ask again */
        send_moved(lobby, client->connection, lookup->id, found->room, here, 0);
        return 0;
    }
    int64_t tournament = store_lease_tournament(found->room);
    if (!found->is_found && tournament) /* its lease goes when it ends */
        return protocol_fail(failure, PROTOCOL_E_NO_SUCH_TOURNAMENT,
                             "no running tournament %lld (finished ones are at "
                             "/api/tournaments/ID)",
                             (long long)tournament);
    if (!found->is_found && !is_queue(found->room))
        return protocol_fail(failure, PROTOCOL_E_NO_SUCH_ROOM, "no room '%s'", found->room);
    /* Quick play without a lease yet: the next look makes and takes it. */
    int64_t left = (found->is_found ? found->lease.expires_at_ms : 0) - lobby_now(lobby);
    bool has_run_out = left < 0;
    if (found->lease.instance != here && !has_run_out) {
        /* An owner renews every third of a lease: one that has missed a
         * renewal by half a lease may be gone, so the client comes back
         * once its lease has run out, and is served by whoever takes it. */
        bool is_overdue = lobby->config.lease_ms - left > lobby->config.lease_ms / 2;
        send_moved(lobby, client->connection, lookup->id, found->room, found->lease.instance,
                   is_overdue ? left + OVERDUE_MARGIN_MS : 0);
        return 0;
    }
    /* Ours but not here yet, or nobody's any more: it is (being) taken
     * over here; the client comes back in a moment. */
    if (has_run_out)
        leases_take_now(lobby);
    send_moved(lobby, client->connection, lookup->id, found->room, here, TAKEOVER_RETRY_MS);
    return 0;
}

/* Looks the lease of `code` (a room's, or STORE_QUEUE_LEASE) up for
 * `message`, which lease_found answers. */
static int find_lease(struct lobby *lobby, struct client *client, const protocol_message *message,
                      const char *code, protocol_failure *failure)
{
    store_record record = {.kind = STORE_RECORD_FIND_LEASE, .at_ms = lobby_now(lobby)};
    if (snprintf(record.find_lease.room, sizeof(record.find_lease.room), "%s", code) >=
        (int)sizeof(record.find_lease.room))
        return protocol_fail(failure, PROTOCOL_E_NO_SUCH_ROOM, "no room '%s'", code);
    return client_lookup_submit(lobby, client, message->id, &record, lease_found, 0, NULL, NULL,
                                failure);
}

int leases_find_room(struct lobby *lobby, struct client *client, const protocol_message *message,
                     protocol_failure *failure)
{
    return find_lease(lobby, client, message, protocol_message_room(message), failure);
}

int leases_find_queue(struct lobby *lobby, struct client *client, const protocol_message *message,
                      protocol_failure *failure)
{
    return find_lease(lobby, client, message, STORE_QUEUE_LEASE, failure);
}

int leases_find_tournament(struct lobby *lobby, struct client *client,
                           const protocol_message *message, protocol_failure *failure)
{
    char lease[STORE_CODE_SIZE];
    store_tournament_lease(message->body.tournament_id, lease);
    return find_lease(lobby, client, message, lease, failure);
}

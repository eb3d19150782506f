/* restore.c -- rebuilding unfinished games after a restart or a crash.
 *
 * The store holds every committed record, so a game in progress is rebuilt
 * by feeding them to its room's rules as events, exactly as they first
 * happened (rebuild.c): each seat is filled, the game starts at its stored
 * start time, and every logged action is replayed at its stored time --
 * checked again by the rules, so a damaged log cannot produce an
 * impossible position (such a game is aborted instead), and clocks come
 * out as they were stored. Then MATCH_EVENT_RESUME carries the game on
 * from now: seated players come back disconnected (their grace starts
 * now; `hello` with their token returns them to their seat) and the
 * interrupted turns start again. Rooms that had not started are not worth
 * keeping across a restart: their games are marked aborted. Running
 * tournaments are loaded last, and start again whatever games they still
 * have to play. All of it is read and written through the store port,
 * like everything the lobby stores.
 *
 * One of several instances (leases.c) takes back the rooms it served, and
 * those nobody serves any more, instead of every unfinished game; rooms it
 * takes over later are rebuilt the same way. */
#include <stdio.h>
#include <stdlib.h>

#include "lobby/lobby_internal.h"
#include "lobby/rebuild.h"
#include "lobby/tournament.h"

/* Makes sure every player seated in `record` is known to the lobby, with
 * room reserved for the seat it is about to be given. */
static int load_players(struct lobby *lobby, const store_game_record *record)
{
    for (int i = 0; i < record->seat_count; i++) {
        const store_seat *stored = &record->seats[i];
        if (stored->bot[0])
            continue;
        struct player *seated = lobby_player_by_id(lobby, stored->player_id, stored->player_name,
                                                   stored->is_bot_account);
        if (!seated || lobby_player_reserve(seated, 1) != 0)
            return -1;
    }
    return 0;
}

static bool is_private(const store_game_record *record)
{
    json_t *options = json_loads(record->info.options, 0, NULL);
    bool is_private_room = json_is_true(json_object_get(options, "private"));
    json_decref(options);
    return is_private_room;
}

static struct room *room_from_record(struct lobby *lobby, const store_game_record *record)
{
    match_config config = lobby_match_config(&lobby->config);
    match rebuilt;
    protocol_failure failure;
    if (rebuild_match(record, &config, &rebuilt, NULL, NULL, &failure) != 0) {
        lobby_log(lobby, "game %lld (room %s): %s", (long long)record->id, record->info.room,
                  failure.message);
        return NULL;
    }
    if (load_players(lobby, record) != 0)
        return NULL;
    struct room *room = room_new(lobby, &rebuilt.options, record->info.room, NULL);
    if (!room)
        return NULL;
    room->game_id = record->id;
    room->leased_at_ms = lobby->config.instance ? lobby_now(lobby) : 0;
    room->is_private = is_private(record);
    room->tournament = (room_tournament){record->info.tournament_id, record->info.tournament_game};
    room->match = rebuilt;
    room_sync_seats(room);
    room_list_update(room);
    return room;
}

/* A restart's recovery on its way through the store, in two batches:
 * the unfinished games are looked up and rebuilt; then those that do not
 * replay are aborted in the batch that looks the running tournaments up,
 * after the aborts, so a tournament sees its games as they now stand. The
 * rebuilt games go on once the tournaments are loaded. */
struct recovery {
    struct runner_commit base; /* first: the runner's commit is this one */
    lobby_restored *done;
    void *done_context;
    struct rebuilt_rooms rebuilt;
    store_record *records; /* the batch's, malloc'd */
};

static void recovery_end(struct recovery *recovery, int rc)
{
    recovery->base.lobby->is_restored = rc >= 0;
    recovery->done(recovery->done_context, rc);
    free(recovery->rebuilt.codes);
    free(recovery->records);
    free(recovery);
}

static void tournaments_found(struct runner_commit *base, bool is_live)
{
    struct recovery *recovery = (struct recovery *)base;
    store_record *find = &recovery->records[base->batch.count - 1];
    int rc = is_live ? base->rc : STORE_E_IO;
    int restored = recovery->rebuilt.count;
    if (rc == STORE_OK) {
        tournaments_restore(base->lobby, &find->find_tournaments);
        rc = restore_resume(base->lobby, &recovery->rebuilt);
    }
    store_found_tournaments_free(&find->find_tournaments);
    recovery_end(recovery, rc == STORE_OK ? restored : rc);
}

int restore_resume(struct lobby *lobby, struct rebuilt_rooms *rooms)
{
    int rc = STORE_OK;
    for (int i = 0; i < rooms->count; i++) {
        struct room *room = room_find(lobby, rooms->codes[i]);
        match_event resume = {.kind = MATCH_EVENT_RESUME, .now_ms = lobby_now(lobby)};
        if (room && room_run(room, &resume, NULL) == PROTOCOL_E_STORAGE)
            rc = STORE_E_IO;
    }
    free(rooms->codes);
    *rooms = (struct rebuilt_rooms){0};
    return rc;
}

/* Rebuilds each game found: those that replay go into `rebuilt` (room
 * for every game found), to be carried on; the others get an abort record
 * in `aborts`. How many aborts. */
static int rebuild_all(struct lobby *lobby, const store_record_find_games *found,
                       store_record *aborts, struct rebuilt_rooms *rebuilt)
{
    int count = 0;
    for (int i = 0; i < found->count; i++) {
        const store_game_record *record = found->games[i];
        if (room_find(lobby, record->info.room))
            continue; /* served here already: a late renewal's lease, taken back */
        struct room *room =
            record->status == STORE_GAME_PLAYING ? room_from_record(lobby, record) : NULL;
        if (!room) {
            lobby_log(lobby, "game %lld (room %s) %s: aborted", (long long)record->id,
                      record->info.room,
                      record->status == STORE_GAME_PLAYING ? "does not replay" : "never started");
            aborts[count++] = (store_record){
                .kind = STORE_RECORD_GAME_ABORT, .at_ms = lobby_now(lobby), .game_id = record->id};
            continue;
        }
        lobby_log(lobby, "game %lld rebuilt in room %s at move %d", (long long)record->id,
                  room->code, room->match.seq);
        snprintf(rebuilt->codes[rebuilt->count++], STORE_CODE_SIZE, "%s", room->code);
    }
    return count;
}

/* Room for the codes of every game of `found`: 0, or STORE_E_NOMEM. */
static int rebuilt_reserve(struct rebuilt_rooms *rebuilt, const store_record_find_games *found)
{
    *rebuilt = (struct rebuilt_rooms){0};
    if (found->count == 0)
        return STORE_OK;
    rebuilt->codes = calloc((size_t)found->count, sizeof(*rebuilt->codes));
    return rebuilt->codes ? STORE_OK : STORE_E_NOMEM;
}

static void games_found(struct runner_commit *base, bool is_live)
{
    struct recovery *recovery = (struct recovery *)base;
    struct lobby *lobby = base->lobby;
    const store_record *find = &recovery->records[0];
    store_record_find_games found =
        find->kind == STORE_RECORD_ROOMS_TAKE ? find->take.found : find->find_games;
    int rc = is_live ? base->rc : STORE_E_IO;
    store_record *records = NULL;
    if (rc == STORE_OK && find->kind == STORE_RECORD_ROOMS_TAKE) {
        lobby->leases_valid_until_ms = find->take.until_ms; /* it renewed them all */
        lobby->holds_queue = find->take.taken_too.has_queue;
    }
    if (rc == STORE_OK) {
        records = calloc((size_t)found.count + 1, sizeof(*records));
        rc = records ? rebuilt_reserve(&recovery->rebuilt, &found) : STORE_E_NOMEM;
    }
    if (rc == STORE_OK)
        rc = rebuild_all(lobby, &found, records, &recovery->rebuilt);
    store_found_games_free(&found);
    free(recovery->records);
    recovery->records = records;
    if (rc < 0) {
        recovery_end(recovery, rc);
        return;
    }
    records[rc] = (store_record){.kind = STORE_RECORD_FIND_TOURNAMENTS, .at_ms = lobby_now(lobby)};
    records[rc].find_tournaments.instance = lobby->config.instance; /* one of several: its own */
    recovery->base = (struct runner_commit){.lobby = lobby,
                                            .batch = {records, rc + 1, STORE_ORDER_SUBMITTED},
                                            .finish = tournaments_found};
    runner_submit(&recovery->base);
}

void lobby_restore(struct lobby *lobby, lobby_restored *done, void *context)
{
    struct recovery *recovery = calloc(1, sizeof(*recovery));
    store_record *records = calloc(1, sizeof(*records));
    if (!recovery || !records) {
        free(recovery);
        free(records);
        done(context, STORE_E_NOMEM);
        return;
    }
    /* A lone server carries every unfinished game on; one of several, the
     * rooms it served (and those whose leases ran out), taken at once. */
    int64_t now = lobby_now(lobby);
    char instance = lobby->config.instance;
    records[0] = (store_record){
        .kind = instance ? STORE_RECORD_ROOMS_TAKE : STORE_RECORD_FIND_UNFINISHED, .at_ms = now};
    if (instance)
        records[0].take = (store_record_take){
            .instance = instance, .until_ms = now + lobby->config.lease_ms, .take_own = true};
    *recovery = (struct recovery){.base = {.lobby = lobby,
                                           .batch = {records, 1, STORE_ORDER_SUBMITTED},
                                           .finish = games_found},
                                  .done = done,
                                  .done_context = context,
                                  .records = records};
    runner_submit(&recovery->base);
}

/* The tournament game `game_id` of `found` was aborted: a tournament run
 * here already (taken by an earlier takeover than its game's room, whose
 * lease ran out later) starts it again; one not here yet reads it as
 * aborted. */
static void tell_tournament_aborted(struct lobby *lobby, const store_record_find_games *found,
                                    int64_t game_id)
{
    for (int i = 0; i < found->count; i++) {
        const store_game_info *info = &found->games[i]->info;
        if (found->games[i]->id == game_id && info->tournament_id)
            tournament_game_discarded(lobby, info->tournament_id, info->tournament_game);
    }
}

/* A takeover's aborts, each stored alone: nothing waits on them. */
struct rebuilt_rooms restore_taken_games(struct lobby *lobby, const store_record_find_games *found)
{
    struct rebuilt_rooms rebuilt;
    store_record *aborts = calloc((size_t)found->count, sizeof(*aborts));
    if (!aborts || rebuilt_reserve(&rebuilt, found) != STORE_OK) {
        lobby_log(lobby, "could not rebuild %d games taken over: out of memory", found->count);
        free(aborts);
        return (struct rebuilt_rooms){0};
    }
    int count = rebuild_all(lobby, found, aborts, &rebuilt);
    for (int i = 0; i < count; i++) {
        runner_store_alone(lobby, &aborts[i]);
        tell_tournament_aborted(lobby, found, aborts[i].game_id);
    }
    lobby_log(lobby, "took over %d room%s: %d game%s carried on", found->count,
              found->count == 1 ? "" : "s", rebuilt.count, rebuilt.count == 1 ? "" : "s");
    free(aborts);
    return rebuilt;
}

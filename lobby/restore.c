/* restore.c -- rebuilding unfinished games after a restart or a crash.
 *
 * The store holds every committed record, so a game in progress is rebuilt
 * by feeding them to its room's rules as events, exactly as they first
 * happened (rebuild.c): each seat is filled, the game starts at its stored
 * start time, and every logged action is replayed at its stored time --
 * checked again by the rules, so a damaged log cannot produce an
 * impossible position (such a game is aborted instead), and clocks come
 * out as they were stored. Then
 * MATCH_EVENT_RESUME carries the game on from now: seated players come
 * back disconnected (their grace starts now; `hello` with their token
 * returns them to their seat) and the interrupted turns start again. Rooms
 * that had not started are not worth keeping across a restart: their
 * games are marked aborted. Running tournaments are loaded last, and start
 * again whatever games they still have to play. */
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
        store_player player;
        int rc = lobby->store.player_by_id(lobby->store.context, stored->player_id, &player);
        struct player *seated =
            rc == 0 ? lobby_player_by_id(lobby, player.id, player.name, player.is_bot) : NULL;
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
    room->is_private = is_private(record);
    room->tournament = (room_tournament){record->info.tournament_id, record->info.tournament_game};
    room->match = rebuilt;
    room_sync_seats(room);
    room_list_update(room);
    return room;
}

static int abort_game(struct lobby *lobby, const store_game_record *record)
{
    lobby_log(lobby, "game %lld (room %s) %s: aborted", (long long)record->id, record->info.room,
              record->status == STORE_GAME_PLAYING ? "does not replay" : "never started");
    return lobby->store.game_finish(lobby->store.context, record->id, STORE_GAME_ABORTED, NULL, 0,
                                    NULL, lobby_now(lobby));
}

/* 1 when the game is back in a room, 0 when it was aborted, or a store
 * error. */
static int restore_game(struct lobby *lobby, int64_t id)
{
    store_game_record *record = NULL;
    int rc = lobby->store.game_load(lobby->store.context, id, &record);
    if (rc != 0)
        return rc;
    struct room *room =
        record->status == STORE_GAME_PLAYING ? room_from_record(lobby, record) : NULL;
    if (!room) {
        rc = abort_game(lobby, record);
        store_game_record_free(record);
        return rc;
    }
    lobby_log(lobby, "game %lld rebuilt in room %s at move %d", (long long)id, room->code,
              room->match.seq);
    store_game_record_free(record);
    match_event resume = {.kind = MATCH_EVENT_RESUME, .now_ms = lobby_now(lobby)};
    rc = room_run(room, &resume, NULL);
    return rc == PROTOCOL_E_STORAGE ? STORE_E_IO : 1;
}

int lobby_restore(struct lobby *lobby)
{
    int64_t *ids = NULL;
    int count = 0, restored = 0;
    int rc = lobby->store.unfinished_games(lobby->store.context, &ids, &count);
    if (rc != 0)
        return rc;
    for (int i = 0; i < count; i++) {
        rc = restore_game(lobby, ids[i]);
        if (rc < 0)
            break;
        restored += rc;
    }
    free(ids);
    if (rc >= 0) /* after the games: a tournament counts its restored rooms */
        rc = tournaments_restore(lobby);
    return rc < 0 ? rc : restored;
}

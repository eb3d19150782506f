/* restore.c -- rebuilding unfinished games after a restart or a crash.
 *
 * The store holds every committed record, so a game in progress is rebuilt
 * by feeding them to its room's rules as events, exactly as they first
 * happened: each seat is filled (MATCH_EVENT_JOIN, MATCH_EVENT_ADD_BOT),
 * the game starts at its stored start time, and every logged action is
 * replayed (MATCH_EVENT_RECORD) at its stored time -- checked again by the
 * rules, so a damaged log cannot produce an impossible position (such a
 * game is aborted instead), and clocks come out as they were stored. Then
 * MATCH_EVENT_RESUME carries the game on from now: seated players come
 * back disconnected (their grace starts now; `hello` with their token
 * returns them to their seat) and the interrupted turns start again. Rooms
 * that had not started are not worth keeping across a restart: their
 * games are marked aborted. */
#include <stdio.h>
#include <stdlib.h>

#include "lobby/action_record.h"
#include "lobby/lobby_internal.h"

/* The owner is not stored: the seats and the start are replayed on the
 * rules' own authority, by a member that owns the room while it is rebuilt
 * (player keys count up from 1 and never reach it). */
#define REBUILDER UINT64_MAX

static int replay(struct room *room, match_event *event)
{
    protocol_failure failure;
    int rc = room_replay(room, event, &failure);
    if (rc != 0)
        lobby_log(room->lobby, "game %lld (room %s): %s", (long long)room->game_id, room->code,
                  failure.message);
    return rc;
}

static int fill_seats(struct room *room, const store_game_record *record)
{
    struct lobby *lobby = room->lobby;
    for (int i = 0; i < record->seat_count; i++) {
        const store_seat *stored = &record->seats[i];
        match_event event = {.now_ms = record->started_at_ms, .seat = stored->seat};
        if (stored->bot[0]) {
            event.kind = MATCH_EVENT_ADD_BOT;
            event.member = REBUILDER;
            event.bot = stored->bot;
        } else {
            event.kind = MATCH_EVENT_JOIN;
            event.player_id = stored->player_id;
            store_player player;
            int rc = lobby->store.player_by_id(lobby->store.context, stored->player_id, &player);
            struct player *seated =
                rc == 0 ? lobby_player_by_id(lobby, player.id, player.name, player.is_bot) : NULL;
            if (!seated || lobby_player_reserve(seated, 1) != 0)
                return -1;
        }
        if (replay(room, &event) != 0)
            return -1;
    }
    return 0;
}

static int replay_log(struct room *room, const store_game_record *record)
{
    for (int i = 0; i < record->move_count; i++) {
        const store_move *stored = &record->moves[i];
        match_event event = {.kind = MATCH_EVENT_RECORD,
                             .now_ms = stored->at_ms,
                             .seat = stored->seat,
                             .ply = stored->ply};
        bool is_seat = stored->seat >= 0 && stored->seat < room->match.options.seat_count;
        if (!is_seat ||
            action_record_parse(&room->match.game, stored->seat, stored->action, &event.record) !=
                0 ||
            replay(room, &event) != 0)
            return -1;
    }
    return 0;
}

static struct room *room_from_record(struct lobby *lobby, const store_game_record *record)
{
    game_options options;
    json_t *options_json = json_loads(record->info.options, 0, NULL);
    int rc = game_options_from_json(options_json, record->info.game, record->info.mode, &options);
    bool is_private = json_is_true(json_object_get(options_json, "private"));
    json_decref(options_json);
    /* A race closes its seats up at the start: it may have stored fewer. */
    bool is_seat_count_right =
        options.kind == GAME_REEF
            ? record->seat_count >= 1 && record->seat_count <= options.seat_count
            : record->seat_count == options.seat_count;
    if (rc != 0 || !is_seat_count_right)
        return NULL;
    struct room *room = room_new(lobby, &options, record->info.room, NULL);
    if (!room)
        return NULL;
    room->game_id = record->id;
    room->is_private = is_private;
    room->match.owner = REBUILDER;
    match_event start = {
        .kind = MATCH_EVENT_START, .now_ms = record->started_at_ms, .member = REBUILDER};
    rc = fill_seats(room, record);
    if (rc == 0)
        rc = replay(room, &start);
    room->match.owner = 0;
    if (rc == 0)
        rc = replay_log(room, record);
    if (rc != 0) {
        room_free(room);
        return NULL;
    }
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
    protocol_failure failure;
    rc = room_run(room, &resume, NULL, &failure);
    return rc == 0 ? 1 : rc == PROTOCOL_E_STORAGE ? STORE_E_IO : 1;
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
    return rc < 0 ? rc : restored;
}

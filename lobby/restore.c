/* restore.c -- rebuilding unfinished games after a restart or a crash.
 *
 * The store holds every committed move, so a game in progress is rebuilt
 * by replaying its moves through the engine from the stored options --
 * each one checked again, so a damaged log cannot produce an impossible
 * position (such a game is aborted instead). Seated players come back
 * disconnected: their grace period starts now, and `hello` with their
 * token returns them to their seat. Clocks resume from the time bank
 * stored with each seat's last move. Rooms that had not started are not
 * worth keeping across a restart: their games are marked aborted. */
#include <stdio.h>
#include <stdlib.h>

#include "lobby/lobby_internal.h"

static int seat_from_record(struct room *r, const store_seat *stored)
{
    struct lobby *l = r->lobby;
    struct seat *seat = &r->seats[stored->seat];
    seat->clock_ms = r->options.clock_initial_ms;
    if (stored->bot[0]) {
        seat->kind = SEAT_BOT;
        snprintf(seat->bot, sizeof(seat->bot), "%.*s", PROTOCOL_WORD_MAX, stored->bot);
        return 0;
    }
    store_player player;
    if (store_player_by_id(l->db, stored->player_id, &player) != 0)
        return -1;
    struct session *s = session_find_or_add(l, player.id, player.name, player.is_bot);
    if (!s)
        return -1;
    seat->kind = SEAT_PLAYER;
    seat->player = s;
    s->room_refs++;
    seat->is_away = s->connection == 0;
    seat->away_since_ms = lobby_now(l);
    return 0;
}

/* One stored action: a player's leave marks the seat (a stand-in plays it
 * from then on); anything else is the game's. */
static int replay_action(struct room *r, int seat, const json_t *action)
{
    if (json_is_true(json_object_get(action, "leave"))) {
        r->seats[seat].has_left = true;
        return 0;
    }
    return game_apply_stored(&r->game, seat, action);
}

static int replay_moves(struct room *r, const store_game_record *record)
{
    for (int i = 0; i < record->move_count; i++) {
        const store_move *m = &record->moves[i];
        json_t *action = json_loads(m->action, 0, NULL);
        bool is_in_order = m->seat >= 0 && m->seat < r->options.seat_count &&
                           m->ply == game_ply(&r->game, m->seat);
        int rc = action && is_in_order ? replay_action(r, m->seat, action) : -1;
        json_decref(action);
        if (rc != 0)
            return -1;
        if (m->clock_ms >= 0)
            r->seats[m->seat].clock_ms = m->clock_ms;
    }
    r->seq = record->move_count;
    return 0;
}

static struct room *room_from_record(struct lobby *l, const store_game_record *record)
{
    game_options options;
    json_t *options_json = json_loads(record->info.options, 0, NULL);
    int rc = game_options_from_json(options_json, record->info.game, record->info.mode, &options);
    bool is_private = json_is_true(json_object_get(options_json, "private"));
    json_decref(options_json);
    /* A race closes up its seats at the start: it has as many as it stored. */
    bool is_closed_up_race = options.kind == GAME_REEF && record->seat_count >= 1 &&
                             record->seat_count <= options.seat_count;
    if (rc == 0 && is_closed_up_race)
        options.seat_count = record->seat_count;
    if (rc != 0 || record->seat_count != options.seat_count)
        return NULL;
    struct room *r = room_new(l, &options, record->info.room);
    if (!r)
        return NULL;
    r->game_id = record->id;
    r->is_private = is_private;
    r->status = ROOM_PLAYING;
    game_start(&r->game, &r->options);
    for (int i = 0; i < record->seat_count; i++)
        rc |= seat_from_record(r, &record->seats[i]);
    if (rc != 0 || replay_moves(r, record) != 0) {
        room_free(r);
        return NULL;
    }
    return r;
}

static int restore_game(struct lobby *l, int64_t id)
{
    store_game_record *record = NULL;
    int rc = store_game_load(l->db, id, &record);
    if (rc != 0)
        return rc;
    struct room *r = NULL;
    if (record->status == STORE_GAME_PLAYING)
        r = room_from_record(l, record);
    if (!r) {
        lobby_log(l, "game %lld (room %s) %s: aborted", (long long)id, record->info.room,
                  record->status == STORE_GAME_PLAYING ? "does not replay" : "never started");
        store_game_finish(l->db, id, STORE_GAME_ABORTED, NULL, 0, NULL, lobby_now(l));
    } else {
        lobby_log(l, "game %lld rebuilt in room %s at move %d", (long long)id, r->code, r->seq);
    }
    store_game_record_free(record);
    if (!r)
        return 0;
    play_resume(r);
    return 1;
}

int lobby_restore(lobby *l)
{
    int64_t *ids = NULL;
    int count = 0, restored = 0;
    int rc = store_unfinished_games(l->db, &ids, &count);
    if (rc != 0)
        return rc;
    for (int i = 0; i < count; i++) {
        rc = restore_game(l, ids[i]);
        if (rc < 0)
            break;
        restored += rc;
    }
    free(ids);
    return rc < 0 ? rc : restored;
}

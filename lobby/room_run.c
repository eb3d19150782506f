/* room_run.c -- one event of a room, and the one place its effects happen.
 *
 * The order is fixed and is the lobby's durability promise:
 *
 *   1. decide   match_apply: the next state and the effects (pure);
 *   2. store    every record in one transaction through the store_api
 *               (match_store.c: a result with the ratings and Reef runs it
 *               makes);
 *   3. adopt    only now does the room take the next state;
 *   4. publish  replies and events to the members, each encoded once;
 *   5. schedule the bot move it waits for, its wake-up time, its end;
 *   6. a tournament game that just ended lets its tournament carry on.
 *
 * If step 2 fails the transaction is rolled back, the room keeps the
 * state it had (which is what is stored), nothing is published, and the
 * sender gets `storage_error`; the next event starts from that state, so
 * everything works again once the store does. */
#include <stdio.h>
#include <stdlib.h>

#include "lobby/lobby_internal.h"
#include "lobby/match_store.h"
#include "lobby/tournament.h"

/* A room that just finished no longer counts against the room limits. */
static void count_finish(struct room *room, match_status before)
{
    if (before == MATCH_FINISHED || room->match.status != MATCH_FINISHED)
        return;
    room->lobby->open_room_count--;
    if (room->owner)
        room->owner->open_rooms--;
    char *result = room_view_result_text(&room->match);
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
    if (before == MATCH_WAITING && next->status == MATCH_PLAYING)
        lobby_log(room->lobby, "room %s started: game %lld, %d seats", room->code,
                  (long long)room->game_id, next->options.seat_count);
    count_finish(room, before);
    room_list_update(room);
}

int room_run(struct room *room, const match_event *event, const room_sender *sender,
             protocol_failure *failure)
{
    match next;
    match_effects effects;
    int rc = match_apply(&room->match, event, &next, &effects, failure);
    if (rc != 0)
        return rc;
    match_store_hook tournament_hook = {tournament_store_result, room};
    rc = match_store_records(&room->lobby->store, room->game_id, &next, &effects,
                             room->tournament.id ? &tournament_hook : NULL);
    if (rc != 0) {
        lobby_log(room->lobby, "room %s: could not store an event (%s); nothing changed",
                  room->code, store_strerror(rc));
        return protocol_fail(failure, PROTOCOL_E_STORAGE,
                             "the change could not be saved (%s); nothing happened",
                             store_strerror(rc));
    }
    bool is_tournament_game_over = room->tournament.id && room->match.status != MATCH_FINISHED &&
                                   next.status == MATCH_FINISHED;
    int64_t tournament_id = room->tournament.id;
    count_records(room->lobby, &next, &effects);
    adopt(room, &next);
    for (int i = 0; !room->is_quiet && i < effects.publish_count; i++)
        room_view_publish(room, &effects.publishes[i], sender, event->now_ms);
    if (effects.is_closed) {
        room_free(room);
    } else {
        room_wake_set(room, effects.wake_at_ms);
        bots_want(room, &effects);
    }
    if (is_tournament_game_over) /* last: it may open other rooms */
        tournament_game_over(room->lobby, tournament_id);
    return 0;
}

/* room_run.c -- one event of a room, and the one place its effects happen.
 *
 * The order is fixed and is the lobby's durability promise:
 *
 *   1. decide   match_apply: the next state and the effects (pure);
 *   2. store    every record in one transaction through the store_api
 *               (a result with the ratings and Reef runs it makes);
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

#include "lobby/action_record.h"
#include "lobby/lobby_internal.h"
#include "lobby/room_results.h"
#include "lobby/tournament.h"

static int store_action(struct room *room, const match *next, const match_record *record)
{
    const store_api *api = &room->lobby->store;
    char *text = action_record_text(&next->game, &record->action);
    if (!text)
        return STORE_E_NOMEM;
    store_move move = {room->game_id, record->seq,        record->seat,     (int)record->ply,
                       text,          record->elapsed_ms, record->clock_ms, record->at_ms};
    int rc = api->move_append(api->context, &move);
    free(text);
    return rc;
}

static int store_finish(struct room *room, const match *next, const match_record *record)
{
    const store_api *api = &room->lobby->store;
    match_result result;
    store_seat_result seats[GAME_MAX_SEATS];
    match_result_of(next, &result);
    for (int seat = 0; seat < result.seat_count; seat++)
        seats[seat] = (store_seat_result){seat, result.scores[seat], result.ranks[seat],
                                          result.is_winner[seat]};
    char *text = room_view_result_text(next);
    if (!text)
        return STORE_E_NOMEM;
    int rc = api->game_finish(api->context, room->game_id, STORE_GAME_FINISHED, text,
                              result.seat_count, seats, record->at_ms);
    free(text);
    return rc != 0 ? rc : room_results_store(room, next, &result, record->at_ms);
}

static int store_record(struct room *room, const match *next, const match_record *record)
{
    const store_api *api = &room->lobby->store;
    const match_seat *seat = &next->seats[record->seat];
    switch (record->kind) {
    case MATCH_RECORD_SEAT:
        return api->seat_set(api->context, room->game_id, record->seat,
                             seat->kind == MATCH_SEAT_PLAYER ? seat->player_id : 0,
                             seat->kind == MATCH_SEAT_BOT ? seat->bot : NULL);
    case MATCH_RECORD_START:
        return api->game_start(api->context, room->game_id, record->at_ms);
    case MATCH_RECORD_ACTION:
        return store_action(room, next, record);
    case MATCH_RECORD_FINISH:
        return store_finish(room, next, record);
    case MATCH_RECORD_ABORT:
        return api->game_finish(api->context, room->game_id, STORE_GAME_ABORTED, NULL, 0, NULL,
                                record->at_ms);
    }
    return STORE_E_INTERNAL;
}

/* Every record of one event, in one transaction. */
static int store_records(struct room *room, const match *next, const match_effects *effects)
{
    if (effects->record_count == 0)
        return 0;
    const store_api *api = &room->lobby->store;
    int rc = api->begin(api->context);
    for (int i = 0; rc == 0 && i < effects->record_count; i++)
        rc = store_record(room, next, &effects->records[i]);
    if (rc == 0)
        return api->commit(api->context);
    api->rollback(api->context);
    return rc;
}

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
    rc = store_records(room, &next, &effects);
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

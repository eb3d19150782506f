/* match_store.c -- a room event's records through the store_api (see
 * match_store.h). */
#include <stdlib.h>

#include "lobby/action_record.h"
#include "lobby/lobby_internal.h"
#include "lobby/match_store.h"
#include "lobby/room_results.h"

static int store_action(const store_api *api, int64_t game_id, const match_record *record)
{
    char text[ACTION_RECORD_TEXT_MAX];
    action_record_write(&record->action, text);
    store_move move = {game_id, record->seq,        record->seat,     (int)record->ply,
                       text,    record->elapsed_ms, record->clock_ms, record->at_ms};
    return api->move_append(api->context, &move);
}

static int store_finish(const store_api *api, int64_t game_id, const match *next,
                        const match_record *record, const match_store_hook *hook)
{
    match_result result;
    store_seat_result seats[GAME_MAX_SEATS];
    match_result_of(next, &result);
    for (int seat = 0; seat < result.seat_count; seat++)
        seats[seat] = (store_seat_result){seat, result.scores[seat], result.ranks[seat],
                                          result.is_winner[seat]};
    char *text = room_view_result_text(next);
    if (!text)
        return STORE_E_NOMEM;
    int rc = api->game_finish(api->context, game_id, STORE_GAME_FINISHED, text, result.seat_count,
                              seats, record->at_ms);
    free(text);
    if (rc == 0)
        rc = room_results_store(api, game_id, next, &result, record->at_ms);
    if (rc == 0 && hook)
        rc = hook->on_result(hook->context, next, &result);
    return rc;
}

/* A seat as stored: the player, or the built-in bot with its rating entry
 * (the row its games and counters go to), or nobody. */
static int record_seat(const store_api *api, int64_t game_id, const match *next, int seat_number)
{
    const match_seat *seat = &next->seats[seat_number];
    if (seat->kind != MATCH_SEAT_BOT)
        return api->seat_set(api->context, game_id, seat_number,
                             seat->kind == MATCH_SEAT_PLAYER ? seat->player_id : 0, NULL);
    int64_t entry = 0;
    int rc = room_results_bot_entry(api, seat->bot, next->config.bot_think_ms, &entry);
    return rc == 0 ? api->seat_set(api->context, game_id, seat_number, entry, seat->bot) : rc;
}

static int store_record(const store_api *api, int64_t game_id, const match *next,
                        const match_record *record, const match_store_hook *hook)
{
    switch (record->kind) {
    case MATCH_RECORD_SEAT:
        return record_seat(api, game_id, next, record->seat);
    case MATCH_RECORD_START:
        return api->game_start(api->context, game_id, record->at_ms);
    case MATCH_RECORD_ACTION:
        return store_action(api, game_id, record);
    case MATCH_RECORD_FINISH:
        return store_finish(api, game_id, next, record, hook);
    case MATCH_RECORD_ABORT:
        return api->game_finish(api->context, game_id, STORE_GAME_ABORTED, NULL, 0, NULL,
                                record->at_ms);
    }
    return STORE_E_INTERNAL;
}

int match_store_records(const store_api *api, int64_t game_id, const match *next,
                        const match_effects *effects, const match_store_hook *hook)
{
    if (effects->record_count == 0)
        return 0;
    int rc = api->begin(api->context);
    for (int i = 0; rc == 0 && i < effects->record_count; i++)
        rc = store_record(api, game_id, next, &effects->records[i], hook);
    if (rc == 0)
        return api->commit(api->context);
    api->rollback(api->context);
    return rc;
}

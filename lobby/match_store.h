/* match_store.h -- the records of one room event, written to a store.
 *
 * match_apply decides what an event leaves to store (match.h: seats at the
 * start, the start, each action of the log, the result or the abort);
 * this module is the one place that turns those records into store_api
 * calls, in one transaction: a finished game's result is stored with the
 * ratings and Reef runs it makes (room_results.h), so all of it is stored
 * or none. The live lobby calls it for every event (room_run.c), and
 * bench/gen_history_db calls it to write games exactly as the server does. */
#ifndef TESSERA_MATCH_STORE_H
#define TESSERA_MATCH_STORE_H

#include <stdint.h>

#include "lobby/match.h"
#include "storage/store_api.h"

/* What else the caller stores with a result, in its transaction: a
 * tournament game's standings (tournament.h). 0 or a store error. */
typedef struct match_store_hook {
    int (*on_result)(void *context, const match *finished, const match_result *result);
    void *context;
} match_store_hook;

/* Stores every record of `effects` for stored game `game_id`, which
 * `next` (the state the event leads to) describes, in one transaction of
 * `api` (with `hook`'s writes at a result; NULL: none): 0, or the store
 * error after the transaction was rolled back. */
int match_store_records(const store_api *api, int64_t game_id, const match *next,
                        const match_effects *effects, const match_store_hook *hook);

#endif

/* store_api.h -- the synchronous reads (and the few writes) the lobby
 * still makes outside the store port (store_port.h), as a table of
 * functions.
 *
 * The lobby never calls SQLite, nor even store_* directly: it holds a
 * store_api and calls through it. So tests put a fake in between that
 * fails any call on demand (the Nth write, only the finish), and a second
 * backend (PostgreSQL, for several server instances) can plug in by
 * filling the same table. store_api_of() gives the SQLite
 * store's table. Every function has the meaning, arguments and return
 * codes of the store_* function of the same name in store.h; `context` is
 * the backend's own (for SQLite, the store). */
#ifndef TESSERA_STORE_API_H
#define TESSERA_STORE_API_H

#include "storage/store.h"

typedef struct store_api {
    void *context;
    /* A restored game's seated players. */
    int (*player_by_id)(void *context, int64_t id, store_player *out);
    /* A game that does not replay at start-up is aborted (restore.c). */
    int (*game_finish)(void *context, int64_t game_id, store_game_status status,
                       const char *result_json, int seat_count, const store_seat_result *results,
                       int64_t at_ms);
    /* Tournaments running, loaded after a restart (every tournament write
     * is a store port record). */
    int (*tournaments_running)(void *context, int64_t **ids, int *count);
    int (*tournament_load)(void *context, int64_t id, store_tournament_record **out);
    /* Recovery at start-up. */
    int (*unfinished_games)(void *context, int64_t **ids, int *count);
    int (*game_load)(void *context, int64_t id, store_game_record **out);
} store_api;

/* The table of the SQLite store `storage` (borrowed: it must outlive the
 * table's use). */
store_api store_api_of(store *storage);

#endif

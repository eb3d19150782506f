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
    /* Players: a Reef run's guest row (lobby_player_store); found at sign-in. */
    int (*player_create)(void *context, const char *name, bool is_bot, const char *token,
                         int64_t *id);
    int (*player_by_token)(void *context, const char *token, store_player *out);
    int (*player_by_bot_key)(void *context, const char *key, store_player *out);
    int (*player_by_id)(void *context, int64_t id, store_player *out);
    /* Named accounts, found by name (sign-in, sign-up, tournament entries). */
    int (*account_by_name)(void *context, const char *name_key, store_account *out);
    /* Unclaimed guests expired, a bounded batch at a time (the lobby's sweep). */
    int (*guests_expire)(void *context, int64_t before_ms, int limit, store_guest_cursor *cursor,
                         bool (*is_held)(void *held_context, int64_t id), void *held_context,
                         int *looked_at, int *deleted);
    /* A game that does not replay at start-up is aborted (restore.c). */
    int (*game_finish)(void *context, int64_t game_id, store_game_status status,
                       const char *result_json, int seat_count, const store_seat_result *results,
                       int64_t at_ms);
    /* A built-in bot's entry (tournament entries); a player's rating (quick
     * play); a Reef run from the stateless API. */
    int (*builtin_player)(void *context, const char *name, int64_t *id);
    int (*rating_get)(void *context, int64_t player_id, const char *pool, store_rating *out);
    int (*reef_run_add)(void *context, const store_reef_run *run, int64_t *id, bool *is_repeat);
    /* Tournaments running, loaded after a restart (every tournament write
     * is a store port record). */
    int (*tournaments_running)(void *context, int64_t **ids, int *count);
    int (*tournament_load)(void *context, int64_t id, store_tournament_record **out);
    int (*arena_last_start)(void *context, const char *arena, int64_t *at_ms);
    /* Recovery at start-up. */
    int (*unfinished_games)(void *context, int64_t **ids, int *count);
    int (*game_load)(void *context, int64_t id, store_game_record **out);
} store_api;

/* The table of the SQLite store `storage` (borrowed: it must outlive the
 * table's use). */
store_api store_api_of(store *storage);

#endif

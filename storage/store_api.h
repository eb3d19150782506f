/* store_api.h -- what the lobby needs from a database, as a table of
 * functions.
 *
 * The lobby never calls SQLite, nor even store_* directly: it holds a
 * store_api and calls through it. So the writes an event needs are grouped
 * in one transaction the lobby opens and commits, tests put a fake in
 * between that fails any call on demand (the Nth write, a commit, only the
 * finish), and a second backend (PostgreSQL, for several server instances)
 * can plug in by filling the same table. store_api_of() gives the SQLite
 * store's table. Every function has the meaning, arguments and return
 * codes of the store_* function of the same name in store.h; `context` is
 * the backend's own (for SQLite, the store). */
#ifndef TESSERA_STORE_API_H
#define TESSERA_STORE_API_H

#include "storage/store.h"

typedef struct store_api {
    void *context;
    /* Players, found by a Reef run's secret and as a restored game's seats. */
    int (*player_by_token)(void *context, const char *token, store_player *out);
    int (*player_by_bot_key)(void *context, const char *key, store_player *out);
    int (*player_by_id)(void *context, int64_t id, store_player *out);
    /* Named accounts, found by name (sign-in, sign-up, tournament entries). */
    int (*account_by_name)(void *context, const char *name_key, store_account *out);
    /* A tournament's creation is one transaction: begin, its writes, commit. */
    int (*begin)(void *context);
    int (*commit)(void *context);
    void (*rollback)(void *context);
    /* A game that does not replay at start-up is aborted (restore.c). */
    int (*game_finish)(void *context, int64_t game_id, store_game_status status,
                       const char *result_json, int seat_count, const store_seat_result *results,
                       int64_t at_ms);
    /* A built-in bot's entry (tournament entries). */
    int (*builtin_player)(void *context, const char *name, int64_t *id);
    /* Tournaments: created and planned, cancelled; loaded again after a
     * restart (rounds, standings and the end are store port records). */
    int (*tournament_create)(void *context, const store_tournament_info *info, int entry_count,
                             const store_tournament_entry *entries, int64_t *id);
    int (*tournament_schedule)(void *context, int64_t tournament_id, int number, int round,
                               int seat_count, const int *entries);
    int (*tournament_cancel)(void *context, int64_t tournament_id, int64_t at_ms);
    /* Consent: an account's invitations, accepted by the invitee, used up
     * by the tournament that enters it. */
    int (*tournament_invite)(void *context, int64_t inviter_id, int64_t invitee_id, int64_t at_ms);
    int (*tournament_invitation_accept)(void *context, int64_t inviter_id, int64_t invitee_id);
    int (*tournament_invitation_use)(void *context, int64_t inviter_id, int64_t invitee_id);
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

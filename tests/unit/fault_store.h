/* fault_store.h -- a store_api that fails on demand, for the lobby tests.
 *
 * It forwards every call to a real SQLite store and can be told to fail:
 * the Nth write from now (any of player_create, account_create,
 * account_claim, player_token_set, guests_expire, game_create, seat_set, game_start,
 * move_append, game_finish, builtin_player, rating_record, reef_run_add,
 * the tournament writes), the next commit, or only writes
 * of one kind (every game_finish, say). A failed write returns STORE_E_IO
 * without reaching SQLite; a failed commit rolls the transaction back and
 * returns STORE_E_IO, as a real commit that fails does. */
#ifndef TESSERA_FAULT_STORE_H
#define TESSERA_FAULT_STORE_H

#include <stdbool.h>

#include "storage/store_api.h"

typedef enum fault_write {
    FAULT_ANY_WRITE,
    FAULT_PLAYER_CREATE,
    FAULT_ACCOUNT_CREATE,
    FAULT_ACCOUNT_CLAIM,
    FAULT_PLAYER_TOKEN_SET,
    FAULT_GUESTS_EXPIRE,
    FAULT_GAME_CREATE,
    FAULT_SEAT_SET,
    FAULT_GAME_START,
    FAULT_MOVE_APPEND,
    FAULT_GAME_FINISH,
    FAULT_BUILTIN_PLAYER,
    FAULT_RATING_RECORD,
    FAULT_REEF_RUN_ADD,
    FAULT_TOURNAMENT /* any tournament write */
} fault_write;

struct fault_store {
    store *real;
    int fail_write_in;      /* >0: the Nth write of `fail_kind` from now fails */
    fault_write fail_kind;  /* which writes count */
    bool is_failing_always; /* every write of `fail_kind` fails */
    bool is_failing_commit; /* the next commit fails */
    int writes;             /* writes that reached the real store */
    int failures;           /* calls failed on purpose */
};

extern struct fault_store faults;

/* The table over `real`, with no fault armed. */
store_api fault_store_api(store *real);

/* Disarms every fault. */
void fault_store_heal(void);

#endif

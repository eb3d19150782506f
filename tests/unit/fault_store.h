/* fault_store.h -- a store port that fails on demand, for the lobby
 * tests.
 *
 * It stores each batch (store_port.h) in one transaction of a real SQLite
 * store, a record counting as the writes it stands for (a result: its
 * finish, the bots' entries, the ratings, the Reef runs), and can be told
 * to fail: the Nth write from now (a player row, an account, a token, a
 * game row, a seat, a start, a move, a finish, a bot's entry, a rating, a
 * Reef run, a tournament write), the next commit, only writes of one kind
 * (every game finish, say), or a lookup. A failed write fails its whole
 * batch with STORE_E_IO without reaching SQLite; a failed commit rolls the
 * transaction back and returns STORE_E_IO, as a real commit that fails
 * does. With
 * `is_holding` set, its answers wait until fault_store_release: the
 * batches are stored, but the lobby has not heard so yet (a commit in
 * flight). The notices of committed batches are kept for the test to hand
 * on (fault_store_next_notice). */
#ifndef TESSERA_FAULT_STORE_H
#define TESSERA_FAULT_STORE_H

#include <stdbool.h>

#include "storage/store_port.h"

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
    FAULT_TOURNAMENT,  /* any tournament write */
    FAULT_BOT_ACCOUNT, /* any bot account write */
    FAULT_LEASE,       /* a renewal or a takeover of room leases */
    FAULT_NOTIFY,      /* a notice to the other instances */
    FAULT_LOOKUP       /* a port lookup (only when named: FAULT_ANY_WRITE counts writes) */
} fault_write;

struct fault_store {
    store *real;
    int fail_write_in;         /* >0: the Nth write of `fail_kind` from now fails */
    fault_write fail_kind;     /* which writes count */
    bool is_failing_always;    /* every write of `fail_kind` fails */
    bool is_failing_commit;    /* the next commit fails */
    int writes;                /* writes that reached the real store */
    int failures;              /* calls failed on purpose */
    bool is_holding;           /* the port's answers wait for fault_store_release... */
    int64_t hold_game_id;      /* ...those of this game's batches only; 0: all; */
                               /* FAULT_HOLD_NO_GAME: batches of no game (a tournament's own) */
    bool is_answering_lookups; /* ...but not those of lookups */
    bool is_holding_kind;      /* ...or, set, only those whose first record is of hold_kind */
    store_record_kind hold_kind;
    int held_count;
};

#define FAULT_HOLD_NO_GAME (-1)

extern struct fault_store faults;

/* The port over `real`, with no fault armed. */
store_port fault_store_port(store *real);

/* Answers every batch held back, oldest first (and stops holding): how
 * many there were. */
int fault_store_release(void);

/* The `index`th batch held back (oldest first), or NULL. */
const store_batch *fault_store_held(int index);

/* The notices (store_notify) of the batches committed, oldest first, as
 * PostgreSQL would deliver them to every listener: the next one, the
 * caller's to free(), or NULL. */
char *fault_store_next_notice(void);

/* Disarms every fault. */
void fault_store_heal(void);

#endif

/* bot_accounts.h -- creating bot accounts and rotating or revoking their keys.
 *
 * Two front ends share these rules: the command line (`tessera bot add`,
 * `key`, `revoke`, run by the operator) and the REST routes of
 * http_accounts.c (the admin key, or an account managing its own bots).
 * A bot's name follows the account rules (lobby/player_name.h) and is
 * unique with theirs; its key, 24 random bytes in hex, is shown once and
 * stored only as a digest. An `actor` says who asks: 0 for the operator
 * or the admin key, who may do anything, else the id of an account, which
 * may only create bots it owns and manage those.
 *
 * The rules read the store (who the actor is, whether the bot is theirs)
 * and make a change: the one record to store through the store port
 * (storage/store_port.h), and the answer to give once it is stored
 * (bot_accounts_stored). A front end submits the record and answers when
 * the store does, so the write never runs on the caller's stack. */
#ifndef TESSERA_BOT_ACCOUNTS_H
#define TESSERA_BOT_ACCOUNTS_H

#include <stdbool.h>
#include <stdint.h>

#include "lobby/player_name.h"
#include "protocol/http_failure.h"
#include "storage/secret.h"
#include "storage/store_port.h"

/* What a call did, or why not (`failure`: the HTTP answer of a refusal,
 * whose message the command line prints). */
typedef struct bot_accounts_result {
    int64_t id;                  /* the bot account's */
    char name[STORE_NAME_SIZE];  /* its display name */
    char owner[STORE_NAME_SIZE]; /* its owner's name; "" for none */
    char key[SECRET_KEY_SIZE];   /* the new key; "" after a revocation */
    bool is_open_to_tournaments; /* bot_accounts_set_open: the flag as set */
    http_failure failure;
} bot_accounts_result;

/* A change the rules allowed: the record to store, and the answer once it
 * is. Both may hold the new key: bot_accounts_forget wipes them. */
typedef struct bot_accounts_change {
    store_record record;
    bot_accounts_result result;
} bot_accounts_change;

/* Creates the bot account `name` owned by the account named `owner`
 * (NULL: nobody; an account actor may only name itself, and owns the bot
 * when it names nobody). An account actor may own at most `max_owned`
 * bots (names are scarce: no account squats them by the hundred); the
 * operator and the admin (actor 0) are not capped. 0 and *out, whose
 * result has the new key, or HTTP_FAILED with out->result.failure. */
int bot_accounts_create(store *db, const char *name, const char *owner, int64_t actor,
                        int max_owned, bot_accounts_change *out);

/* Gives the bot account `name` a new key (the old one stops working), or,
 * when `is_revoking`, none: it can no longer sign in until its next key.
 * 0 and *out, or HTTP_FAILED with out->result.failure. */
int bot_accounts_set_key(store *db, const char *name, bool is_revoking, int64_t actor,
                         bot_accounts_change *out);

/* Lets any account enter the bot account `name` in its tournaments, or
 * (not `is_open`) only its owner, the admin and accounts whose invitation
 * it accepted (lobby/tournament.h). 0 and *out, or HTTP_FAILED with
 * out->result.failure. */
int bot_accounts_set_open(store *db, const char *name, bool is_open, int64_t actor,
                          bot_accounts_change *out);

/* The change's outcome once its record's commit answered `rc`: 0 with
 * change->result complete (a new bot's id), or HTTP_FAILED with its
 * failure (409 name_taken when the name was taken meanwhile, 500
 * storage_error), the key wiped. */
int bot_accounts_stored(bot_accounts_change *change, int rc);

/* Wipes the keys `change` holds. */
void bot_accounts_forget(bot_accounts_change *change);

#endif

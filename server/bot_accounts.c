/* bot_accounts.c -- the rules of bot_accounts.h over the store.
 *
 * Every check that reads (the owner exists, the bot is the actor's) comes
 * before the one write, a record the caller stores, which the store makes
 * atomic: a name clash is found by the insert itself (the UNIQUE name
 * key), so two creations of one name cannot both succeed, even with both
 * records in flight at once. */
#include <stdio.h>
#include <string.h>

#include "server/bot_accounts.h"

/* A key goes into a record as it is shown. */
_Static_assert(SECRET_KEY_SIZE <= STORE_TOKEN_SIZE, "a bot key fits a record's token");

/* The store failed: nothing changed. */
static int storage_failure(bot_accounts_result *out, int store_code)
{
    return http_fail(&out->failure, 500, "storage_error", "the database failed: %s",
                     store_strerror(store_code));
}

/* The id of the account named `owner` into *owner_id, its name into out. */
static int find_owner(store *db, const char *owner, int64_t *owner_id, bot_accounts_result *out)
{
    char display[PLAYER_NAME_SIZE], key[PLAYER_NAME_SIZE];
    protocol_failure failure;
    store_account account;
    int rc = player_name_check(owner, display, key, &failure) == 0
                 ? store_account_by_name(db, key, &account)
                 : STORE_E_NOT_FOUND;
    if (rc == STORE_E_NOT_FOUND || (rc == 0 && account.is_bot))
        return http_fail(&out->failure, 404, "not_found", "no account is named '%s'", owner);
    if (rc != 0)
        return storage_failure(out, rc);
    *owner_id = account.id;
    snprintf(out->owner, sizeof(out->owner), "%s", account.name);
    return 0;
}

/* The name of the account `actor` (0: nobody), its owner by default. */
static int actor_name(store *db, int64_t actor, char name[STORE_NAME_SIZE],
                      bot_accounts_result *out)
{
    store_player player;
    int rc = actor ? store_player_by_id(db, actor, &player) : STORE_E_NOT_FOUND;
    name[0] = '\0';
    if (rc == 0)
        snprintf(name, STORE_NAME_SIZE, "%s", player.name);
    return rc == 0 || rc == STORE_E_NOT_FOUND ? 0 : storage_failure(out, rc);
}

/* Whether the account `actor` may own one bot more. */
static int check_room_for_one_more(store *db, int64_t actor, int max_owned,
                                   bot_accounts_result *out)
{
    int64_t owned = 0;
    int rc = store_bots_owned(db, actor, &owned);
    if (rc != 0)
        return storage_failure(out, rc);
    if (owned >= max_owned)
        return http_fail(&out->failure, 403, "too_many_bots",
                         "an account may own at most %d bot accounts", max_owned);
    return 0;
}

int bot_accounts_create(store *db, const char *name, const char *owner, int64_t actor,
                        int max_owned, bot_accounts_change *out)
{
    memset(out, 0, sizeof(*out));
    bot_accounts_result *result = &out->result;
    char display[PLAYER_NAME_SIZE], key[PLAYER_NAME_SIZE], actor_display[STORE_NAME_SIZE];
    protocol_failure failure;
    int rc = player_name_check(name, display, key, &failure);
    if (rc != 0)
        return rc == PROTOCOL_E_NAME_TAKEN
                   ? http_fail(&result->failure, 409, "name_taken", "%s", failure.message)
                   : http_fail(&result->failure, 400, "bad_request", "%s", failure.message);
    snprintf(result->name, sizeof(result->name), "%s", display);
    if ((rc = actor_name(db, actor, actor_display, result)) != 0)
        return rc;
    if (!owner && actor)
        owner = actor_display;
    int64_t owner_id = 0;
    if (owner && (rc = find_owner(db, owner, &owner_id, result)) != 0)
        return rc;
    if (actor && owner_id != actor)
        return http_fail(&result->failure, 403, "forbidden",
                         "an account may only create its own bots");
    if (actor && (rc = check_room_for_one_more(db, actor, max_owned, result)) != 0)
        return rc;
    secret_new_key(result->key);
    out->record.kind = STORE_RECORD_BOT_ACCOUNT_CREATE;
    store_record_bot *bot = &out->record.bot;
    snprintf(bot->name, sizeof(bot->name), "%s", result->name);
    snprintf(bot->name_key, sizeof(bot->name_key), "%s", key);
    memcpy(bot->key, result->key, sizeof(result->key));
    bot->owner_id = owner_id;
    return 0;
}

/* The bot account named `name` that `actor` may manage, into *bot. */
static int find_bot(store *db, const char *name, int64_t actor, store_account *bot,
                    bot_accounts_result *out)
{
    char display[PLAYER_NAME_SIZE], key[PLAYER_NAME_SIZE];
    protocol_failure failure;
    int rc = player_name_check(name, display, key, &failure) == 0
                 ? store_account_by_name(db, key, bot)
                 : STORE_E_NOT_FOUND;
    if (rc == STORE_E_NOT_FOUND || (rc == 0 && !bot->is_bot))
        return http_fail(&out->failure, 404, "not_found", "no bot account is named '%s'", name);
    if (rc != 0)
        return storage_failure(out, rc);
    if (actor && bot->owner_id != actor)
        return http_fail(&out->failure, 403, "forbidden", "the bot '%s' is not yours", bot->name);
    out->id = bot->id;
    snprintf(out->name, sizeof(out->name), "%s", bot->name);
    return 0;
}

int bot_accounts_set_open(store *db, const char *name, bool is_open, int64_t actor,
                          bot_accounts_change *out)
{
    memset(out, 0, sizeof(*out));
    store_account bot;
    int rc = find_bot(db, name, actor, &bot, &out->result);
    if (rc != 0)
        return rc;
    out->record.kind = STORE_RECORD_BOT_OPEN_SET;
    out->record.bot_open = (store_record_bot_open){bot.id, is_open};
    out->result.is_open_to_tournaments = is_open;
    return 0;
}

int bot_accounts_set_key(store *db, const char *name, bool is_revoking, int64_t actor,
                         bot_accounts_change *out)
{
    memset(out, 0, sizeof(*out));
    store_account bot;
    int rc = find_bot(db, name, actor, &bot, &out->result);
    if (rc != 0)
        return rc;
    if (!is_revoking)
        secret_new_key(out->result.key);
    out->record.kind = STORE_RECORD_BOT_KEY_SET;
    out->record.token.player_id = bot.id;
    memcpy(out->record.token.token, out->result.key, sizeof(out->result.key));
    return 0;
}

int bot_accounts_stored(bot_accounts_change *change, int rc)
{
    bot_accounts_result *result = &change->result;
    if (rc == STORE_OK && change->record.kind == STORE_RECORD_BOT_ACCOUNT_CREATE)
        result->id = change->record.bot.id;
    if (rc == STORE_E_CONSTRAINT && change->record.kind == STORE_RECORD_BOT_ACCOUNT_CREATE)
        rc = http_fail(&result->failure, 409, "name_taken", "the name '%s' is taken", result->name);
    else if (rc != STORE_OK)
        rc = storage_failure(result, rc);
    if (rc != 0)
        bot_accounts_forget(change);
    return rc;
}

void bot_accounts_forget(bot_accounts_change *change)
{
    secret_forget(change->result.key, sizeof(change->result.key));
    secret_forget(change->record.bot.key, sizeof(change->record.bot.key));
    secret_forget(change->record.token.token, sizeof(change->record.token.token));
}

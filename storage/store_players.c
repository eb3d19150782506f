/* store_players.c -- the players table: guests, accounts, bot accounts and
 * leaderboard counters.
 *
 * Humans and bots share one table so that seats, counters and ratings need
 * no second code path. A guest has a name and a session token; a named
 * account adds a unique name_key and a password hash; a bot account is
 * reached through a bot key instead of a session token, and may have an
 * owner (an account). No secret is stored: tokens and keys only as
 * digests (secret.h), in UNIQUE columns, so each lookup is one index probe;
 * passwords only as Argon2id strings, which the store neither makes nor
 * checks (that is slow work for a worker thread, see lobby/account.c).
 * A copy of the database lets nobody sign in.
 *
 * Names are unique without regard to case through the UNIQUE index on
 * name_key: a clash, in whatever case, is STORE_E_CONSTRAINT, and the
 * check and the insert are one statement, so two sign-ups cannot race.
 *
 * Guests that nobody claimed and nothing stored names (no seat, Reef run
 * or rating) are expired by store_guests_expire, a batch at a time from a
 * cursor over the partial index players_guests_by_age, so the sweep never
 * scans the table nor looks at a kept guest twice in one walk.
 *
 * games_played and wins are counters rather than a scan of seats: the
 * leaderboard reads them directly, and store_game_finish bumps them in the
 * same transaction that records the result, so they cannot drift. */
#include <stdlib.h>
#include <string.h>

#include "storage/secret.h"
#include "storage/store_internal.h"

#define PLAYER_COLUMNS "id, name, is_bot, games_played, wins, password_hash IS NOT NULL"
#define ACCOUNT_COLUMNS                                                                            \
    "id, name, is_bot, coalesce(owner_id, 0), coalesce(password_hash, ''), open_to_tournaments"

const store_statement_text STORE_PLAYER_STATEMENTS[] = {
    {STORE_SQL_PLAYER_BY_TOKEN, "SELECT " PLAYER_COLUMNS " FROM players WHERE token_digest = ?1"},
    {STORE_SQL_PLAYER_BY_BOT_KEY,
     "SELECT " PLAYER_COLUMNS " FROM players WHERE bot_key_digest = ?1"},
    {STORE_SQL_PLAYER_BY_ID, "SELECT " PLAYER_COLUMNS " FROM players WHERE id = ?1"},
    {STORE_SQL_PLAYER_INSERT,
     "INSERT INTO players (name, name_key, is_bot, password_hash, token_digest, bot_key_digest,"
     " owner_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"},
    /* Only a guest can be claimed: a row without a name key that is no bot. */
    {STORE_SQL_ACCOUNT_CLAIM,
     "UPDATE players SET name = ?2, name_key = ?3, password_hash = ?4, token_digest = ?5"
     " WHERE id = ?1 AND name_key IS NULL AND is_bot = 0"},
    {STORE_SQL_ACCOUNT_BY_NAME, "SELECT " ACCOUNT_COLUMNS " FROM players WHERE name_key = ?1"},
    {STORE_SQL_PLAYER_TOKEN_SET, "UPDATE players SET token_digest = ?2 WHERE id = ?1"},
    {STORE_SQL_BOT_KEY_SET, "UPDATE players SET bot_key_digest = ?2 WHERE id = ?1 AND is_bot = 1 "
                            "AND name_key IS NOT NULL"},
    {STORE_SQL_BOT_OPEN_SET, "UPDATE players SET open_to_tournaments = ?2 WHERE id = ?1 AND "
                             "is_bot = 1 AND name_key IS NOT NULL"},
    {STORE_SQL_BOTS_OWNED, "SELECT count(*) FROM players WHERE owner_id = ?1"},
    /* The walk of store_guests_expire: the partial index players_guests_by_age
     * answers both the range and the order. */
    {STORE_SQL_GUESTS_OLDEST,
     "SELECT id, created_at FROM players WHERE name_key IS NULL AND (created_at, id) > (?1, ?2)"
     " AND created_at < ?3 ORDER BY created_at, id LIMIT ?4"},
    /* Each probe is an index lookup: seats_by_player, reef_runs_by_player,
     * the ratings' primary key. A guest can be in no tournament and own no
     * bot; if it ever were, the foreign keys refuse the delete and it stays. */
    {STORE_SQL_GUEST_DELETE, "DELETE FROM players WHERE id = ?1 AND name_key IS NULL"
                             " AND NOT EXISTS (SELECT 1 FROM seats WHERE player_id = ?1)"
                             " AND NOT EXISTS (SELECT 1 FROM reef_runs WHERE player_id = ?1)"
                             " AND NOT EXISTS (SELECT 1 FROM ratings WHERE player_id = ?1)"},
    /* A player in several seats of one game still played one game, and won it
     * if any of those seats won. */
    {STORE_SQL_PLAYERS_COUNT_GAME,
     "UPDATE players SET games_played = games_played + 1,"
     "  wins = wins + CASE WHEN EXISTS (SELECT 1 FROM seats WHERE seats.game_id = ?1"
     "    AND seats.entry_id = players.id AND seats.is_winner = 1) THEN 1 ELSE 0 END"
     " WHERE id IN (SELECT entry_id FROM seats WHERE game_id = ?1 AND entry_id IS NOT NULL)"},
    {STORE_SQL_COUNT, NULL},
};

static bool is_valid_name(const char *name)
{
    return name && name[0] != '\0' && strlen(name) < STORE_NAME_SIZE;
}

/* Binds the digest of `secret` (NULL binds NULL). The digest lives on this
 * stack frame, so the statement takes a copy (store_bind_text binds in
 * place). */
static void bind_digest(store_stmt *stmt, int index, const char *secret, int *bound)
{
    char digest[SECRET_DIGEST_HEX_SIZE];
    if (!secret) {
        store_bind_text(stmt, index, NULL, bound);
        return;
    }
    secret_digest_hex(secret, digest);
    store_bind_text_copy(stmt, index, digest, bound);
}

/* A name key is the name in lower case (SQLite's lower() folds ASCII,
 * which is all a name may hold): the schema checks it is lower case, this
 * that it is the key of this very name. */
static bool is_valid_name_key(const char *name, const char *name_key)
{
    if (!name_key || strlen(name_key) != strlen(name))
        return false;
    for (size_t i = 0; name[i]; i++) {
        char lower = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
        if (name_key[i] != lower)
            return false;
    }
    return true;
}

/* One row of players, whatever kind: see the columns of PLAYER_INSERT. */
struct new_player {
    const char *name, *name_key, *password_hash, *token, *bot_key;
    bool is_bot;
    int64_t owner_id; /* 0: none */
};

static int insert_player(store *storage, const struct new_player *row, int64_t *id)
{
    if (!is_valid_name(row->name) ||
        (row->name_key && !is_valid_name_key(row->name, row->name_key)))
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_PLAYER_INSERT];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, row->name, &bound);
    store_bind_text(stmt, 2, row->name_key, &bound);
    store_bind_int64(stmt, 3, row->is_bot, &bound);
    store_bind_text(stmt, 4, row->password_hash, &bound);
    bind_digest(stmt, 5, row->token, &bound);
    bind_digest(stmt, 6, row->bot_key, &bound);
    if (row->owner_id) /* else NULL, as every parameter left unbound */
        store_bind_int64(stmt, 7, row->owner_id, &bound);
    store_bind_int64(stmt, 8, store_now_ms(), &bound);
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK)
        *id = store_last_insert_id(storage);
    return rc;
}

int store_player_create(store *storage, const char *name, bool is_bot, const char *token,
                        int64_t *id)
{
    struct new_player row = {.name = name, .token = token, .is_bot = is_bot};
    return insert_player(storage, &row, id);
}

int store_account_create(store *storage, const char *name, const char *name_key,
                         const char *password_hash, const char *token, int64_t *id)
{
    if (!name_key || !password_hash || !token)
        return STORE_E_INVALID;
    struct new_player row = {
        .name = name, .name_key = name_key, .password_hash = password_hash, .token = token};
    return insert_player(storage, &row, id);
}

int store_bot_account_create(store *storage, const char *name, const char *name_key,
                             const char *key, int64_t owner_id, int64_t *id)
{
    if (!name_key || !key)
        return STORE_E_INVALID;
    struct new_player row = {
        .name = name, .name_key = name_key, .bot_key = key, .is_bot = true, .owner_id = owner_id};
    return insert_player(storage, &row, id);
}

/* Runs an UPDATE of one player row: STORE_E_NOT_FOUND when no row
 * qualified. */
static int update_one(store *storage, store_stmt *stmt, int bound)
{
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK && store_changes(storage) == 0)
        return STORE_E_NOT_FOUND;
    return rc;
}

/* The claim's own update of the player row. */
static int claim_row(store *storage, int64_t player_id, const char *name, const char *name_key,
                     const char *password_hash, const char *token)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_ACCOUNT_CLAIM];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, player_id, &bound);
    store_bind_text(stmt, 2, name, &bound);
    store_bind_text(stmt, 3, name_key, &bound);
    store_bind_text(stmt, 4, password_hash, &bound);
    bind_digest(stmt, 5, token, &bound);
    return update_one(storage, stmt, bound);
}

int store_account_claim(store *storage, int64_t player_id, const char *name, const char *name_key,
                        const char *password_hash, const char *token)
{
    if (!is_valid_name(name) || !is_valid_name_key(name, name_key) || !password_hash || !token)
        return STORE_E_INVALID;
    bool is_own;
    int rc = store_join_begin(storage, &is_own);
    if (rc == STORE_OK)
        rc = claim_row(storage, player_id, name, name_key, password_hash, token);
    if (rc == STORE_OK)
        rc = store_ratings_list_player(storage, player_id); /* now on the leaderboards */
    return store_join_end(storage, is_own, rc);
}

int store_player_token_set(store *storage, int64_t player_id, const char *token)
{
    if (!token)
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_PLAYER_TOKEN_SET];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, player_id, &bound);
    bind_digest(stmt, 2, token, &bound);
    return update_one(storage, stmt, bound);
}

int store_bot_open_set(store *storage, int64_t bot_id, bool is_open)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_BOT_OPEN_SET];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, bot_id, &bound);
    store_bind_int64(stmt, 2, is_open, &bound);
    return update_one(storage, stmt, bound);
}

int store_bot_key_set(store *storage, int64_t bot_id, const char *key)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_BOT_KEY_SET];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, bot_id, &bound);
    bind_digest(stmt, 2, key, &bound);
    return update_one(storage, stmt, bound);
}

int store_bots_owned(store *storage, int64_t owner_id, int64_t *count)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_BOTS_OWNED];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, owner_id, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK)
        *count = store_column_int64(stmt, 0);
    store_statement_reset(stmt);
    return rc;
}

int store_account_by_name(store *storage, const char *name_key, store_account *out)
{
    if (!name_key)
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_ACCOUNT_BY_NAME];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, name_key, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK) {
        out->id = store_column_int64(stmt, 0);
        store_column_copy(stmt, 1, out->name, sizeof(out->name));
        out->is_bot = store_column_int(stmt, 2) != 0;
        out->owner_id = store_column_int64(stmt, 3);
        store_column_copy(stmt, 4, out->password_hash, sizeof(out->password_hash));
        out->is_open_to_tournaments = store_column_int(stmt, 5) != 0;
    }
    store_statement_reset(stmt);
    return rc;
}

/* Runs a player query bound to one key and reads its row into *out. */
static int read_player(store_stmt *stmt, int bound, store_player *out)
{
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK) {
        out->id = store_column_int64(stmt, 0);
        store_column_copy(stmt, 1, out->name, sizeof(out->name));
        out->is_bot = store_column_int(stmt, 2) != 0;
        out->games_played = store_column_int64(stmt, 3);
        out->wins = store_column_int64(stmt, 4);
        out->is_account = store_column_int(stmt, 5) != 0;
    }
    store_statement_reset(stmt);
    return rc;
}

int store_player_by_token(store *storage, const char *token, store_player *out)
{
    if (!token)
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_PLAYER_BY_TOKEN];
    int bound = STORE_OK;
    bind_digest(stmt, 1, token, &bound);
    return read_player(stmt, bound, out);
}

int store_player_by_bot_key(store *storage, const char *key, store_player *out)
{
    if (!key)
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_PLAYER_BY_BOT_KEY];
    int bound = STORE_OK;
    bind_digest(stmt, 1, key, &bound);
    return read_player(stmt, bound, out);
}

int store_player_by_id(store *storage, int64_t id, store_player *out)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_PLAYER_BY_ID];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, id, &bound);
    return read_player(stmt, bound, out);
}

int store_players_count_game(store *storage, int64_t game_id)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_PLAYERS_COUNT_GAME];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, game_id, &bound);
    return store_execute(stmt, bound);
}

/* The ids of the next `limit` guests of the walk into ids[], moving *cursor
 * past them. */
static int guests_after(store *storage, int64_t before_ms, int limit, store_guest_cursor *cursor,
                        int64_t *ids, int *count)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_GUESTS_OLDEST];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, cursor->created_at_ms, &bound);
    store_bind_int64(stmt, 2, cursor->id, &bound);
    store_bind_int64(stmt, 3, before_ms, &bound);
    store_bind_int64(stmt, 4, limit, &bound);
    *count = 0;
    int rc;
    while ((rc = store_step_row(stmt, bound)) == STORE_OK) {
        ids[(*count)++] = cursor->id = store_column_int64(stmt, 0);
        cursor->created_at_ms = store_column_int64(stmt, 1);
    }
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

/* Deletes guest `id` unless something stored names it: 0 and *is_deleted. */
/* Deletes one guest inside the sweep's transaction. A refused delete is
 * undone alone (a savepoint: PostgreSQL would otherwise end the whole
 * transaction at the first failed statement) and the guest kept. */
static int guest_delete(store *storage, int64_t id, bool *is_deleted)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_GUEST_DELETE];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, id, &bound);
    int rc = store_part_begin(storage);
    if (rc == STORE_OK)
        rc = store_execute(stmt, bound);
    *is_deleted = rc == STORE_OK && store_changes(storage) > 0;
    rc = store_part_end(storage, rc);
    return rc == STORE_E_CONSTRAINT ? STORE_OK : rc; /* named by a row we do not expect: kept */
}

int store_guests_expire(store *storage, int64_t before_ms, int limit, store_guest_cursor *cursor,
                        const int64_t *held, int held_count, int *looked_at, int *deleted)
{
    *looked_at = *deleted = 0;
    if (limit < 1 || limit > STORE_GUESTS_EXPIRE_MAX)
        return STORE_E_INVALID;
    int64_t ids[STORE_GUESTS_EXPIRE_MAX];
    store_guest_cursor walked = *cursor;
    bool is_own;
    int rc = store_join_begin(storage, &is_own);
    if (rc == STORE_OK)
        rc = guests_after(storage, before_ms, limit, &walked, ids, looked_at);
    int removed = 0;
    for (int i = 0; rc == STORE_OK && i < *looked_at; i++) {
        bool is_deleted = false;
        if (!bsearch(&ids[i], held, (size_t)held_count, sizeof(*held), store_id_order))
            rc = guest_delete(storage, ids[i], &is_deleted);
        removed += is_deleted;
    }
    rc = store_join_end(storage, is_own, rc);
    if (rc == STORE_OK) { /* a failed sweep looks at the same guests again */
        *cursor = walked;
        *deleted = removed;
    } else {
        *looked_at = 0;
    }
    return rc;
}

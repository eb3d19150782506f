/* store_players.c -- the players table: accounts and leaderboard counters.
 *
 * Humans and bots share one table so that seats, counters and (later)
 * ratings need no second code path; a bot account differs only by is_bot and
 * by being reached through a bot key instead of a session token. Neither
 * secret is stored: only its SHA-256 digest (sha256.h), in UNIQUE columns,
 * so each lookup is one index probe and a copy of the database lets nobody
 * sign in.
 *
 * games_played and wins are counters rather than a scan of seats: the
 * leaderboard reads them directly, and store_game_finish bumps them in the
 * same transaction that records the result, so they cannot drift. */
#include <string.h>

#include "storage/sha256.h"
#include "storage/store_internal.h"

#define PLAYER_COLUMNS "id, name, is_bot, games_played, wins"

const store_statement_text STORE_PLAYER_STATEMENTS[] = {
    {STORE_SQL_PLAYER_INSERT,
     "INSERT INTO players (name, is_bot, token_digest, bot_key_digest, created_at)"
     " VALUES (?1, ?2, ?3, ?4, " STORE_SQL_NOW_MS ")"},
    {STORE_SQL_PLAYER_BY_TOKEN, "SELECT " PLAYER_COLUMNS " FROM players WHERE token_digest = ?1"},
    {STORE_SQL_PLAYER_BY_BOT_KEY,
     "SELECT " PLAYER_COLUMNS " FROM players WHERE bot_key_digest = ?1"},
    {STORE_SQL_PLAYER_BY_ID, "SELECT " PLAYER_COLUMNS " FROM players WHERE id = ?1"},
    /* A player in several seats of one game still played one game, and won it
     * if any of those seats won. */
    {STORE_SQL_PLAYERS_COUNT_GAME,
     "UPDATE players SET games_played = games_played + 1,"
     "  wins = wins + EXISTS (SELECT 1 FROM seats WHERE seats.game_id = ?1"
     "                        AND seats.player_id = players.id AND seats.is_winner = 1)"
     " WHERE id IN (SELECT player_id FROM seats WHERE game_id = ?1 AND player_id IS NOT NULL)"},
    {STORE_SQL_COUNT, NULL},
};

static bool is_valid_name(const char *name)
{
    return name && name[0] != '\0' && strlen(name) < STORE_NAME_SIZE;
}

/* Binds the digest of `secret` (NULL binds NULL). The digest lives on this
 * stack frame, so SQLite takes a copy (store_bind_text binds in place). */
static void bind_digest(sqlite3_stmt *stmt, int index, const char *secret, int *bound)
{
    char digest[SHA256_HEX_SIZE];
    if (!secret) {
        store_bind_text(stmt, index, NULL, bound);
        return;
    }
    sha256_hex(secret, digest);
    if (*bound == SQLITE_OK)
        *bound = sqlite3_bind_text(stmt, index, digest, -1, SQLITE_TRANSIENT);
}

static int insert_player(store *storage, const char *name, bool is_bot, const char *token,
                         const char *bot_key, int64_t *id)
{
    if (!is_valid_name(name))
        return STORE_E_INVALID;
    sqlite3_stmt *stmt = storage->statements[STORE_SQL_PLAYER_INSERT];
    int bound = SQLITE_OK;
    store_bind_text(stmt, 1, name, &bound);
    store_bind_int64(stmt, 2, is_bot, &bound);
    bind_digest(stmt, 3, token, &bound);
    bind_digest(stmt, 4, bot_key, &bound);
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK)
        *id = sqlite3_last_insert_rowid(storage->db);
    return rc;
}

int store_player_create(store *storage, const char *name, bool is_bot, const char *token,
                        int64_t *id)
{
    return insert_player(storage, name, is_bot, token, NULL, id);
}

int store_bot_account_create(store *storage, const char *name, const char *key, int64_t *id)
{
    if (!key)
        return STORE_E_INVALID;
    return insert_player(storage, name, true, NULL, key, id);
}

/* Runs a player query bound to one key and reads its row into *out. */
static int read_player(sqlite3_stmt *stmt, int bound, store_player *out)
{
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK) {
        out->id = sqlite3_column_int64(stmt, 0);
        store_column_copy(stmt, 1, out->name, sizeof(out->name));
        out->is_bot = sqlite3_column_int(stmt, 2) != 0;
        out->games_played = sqlite3_column_int64(stmt, 3);
        out->wins = sqlite3_column_int64(stmt, 4);
    }
    store_statement_reset(stmt);
    return rc;
}

int store_player_by_token(store *storage, const char *token, store_player *out)
{
    if (!token)
        return STORE_E_INVALID;
    sqlite3_stmt *stmt = storage->statements[STORE_SQL_PLAYER_BY_TOKEN];
    int bound = SQLITE_OK;
    bind_digest(stmt, 1, token, &bound);
    return read_player(stmt, bound, out);
}

int store_player_by_bot_key(store *storage, const char *key, store_player *out)
{
    if (!key)
        return STORE_E_INVALID;
    sqlite3_stmt *stmt = storage->statements[STORE_SQL_PLAYER_BY_BOT_KEY];
    int bound = SQLITE_OK;
    bind_digest(stmt, 1, key, &bound);
    return read_player(stmt, bound, out);
}

int store_player_by_id(store *storage, int64_t id, store_player *out)
{
    sqlite3_stmt *stmt = storage->statements[STORE_SQL_PLAYER_BY_ID];
    int bound = SQLITE_OK;
    store_bind_int64(stmt, 1, id, &bound);
    return read_player(stmt, bound, out);
}

int store_players_count_game(store *storage, int64_t game_id)
{
    sqlite3_stmt *stmt = storage->statements[STORE_SQL_PLAYERS_COUNT_GAME];
    int bound = SQLITE_OK;
    store_bind_int64(stmt, 1, game_id, &bound);
    return store_execute(stmt, bound);
}

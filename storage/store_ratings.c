/* store_ratings.c -- the ratings and rating_history tables, and the player
 * rows that carry the built-in bots' ratings.
 *
 * A rating row holds a player's mu and sigma in one pool and the pool's
 * counters (games, wins, score total), so a profile or a leaderboard reads
 * one row instead of scanning seats. Recording a game is one upsert of the
 * row and one insert of its history row; the lobby does both inside the
 * transaction that stores the result, so ratings never run ahead of or
 * behind the games they come from.
 *
 * `display` (mu - 3 sigma) is stored, not computed on read, so the
 * leaderboard walks an index in its order; `listed` marks the rows of
 * named accounts, bot accounts and built-in bots, which leaderboards show,
 * and is read from the player row at each write. */
#include <string.h>

#include "storage/store_internal.h"

const store_statement_text STORE_RATING_STATEMENTS[] = {
    {STORE_SQL_BUILTIN_INSERT, "INSERT INTO players (name, is_bot, name_key, created_at)"
                               " VALUES (?1, 1, lower(?1), ?2) ON CONFLICT DO NOTHING"},
    {STORE_SQL_BUILTIN_BY_NAME, "SELECT id FROM players WHERE name_key = lower(?1)"},
    /* SQLite has one writer: nothing to lock (store.c gives PostgreSQL's text). */
    {STORE_SQL_RATING_LOCK, "SELECT ?1"},
    {STORE_SQL_RATING_GET,
     "SELECT mu, sigma, games, wins, score_total FROM ratings WHERE player_id = ?1 AND pool = ?2"},
    {STORE_SQL_RATING_RECORD,
     "INSERT INTO ratings (player_id, pool, mu, sigma, display, games, wins, score_total, listed,"
     "  updated_at)"
     " SELECT id, CAST(?2 AS TEXT), CAST(?3 AS DOUBLE PRECISION), CAST(?4 AS DOUBLE PRECISION),"
     "  CAST(?3 AS DOUBLE PRECISION) - 3 * CAST(?4 AS DOUBLE PRECISION), 1, CAST(?5 AS BIGINT),"
     "  CAST(?6 AS BIGINT), CASE WHEN name_key IS NULL THEN 0 ELSE 1 END, CAST(?7 AS BIGINT)"
     " FROM players WHERE id = ?1"
     " ON CONFLICT (player_id, pool) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
     "  display = excluded.display, games = ratings.games + 1,"
     "  wins = ratings.wins + excluded.wins,"
     "  score_total = ratings.score_total + excluded.score_total, listed = excluded.listed,"
     "  updated_at = excluded.updated_at"},
    {STORE_SQL_RATING_HISTORY_INSERT,
     "INSERT INTO rating_history (player_id, pool, game_id, mu_before, sigma_before, mu_after,"
     "  sigma_after, at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"},
    {STORE_SQL_RATINGS_LIST_PLAYER, "UPDATE ratings SET listed = 1 WHERE player_id = ?1"},
    {STORE_SQL_COUNT, NULL},
};

static int builtin_id(store *storage, const char *name, int64_t *id)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_BUILTIN_BY_NAME];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, name, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK)
        *id = store_column_int64(stmt, 0);
    store_statement_reset(stmt);
    return rc;
}

int store_builtin_player(store *storage, const char *name, int64_t *id)
{
    if (!name || name[0] == '\0' || strlen(name) >= STORE_NAME_SIZE)
        return STORE_E_INVALID;
    int rc = builtin_id(storage, name, id);
    if (rc != STORE_E_NOT_FOUND)
        return rc;
    store_stmt *stmt = &storage->statements[STORE_SQL_BUILTIN_INSERT];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, name, &bound);
    store_bind_int64(stmt, 2, store_now_ms(), &bound);
    rc = store_execute(stmt, bound);
    return rc == STORE_OK ? builtin_id(storage, name, id) : rc;
}

int store_rating_lock(store *storage, int64_t player_id)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_RATING_LOCK];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, player_id, &bound);
    int rc = store_step_row(stmt, bound); /* a row: pg_advisory_xact_lock's void, or the echo */
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

int store_rating_get(store *storage, int64_t player_id, const char *pool, store_rating *out)
{
    if (!pool)
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_RATING_GET];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, player_id, &bound);
    store_bind_text(stmt, 2, pool, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK) {
        out->mu = store_column_double(stmt, 0);
        out->sigma = store_column_double(stmt, 1);
        out->games = store_column_int64(stmt, 2);
        out->wins = store_column_int64(stmt, 3);
        out->score_total = store_column_int64(stmt, 4);
    }
    store_statement_reset(stmt);
    return rc;
}

static int write_rating(store *storage, const store_rating_change *change)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_RATING_RECORD];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, change->player_id, &bound);
    store_bind_text(stmt, 2, change->pool, &bound);
    store_bind_double(stmt, 3, change->mu_after, &bound);
    store_bind_double(stmt, 4, change->sigma_after, &bound);
    store_bind_int64(stmt, 5, change->is_winner, &bound);
    store_bind_int64(stmt, 6, change->score, &bound);
    store_bind_int64(stmt, 7, change->at_ms, &bound);
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK && store_changes(storage) == 0)
        rc = STORE_E_NOT_FOUND; /* no such player */
    return rc;
}

static int write_history(store *storage, const store_rating_change *change)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_RATING_HISTORY_INSERT];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, change->player_id, &bound);
    store_bind_text(stmt, 2, change->pool, &bound);
    store_bind_int64(stmt, 3, change->game_id, &bound);
    store_bind_double(stmt, 4, change->mu_before, &bound);
    store_bind_double(stmt, 5, change->sigma_before, &bound);
    store_bind_double(stmt, 6, change->mu_after, &bound);
    store_bind_double(stmt, 7, change->sigma_after, &bound);
    store_bind_int64(stmt, 8, change->at_ms, &bound);
    return store_execute(stmt, bound);
}

int store_rating_record(store *storage, const store_rating_change *change)
{
    if (!change->pool || !(change->sigma_after > 0))
        return STORE_E_INVALID;
    bool is_own;
    int rc = store_join_begin(storage, &is_own);
    if (rc == STORE_OK)
        rc = write_history(storage, change);
    if (rc == STORE_OK)
        rc = write_rating(storage, change);
    return store_join_end(storage, is_own, rc);
}

int store_ratings_list_player(store *storage, int64_t player_id)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_RATINGS_LIST_PLAYER];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, player_id, &bound);
    return store_execute(stmt, bound);
}

/* store_reef_runs.c -- the reef_runs and reef_best tables: every verified
 * Reef Builder run, and each player's best per board.
 *
 * Every run is kept (a player's history), once: a submitted run is the
 * player, the seed and the actions, and the digest of the actions
 * (secret_digest_hex) is unique per player and seed, so sending the same
 * run again stores nothing and finds the first. (The actions are one
 * canonical text -- tokens and single spaces, protocol/reef_api.c -- so
 * equal text is an equal run.) A leaderboard reads reef_best, one row per
 * player per board, so ranking a board is one index range whatever the
 * number of runs. A board is where a run competes:
 *   seed:N          everyone who played seed N;
 *   day:YYYYMMDD    runs of that day's seed (the daily seed, the number
 *                   YYYYMMDD) that ended that UTC day;
 *   week:YYYYMMDD   runs of the week's seed -- the daily seed of its Monday,
 *                   which names it -- that ended in that week (UTC);
 *   all             all time.
 * So a period's board compares runs of one seed: nobody tops "today" with
 * a seed of their choosing. One upsert per board, in the run's
 * transaction, replaces a best only by a strictly higher score, so of
 * equal scores the earlier run stays. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "storage/secret.h"
#include "storage/store_internal.h"

const store_statement_text STORE_REEF_RUN_STATEMENTS[] = {
    {STORE_SQL_REEF_RUN_INSERT,
     "INSERT INTO reef_runs (player_id, seed, score, game_id, actions, at_ms, digest)"
     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING"},
    {STORE_SQL_REEF_RUN_FIND,
     "SELECT id FROM reef_runs WHERE player_id = ?1 AND seed = ?2 AND digest = ?3"},
    /* ?5 is the run's seed in decimal, ?6 the date its time falls on and
     * ?7 the Monday of that week, both as YYYYMMDD (UTC): a day's and a
     * week's seeds are those dates. */
    {STORE_SQL_REEF_BEST_UPDATE,
     "INSERT INTO reef_best (board, player_id, score, run_id, at_ms)"
     " SELECT board, CAST(?1 AS BIGINT), CAST(?2 AS BIGINT), CAST(?3 AS BIGINT),"
     "  CAST(?4 AS BIGINT) FROM ("
     "  SELECT 'seed:' || CAST(?5 AS TEXT) AS board"
     "  UNION ALL SELECT 'day:' || CAST(?5 AS TEXT) WHERE CAST(?5 AS TEXT) = CAST(?6 AS TEXT)"
     "  UNION ALL SELECT 'week:' || CAST(?5 AS TEXT) WHERE CAST(?5 AS TEXT) = CAST(?7 AS TEXT)"
     "  UNION ALL SELECT 'all') AS boards WHERE true"
     " ON CONFLICT (board, player_id) DO UPDATE SET score = excluded.score,"
     "  run_id = excluded.run_id, at_ms = excluded.at_ms WHERE excluded.score > reef_best.score"},
    {STORE_SQL_REEF_SUBMITTED_AFTER,
     "SELECT id, seed, score, json_extract(actions, '$') FROM reef_runs"
     " WHERE id > ?1 AND actions IS NOT NULL ORDER BY id LIMIT ?2"},
    {STORE_SQL_COUNT, NULL},
};

/* The stored run of the same player, seed and actions as `run`. */
static int find_run(store *storage, const store_reef_run *run, int64_t *id)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_REEF_RUN_FIND];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, run->player_id, &bound);
    store_bind_int64(stmt, 2, store_seed_to_column(run->seed), &bound);
    char digest[SECRET_DIGEST_HEX_SIZE];
    secret_digest_hex(run->actions, digest);
    store_bind_text(stmt, 3, digest, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK)
        *id = store_column_int64(stmt, 0);
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_E_INTERNAL : rc;
}

/* Inserts the run; a repeat inserts nothing and finds the first. */
static int insert_run(store *storage, const store_reef_run *run, int64_t *id, bool *is_repeat)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_REEF_RUN_INSERT];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, run->player_id, &bound);
    store_bind_int64(stmt, 2, store_seed_to_column(run->seed), &bound);
    store_bind_int64(stmt, 3, run->score, &bound);
    if (run->game_id > 0)
        store_bind_int64(stmt, 4, run->game_id, &bound);
    store_bind_text(stmt, 5, run->actions, &bound);
    store_bind_int64(stmt, 6, run->at_ms, &bound);
    char digest[SECRET_DIGEST_HEX_SIZE];
    if (run->actions) { /* a run from a room has no actions, nor digest */
        secret_digest_hex(run->actions, digest);
        store_bind_text(stmt, 7, digest, &bound);
    }
    int rc = store_execute(stmt, bound);
    *is_repeat = rc == STORE_OK && store_changes(storage) == 0;
    if (*is_repeat)
        return find_run(storage, run, id);
    if (rc == STORE_OK)
        *id = store_last_insert_id(storage);
    return rc;
}

/* The UTC date of `at_ms` as YYYYMMDD, or, for a week, the date of its
 * Monday (weeks run Monday to Sunday). */
static void utc_date(int64_t at_ms, bool is_week, char out[16])
{
    time_t seconds = (time_t)(at_ms / 1000);
    struct tm date;
    out[0] = '\0'; /* a time gmtime cannot read matches no seed */
    if (!gmtime_r(&seconds, &date))
        return;
    if (is_week) {
        seconds -= (time_t)((date.tm_wday + 6) % 7) * 86400;
        if (!gmtime_r(&seconds, &date))
            return;
    }
    strftime(out, 16, "%Y%m%d", &date);
}

static int update_best(store *storage, const store_reef_run *run, int64_t run_id)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_REEF_BEST_UPDATE];
    char seed[24];
    snprintf(seed, sizeof(seed), "%" PRIu64, run->seed);
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, run->player_id, &bound);
    store_bind_int64(stmt, 2, run->score, &bound);
    store_bind_int64(stmt, 3, run_id, &bound);
    store_bind_int64(stmt, 4, run->at_ms, &bound);
    store_bind_text(stmt, 5, seed, &bound);
    char day[16], week[16];
    utc_date(run->at_ms, false, day);
    utc_date(run->at_ms, true, week);
    store_bind_text(stmt, 6, day, &bound);
    store_bind_text(stmt, 7, week, &bound);
    return store_execute(stmt, bound);
}

int store_reef_run_add(store *storage, const store_reef_run *run, int64_t *id, bool *is_repeat)
{
    bool is_repeat_unread = false;
    if (!is_repeat)
        is_repeat = &is_repeat_unread;
    *is_repeat = false;
    if ((run->game_id > 0) == (run->actions != NULL) || run->at_ms < 0)
        return STORE_E_INVALID;
    bool is_own;
    int rc = store_join_begin(storage, &is_own);
    if (rc == STORE_OK)
        rc = insert_run(storage, run, id, is_repeat);
    if (rc == STORE_OK && !*is_repeat)
        rc = update_best(storage, run, *id);
    return store_join_end(storage, is_own, rc);
}

int store_submitted_runs_after(store *storage, int64_t after_id, int limit,
                               store_submitted_run *items, int *count)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_REEF_SUBMITTED_AFTER];
    int bound = STORE_OK, rc = STORE_OK;
    store_bind_int64(stmt, 1, after_id, &bound);
    store_bind_int64(stmt, 2, limit, &bound);
    *count = 0;
    while (*count < limit && (rc = store_step_row(stmt, bound)) == STORE_OK) {
        store_submitted_run *item = &items[*count];
        item->id = store_column_int64(stmt, 0);
        item->seed = store_seed_from_column(store_column_int64(stmt, 1));
        item->score = store_column_int64(stmt, 2);
        item->history = store_column_strdup(stmt, 3, &rc);
        if (rc != STORE_OK)
            break;
        (*count)++;
    }
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND || *count == limit ? STORE_OK : rc;
}

/* store_reef_runs.c -- the reef_runs and reef_best tables: every verified
 * Reef Builder run, and each player's best per board.
 *
 * Every run is kept (a player's history), once: a submitted run is the
 * player, the seed and the actions, and the digest of the actions
 * (run_digest, store.c) is unique per player and seed, so sending the same
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

#include "storage/store_internal.h"

const store_statement_text STORE_REEF_RUN_STATEMENTS[] = {
    {STORE_SQL_REEF_RUN_INSERT,
     "INSERT INTO reef_runs (player_id, seed, score, game_id, actions, at_ms, digest)"
     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, run_digest(?5)) ON CONFLICT DO NOTHING"},
    {STORE_SQL_REEF_RUN_FIND,
     "SELECT id FROM reef_runs WHERE player_id = ?1 AND seed = ?2 AND digest = run_digest(?3)"},
    /* ?4 is the run's time in ms, ?5 its seed in decimal; a day's and a
     * week's seeds are their dates as YYYYMMDD. 'weekday 0' moves to the
     * coming Sunday (or stays on one), six days back is that week's Monday. */
    {STORE_SQL_REEF_BEST_UPDATE,
     "INSERT INTO reef_best (board, player_id, score, run_id, at_ms)"
     " SELECT board, ?1, ?2, ?3, ?4 FROM ("
     "  SELECT 'seed:' || ?5 AS board"
     "  UNION ALL SELECT 'day:' || ?5 WHERE ?5 = strftime('%Y%m%d', ?4 / 1000, 'unixepoch')"
     "  UNION ALL SELECT 'week:' || ?5 WHERE ?5 = strftime('%Y%m%d', ?4 / 1000, 'unixepoch',"
     "                                                    'weekday 0', '-6 days')"
     "  UNION ALL SELECT 'all') WHERE true"
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
    store_bind_text(stmt, 3, run->actions, &bound);
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
    int rc = store_execute(stmt, bound);
    *is_repeat = rc == STORE_OK && store_changes(storage) == 0;
    if (*is_repeat)
        return find_run(storage, run, id);
    if (rc == STORE_OK)
        *id = store_last_insert_id(storage);
    return rc;
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

/* store_games.c -- the games table: a game's life from creation to result,
 * the list of games to recover after a crash, and loading a whole game.
 *
 * Status moves one way: waiting -> playing -> finished or aborted (a waiting
 * game may also end directly). Each transition is one UPDATE guarded by the
 * status it leaves, so a second start or a second finish changes no row; only
 * then is the status read, to tell "no such game" from "not allowed now".
 * The common path therefore costs one statement.
 *
 * Finishing a game writes three tables (games, seats, players) in one
 * IMMEDIATE transaction: the result, the seats' scores and the leaderboard
 * counters are all there or none is.
 *
 * The seed is a uint64_t and SQLite integers are int64_t: the seed's bits
 * are copied, not converted, because converting a value above INT64_MAX to
 * a signed type is implementation-defined in C. */
#include <stdlib.h>
#include <string.h>

#include "storage/store_internal.h"

static const char *const STATUS_NAMES[] = {"waiting", "playing", "finished", "aborted"};

#define STATUS_COUNT ((int)(sizeof(STATUS_NAMES) / sizeof(STATUS_NAMES[0])))

const store_statement_text STORE_GAME_STATEMENTS[] = {
    {STORE_SQL_GAME_INSERT,
     "INSERT INTO games (room, game, mode, options, seed, status, created_at, tournament_id,"
     " tournament_game) VALUES (?1, ?2, ?3, ?4, ?5, 'waiting', ?6, ?7, ?8)"},
    {STORE_SQL_GAME_STATUS, "SELECT status FROM games WHERE id = ?1"},
    {STORE_SQL_GAME_START,
     "UPDATE games SET status = 'playing', started_at = ?2 WHERE id = ?1 AND status = 'waiting'"},
    {STORE_SQL_GAME_FINISH, "UPDATE games SET status = ?2, result = ?3, finished_at = ?4"
                            " WHERE id = ?1 AND status IN ('waiting', 'playing')"},
    {STORE_SQL_GAME_BY_ID,
     "SELECT room, game, mode, options, seed, status, result, created_at, started_at, finished_at,"
     " tournament_id, tournament_game FROM games WHERE id = ?1"},
    {STORE_SQL_GAMES_UNFINISHED,
     "SELECT id FROM games WHERE status IN ('waiting', 'playing') ORDER BY id"},
    {STORE_SQL_GAMES_AFTER, "SELECT id FROM games WHERE id > ?1 ORDER BY id LIMIT ?2"},
    {STORE_SQL_COUNT, NULL},
};

const char *store_game_status_name(store_game_status status)
{
    if ((int)status < 0 || (int)status >= STATUS_COUNT)
        return "unknown";
    return STATUS_NAMES[status];
}

int store_game_status_parse(const char *name, store_game_status *status)
{
    for (int i = 0; name && i < STATUS_COUNT; i++) {
        if (strcmp(name, STATUS_NAMES[i]) == 0) {
            *status = (store_game_status)i;
            return STORE_OK;
        }
    }
    return STORE_E_CORRUPT;
}

int64_t store_seed_to_column(uint64_t seed)
{
    int64_t column;
    memcpy(&column, &seed, sizeof(column));
    return column;
}

uint64_t store_seed_from_column(int64_t column)
{
    uint64_t seed;
    memcpy(&seed, &column, sizeof(seed));
    return seed;
}

int store_game_refusal(store *storage, int64_t game_id)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_GAME_STATUS];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, game_id, &bound);
    int rc = store_step_row(stmt, bound);
    store_statement_reset(stmt);
    return rc == STORE_OK ? STORE_E_CONSTRAINT : rc;
}

int store_game_create(store *storage, const store_game_info *info, int64_t *id)
{
    if (!info || !info->room || !info->game || !info->mode || !info->options)
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_GAME_INSERT];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, info->room, &bound);
    store_bind_text(stmt, 2, info->game, &bound);
    store_bind_text(stmt, 3, info->mode, &bound);
    store_bind_text(stmt, 4, info->options, &bound);
    store_bind_int64(stmt, 5, store_seed_to_column(info->seed), &bound);
    store_bind_int64(stmt, 6, info->created_at_ms, &bound);
    if (info->tournament_id > 0) { /* unbound stays NULL: no tournament */
        store_bind_int64(stmt, 7, info->tournament_id, &bound);
        store_bind_int64(stmt, 8, info->tournament_game, &bound);
    }
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK)
        *id = store_last_insert_id(storage);
    return rc;
}

int store_game_start(store *storage, int64_t game_id, int64_t at_ms)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_GAME_START];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, game_id, &bound);
    store_bind_int64(stmt, 2, at_ms, &bound);
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK && store_changes(storage) == 0)
        rc = store_game_refusal(storage, game_id);
    return rc;
}

static int mark_game_over(store *storage, int64_t game_id, store_game_status status,
                          const char *result_json, int64_t at_ms)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_GAME_FINISH];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, game_id, &bound);
    store_bind_text(stmt, 2, STATUS_NAMES[status], &bound);
    store_bind_text(stmt, 3, result_json, &bound);
    store_bind_int64(stmt, 4, at_ms, &bound);
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK && store_changes(storage) == 0)
        rc = store_game_refusal(storage, game_id);
    return rc;
}

int store_game_finish(store *storage, int64_t game_id, store_game_status status,
                      const char *result_json, int seat_count, const store_seat_result *results,
                      int64_t at_ms)
{
    if (status != STORE_GAME_FINISHED && status != STORE_GAME_ABORTED)
        return STORE_E_INVALID;
    if (seat_count < 0 || seat_count > STORE_MAX_SEATS || (seat_count > 0 && !results))
        return STORE_E_INVALID;
    bool is_own;
    int rc = store_join_begin(storage, &is_own);
    if (rc != STORE_OK)
        return rc;
    rc = mark_game_over(storage, game_id, status, result_json, at_ms);
    for (int i = 0; rc == STORE_OK && i < seat_count; i++)
        rc = store_seat_record_result(storage, game_id, &results[i]);
    /* An aborted game is no contest: it counts for no one's leaderboard. */
    if (rc == STORE_OK && status == STORE_GAME_FINISHED)
        rc = store_players_count_game(storage, game_id);
    return store_join_end(storage, is_own, rc);
}

int store_unfinished_games(store *storage, int64_t **ids, int *count)
{
    return store_collect_ids(&storage->statements[STORE_SQL_GAMES_UNFINISHED], ids, count);
}

int store_game_ids_after(store *storage, int64_t after_id, int limit, int64_t *ids, int *count)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_GAMES_AFTER];
    int bound = STORE_OK, rc = STORE_E_NOT_FOUND;
    store_bind_int64(stmt, 1, after_id, &bound);
    store_bind_int64(stmt, 2, limit, &bound);
    *count = 0;
    while (*count < limit && (rc = store_step_row(stmt, bound)) == STORE_OK)
        ids[(*count)++] = store_column_int64(stmt, 0);
    store_statement_reset(stmt);
    return *count == limit || rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

static int64_t column_time_or_none(store_stmt *stmt, int column)
{
    if (store_column_is_null(stmt, column))
        return -1;
    return store_column_int64(stmt, column);
}

/* Reads the games row into the record; strings are copied. */
static int read_game_row(store_stmt *stmt, store_game_record *record)
{
    int rc = STORE_OK;
    record->info.room = store_column_strdup(stmt, 0, &rc);
    record->info.game = store_column_strdup(stmt, 1, &rc);
    record->info.mode = store_column_strdup(stmt, 2, &rc);
    record->info.options = store_column_strdup(stmt, 3, &rc);
    record->info.seed = store_seed_from_column(store_column_int64(stmt, 4));
    record->result = store_column_strdup(stmt, 6, &rc);
    record->info.created_at_ms = store_column_int64(stmt, 7);
    record->started_at_ms = column_time_or_none(stmt, 8);
    record->finished_at_ms = column_time_or_none(stmt, 9);
    record->info.tournament_id = store_column_int64(stmt, 10);
    record->info.tournament_game = store_column_int(stmt, 11);
    if (rc != STORE_OK)
        return rc;
    if (!record->info.room || !record->info.game || !record->info.mode || !record->info.options)
        return STORE_E_CORRUPT;
    return store_game_status_parse(store_column_text(stmt, 5), &record->status);
}

static int load_game_row(store *storage, store_game_record *record)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_GAME_BY_ID];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, record->id, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK)
        rc = read_game_row(stmt, record);
    store_statement_reset(stmt);
    return rc;
}

int store_game_load(store *storage, int64_t id, store_game_record **out)
{
    *out = NULL;
    store_game_record *record = calloc(1, sizeof(*record));
    if (!record)
        return STORE_E_NOMEM;
    record->id = id;
    int rc = load_game_row(storage, record);
    if (rc == STORE_OK)
        rc = store_seats_load(storage, record);
    if (rc == STORE_OK)
        rc = store_moves_load(storage, record);
    if (rc != STORE_OK) {
        store_game_record_free(record);
        return rc;
    }
    *out = record;
    return STORE_OK;
}

void store_game_record_free(store_game_record *record)
{
    if (!record)
        return;
    /* The record owns these strings; they are const only to share
     * store_game_info and store_move with the write path. */
    free((char *)record->info.room);
    free((char *)record->info.game);
    free((char *)record->info.mode);
    free((char *)record->info.options);
    free(record->result);
    for (int i = 0; i < record->move_count; i++)
        free((char *)record->moves[i].action);
    free(record->moves);
    free(record);
}

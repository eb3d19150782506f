/* store_moves.c -- the moves table: each game's append-only log of turns.
 *
 * Appending is the hot path of a running server (one row per turn, and the
 * server waits for it before broadcasting), so it is a single INSERT of a
 * prepared statement. It joins the caller's transaction: the lobby stores
 * every record of an event between BEGIN IMMEDIATE and COMMIT (store_begin,
 * store_commit), so a move is durable when that commit returns, together
 * with the result it may end the game with. The schema's triggers refuse a
 * move for a game that is not being played and any seq but the game's next
 * one, so the log that recovery replays has no gaps or duplicates whatever
 * the caller does.
 *
 * Loading reads (game_id, seq) in key order from the WITHOUT ROWID table:
 * the rows come sorted with no extra work. */
#include <stdlib.h>

#include "storage/store_internal.h"

const store_statement_text STORE_MOVE_STATEMENTS[] = {
    {STORE_SQL_MOVE_INSERT,
     "INSERT INTO moves (game_id, seq, seat, ply, action, elapsed_ms, clock_ms, at_ms)"
     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"},
    {STORE_SQL_MOVES_OF_GAME,
     "SELECT seq, seat, ply, action, elapsed_ms, clock_ms, at_ms FROM moves"
     " WHERE game_id = ?1 ORDER BY seq"},
    {STORE_SQL_COUNT, NULL},
};

int store_move_append(store *storage, const store_move *move)
{
    if (!move || !move->action)
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_MOVE_INSERT];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, move->game_id, &bound);
    store_bind_int64(stmt, 2, move->seq, &bound);
    store_bind_int64(stmt, 3, move->seat, &bound);
    store_bind_int64(stmt, 4, move->ply, &bound);
    store_bind_text(stmt, 5, move->action, &bound);
    store_bind_int64(stmt, 6, move->elapsed_ms, &bound);
    store_bind_int64(stmt, 7, move->clock_ms, &bound);
    store_bind_int64(stmt, 8, move->at_ms, &bound);
    return store_execute(stmt, bound);
}

static int grow_moves(store_game_record *record, int *capacity)
{
    if (record->move_count < *capacity)
        return STORE_OK;
    int grown = *capacity ? *capacity * 2 : 64;
    store_move *larger = realloc(record->moves, (size_t)grown * sizeof(*larger));
    if (!larger)
        return STORE_E_NOMEM;
    record->moves = larger;
    *capacity = grown;
    return STORE_OK;
}

/* Reads one row into *m; the action string is copied. */
static int read_move(store_stmt *stmt, int64_t game_id, store_move *move)
{
    int rc = STORE_OK;
    move->game_id = game_id;
    move->seq = store_column_int(stmt, 0);
    move->seat = store_column_int(stmt, 1);
    move->ply = store_column_int(stmt, 2);
    move->action = store_column_strdup(stmt, 3, &rc);
    move->elapsed_ms = store_column_int64(stmt, 4);
    move->clock_ms = store_column_int64(stmt, 5);
    move->at_ms = store_column_int64(stmt, 6);
    if (rc == STORE_OK && !move->action)
        rc = STORE_E_CORRUPT;
    return rc;
}

int store_moves_load(store *storage, store_game_record *record)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_MOVES_OF_GAME];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, record->id, &bound);
    int capacity = 0;
    int rc;
    while ((rc = store_step_row(stmt, bound)) == STORE_OK) {
        rc = grow_moves(record, &capacity);
        if (rc == STORE_OK)
            rc = read_move(stmt, record->id, &record->moves[record->move_count]);
        if (rc != STORE_OK)
            break;
        record->move_count++;
        /* The triggers keep the log gapless; a hole means the file was edited. */
        if (record->moves[record->move_count - 1].seq != record->move_count - 1) {
            rc = STORE_E_CORRUPT;
            break;
        }
    }
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

/* store_leases.c -- which instance serves each room, and the takeover of
 * the rooms whose instance stopped renewing them.
 *
 * When several instances share one database, a room with a game under
 * way has a lease row: the instance serving it (a one-character id, the
 * first of the room's code when it made the room) and when the lease runs
 * out. The owner writes the row with the room's game, renews all its rows
 * at once every few seconds, and drops a room's row with the end of its
 * game. An instance that finds rows run out takes them, in one UPDATE
 * whose row locks let only one instance have each, and loads the
 * unfinished games of the rooms it took to rebuild them. A restart takes
 * its own rows back at once, with the unfinished games that have none (a
 * server run without an instance id writes no leases).
 *
 * A running tournament has a lease row too, named "t:ID"
 * (store_tournament_lease): whoever holds it runs the tournament. It is
 * written with the tournament, renewed and taken with the rooms (so a
 * dead instance's rooms and tournaments go together to whichever instance
 * takes them), and dropped when the tournament ends. Quick play's queue
 * has one, STORE_QUEUE_LEASE, made by the first instance that looks and
 * never dropped: its holder matches the players of every instance.
 *
 * Instances also tell each other what changes in their lobbies, in
 * notices sent with a transaction (store_notify). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/store_internal.h"

const store_statement_text STORE_LEASE_STATEMENTS[] = {
    {STORE_SQL_LEASE_SET, "INSERT INTO room_leases (room, instance, expires_at) VALUES (?1, ?2, ?3)"
                          " ON CONFLICT (room) DO UPDATE SET instance = excluded.instance,"
                          " expires_at = excluded.expires_at"},
    {STORE_SQL_LEASES_RENEW,
     "UPDATE room_leases SET expires_at = ?2 WHERE instance = ?1 RETURNING room"},
    /* The sessions named ?1 (a LIKE pattern) but ?2, ended: PostgreSQL's
     * text is in store.c; SQLite has no other sessions. */
    {STORE_SQL_END_EARLIER_LIVES, "SELECT ?1, ?2"},
    /* Rows run out before ?2, and those of instance ?4 (a restart's own;
     * NULL: none), become ?1's until ?3. */
    {STORE_SQL_LEASES_TAKE, "UPDATE room_leases SET instance = ?1, expires_at = ?3"
                            " WHERE expires_at < ?2 OR instance = ?4 RETURNING room"},
    /* Unfinished games whose room has no lease (stored before there were
     * leases) become ?1's, run out, so the pass that follows takes them. */
    {STORE_SQL_LEASES_ADOPT,
     "INSERT INTO room_leases (room, instance, expires_at)"
     " SELECT DISTINCT room, CAST(?1 AS TEXT), CAST(0 AS BIGINT) FROM games"
     " WHERE status IN ('waiting', 'playing') AND NOT EXISTS"
     " (SELECT 1 FROM room_leases AS l WHERE l.room = games.room) ON CONFLICT (room) DO NOTHING"},
    /* Running tournaments without a lease, likewise (their leases are
     * rows too, named by STORE_TOURNAMENT_LEASE_PREFIX and the id). */
    {STORE_SQL_LEASES_ADOPT_TOURNAMENTS,
     "INSERT INTO room_leases (room, instance, expires_at)"
     " SELECT 't:' || id, CAST(?1 AS TEXT), CAST(0 AS BIGINT) FROM tournaments"
     " WHERE status = 'running' AND NOT EXISTS"
     " (SELECT 1 FROM room_leases AS l WHERE l.room = 't:' || tournaments.id)"
     " ON CONFLICT (room) DO NOTHING"},
    /* Quick play's lease (STORE_QUEUE_LEASE), run out, when there is none. */
    {STORE_SQL_LEASES_ADOPT_QUEUE, "INSERT INTO room_leases (room, instance, expires_at)"
                                   " VALUES ('" STORE_QUEUE_LEASE "', CAST(?1 AS TEXT), 0)"
                                   " ON CONFLICT (room) DO NOTHING"},
    {STORE_SQL_TOURNAMENTS_LEASED,
     "SELECT id FROM tournaments WHERE status = 'running' AND EXISTS"
     " (SELECT 1 FROM room_leases AS l WHERE l.room = 't:' || tournaments.id AND l.instance = ?1)"
     " ORDER BY id"},
    {STORE_SQL_LEASE_DROP, "DELETE FROM room_leases WHERE room = ?1"},
    {STORE_SQL_LEASE_DROP_OF_GAME,
     "DELETE FROM room_leases WHERE room = (SELECT room FROM games WHERE id = ?1)"},
    {STORE_SQL_LEASE_OF_ROOM, "SELECT instance, expires_at FROM room_leases WHERE room = ?1"},
    {STORE_SQL_GAMES_UNFINISHED_OF_ROOM,
     "SELECT id FROM games WHERE room = ?1 AND status IN ('waiting', 'playing') ORDER BY id"},
    /* PostgreSQL's text is pg_notify (store.c); SQLite has nobody to tell. */
    {STORE_SQL_NOTIFY, "SELECT ?1"},
    {STORE_SQL_COUNT, NULL},
};

static bool is_valid_instance(char instance)
{
    return instance != '\0';
}

void store_tournament_lease(int64_t tournament_id, char room[STORE_CODE_SIZE])
{
    snprintf(room, STORE_CODE_SIZE, "%s%lld", STORE_TOURNAMENT_LEASE_PREFIX,
             (long long)tournament_id);
}

int64_t store_lease_tournament(const char *room)
{
    size_t prefix = strlen(STORE_TOURNAMENT_LEASE_PREFIX);
    return strncmp(room, STORE_TOURNAMENT_LEASE_PREFIX, prefix) == 0 ? atoll(room + prefix) : 0;
}

int store_lease_drop(store *storage, const char *room)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_LEASE_DROP];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, room, &bound);
    return store_execute(stmt, bound);
}

int store_tournaments_leased(store *storage, char instance, int64_t **ids, int *count)
{
    char id[2] = {instance, '\0'};
    store_stmt *stmt = &storage->statements[STORE_SQL_TOURNAMENTS_LEASED];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, id, &bound);
    if (bound != STORE_OK) {
        *ids = NULL;
        *count = 0;
        return bound;
    }
    return store_collect_ids(stmt, ids, count);
}

int store_lease_set(store *storage, const char *room, char instance, int64_t until_ms)
{
    if (!room || !room[0] || !is_valid_instance(instance))
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_LEASE_SET];
    char id[2] = {instance, '\0'};
    int bound = STORE_OK;
    store_bind_text(stmt, 1, room, &bound);
    store_bind_text(stmt, 2, id, &bound);
    store_bind_int64(stmt, 3, until_ms, &bound);
    return store_execute(stmt, bound);
}

void store_rooms_free(store_rooms *rooms)
{
    free(rooms->codes);
    *rooms = (store_rooms){0};
}

bool store_rooms_hold(const store_rooms *rooms, const char *code)
{
    for (int i = 0; i < rooms->count; i++)
        if (strcmp(rooms->codes[i], code) == 0)
            return true;
    return false;
}

/* Steps `stmt`, whose first column is a room, appending each to *rooms. */
static int collect_rooms(store_stmt *stmt, int bound, store_rooms *rooms)
{
    int rc;
    while ((rc = store_step_row(stmt, bound)) == STORE_OK) {
        if (rooms->count == rooms->capacity) {
            int capacity = rooms->capacity ? rooms->capacity * 2 : 16;
            void *grown = realloc(rooms->codes, (size_t)capacity * sizeof(*rooms->codes));
            if (!grown) {
                rc = STORE_E_NOMEM;
                break;
            }
            rooms->codes = grown;
            rooms->capacity = capacity;
        }
        store_column_copy(stmt, 0, rooms->codes[rooms->count++], sizeof(*rooms->codes));
    }
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

int store_leases_renew(store *storage, char instance, int64_t until_ms, store_rooms *held)
{
    *held = (store_rooms){0};
    if (!is_valid_instance(instance))
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_LEASES_RENEW];
    char id[2] = {instance, '\0'};
    int bound = STORE_OK;
    store_bind_text(stmt, 1, id, &bound);
    store_bind_int64(stmt, 2, until_ms, &bound);
    int rc = collect_rooms(stmt, bound, held);
    if (rc != STORE_OK)
        store_rooms_free(held);
    return rc;
}

int store_lease_drop_of_game(store *storage, int64_t game_id)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_LEASE_DROP_OF_GAME];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, game_id, &bound);
    return store_execute(stmt, bound);
}

int store_lease_of_room(store *storage, const char *room, store_lease *out)
{
    if (!room)
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_LEASE_OF_ROOM];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, room, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK) {
        const char *instance = store_column_text(stmt, 0);
        out->instance = instance ? instance[0] : '\0';
        out->expires_at_ms = store_column_int64(stmt, 1);
    }
    store_statement_reset(stmt);
    return rc;
}

static int take_rooms(store *storage, const char *id, int64_t now_ms, int64_t until_ms,
                      bool take_own, store_rooms *taken)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_LEASES_TAKE];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, id, &bound);
    store_bind_int64(stmt, 2, now_ms, &bound);
    store_bind_int64(stmt, 3, until_ms, &bound);
    store_bind_text(stmt, 4, take_own ? id : NULL, &bound);
    return collect_rooms(stmt, bound, taken);
}

/* Appends the unfinished games of `room` to *ids; a room with none (its
 * lease outlived its game) loses its lease. */
static int games_of_room(store *storage, const char *room, int64_t **ids, int *count)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_GAMES_UNFINISHED_OF_ROOM];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, room, &bound);
    int64_t *found = NULL;
    int found_count = 0;
    int rc = bound == STORE_OK ? store_collect_ids(stmt, &found, &found_count) : bound;
    if (rc == STORE_OK && found_count == 0)
        rc = store_lease_drop(storage, room);
    if (rc == STORE_OK && found_count > 0) {
        int64_t *grown = realloc(*ids, (size_t)(*count + found_count) * sizeof(**ids));
        if (grown) {
            memcpy(grown + *count, found, (size_t)found_count * sizeof(*found));
            *ids = grown;
            *count += found_count;
        } else {
            rc = STORE_E_NOMEM;
        }
    }
    free(found);
    return rc;
}

/* A restart's first step: the database sessions of instance `instance`'s earlier
 * lives (named by store_name_sessions) are ended, and waited for. A
 * process killed with a commit on its way leaves a session that may still
 * apply it, after this life has read the game: the game here would then
 * be a move behind the database for good. */
static int end_earlier_lives(store *storage, char instance)
{
    char pattern[STORE_SESSION_NAME_SIZE];
    store_session_pattern(instance, pattern);
    store_stmt *stmt = &storage->statements[STORE_SQL_END_EARLIER_LIVES];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, pattern, &bound);
    store_bind_text(stmt, 2, store_session_name(), &bound);
    int rc = store_step_row(stmt, bound); /* a row: how many were ended, or SQLite's echo */
    store_statement_reset(stmt);
    return rc;
}

/* Makes the running games or tournaments that have no lease (statement
 * `adopt`) leases of `id`, run out. */
static int adopt(store *storage, int adopt, const char *id)
{
    store_stmt *stmt = &storage->statements[adopt];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, id, &bound);
    return store_execute(stmt, bound);
}

int store_leases_take(store *storage, char instance, int64_t now_ms, int64_t until_ms,
                      bool take_own, int64_t **ids, int *count, store_leases_taken *taken_too)
{
    *ids = NULL;
    *count = 0;
    *taken_too = (store_leases_taken){0};
    if (!is_valid_instance(instance))
        return STORE_E_INVALID;
    char id[2] = {instance, '\0'};
    int rc = take_own ? end_earlier_lives(storage, instance) : STORE_OK;
    if (rc == STORE_OK)
        rc = adopt(storage, STORE_SQL_LEASES_ADOPT_QUEUE, id);
    if (take_own && rc == STORE_OK)
        rc = adopt(storage, STORE_SQL_LEASES_ADOPT, id);
    if (take_own && rc == STORE_OK)
        rc = adopt(storage, STORE_SQL_LEASES_ADOPT_TOURNAMENTS, id);
    store_rooms taken = {0};
    if (rc == STORE_OK)
        rc = take_rooms(storage, id, now_ms, until_ms, take_own, &taken);
    for (int i = 0; rc == STORE_OK && i < taken.count; i++) {
        if (strcmp(taken.codes[i], STORE_QUEUE_LEASE) == 0)
            taken_too->has_queue = true;
        else if (store_lease_tournament(taken.codes[i]))
            taken_too->tournaments++;
        else
            rc = games_of_room(storage, taken.codes[i], ids, count);
    }
    store_rooms_free(&taken);
    if (rc == STORE_OK && *count > 1)
        qsort(*ids, (size_t)*count, sizeof(**ids), store_id_order);
    if (rc != STORE_OK) {
        free(*ids);
        *ids = NULL;
        *count = 0;
    }
    return rc;
}

int store_notify(store *storage, const char *notice)
{
    if (!notice || strlen(notice) > STORE_NOTICE_SIZE_MAX)
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_NOTIFY];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, notice, &bound);
    int rc = store_step_row(stmt, bound); /* a row: pg_notify's void, or SQLite's echo */
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

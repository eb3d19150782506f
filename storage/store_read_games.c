/* store_read_games.c -- the games list and a game's rating changes.
 *
 * A games list is newest first, a keyset walk down the id. Which index
 * drives it depends on the filter: a player's games (a built-in bot's
 * entry's too: seats.entry_id) come from seats_by_entry, a tournament's
 * from games_by_tournament, a game and mode from games_by_kind, a status
 * from games_by_status, and no filter walks the table's own key. Each driver is a statement of its
 * own (SQLite picks an index when the statement is prepared, not per call), and all of them share
 * one select list and one test of the whole filter.
 *
 * The driver yields at most STORE_READ_SCAN candidate rows below the
 * cursor; the filter's other conditions are tested on those (FILTER_MATCH),
 * and the C side keeps the matches until the page is full. When the
 * candidates run out first but were cut at the cap, the page ends at the
 * last candidate examined, so the next page resumes below it: a page never
 * reads more than the cap, whatever the filter.
 *
 * Each driver is one plain SELECT over its index range, in the index's
 * order, so SQLite hands rows over as it walks the range and a page costs
 * the rows it steps (the page's, and those the filter refused), not the
 * cap: a subquery with its own LIMIT would be materialized whole, and
 * the join above it sorted, before the first row came out. A player's
 * games are read from the seats index, one row per seat: a player holds
 * one seat per game, and a second one (which only a bug could store)
 * would come right after the first and is skipped. */
#include <string.h>

#include "storage/store_internal.h"

#define SUMMARY_COLUMNS                                                                            \
    "g.id, g.game, g.mode, g.status, g.tournament_id, g.created_at, g.started_at, g.finished_at"
/* ?3 player id, ?4 game, ?5 mode, ?6 status, ?7 tournament id; NULL: any (typed, so
 * PostgreSQL knows a parameter it meets first in IS NULL). */
#define FILTER_MATCH                                                                               \
    "(CAST(?3 AS BIGINT) IS NULL OR EXISTS (SELECT 1 FROM seats AS s WHERE s.game_id = g.id"       \
    "  AND s.entry_id = ?3))"                                                                      \
    " AND (CAST(?4 AS TEXT) IS NULL OR g.game = ?4) AND (CAST(?5 AS TEXT) IS NULL OR g.mode = ?5)" \
    " AND (CAST(?6 AS TEXT) IS NULL OR g.status = ?6)"                                             \
    " AND (CAST(?7 AS BIGINT) IS NULL OR g.tournament_id = ?7)"
/* ?1 the last id of the previous page, ?2 the most candidates to read;
 * `source` has the games as g, `range` is the driver's index range. */
#define CANDIDATES(source, range, order)                                                           \
    "SELECT " SUMMARY_COLUMNS ", " FILTER_MATCH " FROM " source " WHERE " range " ORDER BY " order \
    " LIMIT ?2"

const store_statement_text STORE_READ_GAME_STATEMENTS[] = {
    {STORE_SQL_READ_GAMES_ALL, CANDIDATES("games AS g", "g.id < ?1", "g.id DESC")},
    {STORE_SQL_READ_GAMES_OF_PLAYER,
     CANDIDATES("seats AS held JOIN games AS g ON g.id = held.game_id",
                "held.entry_id = ?3 AND held.game_id < ?1", "held.game_id DESC")},
    {STORE_SQL_READ_GAMES_OF_KIND,
     CANDIDATES("games AS g", "g.game = ?4 AND g.mode = ?5 AND g.id < ?1", "g.id DESC")},
    {STORE_SQL_READ_GAMES_OF_STATUS,
     CANDIDATES("games AS g", "g.status = ?6 AND g.id < ?1", "g.id DESC")},
    {STORE_SQL_READ_GAMES_OF_TOURNAMENT,
     CANDIDATES("games AS g", "g.tournament_id = ?7 AND g.id < ?1", "g.id DESC")},
    {STORE_SQL_READ_GAME, "SELECT " SUMMARY_COLUMNS " FROM games AS g WHERE g.id = ?1"},
    {STORE_SQL_READ_GAME_RATING_CHANGES,
     "SELECT h.player_id, p.name, h.pool, h.game_id, h.mu_before, h.sigma_before, h.mu_after,"
     " h.sigma_after, h.at_ms FROM rating_history AS h JOIN players AS p ON p.id = h.player_id"
     " WHERE h.game_id = ?1 ORDER BY h.player_id, h.pool"},
    /* The secret that signs every list's cursors (the games list's first). */
    {STORE_SQL_READ_CURSOR_KEY, "SELECT value FROM secrets WHERE name = 'cursor'"},
    {STORE_SQL_COUNT, NULL},
};

/* The statement whose index answers the most selective part of `filter`. */
static store_statement_id driver_of(const store_game_filter *filter)
{
    if (filter->player_id > 0)
        return STORE_SQL_READ_GAMES_OF_PLAYER;
    if (filter->tournament_id > 0)
        return STORE_SQL_READ_GAMES_OF_TOURNAMENT;
    if (filter->game && filter->mode)
        return STORE_SQL_READ_GAMES_OF_KIND;
    if (filter->status)
        return STORE_SQL_READ_GAMES_OF_STATUS;
    return STORE_SQL_READ_GAMES_ALL;
}

/* Binds an id filter, or NULL (any) for 0. */
static void bind_optional_id(store_stmt *stmt, int index, int64_t id, int *bound)
{
    if (id > 0)
        store_bind_int64(stmt, index, id, bound);
    else
        store_bind_text(stmt, index, NULL, bound);
}

static void bind_filter(store_stmt *stmt, const store_game_filter *filter, int64_t below,
                        int *bound)
{
    store_bind_int64(stmt, 1, below, bound);
    store_bind_int64(stmt, 2, STORE_READ_SCAN, bound);
    bind_optional_id(stmt, 3, filter->player_id, bound);
    store_bind_text(stmt, 4, filter->game, bound);
    store_bind_text(stmt, 5, filter->mode, bound);
    store_bind_text(stmt, 6, filter->status, bound);
    bind_optional_id(stmt, 7, filter->tournament_id, bound);
}

static int64_t column_time_or_none(store_stmt *stmt, int column)
{
    if (store_column_is_null(stmt, column))
        return -1;
    return store_column_int64(stmt, column);
}

static void read_summary(store_stmt *stmt, store_game_summary *item)
{
    memset(item, 0, sizeof(*item));
    item->id = store_column_int64(stmt, 0);
    store_column_copy(stmt, 1, item->game, sizeof(item->game));
    store_column_copy(stmt, 2, item->mode, sizeof(item->mode));
    store_column_copy(stmt, 3, item->status, sizeof(item->status));
    item->tournament_id = store_column_int64(stmt, 4);
    item->created_at_ms = store_column_int64(stmt, 5);
    item->started_at_ms = column_time_or_none(stmt, 6);
    item->finished_at_ms = column_time_or_none(stmt, 7);
}

/* Steps the candidates into items[] until the page is full; *last is the
 * id of the last candidate examined, *examined how many there were. */
static int collect_matches(store_stmt *stmt, int bound, int limit, store_game_summary *items,
                           store_read_page *page, int64_t *last, int *examined)
{
    int rc = STORE_OK;
    while (page->count < limit && (rc = store_step_row(stmt, bound)) == STORE_OK) {
        int64_t id = store_column_int64(stmt, 0);
        bool is_repeat = *examined > 0 && id == *last;
        (*examined)++;
        *last = id;
        if (!is_repeat && store_column_int(stmt, 8))
            read_summary(stmt, &items[page->count++]);
    }
    return page->count == limit || rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

int store_read_games(store *reader, const store_game_filter *filter, store_read_after after,
                     int limit, store_game_summary *items, store_read_page *page)
{
    memset(page, 0, sizeof(*page));
    if (limit < 1 || limit > STORE_READ_MAX_PAGE)
        return STORE_E_INVALID;
    store_stmt *stmt = &reader->statements[driver_of(filter)];
    int bound = STORE_OK;
    bind_filter(stmt, filter, after.is_first ? INT64_MAX : after.id, &bound);
    int64_t last = 0;
    int examined = 0;
    int rc = collect_matches(stmt, bound, limit, items, page, &last, &examined);
    store_statement_reset(stmt);
    /* Full: continue after the last row shown. Cut at the cap: after the
     * last row examined. Neither: the candidates ran out. */
    page->has_next = rc == STORE_OK && (page->count == limit || examined == STORE_READ_SCAN);
    page->next.id = page->count == limit ? items[limit - 1].id : last;
    page->next.key = page->next.id;
    for (int i = 0; rc == STORE_OK && i < page->count; i++)
        rc = store_seats_read(reader, items[i].id, items[i].seats, &items[i].seat_count);
    return rc;
}

int store_read_game(store *reader, int64_t game_id, store_game_summary *out)
{
    store_stmt *stmt = &reader->statements[STORE_SQL_READ_GAME];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, game_id, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK)
        read_summary(stmt, out);
    store_statement_reset(stmt);
    if (rc == STORE_OK)
        rc = store_seats_read(reader, game_id, out->seats, &out->seat_count);
    return rc;
}

void store_read_rating_change(store_stmt *stmt, store_rating_delta *change)
{
    change->player_id = store_column_int64(stmt, 0);
    store_column_copy(stmt, 1, change->player_name, sizeof(change->player_name));
    store_column_copy(stmt, 2, change->pool, sizeof(change->pool));
    change->game_id = store_column_int64(stmt, 3);
    change->mu_before = store_column_double(stmt, 4);
    change->sigma_before = store_column_double(stmt, 5);
    change->mu_after = store_column_double(stmt, 6);
    change->sigma_after = store_column_double(stmt, 7);
    change->at_ms = store_column_int64(stmt, 8);
}

int store_read_game_rating_changes(store *reader, int64_t game_id,
                                   store_rating_delta changes[STORE_MAX_SEATS], int *count)
{
    store_stmt *stmt = &reader->statements[STORE_SQL_READ_GAME_RATING_CHANGES];
    int bound = STORE_OK, rc = STORE_OK;
    store_bind_int64(stmt, 1, game_id, &bound);
    *count = 0;
    while (*count < STORE_MAX_SEATS && (rc = store_step_row(stmt, bound)) == STORE_OK)
        store_read_rating_change(stmt, &changes[(*count)++]);
    store_statement_reset(stmt);
    return *count == STORE_MAX_SEATS || rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

int store_read_cursor_key(store *reader, unsigned char key[STORE_CURSOR_KEY_BYTES])
{
    store_stmt *stmt = &reader->statements[STORE_SQL_READ_CURSOR_KEY];
    int rc = store_step_row(stmt, STORE_OK);
    if (rc == STORE_OK) {
        size_t size = 0;
        const void *value = store_column_blob(stmt, 0, &size);
        if (value && size >= STORE_CURSOR_KEY_BYTES)
            memcpy(key, value, STORE_CURSOR_KEY_BYTES);
        else
            rc = STORE_E_CORRUPT;
    }
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_E_CORRUPT : rc;
}

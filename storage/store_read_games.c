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
 * The driver yields candidate rows below the cursor, at most
 * STORE_READ_SCAN for a page, in chunks (store_read_scan.c); the filter's
 * other conditions are tested on those (FILTER_MATCH), and the C side
 * keeps the matches until the page is full. When the candidates run out
 * first but were cut at the cap, the page ends at the last candidate
 * examined, so the next page resumes below it: a page never reads more
 * than the cap, whatever the filter.
 *
 * Each driver is one plain SELECT over its index range, in the index's
 * order, so the database walks the range and a chunk costs the rows it
 * steps, not the cap: a subquery with its own LIMIT would be materialized
 * whole, and the join above it sorted, before the first row came out. The
 * seats of a page's games are read in one statement. A player's
 * games are read from the seats index, one row per seat: a player holds
 * one seat per game, and a second one (which only a bug could store)
 * would come right after the first and is skipped. */
#include <string.h>

#include "storage/store_internal.h"

#define SUMMARY_COLUMNS                                                                            \
    "g.id, g.game, g.mode, g.status, g.tournament_id, g.created_at, g.started_at, g.finished_at"
/* ?3 player id, ?4 game, ?5 mode, ?6 status, ?7 tournament id; NULL: any (typed, so
 * PostgreSQL knows a parameter it meets first in IS NULL). */
#define FILTER_MATCH_BUT_PLAYER                                                                    \
    "(CAST(?4 AS TEXT) IS NULL OR g.game = ?4) AND (CAST(?5 AS TEXT) IS NULL OR g.mode = ?5)"      \
    " AND (CAST(?6 AS TEXT) IS NULL OR g.status = ?6)"                                             \
    " AND (CAST(?7 AS BIGINT) IS NULL OR g.tournament_id = ?7)"
#define FILTER_MATCH                                                                               \
    "(CAST(?3 AS BIGINT) IS NULL OR EXISTS (SELECT 1 FROM seats AS s WHERE s.game_id = g.id"       \
    "  AND s.entry_id = ?3)) AND " FILTER_MATCH_BUT_PLAYER
/* ?1 the last id of the previous page, ?2 the most candidates to read;
 * `source` has the games as g, `range` is the driver's index range, and
 * `match` tests the rest of the filter. */
#define CANDIDATES(source, range, order, match)                                                    \
    "SELECT " SUMMARY_COLUMNS ", " match " FROM " source " WHERE " range " ORDER BY " order        \
    " LIMIT ?2"

const store_statement_text STORE_READ_GAME_STATEMENTS[] = {
    {STORE_SQL_READ_GAMES_ALL, CANDIDATES("games AS g", "g.id < ?1", "g.id DESC", FILTER_MATCH)},
    {STORE_SQL_READ_GAMES_OF_PLAYER,
     /* The range holds only the player's games: the rest of the filter is tested
      * (PostgreSQL would otherwise hash every seat of the player for each chunk). */
     CANDIDATES("seats AS held JOIN games AS g ON g.id = held.game_id",
                "held.entry_id = ?3 AND held.game_id < ?1", "held.game_id DESC",
                FILTER_MATCH_BUT_PLAYER)},
    {STORE_SQL_READ_GAMES_OF_KIND,
     CANDIDATES("games AS g", "g.game = ?4 AND g.mode = ?5 AND g.id < ?1", "g.id DESC",
                FILTER_MATCH)},
    {STORE_SQL_READ_GAMES_OF_STATUS,
     CANDIDATES("games AS g", "g.status = ?6 AND g.id < ?1", "g.id DESC", FILTER_MATCH)},
    {STORE_SQL_READ_GAMES_OF_TOURNAMENT,
     CANDIDATES("games AS g", "g.tournament_id = ?7 AND g.id < ?1", "g.id DESC", FILTER_MATCH)},
    {STORE_SQL_READ_GAME_RATING_CHANGES,
     "SELECT h.player_id, p.name, h.pool, h.game_id, h.mu_before, h.sigma_before, h.mu_after,"
     " h.sigma_after, h.at_ms FROM rating_history AS h JOIN players AS p ON p.id = h.player_id"
     " WHERE h.game_id = ?1 ORDER BY h.player_id, h.pool"},
    /* The secret that signs every list's cursors (the games list's first). */
    {STORE_SQL_READ_CURSOR_KEY, "SELECT value FROM secrets WHERE name = 'cursor'"},
    {STORE_SQL_COUNT, NULL},
};

/* Each candidate of `keys` (ids as `key_id`), a game looked up by id: the
 * lateral subquery, kept apart by OFFSET 0, is one look-up per candidate,
 * of the summary's columns only (not the options and result). */
#define BY_ID(keys, key_id)                                                                        \
    keys " CROSS JOIN LATERAL (SELECT id, game, mode, status, tournament_id, created_at,"          \
         " started_at, finished_at FROM games WHERE games.id = " key_id " OFFSET 0) AS g"

/* Where PostgreSQL's planner goes astray. A player's games: it would walk
 * them with a merge join down the whole games table (tens of thousands of
 * rows for a chunk of a few hundred). A game and mode: it would walk the
 * games' key and test each row's kind, which for a kind played rarely of
 * late reads thousands of rows for a page. The ids come from games_by_kind
 * alone (an index-only scan): ordered by mode and id, with the cursor as a
 * row comparison, the page is an order only that index gives, so no
 * change in the table's statistics turns the plan back. */
const store_statement_text STORE_READ_GAME_POSTGRES_STATEMENTS[] = {
    {STORE_SQL_READ_GAMES_OF_PLAYER,
     CANDIDATES(BY_ID("seats AS held", "held.game_id"), "held.entry_id = ?3 AND held.game_id < ?1",
                "held.game_id DESC", FILTER_MATCH_BUT_PLAYER)},
    {STORE_SQL_READ_GAMES_OF_KIND,
     CANDIDATES(BY_ID("(SELECT id FROM games WHERE game = ?4 AND mode >= ?5"
                      " AND (mode, id) < (?5, ?1) ORDER BY mode DESC, id DESC LIMIT ?2) AS kind",
                      "kind.id"),
                "TRUE", "kind.id DESC", FILTER_MATCH)},
    {STORE_SQL_COUNT, NULL},
};

/* Most games are finished: a filter on any other status keeps few games,
 * and its own index is the shorter walk; one on finished keeps nearly all. */
static bool is_rare_status(const store_game_filter *filter)
{
    return filter->status && strcmp(filter->status, "finished") != 0;
}

/* The statement whose index answers the most selective part of `filter`. */
static store_statement_id driver_of(const store_game_filter *filter)
{
    if (filter->player_id > 0)
        return STORE_SQL_READ_GAMES_OF_PLAYER;
    if (filter->tournament_id > 0)
        return STORE_SQL_READ_GAMES_OF_TOURNAMENT;
    if (filter->game && filter->mode && !is_rare_status(filter))
        return STORE_SQL_READ_GAMES_OF_KIND;
    if (filter->status)
        return STORE_SQL_READ_GAMES_OF_STATUS;
    return STORE_SQL_READ_GAMES_ALL;
}

/* Whether `filter` asks for more than its driver's index answers, so that
 * many candidates may not match (finished games: nearly all do). */
static bool is_sifted(const store_game_filter *filter, store_statement_id driver)
{
    int asked = (filter->player_id > 0) + (filter->tournament_id > 0) + (filter->game != NULL) +
                (filter->mode != NULL) +
                (is_rare_status(filter) || driver == STORE_SQL_READ_GAMES_OF_STATUS);
    int answered = driver == STORE_SQL_READ_GAMES_OF_KIND ? 2
                   : driver == STORE_SQL_READ_GAMES_ALL   ? 0
                                                          : 1;
    return asked > answered;
}

/* Binds an id filter, or NULL (any) for 0. */
static void bind_optional_id(store_stmt *stmt, int index, int64_t id, int *bound)
{
    if (id > 0)
        store_bind_int64(stmt, index, id, bound);
    else
        store_bind_text(stmt, index, NULL, bound);
}

/* A games page being read: its filter, its items, and the last candidate
 * examined (where the next chunk, or the next page, continues). */
typedef struct games_walk {
    const store_game_filter *filter;
    store_game_summary *items;
    store_read_page *page;
    int64_t below; /* the candidates are below this id */
    int64_t last;  /* the last candidate's id; 0 before the first */
} games_walk;

static void bind_candidates(store_scan *scan, int64_t chunk, int *bound)
{
    const games_walk *walk = scan->context;
    const store_game_filter *filter = walk->filter;
    store_bind_int64(scan->stmt, 1, walk->last > 0 ? walk->last : walk->below, bound);
    store_bind_int64(scan->stmt, 2, chunk, bound);
    bind_optional_id(scan->stmt, 3, filter->player_id, bound);
    store_bind_text(scan->stmt, 4, filter->game, bound);
    store_bind_text(scan->stmt, 5, filter->mode, bound);
    store_bind_text(scan->stmt, 6, filter->status, bound);
    bind_optional_id(scan->stmt, 7, filter->tournament_id, bound);
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

/* Keeps a matching candidate; a player's second seat in a game it was
 * already examined for is skipped. */
static bool take_candidate(store_scan *scan)
{
    games_walk *walk = scan->context;
    int64_t id = store_column_int64(scan->stmt, 0);
    bool is_repeat = id == walk->last;
    walk->last = id;
    bool is_kept = !is_repeat && store_column_int(scan->stmt, 8);
    if (is_kept)
        read_summary(scan->stmt, &walk->items[walk->page->count++]);
    return is_kept;
}

int store_read_games(store *reader, const store_game_filter *filter, store_read_after after,
                     int limit, store_game_summary *items, store_read_page *page)
{
    memset(page, 0, sizeof(*page));
    if (limit < 1 || limit > STORE_READ_MAX_PAGE)
        return STORE_E_INVALID;
    games_walk walk = {.filter = filter,
                       .items = items,
                       .page = page,
                       .below = after.is_first ? INT64_MAX : after.id};
    store_statement_id driver = driver_of(filter);
    store_scan scan = {.stmt = &reader->statements[driver],
                       .bind = bind_candidates,
                       .take = take_candidate,
                       .context = &walk,
                       .first_chunk = is_sifted(filter, driver) ? limit * 4 : limit};
    int rc = store_scan_run(&scan, limit, &page->has_next);
    /* Full: continue after the last row shown. Cut at the cap: after the
     * last row examined. */
    page->next.id = page->count == limit ? items[limit - 1].id : walk.last;
    page->next.key = page->next.id;
    if (rc == STORE_OK)
        rc = store_seats_read_page(reader, items, page->count);
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

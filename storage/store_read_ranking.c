/* store_read_ranking.c -- profiles and leaderboards: players by name,
 * ratings and their history, best Reef runs.
 *
 * A leaderboard page continues after the last row of the previous one. Its
 * order has several columns (Blokus: display DESC, player id; Reef: score
 * DESC, time, player id), and a keyset seek on several columns with mixed
 * directions is not one index range (in SQLite or PostgreSQL). So each seek is written as
 * the union of the ranges it is made of -- the rows tied with the cursor
 * on its first columns and after it on the last, then the rows strictly
 * after it on the first column -- each an index range with its own LIMIT,
 * merged in order. The cursor's Reef time is not carried: it is read back
 * from the cursor player's row, one primary-key probe.
 *
 * The cursor's id carries the rank of the page's last row above the
 * player id (bits 40 and up), so ranks run on across pages without
 * counting the rows above. A Blokus cursor's key is the bit pattern of the
 * last display value: an exact double, so the tie test is exact. */
#include <float.h>
#include <string.h>

#include "storage/store_internal.h"

#define POSITION_SHIFT 40
#define PLAYER_MASK    ((INT64_C(1) << POSITION_SHIFT) - 1)

#define RATING_COLUMNS                                                                             \
    "r.player_id, p.name, r.pool, r.mu, r.sigma, r.display, r.games, r.wins, r.score_total,"       \
    " r.listed"
#define HISTORY_COLUMNS                                                                            \
    "h.player_id, p.name, h.pool, h.game_id, h.mu_before, h.sigma_before, h.mu_after,"             \
    " h.sigma_after, h.at_ms"
/* Player ?1's newest ?2 rating changes in `pool`, as a UNION ALL arm after
 * `joint` (its own LIMIT needs a subquery, which PostgreSQL names `alias`). */
#define LAST_CHANGES(joint, pool, alias)                                                           \
    joint "SELECT * FROM (SELECT player_id, pool, game_id, mu_before, sigma_before, mu_after,"     \
          " sigma_after, at_ms FROM rating_history WHERE player_id = ?1 AND pool = '" pool "'"     \
          " ORDER BY at_ms DESC, game_id DESC LIMIT ?2) AS " alias
/* An arm per pool of the schema's CHECK. */
#define LAST_CHANGES_OF_EVERY_POOL                                                                 \
    LAST_CHANGES("", "blokus-4p", "b4")                                                            \
    LAST_CHANGES(" UNION ALL ", "blokus-3p", "b3")                                                 \
    LAST_CHANGES(" UNION ALL ", "blokus-2p", "b2")                                                 \
    LAST_CHANGES(" UNION ALL ", "blokus-duo", "bd")                                                \
    LAST_CHANGES(" UNION ALL ", "reef-race", "rr")
#define REEF_COLUMNS "b.board, b.player_id, p.name, b.score, b.run_id, b.at_ms"
/* The listed ratings of pool ?1 in a range, at most ?4: the page's ranges
 * are each an index range with its own LIMIT, so a page reads at most the
 * rows it asks for (a compound SELECT ordered as the index is streams in
 * SQLite, but PostgreSQL would read and sort every row of the pool). */
#define BLOKUS_RANGE(condition, order)                                                             \
    "SELECT * FROM (SELECT player_id, display FROM ratings WHERE pool = ?1 AND listed = 1"         \
    " AND " condition " ORDER BY " order " LIMIT ?4) AS part"
/* After the cursor (?2 display, ?3 player id): tied with it, then below. */
#define BLOKUS_AFTER                                                                               \
    BLOKUS_RANGE("display = ?2 AND player_id > ?3", "player_id")                                   \
    " UNION ALL " BLOKUS_RANGE("display < ?2", "display DESC, player_id")
/* A range of the runs on board ?1, at most ?4. */
#define REEF_RANGE(condition, order)                                                               \
    "SELECT * FROM (SELECT player_id, score, at_ms FROM reef_best WHERE board = ?1"                \
    " AND " condition " ORDER BY " order " LIMIT ?4) AS part"
/* The cursor's run time: that of player ?3's run on board ?1. */
#define CURSOR_TIME "(SELECT at_ms FROM reef_best WHERE board = ?1 AND player_id = ?3)"
/* After the cursor (?2 score, ?3 player id), best first: tied with it on
 * score and time, then later on its score, then lower scores. */
#define REEF_TIED_AFTER                                                                            \
    REEF_RANGE("score = ?2 AND at_ms = " CURSOR_TIME " AND player_id > ?3", "player_id")
#define REEF_LATER REEF_RANGE("score = ?2 AND at_ms > " CURSOR_TIME, "at_ms, player_id")
#define REEF_LOWER REEF_RANGE("score < ?2", "score DESC, at_ms, player_id")
/* Before the cursor, nearest first. */
#define REEF_TIED_BEFORE                                                                           \
    REEF_RANGE("score = ?2 AND at_ms = " CURSOR_TIME " AND player_id < ?3", "player_id DESC")
#define REEF_EARLIER REEF_RANGE("score = ?2 AND at_ms < " CURSOR_TIME, "at_ms DESC, player_id DESC")
#define REEF_HIGHER  REEF_RANGE("score > ?2", "score, at_ms DESC, player_id DESC")
#define REEF_PAGE(ranges, order)                                                                   \
    "SELECT " REEF_COLUMNS " FROM (" ranges ") AS c"                                               \
    " JOIN reef_best AS b ON b.board = ?1 AND b.player_id = c.player_id"                           \
    " JOIN players AS p ON p.id = c.player_id ORDER BY " order " LIMIT ?4"

const store_statement_text STORE_READ_RANKING_STATEMENTS[] = {
    {STORE_SQL_READ_PLAYER_BY_KEY,
     "SELECT id, name, is_bot, created_at, games_played, wins FROM players WHERE name_key = ?1"},
    {STORE_SQL_READ_RATINGS_OF_PLAYER,
     "SELECT " RATING_COLUMNS " FROM ratings AS r JOIN players AS p ON p.id = r.player_id"
     " WHERE r.player_id = ?1 ORDER BY r.pool"},
    /* One player's rows in every pool at once (one round trip, not one a
     * pool); the name is read once, not joined to every row. */
    {STORE_SQL_READ_RATING_HISTORY,
     "SELECT " HISTORY_COLUMNS " FROM (" LAST_CHANGES_OF_EVERY_POOL ") AS h,"
     " (SELECT name FROM players WHERE id = ?1) AS p"
     " ORDER BY h.pool, h.at_ms DESC, h.game_id DESC"},
    {STORE_SQL_READ_REEF_BEST_OF_PLAYER,
     "SELECT " REEF_COLUMNS " FROM reef_best AS b JOIN players AS p ON p.id = b.player_id"
     " WHERE b.player_id = ?1 ORDER BY b.score DESC, b.board LIMIT ?2"},
    /* ?5 the fewest games listed. */
    {STORE_SQL_READ_BLOKUS_BOARD,
     "SELECT " RATING_COLUMNS ", r.games >= ?5 FROM (" BLOKUS_AFTER ") AS c"
     " JOIN ratings AS r ON r.player_id = c.player_id AND r.pool = ?1"
     " JOIN players AS p ON p.id = c.player_id ORDER BY c.display DESC, c.player_id LIMIT ?4"},
    {STORE_SQL_READ_REEF_BOARD,
     REEF_PAGE(REEF_TIED_AFTER " UNION ALL " REEF_LATER " UNION ALL " REEF_LOWER,
               "c.score DESC, c.at_ms, c.player_id")},
    {STORE_SQL_READ_REEF_BOARD_BEFORE,
     REEF_PAGE(REEF_TIED_BEFORE " UNION ALL " REEF_EARLIER " UNION ALL " REEF_HIGHER,
               "c.score, c.at_ms DESC, c.player_id DESC")},
    /* A player's run, and how many runs rank above it, in one statement:
     * those of higher scores summed from the counts per score, the ties
     * before it counted on the ranking index. */
    {STORE_SQL_READ_REEF_ENTRY,
     "SELECT " REEF_COLUMNS ","
     " (SELECT CAST(coalesce(sum(runs), 0) AS BIGINT) FROM reef_score_counts"
     "  WHERE board = ?1 AND score > b.score)"
     " + (SELECT count(*) FROM reef_best AS a WHERE a.board = ?1 AND a.score = b.score"
     "    AND a.at_ms < b.at_ms)"
     " + (SELECT count(*) FROM reef_best AS a WHERE a.board = ?1 AND a.score = b.score"
     "    AND a.at_ms = b.at_ms AND a.player_id < b.player_id)"
     " FROM reef_best AS b JOIN players AS p ON p.id = b.player_id"
     " WHERE b.board = ?1 AND b.player_id = ?2"},
    {STORE_SQL_COUNT, NULL},
};

static int64_t pack_position(int64_t position, int64_t player_id)
{
    return position << POSITION_SHIFT | (player_id & PLAYER_MASK);
}

static int64_t double_bits(double value)
{
    int64_t bits;
    memcpy(&bits, &value, sizeof(bits));
    return bits;
}

static double bits_double(int64_t bits)
{
    double value;
    memcpy(&value, &bits, sizeof(value));
    return value;
}

/* ---- players ----------------------------------------------------------------- */

int store_read_player_by_key(store *reader, const char *name_key, store_profile *out)
{
    if (!name_key)
        return STORE_E_INVALID;
    store_stmt *stmt = &reader->statements[STORE_SQL_READ_PLAYER_BY_KEY];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, name_key, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK) {
        out->id = store_column_int64(stmt, 0);
        store_column_copy(stmt, 1, out->name, sizeof(out->name));
        out->is_bot = store_column_int(stmt, 2) != 0;
        out->created_at_ms = store_column_int64(stmt, 3);
        out->games_played = store_column_int64(stmt, 4);
        out->wins = store_column_int64(stmt, 5);
    }
    store_statement_reset(stmt);
    return rc;
}

static void read_rating(store_stmt *stmt, store_pool_rating *rating)
{
    rating->player_id = store_column_int64(stmt, 0);
    store_column_copy(stmt, 1, rating->player_name, sizeof(rating->player_name));
    store_column_copy(stmt, 2, rating->pool, sizeof(rating->pool));
    rating->mu = store_column_double(stmt, 3);
    rating->sigma = store_column_double(stmt, 4);
    rating->display = store_column_double(stmt, 5);
    rating->games = store_column_int64(stmt, 6);
    rating->wins = store_column_int64(stmt, 7);
    rating->score_total = store_column_int64(stmt, 8);
    rating->is_listed = store_column_int(stmt, 9) != 0;
}

static void read_reef_entry(store_stmt *stmt, store_reef_entry *entry)
{
    store_column_copy(stmt, 0, entry->board, sizeof(entry->board));
    entry->player_id = store_column_int64(stmt, 1);
    store_column_copy(stmt, 2, entry->player_name, sizeof(entry->player_name));
    entry->score = store_column_int64(stmt, 3);
    entry->run_id = store_column_int64(stmt, 4);
    entry->at_ms = store_column_int64(stmt, 5);
}

/* Steps a bound statement into up to `most` rows of `size` bytes each,
 * read by `read`; *count of them. */
static int read_rows(store_stmt *stmt, int bound, void *rows, size_t size, int most, int *count,
                     void (*read)(store_stmt *, void *))
{
    int rc = STORE_OK;
    *count = 0;
    while (*count < most && (rc = store_step_row(stmt, bound)) == STORE_OK)
        read(stmt, (char *)rows + size * (size_t)(*count)++);
    store_statement_reset(stmt);
    return *count == most || rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

static void read_rating_row(store_stmt *stmt, void *row)
{
    read_rating(stmt, row);
}

static void read_history_row(store_stmt *stmt, void *row)
{
    store_read_rating_change(stmt, row);
}

static void read_reef_row(store_stmt *stmt, void *row)
{
    read_reef_entry(stmt, row);
}

int store_read_player_ratings(store *reader, int64_t player_id,
                              store_pool_rating ratings[STORE_READ_POOL_COUNT], int *count)
{
    store_stmt *stmt = &reader->statements[STORE_SQL_READ_RATINGS_OF_PLAYER];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, player_id, &bound);
    return read_rows(stmt, bound, ratings, sizeof(*ratings), STORE_READ_POOL_COUNT, count,
                     read_rating_row);
}

/* Whether `later` follows `earlier` in one rating's chain: its rating
 * before the game is the other's after. */
static bool follows(const store_rating_delta *later, const store_rating_delta *earlier)
{
    return later->mu_before == earlier->mu_after && later->sigma_before == earlier->sigma_after;
}

/* Orders `run` (changes of one millisecond, newest first by game id) as
 * their chain says, when it is one chain: each one's rating before is the
 * next older one's after. Else (two pools' worth, a hand-made row) it
 * stays as it is. */
static void order_run_by_chain(store_rating_delta *run, int count)
{
    enum { RUN_MAX = 16 };
    if (count > RUN_MAX)
        return;
    int order[RUN_MAX], newest = -1;
    for (int i = 0; i < count; i++) {
        bool is_followed = false;
        for (int j = 0; j < count; j++)
            is_followed = is_followed || (j != i && follows(&run[j], &run[i]));
        if (!is_followed && newest >= 0)
            return; /* two ends: not one chain */
        if (!is_followed)
            newest = i;
    }
    if (newest < 0)
        return;
    order[0] = newest;
    for (int n = 1; n < count; n++) {
        int older = -1;
        for (int j = 0; j < count && older < 0; j++)
            if (follows(&run[order[n - 1]], &run[j]) && j != order[n - 1])
                older = j;
        if (older < 0)
            return; /* the chain breaks */
        order[n] = older;
    }
    store_rating_delta sorted[RUN_MAX];
    for (int n = 0; n < count; n++)
        sorted[n] = run[order[n]];
    memcpy(run, sorted, sizeof(*run) * (size_t)count);
}

int store_read_rating_histories(store *reader, int64_t player_id, int limit,
                                store_rating_delta *items, int *count)
{
    *count = 0;
    if (limit < 1 || limit > STORE_READ_MAX_PAGE)
        return STORE_E_INVALID;
    store_stmt *stmt = &reader->statements[STORE_SQL_READ_RATING_HISTORY];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, player_id, &bound);
    store_bind_int64(stmt, 2, limit, &bound);
    int rc = read_rows(stmt, bound, items, sizeof(*items), STORE_READ_POOL_COUNT * limit, count,
                       read_history_row);
    for (int start = 0, end; rc == STORE_OK && start < *count; start = end) {
        for (end = start + 1; end < *count && items[end].at_ms == items[start].at_ms &&
                              strcmp(items[end].pool, items[start].pool) == 0;
             end++)
            ;
        order_run_by_chain(items + start, end - start);
    }
    return rc;
}

int store_read_player_reef_best(store *reader, int64_t player_id, int limit,
                                store_reef_entry *items, int *count)
{
    *count = 0;
    if (limit < 1 || limit > STORE_READ_MAX_PAGE)
        return STORE_E_INVALID;
    store_stmt *stmt = &reader->statements[STORE_SQL_READ_REEF_BEST_OF_PLAYER];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, player_id, &bound);
    store_bind_int64(stmt, 2, limit, &bound);
    return read_rows(stmt, bound, items, sizeof(*items), limit, count, read_reef_row);
}

/* ---- leaderboards ------------------------------------------------------------ */

/* The rank of the row before `after`, 0 on the first page. */
static int64_t position_of(store_read_after after)
{
    return after.is_first ? 0 : after.id >> POSITION_SHIFT;
}

/* A Blokus leaderboard page being read: the rows after `last` (the last
 * candidate examined, or the page's cursor) are the next candidates. */
typedef struct blokus_walk {
    const char *pool;
    int64_t min_games;
    store_pool_rating *items;
    store_read_page *page;
    store_pool_rating last;
} blokus_walk;

static void bind_blokus_candidates(store_scan *scan, int64_t chunk, int *bound)
{
    const blokus_walk *walk = scan->context;
    store_bind_text(scan->stmt, 1, walk->pool, bound);
    store_bind_double(scan->stmt, 2, walk->last.display, bound);
    store_bind_int64(scan->stmt, 3, walk->last.player_id, bound);
    store_bind_int64(scan->stmt, 4, chunk, bound);
    store_bind_int64(scan->stmt, 5, walk->min_games, bound);
}

static bool take_blokus_candidate(store_scan *scan)
{
    blokus_walk *walk = scan->context;
    read_rating(scan->stmt, &walk->last);
    bool is_kept = store_column_int(scan->stmt, 10);
    if (is_kept)
        walk->items[walk->page->count++] = walk->last;
    return is_kept;
}

int store_read_blokus_board(store *reader, const char *pool, int64_t min_games,
                            store_read_after after, int limit, store_pool_rating *items,
                            store_read_page *page)
{
    memset(page, 0, sizeof(*page));
    if (!pool || limit < 1 || limit > STORE_READ_MAX_PAGE)
        return STORE_E_INVALID;
    blokus_walk walk = {.pool = pool, .min_games = min_games, .items = items, .page = page};
    walk.last.display = after.is_first ? DBL_MAX : bits_double(after.key);
    walk.last.player_id = after.is_first ? 0 : after.id & PLAYER_MASK;
    store_scan scan = {.stmt = &reader->statements[STORE_SQL_READ_BLOKUS_BOARD],
                       .bind = bind_blokus_candidates,
                       .take = take_blokus_candidate,
                       .context = &walk};
    int64_t position = position_of(after);
    page->first_position = position + 1;
    int rc = store_scan_run(&scan, limit, &page->has_next);
    const store_pool_rating *end = page->count == limit ? &items[limit - 1] : &walk.last;
    page->next.key = double_bits(end->display);
    page->next.id = pack_position(position + page->count, end->player_id);
    return rc;
}

/* Binds a Reef page's board, cursor and size. */
static void bind_reef_page(store_stmt *stmt, const char *board, int64_t score, int64_t player_id,
                           int limit, int *bound)
{
    store_bind_text(stmt, 1, board, bound);
    store_bind_int64(stmt, 2, score, bound);
    store_bind_int64(stmt, 3, player_id, bound);
    store_bind_int64(stmt, 4, limit, bound);
}

/* Up to `limit` runs after (score, player id) into items[], best first. */
static int reef_page_after(store *reader, const char *board, int64_t score, int64_t player_id,
                           int limit, store_reef_entry *items, int *count)
{
    store_stmt *stmt = &reader->statements[STORE_SQL_READ_REEF_BOARD];
    int bound = STORE_OK;
    bind_reef_page(stmt, board, score, player_id, limit, &bound);
    return read_rows(stmt, bound, items, sizeof(*items), limit, count, read_reef_row);
}

/* Fills the page's continuation from its last row and the rank before it. */
static void end_reef_page(store_read_page *page, const store_reef_entry *items, int limit,
                          int64_t position_before)
{
    page->first_position = position_before + 1;
    page->has_next = page->count == limit;
    if (page->count == 0)
        return;
    const store_reef_entry *last = &items[page->count - 1];
    page->next.key = last->score;
    page->next.id = pack_position(position_before + page->count, last->player_id);
}

int store_read_reef_board(store *reader, const char *board, store_read_after after, int limit,
                          store_reef_entry *items, store_read_page *page)
{
    memset(page, 0, sizeof(*page));
    if (!board || limit < 1 || limit > STORE_READ_MAX_PAGE)
        return STORE_E_INVALID;
    int64_t score = after.is_first ? INT64_MAX : after.key;
    int64_t player_id = after.is_first ? 0 : after.id & PLAYER_MASK;
    int rc = reef_page_after(reader, board, score, player_id, limit, items, &page->count);
    end_reef_page(page, items, limit, position_of(after));
    return rc;
}

/* The player's own run on the board, and how many runs rank above it. */
static int reef_own_entry(store *reader, const char *board, int64_t player_id,
                          store_reef_entry *entry, int64_t *above)
{
    store_stmt *stmt = &reader->statements[STORE_SQL_READ_REEF_ENTRY];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, board, &bound);
    store_bind_int64(stmt, 2, player_id, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK) {
        read_reef_entry(stmt, entry);
        *above = store_column_int64(stmt, 6);
    }
    store_statement_reset(stmt);
    return rc;
}

/* Up to `most` runs just above `own` into items[], best first. */
static int reef_rows_above(store *reader, const store_reef_entry *own, int most,
                           store_reef_entry *items, int *count)
{
    *count = 0;
    if (most == 0)
        return STORE_OK;
    store_stmt *stmt = &reader->statements[STORE_SQL_READ_REEF_BOARD_BEFORE];
    int bound = STORE_OK;
    bind_reef_page(stmt, own->board, own->score, own->player_id, most, &bound);
    int rc = read_rows(stmt, bound, items, sizeof(*items), most, count, read_reef_row);
    for (int i = 0; i < *count / 2; i++) { /* nearest first -> best first */
        store_reef_entry swap = items[i];
        items[i] = items[*count - 1 - i];
        items[*count - 1 - i] = swap;
    }
    return rc;
}

int store_read_reef_board_around(store *reader, const char *board, int64_t player_id, int limit,
                                 store_reef_entry *items, store_read_page *page)
{
    memset(page, 0, sizeof(*page));
    if (!board || limit < 1 || limit > STORE_READ_MAX_PAGE)
        return STORE_E_INVALID;
    store_reef_entry own;
    int64_t above = 0;
    int rc = reef_own_entry(reader, board, player_id, &own, &above);
    int before = 0, after = 0;
    if (rc == STORE_OK)
        rc = reef_rows_above(reader, &own, limit / 2, items, &before);
    if (rc != STORE_OK)
        return rc;
    items[before] = own;
    if (before + 1 < limit)
        rc = reef_page_after(reader, board, own.score, own.player_id, limit - before - 1,
                             items + before + 1, &after);
    page->count = before + 1 + after;
    end_reef_page(page, items, limit, above - before);
    return rc;
}

/* store_seats.c -- the seats table: who sits where in a game, and how each
 * seat ended.
 *
 * A seat holds a player (a human or a bot account: a players row) or a
 * built-in bot (just its kind, e.g. "mcts": built-in bots have no account),
 * or nobody. entry_id is the players row the seat counts for: the player,
 * or the built-in bot's rating entry ("bot:greedy"), so a bot's games are
 * listed by one index like anyone's (seats_by_entry). Setting a seat is
 * one upsert that only inserts while the game is not over -- the INSERT
 * takes its row from a SELECT on games guarded by the status -- so a late
 * seat change cannot rewrite a finished game's history, and the common
 * path is one statement.
 *
 * Results (score, rank, winner) are written by store_game_finish inside its
 * transaction; until then they are NULL, which is how a loaded seat tells
 * "no result yet" from a score of 0.
 *
 * A seat also holds its player's name and marks (guest, bot account) as
 * the lists show them, set with the seat and kept by a trigger when the
 * player changes (the schema's SEAT_PLAYER_COLUMNS): the seats of a page
 * of games are read without a look-up per seat. */
#include <stdio.h>
#include <string.h>

#include "storage/store_internal.h"

/* ?4 the built-in bot, ?3 the entry: the seat's player is the entry unless
 * a built-in bot sits there. */
#define SEAT_PLAYER_ID "CASE WHEN CAST(?4 AS TEXT) IS NULL THEN CAST(?3 AS BIGINT) END"
/* The seat with its player's name and marks as the lists show them (the
 * schema's SEAT_PLAYER_COLUMNS), read from `players`, the players table or
 * a `with` part's locked row of it. SQLite's UPSERT after INSERT ... SELECT
 * needs the SELECT to have a WHERE clause (a parsing ambiguity); ours
 * always has one. The parameters of a SELECT list are cast: PostgreSQL
 * would take them for text. */
#define SEAT_SET(with, players)                                                                    \
    with "INSERT INTO seats (game_id, seat, player_id, bot, entry_id, player_name,"                \
         " player_is_guest, player_is_bot)"                                                        \
         " SELECT games.id, CAST(?2 AS BIGINT), " SEAT_PLAYER_ID ", CAST(?4 AS TEXT),"             \
         " CAST(?3 AS BIGINT), player.name, CASE WHEN player.id IS NULL THEN NULL"                 \
         " WHEN player.name_key IS NULL THEN 1 ELSE 0 END, player.is_bot"                          \
         " FROM games LEFT JOIN " players " AS player ON player.id = " SEAT_PLAYER_ID              \
         " WHERE games.id = ?1 AND games.status IN ('waiting', 'playing')"                         \
         " ON CONFLICT (game_id, seat) DO UPDATE SET player_id = excluded.player_id,"              \
         " bot = excluded.bot, entry_id = excluded.entry_id,"                                      \
         " player_name = excluded.player_name, player_is_guest = excluded.player_is_guest,"        \
         " player_is_bot = excluded.player_is_bot"
#define SEAT_COLUMNS                                                                               \
    "SELECT seat, player_id, player_name, bot, score, rank, is_winner, player_is_guest,"           \
    " player_is_bot, game_id FROM seats"

const store_statement_text STORE_SEAT_STATEMENTS[] = {
    {STORE_SQL_SEAT_SET, SEAT_SET("", "players")},
    {STORE_SQL_SEAT_RESULT,
     "UPDATE seats SET score = ?3, rank = ?4, is_winner = ?5 WHERE game_id = ?1 AND seat = ?2"},
    {STORE_SQL_SEATS_OF_GAME, SEAT_COLUMNS " WHERE game_id = ?1 ORDER BY seat"},
    /* ?1 a JSON array of game ids: the seats of a page of games at once. */
    {STORE_SQL_SEATS_OF_GAMES, SEAT_COLUMNS " WHERE game_id IN (SELECT value FROM json_each(?1))"
                                            " ORDER BY game_id, seat"},
    {STORE_SQL_COUNT, NULL},
};

/* PostgreSQL's texts. A seat's player row is read locked (FOR SHARE): a
 * guest claimed at that moment by another connection waits for the seat
 * to be stored, and its trigger then finds the seat, which it would not
 * see uncommitted. A JSON array's elements: json_array_elements_text, not
 * json_each; made an array first, so one walk of seats' key finds them
 * all, in order. */
const store_statement_text STORE_SEAT_POSTGRES_STATEMENTS[] = {
    {STORE_SQL_SEAT_SET,
     SEAT_SET(
         "WITH locked AS (SELECT id, name, name_key, is_bot FROM players WHERE id = " SEAT_PLAYER_ID
         " FOR SHARE) ",
         "locked")},
    {STORE_SQL_SEATS_OF_GAMES,
     SEAT_COLUMNS " WHERE game_id = ANY (ARRAY(SELECT CAST(value AS BIGINT)"
                  " FROM json_array_elements_text(CAST(?1 AS JSON)) AS ids(value)))"
                  " ORDER BY game_id, seat"},
    {STORE_SQL_COUNT, NULL},
};

static bool is_valid_seat(int seat)
{
    return seat >= 0 && seat < STORE_MAX_SEATS;
}

static bool is_valid_bot(const char *bot)
{
    return !bot || (bot[0] != '\0' && strlen(bot) < STORE_BOT_SIZE);
}

int store_seat_set(store *storage, int64_t game_id, int seat, int64_t entry_id, const char *bot)
{
    if (!is_valid_seat(seat) || entry_id < 0 || !is_valid_bot(bot))
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_SEAT_SET];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, game_id, &bound);
    store_bind_int64(stmt, 2, seat, &bound);
    /* Parameters left unbound are NULL: no player. */
    if (entry_id > 0)
        store_bind_int64(stmt, 3, entry_id, &bound);
    store_bind_text(stmt, 4, bot, &bound);
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK && store_changes(storage) == 0)
        rc = store_game_refusal(storage, game_id);
    return rc;
}

int store_seat_record_result(store *storage, int64_t game_id, const store_seat_result *result)
{
    if (!is_valid_seat(result->seat))
        return STORE_E_INVALID;
    store_stmt *stmt = &storage->statements[STORE_SQL_SEAT_RESULT];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, game_id, &bound);
    store_bind_int64(stmt, 2, result->seat, &bound);
    store_bind_int64(stmt, 3, result->score, &bound);
    store_bind_int64(stmt, 4, result->rank, &bound);
    store_bind_int64(stmt, 5, result->is_winner, &bound);
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK && store_changes(storage) == 0)
        rc = STORE_E_NOT_FOUND;
    return rc;
}

static void read_seat(store_stmt *stmt, store_seat *seat)
{
    seat->seat = store_column_int(stmt, 0);
    seat->player_id = store_column_int64(stmt, 1);
    store_column_copy(stmt, 2, seat->player_name, sizeof(seat->player_name));
    store_column_copy(stmt, 3, seat->bot, sizeof(seat->bot));
    seat->has_result = !store_column_is_null(stmt, 5);
    seat->score = store_column_int64(stmt, 4);
    seat->rank = store_column_int(stmt, 5);
    seat->is_winner = store_column_int(stmt, 6) != 0;
    seat->is_guest = seat->player_id > 0 && store_column_int(stmt, 7) != 0;
    seat->is_bot_account = seat->player_id > 0 && store_column_int(stmt, 8) != 0;
}

int store_seats_read(store *storage, int64_t game_id, store_seat seats[STORE_MAX_SEATS], int *count)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_SEATS_OF_GAME];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, game_id, &bound);
    *count = 0;
    int rc;
    while ((rc = store_step_row(stmt, bound)) == STORE_OK) {
        if (*count == STORE_MAX_SEATS) {
            rc = STORE_E_CORRUPT;
            break;
        }
        read_seat(stmt, &seats[(*count)++]);
    }
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

/* The page's item with game `id`, or NULL; the search starts at *last,
 * the item found before, and goes toward the page's start: a page lists
 * its games newest first and their seats come oldest game first, so the
 * next seat's game is that item or the one before it. */
static store_game_summary *item_of(store_game_summary *items, int count, int64_t id, int *last)
{
    for (int step = 0; step < count; step++) {
        int i = (*last - step + count) % count;
        if (items[i].id == id) {
            *last = i;
            return &items[i];
        }
    }
    return NULL;
}

int store_seats_read_page(store *storage, store_game_summary *items, int count)
{
    if (count == 0)
        return STORE_OK;
    /* At most STORE_READ_MAX_PAGE ids of up to 20 digits, commas and brackets. */
    char ids[STORE_READ_MAX_PAGE * 21 + 3];
    size_t used = 0;
    for (int i = 0; i < count; i++) {
        items[i].seat_count = 0;
        used += (size_t)snprintf(ids + used, sizeof(ids) - used, "%c%lld", i ? ',' : '[',
                                 (long long)items[i].id);
    }
    snprintf(ids + used, sizeof(ids) - used, "]");
    store_stmt *stmt = &storage->statements[STORE_SQL_SEATS_OF_GAMES];
    int bound = STORE_OK, rc, last = count - 1;
    store_bind_text(stmt, 1, ids, &bound);
    while ((rc = store_step_row(stmt, bound)) == STORE_OK) {
        store_game_summary *item = item_of(items, count, store_column_int64(stmt, 9), &last);
        if (!item || item->seat_count == STORE_MAX_SEATS) {
            rc = STORE_E_CORRUPT;
            break;
        }
        read_seat(stmt, &item->seats[item->seat_count++]);
    }
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

int store_seats_load(store *storage, store_game_record *record)
{
    return store_seats_read(storage, record->id, record->seats, &record->seat_count);
}

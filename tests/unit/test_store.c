/* test_store.c -- the storage layer, one behaviour per test.
 *
 * Every test gets a fresh database file in its own mkdtemp directory under
 * /tmp, removed afterwards with its WAL and shared-memory files. Behaviour
 * is checked through the store_* API; where the API cannot show a fact (the
 * schema version, the journal mode, how a seed sits in its column) the test
 * asks the file directly through a second, raw SQLite connection -- SQLite
 * reaches this test through tessera_storage's link interface.
 *
 * Run as unit_store_pg (test_db.h) the same tests run on PostgreSQL, each
 * in a database of its own, but for those about SQLite's file
 * (SQLITE_TEST); the raw connection is then libpq's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "storage/secret.h"
#include "storage/store.h"
#include "storage/store_internal.h"
#include "tests/unit/test_db.h"

struct fixture {
    test_db db;
    const char *path;      /* db.path */
    const char *directory; /* db.directory */
    store *s;
};

static int teardown(void **state)
{
    struct fixture *f = *state;
    store_close(f->s);
    test_db_drop(&f->db);
    free(f);
    return 0;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    if (!f || test_db_make(&f->db) != 0) {
        free(f);
        return -1;
    }
    f->path = f->db.path;
    f->directory = f->db.directory;
    *state = f;
    if (store_open(f->path, false, &f->s) == STORE_OK)
        return 0;
    /* cmocka skips the teardown of a failed setup. */
    teardown(state);
    return -1;
}

static void reopen(struct fixture *f, bool is_synchronous_full)
{
    store_close(f->s);
    f->s = NULL;
    assert_int_equal(store_open(f->path, is_synchronous_full, &f->s), STORE_OK);
}

/* The schema version the database says it holds. */
static int64_t schema_version(const char *path)
{
    return test_db_integer(path, test_db_is_postgres() ? "SELECT max(version) FROM tessera_schema"
                                                       : "PRAGMA user_version");
}

static int64_t new_player(store *s, const char *name, const char *token)
{
    int64_t id = 0;
    assert_int_equal(store_player_create(s, name, false, token, &id), STORE_OK);
    assert_true(id > 0);
    return id;
}

static store_game_info blokus_info(void)
{
    store_game_info info = {
        .room = "ABCD",
        .game = "blokus",
        .mode = "4p",
        .options = "{\"scoring\":\"squares\",\"clock_ms\":60000}",
        .seed = 42,
        .created_at_ms = 1700000000000,
    };
    return info;
}

static int64_t new_game(store *s)
{
    store_game_info info = blokus_info();
    int64_t id = 0;
    assert_int_equal(store_game_create(s, &info, &id), STORE_OK);
    assert_true(id > 0);
    return id;
}

/* A game being played with `player_count` players (seats 0 ..) and a
 * built-in bot in the next seat; the players' ids go to players[]. */
static int64_t new_playing_game(store *s, int player_count, int64_t *players)
{
    int64_t game = new_game(s);
    for (int seat = 0; seat < player_count; seat++) {
        char name[32], token[64];
        snprintf(name, sizeof(name), "player%d", seat);
        snprintf(token, sizeof(token), "g%lld-t%d", (long long)game, seat);
        players[seat] = new_player(s, name, token);
        assert_int_equal(store_seat_set(s, game, seat, players[seat], NULL), STORE_OK);
    }
    assert_int_equal(store_seat_set(s, game, player_count, 0, "mcts"), STORE_OK);
    assert_int_equal(store_game_start(s, game, 1700000001000), STORE_OK);
    return game;
}

static store_move move_of(int64_t game, int seq, const char *action)
{
    store_move m = {
        .game_id = game,
        .seq = seq,
        .seat = seq % 3,
        .ply = seq,
        .action = action,
        .elapsed_ms = 100 + seq,
        .clock_ms = 60000 - 100 * seq,
        .at_ms = 1700000002000 + seq,
    };
    return m;
}

static store_game_record *load(store *s, int64_t game)
{
    store_game_record *record = NULL;
    assert_int_equal(store_game_load(s, game, &record), STORE_OK);
    assert_non_null(record);
    return record;
}

static store_player player(store *s, int64_t id)
{
    store_player p;
    assert_int_equal(store_player_by_id(s, id, &p), STORE_OK);
    return p;
}

/* Schema and connection. */

static void test_open_creates_the_current_schema(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(schema_version(f->path), STORE_SCHEMA_VERSION);
    const char *tables = test_db_is_postgres()
                             ? "information_schema.tables WHERE table_schema = 'public'"
                               " AND table_type = 'BASE TABLE' AND table_name"
                             : "sqlite_schema WHERE type = 'table' AND name";
    char sql[320];
    snprintf(sql, sizeof(sql),
             "SELECT count(*) FROM %s IN ('players', 'games', 'seats', 'moves', 'ratings',"
             " 'rating_history', 'reef_runs', 'reef_best')",
             tables);
    assert_int_equal(test_db_integer(f->path, sql), 8);
}

static void test_reopening_migrated_database_is_idempotent(void **state)
{
    struct fixture *f = *state;
    int64_t id = new_player(f->s, "ada", "token-ada");
    reopen(f, false);
    reopen(f, true);
    assert_int_equal(schema_version(f->path), STORE_SCHEMA_VERSION);
    store_player p;
    assert_int_equal(store_player_by_token(f->s, "token-ada", &p), STORE_OK);
    assert_int_equal(p.id, id);
}

/* What version 11 added, taken out again: the seats' copies of their
 * players and the trigger keeping them. */
static const char *undo_version_11(void)
{
    return test_db_is_postgres()
               ? "DROP TRIGGER players_shown_in_seats ON players;"
                 "DROP FUNCTION players_shown_in_seats();"
                 "ALTER TABLE seats DROP COLUMN player_name, DROP COLUMN player_is_guest,"
                 " DROP COLUMN player_is_bot;"
               : "DROP TRIGGER players_shown_in_seats; ALTER TABLE seats DROP COLUMN player_name;"
                 "ALTER TABLE seats DROP COLUMN player_is_guest;"
                 "ALTER TABLE seats DROP COLUMN player_is_bot;";
}

/* How many seats show their player other than as the players table has it
 * now (a built-in bot's seat: no player at all). */
static int64_t seats_showing_another_player(const char *path)
{
    return test_db_integer(
        path, "SELECT count(*) FROM seats LEFT JOIN players AS p ON p.id = seats.player_id"
              " WHERE NOT (CASE WHEN p.id IS NULL THEN seats.player_name IS NULL"
              " AND seats.player_is_guest IS NULL AND seats.player_is_bot IS NULL"
              " ELSE seats.player_name = p.name AND seats.player_is_bot = p.is_bot"
              " AND seats.player_is_guest = CASE WHEN p.name_key IS NULL THEN 1 ELSE 0 END END)");
}

/* A game seating a guest, an account, a bot account and a built-in bot;
 * the guest's id to *guest. */
static int64_t game_of_every_kind_of_seat(store *s, int64_t *guest)
{
    int64_t game = new_game(s), account = 0, bot = 0;
    *guest = new_player(s, "guest-7", "token-guest");
    assert_int_equal(store_account_create(s, "Ada", "ada", "hash", "token-ada", &account),
                     STORE_OK);
    assert_int_equal(store_bot_account_create(s, "deep", "deep", "key-deep", account, &bot),
                     STORE_OK);
    assert_int_equal(store_seat_set(s, game, 0, *guest, NULL), STORE_OK);
    assert_int_equal(store_seat_set(s, game, 1, account, NULL), STORE_OK);
    assert_int_equal(store_seat_set(s, game, 2, bot, NULL), STORE_OK);
    assert_int_equal(store_seat_set(s, game, 3, 0, "mcts"), STORE_OK);
    return game;
}

/* The guest claims the account "Bea"; its seats follow. */
static void claim_as_bea(struct fixture *f, int64_t guest)
{
    assert_int_equal(store_account_claim(f->s, guest, "Bea", "bea", "hash", "token-bea"), STORE_OK);
    assert_int_equal(seats_showing_another_player(f->path), 0);
}

/* A seat shows its player as the player is now: a guest who claims an
 * account is shown by its new name in the games it played as a guest. */
static void test_a_seat_shows_its_player_as_it_is_now(void **state)
{
    struct fixture *f = *state;
    int64_t guest = 0, game = game_of_every_kind_of_seat(f->s, &guest);
    assert_int_equal(seats_showing_another_player(f->path), 0);
    assert_int_equal(test_db_integer(f->path, "SELECT count(*) FROM seats WHERE player_is_guest = 1"
                                              " OR player_is_bot = 1"),
                     2);
    claim_as_bea(f, guest);
    store_game_record *record = load(f->s, game);
    assert_string_equal(record->seats[0].player_name, "Bea");
    assert_false(record->seats[0].is_guest);
    assert_true(record->seats[2].is_bot_account);
    assert_string_equal(record->seats[3].player_name, "");
    store_game_record_free(record);
    /* Seated again, the seat shows its new player. */
    assert_int_equal(store_seat_set(f->s, game, 1, guest, NULL), STORE_OK);
    assert_int_equal(seats_showing_another_player(f->path), 0);
}

/* How many connections to the test's database wait for a lock, once it
 * reaches `count` (PostgreSQL; another connection's doing, so polled). */
static void await_lock_waiters(const char *path, int64_t count)
{
    const char *sql = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                      " AND datname = current_database()";
    for (int i = 0; i < 1000 && test_db_integer(path, sql) != count; i++)
        usleep(10000);
    assert_int_equal(test_db_integer(path, sql), count);
}

/* A guest claimed by another connection while its seat is being stored:
 * the claim waits for the seat (the seat read its player locked), then its
 * trigger finds the seat and renames it; unlocked, the claim would not see
 * the uncommitted seat, which would keep the guest's name for good. */
static void test_a_claim_racing_a_seat_renames_it(void **state)
{
    struct fixture *f = *state;
    int64_t game = new_game(f->s), guest = new_player(f->s, "guest-8", "token-guest");
    assert_int_equal(store_begin(f->s), STORE_OK);
    assert_int_equal(store_seat_set(f->s, game, 0, guest, NULL), STORE_OK);
    test_db_hold *claim = test_db_hold_begin(f->path, "SELECT 1");
    char sql[160];
    snprintf(sql, sizeof(sql), "UPDATE players SET name = 'Bea', name_key = 'bea' WHERE id = %lld",
             (long long)guest);
    test_db_hold_send(claim, sql);
    await_lock_waiters(f->path, 1);
    assert_int_equal(store_commit(f->s), STORE_OK);
    test_db_hold_end(claim);
    assert_int_equal(seats_showing_another_player(f->path), 0);
    store_game_record *record = load(f->s, game);
    assert_string_equal(record->seats[0].player_name, "Bea");
    store_game_record_free(record);
}

/* A version-10 database (either dialect) holding seats: version 11 copies
 * each seat's player into it, then keeps the copies. */
static void test_version_10_seats_get_their_players(void **state)
{
    struct fixture *f = *state;
    int64_t guest = 0;
    game_of_every_kind_of_seat(f->s, &guest);
    store_close(f->s);
    f->s = NULL;
    char sql[512];
    snprintf(sql, sizeof(sql), "%s%s", undo_version_11(),
             test_db_is_postgres() ? "UPDATE tessera_schema SET version = 10"
                                   : "PRAGMA user_version = 10");
    test_db_execute(f->path, sql);
    reopen(f, false);
    assert_int_equal(schema_version(f->path), STORE_SCHEMA_VERSION);
    assert_int_equal(seats_showing_another_player(f->path), 0);
    assert_int_equal(test_db_integer(f->path, "SELECT count(*) FROM seats"
                                              " WHERE player_name IS NOT NULL"),
                     3);
    claim_as_bea(f, guest);
}

/* A version-9 database (either dialect) holding Reef boards: version 10
 * counts their scores from the rows already there, then keeps counting. */
static void test_version_9_reef_boards_get_their_counts(void **state)
{
    struct fixture *f = *state;
    int64_t ada = new_player(f->s, "ada", "token-ada"), bo = new_player(f->s, "bo", "token-bo");
    char sql[768];
    snprintf(sql, sizeof(sql),
             "INSERT INTO reef_runs (player_id, seed, score, actions, at_ms) VALUES"
             " (%lld, 7, 900, '[]', 1), (%lld, 7, 900, '[]', 2);"
             "INSERT INTO reef_best (board, player_id, score, run_id, at_ms)"
             " SELECT 'seed:7', player_id, score, id, at_ms FROM reef_runs;"
             "INSERT INTO reef_best (board, player_id, score, run_id, at_ms)"
             " SELECT 'all', player_id, score + id, id, at_ms FROM reef_runs;",
             (long long)ada, (long long)bo);
    test_db_execute(f->path, sql);
    store_close(f->s);
    f->s = NULL;
    snprintf(sql, sizeof(sql), "%s%s", undo_version_11(),
             test_db_is_postgres()
                 ? "DROP TABLE reef_score_counts; DROP TRIGGER reef_best_counted ON reef_best;"
                   "DROP FUNCTION reef_best_counted(); UPDATE tessera_schema SET version = 9"
                 : "DROP TABLE reef_score_counts; DROP TRIGGER reef_best_counted;"
                   "DROP TRIGGER reef_best_uncounted;"
                   "DROP TRIGGER reef_best_recounted; PRAGMA user_version = 9");
    test_db_execute(f->path, sql);
    reopen(f, false);
    assert_int_equal(schema_version(f->path), STORE_SCHEMA_VERSION);
    assert_int_equal(test_db_integer(f->path, "SELECT count(*) * 10000 + sum(runs) * 100"
                                              " + sum(CASE WHEN board = 'seed:7' THEN runs END)"
                                              " FROM reef_score_counts"),
                     3 * 10000 + 4 * 100 + 2);
    test_db_execute(f->path, "DELETE FROM reef_best WHERE board = 'seed:7' AND score = 900"
                             " AND player_id = (SELECT min(player_id) FROM reef_best)");
    assert_int_equal(test_db_integer(f->path, "SELECT runs FROM reef_score_counts"
                                              " WHERE board = 'seed:7' AND score = 900"),
                     1);
}

static void test_newer_schema_version_is_refused(void **state)
{
    struct fixture *f = *state;
    store_close(f->s);
    f->s = NULL;
    test_db_execute(f->path, test_db_is_postgres() ? "UPDATE tessera_schema SET version = 99"
                                                   : "PRAGMA user_version = 99");
    store *s = (store *)&s;
    assert_int_equal(store_open(f->path, false, &s), STORE_E_TOO_NEW);
    assert_null(s);
    assert_int_equal(schema_version(f->path), 99);
}

#define NOON_2026_11_24_MS 1795521600000LL /* a Tuesday */
#define DAY_MS             86400000LL

/* What a version-4 server left: a Reef run submitted twice on two days and
 * another twice on one, day and week boards holding a seed-7 run, and
 * built-in bots' seats with no entry. */
static void write_version_4_history(const char *path)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(store_schema_migrate_to(db, 4), STORE_OK);
    char sql[2048];
    long long noon = NOON_2026_11_24_MS, next_day = NOON_2026_11_24_MS + DAY_MS;
    snprintf(
        sql, sizeof(sql),
        "INSERT INTO players (id, name, is_bot, name_key, created_at) VALUES"
        " (1, 'ada', 0, NULL, 1), (2, 'bot:mcts@300ms', 1, 'bot:mcts@300ms', 1);"
        "INSERT INTO games (id, room, game, mode, options, seed, status, created_at, started_at,"
        " finished_at) VALUES (1, 'r', 'blokus', 'duo', '{}', 1, 'finished', 1, 1, 2),"
        " (2, 'r', 'blokus', 'duo', '{}', 1, 'finished', 1, 1, 3),"
        " (3, 'r', 'blokus', 'duo', '{}', 1, 'waiting', 1, NULL, NULL);"
        "INSERT INTO seats VALUES (1, 0, 1, NULL, 0, 2, 0), (1, 1, NULL, 'greedy', 9, 1, 1),"
        " (2, 0, 1, NULL, 0, 2, 0), (2, 1, NULL, 'mcts', 9, 1, 1),"
        " (3, 1, NULL, 'greedy', NULL, NULL, NULL);"
        "INSERT INTO rating_history VALUES (2, 'blokus-duo', 2, 25, 8, 27, 7, 3);"
        "INSERT INTO reef_runs VALUES (1, 1, 7, 900, NULL, '\"00r\"', %lld),"
        " (2, 1, 7, 900, NULL, '\"00r\"', %lld), (3, 1, 20261124, 100, NULL, '\"01d\"', %lld),"
        " (4, 1, 20261124, 100, NULL, '\"01d\"', %lld);"
        "INSERT INTO reef_best VALUES ('seed:7', 1, 900, 1, %lld), ('all', 1, 900, 1, %lld),"
        " ('day:20261124', 1, 900, 1, %lld), ('week:20261123', 1, 900, 1, %lld),"
        " ('day:20261125', 1, 900, 2, %lld), ('seed:20261124', 1, 100, 3, %lld);",
        noon, next_day, noon, noon + 1000, noon, noon, noon, noon, next_day, noon);
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK)
        fail_msg("%s", error);
    sqlite3_close(db);
}

/* Version 5 folds repeated runs into the first, rebuilds the day and week
 * boards under the period-seed rule, gives bot seats their entries and
 * counts the entries' games, and makes the cursor key. */
static void test_version_4_history_is_migrated(void **state)
{
    struct fixture *f = *state;
    char path[160];
    snprintf(path, sizeof(path), "%s/other.db", f->directory);
    write_version_4_history(path);
    store *s = NULL;
    assert_int_equal(store_open(path, false, &s), STORE_OK);
    assert_int_equal(test_db_integer(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    assert_int_equal(
        test_db_integer(path,
                        "SELECT group_concat(id, '') FROM (SELECT id FROM reef_runs ORDER BY id)"),
        13);
    assert_int_equal(test_db_integer(path, "SELECT run_id * 1000 + score FROM reef_best"
                                           " WHERE board = 'day:20261124'"),
                     3100);
    assert_int_equal(test_db_integer(path, "SELECT count(*) FROM reef_best WHERE board IN"
                                           " ('day:20261125', 'week:20261123')"),
                     0);
    assert_int_equal(test_db_integer(path, "SELECT run_id FROM reef_best WHERE board = 'all'"), 1);
    /* Version 10 counts the runs of each board's scores, from the rows already there. */
    assert_int_equal(test_db_integer(path, "SELECT sum(runs) FROM reef_score_counts"),
                     test_db_integer(path, "SELECT count(*) FROM reef_best"));
    assert_int_equal(test_db_integer(path, "SELECT runs FROM reef_score_counts"
                                           " WHERE board = 'all' AND score = 900"),
                     1);
    assert_int_equal(test_db_integer(path, "SELECT count(*) FROM seats AS s JOIN players AS p"
                                           " ON p.id = s.entry_id WHERE s.bot = 'greedy'"
                                           " AND p.name_key = 'bot:greedy'"),
                     2);
    assert_int_equal(
        test_db_integer(path, "SELECT entry_id FROM seats WHERE game_id = 2 AND seat = 1"), 2);
    assert_int_equal(test_db_integer(path, "SELECT games_played * 10 + wins FROM players"
                                           " WHERE name_key = 'bot:greedy'"),
                     11);
    assert_int_equal(
        test_db_integer(path, "SELECT games_played * 10 + wins FROM players WHERE id = 2"), 11);
    assert_int_equal(
        test_db_integer(path, "SELECT length(value) FROM secrets WHERE name = 'cursor'"), 32);
    store_reef_run again = {1, 7, 900, 0, "\"00r\"", NOON_2026_11_24_MS + 2 * DAY_MS};
    int64_t id = 0;
    bool is_repeat = false;
    assert_int_equal(store_reef_run_add(s, &again, &id, &is_repeat), STORE_OK);
    assert_true(is_repeat);
    assert_int_equal(id, 1);
    store_close(s);
}

static void test_database_is_in_wal_mode(void **state)
{
    struct fixture *f = *state;
    char mode[16];
    test_db_text(f->path, "PRAGMA journal_mode", mode, sizeof(mode));
    assert_string_equal(mode, "wal");
}

static void test_file_that_is_not_a_database_is_corrupt(void **state)
{
    struct fixture *f = *state;
    char path[160];
    snprintf(path, sizeof(path), "%s/other.db", f->directory);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    for (int i = 0; i < 512; i++)
        fputs("not a database ", file);
    fclose(file);
    store *s = NULL;
    assert_int_equal(store_open(path, false, &s), STORE_E_CORRUPT);
    assert_null(s);
}

static void test_missing_directory_is_an_io_error(void **state)
{
    struct fixture *f = *state;
    char path[160];
    snprintf(path, sizeof(path), "%s/missing/tessera.db", f->directory);
    store *s = NULL;
    assert_int_equal(store_open(path, false, &s), STORE_E_IO);
    assert_null(s);
}

static void test_memory_database_works_for_tests_above(void **state)
{
    (void)state;
    store *s = NULL;
    assert_int_equal(store_open(":memory:", false, &s), STORE_OK);
    int64_t players[1];
    int64_t game = new_playing_game(s, 1, players);
    store_move m = move_of(game, 0, "skip");
    assert_int_equal(store_move_append(s, &m), STORE_OK);
    store_close(s);
}

static void test_strerror_describes_every_code(void **state)
{
    (void)state;
    for (int code = STORE_OK; code >= STORE_E_INTERNAL; code--)
        assert_string_not_equal(store_strerror(code), "unknown storage error");
    assert_string_equal(store_strerror(-100), "unknown storage error");
    assert_string_equal(store_strerror(1), "unknown storage error");
}

/* Players. */

static void test_secrets_are_stored_only_as_digests(void **state)
{
    struct fixture *f = *state;
    int64_t id;
    new_player(f->s, "ada", "token-ada");
    assert_int_equal(store_bot_account_create(f->s, "bot", "bot", "key-123", 0, &id), STORE_OK);
    assert_int_equal(test_db_integer(f->path, "SELECT count(*) FROM players WHERE"
                                              " token_digest LIKE '%token-ada%'"
                                              " OR bot_key_digest LIKE '%key-123%'"),
                     0);
    char digest[SECRET_DIGEST_HEX_SIZE];
    secret_digest_hex("token-ada", digest);
    char sql[160];
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM players WHERE token_digest = '%s'", digest);
    assert_int_equal(test_db_integer(f->path, sql), 1);
}

static void test_player_is_found_by_token(void **state)
{
    struct fixture *f = *state;
    int64_t id = new_player(f->s, "ada", "token-ada");
    new_player(f->s, "grace", "token-grace");
    store_player p;
    assert_int_equal(store_player_by_token(f->s, "token-ada", &p), STORE_OK);
    assert_int_equal(p.id, id);
    assert_string_equal(p.name, "ada");
    assert_false(p.is_bot);
    assert_int_equal(p.games_played, 0);
    assert_int_equal(p.wins, 0);
    assert_int_equal(store_player_by_id(f->s, id, &p), STORE_OK);
    assert_string_equal(p.name, "ada");
}

static void test_bot_account_is_found_by_key(void **state)
{
    struct fixture *f = *state;
    int64_t id = 0;
    assert_int_equal(store_bot_account_create(f->s, "deep-reef", "deep-reef", "key-123", 0, &id),
                     STORE_OK);
    store_player p;
    assert_int_equal(store_player_by_bot_key(f->s, "key-123", &p), STORE_OK);
    assert_int_equal(p.id, id);
    assert_string_equal(p.name, "deep-reef");
    assert_true(p.is_bot);
    /* A key is not a session token. */
    assert_int_equal(store_player_by_token(f->s, "key-123", &p), STORE_E_NOT_FOUND);
}

static void test_unknown_token_key_and_id_are_not_found(void **state)
{
    struct fixture *f = *state;
    new_player(f->s, "ada", "token-ada");
    store_player p;
    assert_int_equal(store_player_by_token(f->s, "token-nobody", &p), STORE_E_NOT_FOUND);
    assert_int_equal(store_player_by_bot_key(f->s, "token-ada", &p), STORE_E_NOT_FOUND);
    assert_int_equal(store_player_by_id(f->s, 999, &p), STORE_E_NOT_FOUND);
    assert_int_equal(store_player_by_token(f->s, NULL, &p), STORE_E_INVALID);
}

static void test_duplicate_token_or_key_is_refused(void **state)
{
    struct fixture *f = *state;
    int64_t id = 0;
    new_player(f->s, "ada", "token-ada");
    assert_int_equal(store_player_create(f->s, "eve", false, "token-ada", &id), STORE_E_CONSTRAINT);
    assert_int_equal(store_bot_account_create(f->s, "bot", "bot", "key-1", 0, &id), STORE_OK);
    assert_int_equal(store_bot_account_create(f->s, "bot2", "bot2", "key-1", 0, &id),
                     STORE_E_CONSTRAINT);
    /* Players without a token do not collide. */
    assert_int_equal(store_player_create(f->s, "guest", false, NULL, &id), STORE_OK);
    assert_int_equal(store_player_create(f->s, "guest", false, NULL, &id), STORE_OK);
}

static void test_names_with_sql_metacharacters_round_trip(void **state)
{
    struct fixture *f = *state;
    static const char *const names[] = {
        "Robert'); DROP TABLE players;--",
        "\"quoted\" ' '' \\ % _ ?1 :name @x $y",
        "Zo\xc3\xab \xf0\x9f\x90\xa0 \xe7\x8f\x8a\xe7\x91\x9a",
        "a' OR '1'='1",
    };
    int64_t ids[4];
    for (int i = 0; i < 4; i++) {
        char token[64];
        snprintf(token, sizeof(token), "%s-token'--", names[i]);
        ids[i] = new_player(f->s, names[i], token);
    }
    for (int i = 0; i < 4; i++) {
        char token[64];
        snprintf(token, sizeof(token), "%s-token'--", names[i]);
        store_player p;
        assert_int_equal(store_player_by_token(f->s, token, &p), STORE_OK);
        assert_int_equal(p.id, ids[i]);
        assert_string_equal(p.name, names[i]);
    }
    assert_int_equal(test_db_integer(f->path, "SELECT count(*) FROM players"), 4);
}

static void test_names_must_be_1_to_63_bytes(void **state)
{
    struct fixture *f = *state;
    char name[STORE_NAME_SIZE + 1];
    memset(name, 'n', sizeof(name));
    name[STORE_NAME_SIZE - 1] = '\0';
    int64_t id = 0;
    assert_int_equal(store_player_create(f->s, name, false, "t1", &id), STORE_OK);
    assert_string_equal(player(f->s, id).name, name);
    name[STORE_NAME_SIZE - 1] = 'n';
    name[STORE_NAME_SIZE] = '\0';
    assert_int_equal(store_player_create(f->s, name, false, "t2", &id), STORE_E_INVALID);
    assert_int_equal(store_player_create(f->s, "", false, "t3", &id), STORE_E_INVALID);
    assert_int_equal(store_player_create(f->s, NULL, false, "t4", &id), STORE_E_INVALID);
}

/* Games and seats. */

static void test_game_is_created_waiting_then_started(void **state)
{
    struct fixture *f = *state;
    int64_t ada = new_player(f->s, "ada", "token-ada");
    int64_t game = new_game(f->s);
    assert_int_equal(store_seat_set(f->s, game, 0, ada, NULL), STORE_OK);
    assert_int_equal(store_seat_set(f->s, game, 2, 0, "greedy"), STORE_OK);

    store_game_record *record = load(f->s, game);
    assert_int_equal(record->id, game);
    assert_int_equal(record->status, STORE_GAME_WAITING);
    assert_string_equal(record->info.room, "ABCD");
    assert_string_equal(record->info.game, "blokus");
    assert_string_equal(record->info.mode, "4p");
    assert_string_equal(record->info.options, blokus_info().options);
    assert_int_equal(record->info.seed, 42);
    assert_int_equal(record->info.created_at_ms, 1700000000000);
    assert_int_equal(record->started_at_ms, -1);
    assert_int_equal(record->finished_at_ms, -1);
    assert_null(record->result);
    assert_int_equal(record->seat_count, 2);
    assert_int_equal(record->seats[0].seat, 0);
    assert_int_equal(record->seats[0].player_id, ada);
    assert_string_equal(record->seats[0].player_name, "ada");
    assert_string_equal(record->seats[0].bot, "");
    assert_false(record->seats[0].has_result);
    assert_int_equal(record->seats[1].seat, 2);
    assert_int_equal(record->seats[1].player_id, 0);
    assert_string_equal(record->seats[1].player_name, "");
    assert_string_equal(record->seats[1].bot, "greedy");
    assert_int_equal(record->move_count, 0);
    store_game_record_free(record);

    assert_int_equal(store_game_start(f->s, game, 1700000001000), STORE_OK);
    record = load(f->s, game);
    assert_int_equal(record->status, STORE_GAME_PLAYING);
    assert_int_equal(record->started_at_ms, 1700000001000);
    store_game_record_free(record);

    assert_int_equal(store_game_start(f->s, game, 1700000009000), STORE_E_CONSTRAINT);
    assert_int_equal(store_game_start(f->s, 999, 1700000009000), STORE_E_NOT_FOUND);
}

static void test_seat_is_replaced_and_checked(void **state)
{
    struct fixture *f = *state;
    int64_t ada = new_player(f->s, "ada", "token-ada");
    int64_t game = new_game(f->s);
    assert_int_equal(store_seat_set(f->s, game, 1, ada, NULL), STORE_OK);
    assert_int_equal(store_seat_set(f->s, game, 1, 0, "mcts"), STORE_OK);
    assert_int_equal(store_seat_set(f->s, game, 1, -1, "mcts"), STORE_E_INVALID);
    assert_int_equal(store_seat_set(f->s, game, STORE_MAX_SEATS, ada, NULL), STORE_E_INVALID);
    assert_int_equal(store_seat_set(f->s, game, -1, ada, NULL), STORE_E_INVALID);
    assert_int_equal(store_seat_set(f->s, game, 0, 999, NULL), STORE_E_CONSTRAINT);
    assert_int_equal(store_seat_set(f->s, 999, 0, ada, NULL), STORE_E_NOT_FOUND);

    store_game_record *record = load(f->s, game);
    assert_int_equal(record->seat_count, 1);
    assert_int_equal(record->seats[0].player_id, 0);
    assert_string_equal(record->seats[0].bot, "mcts");
    store_game_record_free(record);
}

static void test_unknown_game_kind_and_bad_options_are_invalid(void **state)
{
    struct fixture *f = *state;
    store_game_info info = blokus_info();
    int64_t id = 0;
    info.game = "chess";
    assert_int_equal(store_game_create(f->s, &info, &id), STORE_E_INVALID);
    info = blokus_info();
    info.options = "{\"scoring\":";
    assert_int_equal(store_game_create(f->s, &info, &id), STORE_E_INVALID);
    info = blokus_info();
    info.game = "reef-builder";
    info.mode = "solo";
    assert_int_equal(store_game_create(f->s, &info, &id), STORE_OK);
    assert_int_equal(test_db_integer(f->path, "SELECT count(*) FROM games"), 1);
}

static void test_unknown_game_load_is_not_found(void **state)
{
    struct fixture *f = *state;
    store_game_record *record = (store_game_record *)&record;
    assert_int_equal(store_game_load(f->s, 12345, &record), STORE_E_NOT_FOUND);
    assert_null(record);
}

static void test_seed_above_int64_max_round_trips(void **state)
{
    struct fixture *f = *state;
    store_game_info info = blokus_info();
    info.seed = (UINT64_C(1) << 63) + 5;
    int64_t id = 0;
    assert_int_equal(store_game_create(f->s, &info, &id), STORE_OK);
    store_game_record *record = load(f->s, id);
    assert_true(record->info.seed == (UINT64_C(1) << 63) + 5);
    store_game_record_free(record);
    /* In SQL the column holds the same bits as a signed integer. */
    assert_true(test_db_integer(f->path, "SELECT seed FROM games") == INT64_MIN + 5);
}

/* Moves. */

static void test_moves_load_in_seq_order(void **state)
{
    struct fixture *f = *state;
    int64_t players[2];
    int64_t game = new_playing_game(f->s, 2, players);
    static const char *const actions[] = {
        "I1 0 0 0", "V3 1 1 1", "pass", "L5 7 -2 3", "Z5 3 10 12",
    };
    for (int seq = 0; seq < 5; seq++) {
        store_move m = move_of(game, seq, actions[seq]);
        assert_int_equal(store_move_append(f->s, &m), STORE_OK);
    }
    store_game_record *record = load(f->s, game);
    assert_int_equal(record->move_count, 5);
    for (int seq = 0; seq < 5; seq++) {
        store_move expected = move_of(game, seq, actions[seq]);
        const store_move *m = &record->moves[seq];
        assert_int_equal(m->game_id, game);
        assert_int_equal(m->seq, seq);
        assert_int_equal(m->seat, expected.seat);
        assert_int_equal(m->ply, expected.ply);
        assert_string_equal(m->action, expected.action);
        assert_int_equal(m->elapsed_ms, expected.elapsed_ms);
        assert_int_equal(m->clock_ms, expected.clock_ms);
        assert_int_equal(m->at_ms, expected.at_ms);
    }
    store_game_record_free(record);
}

static void test_duplicate_seq_is_refused_and_changes_nothing(void **state)
{
    struct fixture *f = *state;
    int64_t players[2];
    int64_t game = new_playing_game(f->s, 2, players);
    store_move first = move_of(game, 0, "n 0");
    store_move second = move_of(game, 1, "n 1");
    assert_int_equal(store_move_append(f->s, &first), STORE_OK);
    assert_int_equal(store_move_append(f->s, &second), STORE_OK);

    store_move again = move_of(game, 1, "n again");
    again.seat = 2;
    assert_int_equal(store_move_append(f->s, &again), STORE_E_CONSTRAINT);

    store_game_record *record = load(f->s, game);
    assert_int_equal(record->move_count, 2);
    assert_string_equal(record->moves[1].action, "n 1");
    assert_int_equal(record->moves[1].seat, second.seat);
    store_game_record_free(record);
}

static void test_seq_gap_is_refused(void **state)
{
    struct fixture *f = *state;
    int64_t players[2];
    int64_t game = new_playing_game(f->s, 2, players);
    store_move skipped = move_of(game, 1, "skip");
    assert_int_equal(store_move_append(f->s, &skipped), STORE_E_CONSTRAINT);
    store_move first = move_of(game, 0, "skip");
    assert_int_equal(store_move_append(f->s, &first), STORE_OK);
    store_move gap = move_of(game, 2, "skip");
    assert_int_equal(store_move_append(f->s, &gap), STORE_E_CONSTRAINT);
    assert_int_equal(test_db_integer(f->path, "SELECT count(*) FROM moves"), 1);
}

static void test_moves_need_a_game_being_played(void **state)
{
    struct fixture *f = *state;
    int64_t waiting = new_game(f->s);
    store_move m = move_of(waiting, 0, "skip");
    assert_int_equal(store_move_append(f->s, &m), STORE_E_CONSTRAINT);
    m = move_of(999, 0, "skip");
    assert_int_equal(store_move_append(f->s, &m), STORE_E_CONSTRAINT);

    int64_t players[2];
    int64_t game = new_playing_game(f->s, 2, players);
    assert_int_equal(store_game_finish(f->s, game, STORE_GAME_ABORTED, NULL, 0, NULL, 1), STORE_OK);
    m = move_of(game, 0, "skip");
    assert_int_equal(store_move_append(f->s, &m), STORE_E_CONSTRAINT);
    assert_int_equal(test_db_integer(f->path, "SELECT count(*) FROM moves"), 0);
}

/* An action is a record text (lobby/action_record.h): words of letters,
 * digits and minus signs. JSON, an old writer's form, is refused. */
static void test_move_action_must_be_a_record_text(void **state)
{
    struct fixture *f = *state;
    int64_t players[1];
    int64_t game = new_playing_game(f->s, 1, players);
    store_move m = move_of(game, 0, "{\"piece\":\"I1\",\"orientation\":0,\"row\":0,\"col\":0}");
    assert_int_equal(store_move_append(f->s, &m), STORE_E_INVALID);
    m.action = "place I1 at 0,0";
    assert_int_equal(store_move_append(f->s, &m), STORE_E_INVALID);
    m.action = "";
    assert_int_equal(store_move_append(f->s, &m), STORE_E_INVALID);
    m.action = NULL;
    assert_int_equal(store_move_append(f->s, &m), STORE_E_INVALID);
    m.action = "I1 0 0 0";
    assert_int_equal(store_move_append(f->s, &m), STORE_OK);
}

static void test_appended_move_survives_reopen(void **state)
{
    struct fixture *f = *state;
    int64_t players[2];
    int64_t game = new_playing_game(f->s, 2, players);
    store_move m = move_of(game, 0, "0 0 0");
    assert_int_equal(store_move_append(f->s, &m), STORE_OK);
    reopen(f, true);
    m = move_of(game, 1, "skip");
    assert_int_equal(store_move_append(f->s, &m), STORE_OK);
    reopen(f, false);

    store_game_record *record = load(f->s, game);
    assert_int_equal(record->status, STORE_GAME_PLAYING);
    assert_int_equal(record->move_count, 2);
    assert_string_equal(record->moves[0].action, "0 0 0");
    assert_string_equal(record->moves[1].action, "skip");
    store_game_record_free(record);
}

/* Finishing. */

static const char *const RESULT = "{\"scores\":[40,31,12],\"winners\":[0]}";

static void finish_three_seats(store *s, int64_t game, int expected)
{
    store_seat_result results[] = {
        {.seat = 0, .score = 40, .rank = 1, .is_winner = true},
        {.seat = 1, .score = 31, .rank = 2, .is_winner = false},
        {.seat = 2, .score = 12, .rank = 3, .is_winner = false},
    };
    assert_int_equal(
        store_game_finish(s, game, STORE_GAME_FINISHED, RESULT, 3, results, 1700000009000),
        expected);
}

static void test_finish_records_seats_and_counters(void **state)
{
    struct fixture *f = *state;
    int64_t players[2];
    int64_t game = new_playing_game(f->s, 2, players);
    finish_three_seats(f->s, game, STORE_OK);

    store_game_record *record = load(f->s, game);
    assert_int_equal(record->status, STORE_GAME_FINISHED);
    assert_string_equal(record->result, RESULT);
    assert_int_equal(record->finished_at_ms, 1700000009000);
    assert_int_equal(record->seat_count, 3);
    assert_true(record->seats[0].has_result);
    assert_int_equal(record->seats[0].score, 40);
    assert_int_equal(record->seats[0].rank, 1);
    assert_true(record->seats[0].is_winner);
    assert_int_equal(record->seats[1].score, 31);
    assert_int_equal(record->seats[1].rank, 2);
    assert_false(record->seats[1].is_winner);
    assert_string_equal(record->seats[2].bot, "mcts");
    assert_int_equal(record->seats[2].rank, 3);
    store_game_record_free(record);

    assert_int_equal(player(f->s, players[0]).games_played, 1);
    assert_int_equal(player(f->s, players[0]).wins, 1);
    assert_int_equal(player(f->s, players[1]).games_played, 1);
    assert_int_equal(player(f->s, players[1]).wins, 0);
}

static void test_second_finish_is_refused_and_changes_nothing(void **state)
{
    struct fixture *f = *state;
    int64_t players[2];
    int64_t game = new_playing_game(f->s, 2, players);
    finish_three_seats(f->s, game, STORE_OK);

    store_seat_result flipped[] = {
        {.seat = 0, .score = 1, .rank = 2, .is_winner = false},
        {.seat = 1, .score = 99, .rank = 1, .is_winner = true},
    };
    assert_int_equal(
        store_game_finish(f->s, game, STORE_GAME_ABORTED, "{}", 2, flipped, 1700000099000),
        STORE_E_CONSTRAINT);
    finish_three_seats(f->s, game, STORE_E_CONSTRAINT);

    store_game_record *record = load(f->s, game);
    assert_int_equal(record->status, STORE_GAME_FINISHED);
    assert_string_equal(record->result, RESULT);
    assert_int_equal(record->finished_at_ms, 1700000009000);
    assert_int_equal(record->seats[0].score, 40);
    assert_int_equal(record->seats[1].score, 31);
    store_game_record_free(record);
    assert_int_equal(player(f->s, players[0]).games_played, 1);
    assert_int_equal(player(f->s, players[0]).wins, 1);
    assert_int_equal(player(f->s, players[1]).wins, 0);
}

static void test_failed_finish_changes_nothing(void **state)
{
    struct fixture *f = *state;
    int64_t players[2];
    int64_t game = new_playing_game(f->s, 2, players);
    /* Seat 3 was never set: the last write fails after the others ran. */
    store_seat_result results[] = {
        {.seat = 0, .score = 40, .rank = 1, .is_winner = true},
        {.seat = 3, .score = 0, .rank = 2, .is_winner = false},
    };
    assert_int_equal(store_game_finish(f->s, game, STORE_GAME_FINISHED, RESULT, 2, results, 5),
                     STORE_E_NOT_FOUND);

    store_game_record *record = load(f->s, game);
    assert_int_equal(record->status, STORE_GAME_PLAYING);
    assert_null(record->result);
    assert_int_equal(record->finished_at_ms, -1);
    assert_false(record->seats[0].has_result);
    store_game_record_free(record);
    assert_int_equal(player(f->s, players[0]).games_played, 0);
    assert_int_equal(player(f->s, players[0]).wins, 0);

    /* The game can still be finished properly. */
    finish_three_seats(f->s, game, STORE_OK);
}

static void test_finish_arguments_are_checked(void **state)
{
    struct fixture *f = *state;
    int64_t players[1];
    int64_t game = new_playing_game(f->s, 1, players);
    assert_int_equal(store_game_finish(f->s, game, STORE_GAME_PLAYING, NULL, 0, NULL, 5),
                     STORE_E_INVALID);
    assert_int_equal(store_game_finish(f->s, game, STORE_GAME_FINISHED, "not json", 0, NULL, 5),
                     STORE_E_INVALID);
    assert_int_equal(store_game_finish(f->s, game, STORE_GAME_FINISHED, NULL, 1, NULL, 5),
                     STORE_E_INVALID);
    assert_int_equal(store_game_finish(f->s, 999, STORE_GAME_FINISHED, NULL, 0, NULL, 5),
                     STORE_E_NOT_FOUND);
    store_game_record *record = load(f->s, game);
    assert_int_equal(record->status, STORE_GAME_PLAYING);
    store_game_record_free(record);
}

static void test_aborted_game_counts_for_no_one(void **state)
{
    struct fixture *f = *state;
    int64_t players[2];
    int64_t game = new_playing_game(f->s, 2, players);
    store_seat_result results[] = {{.seat = 0, .score = 5, .rank = 1, .is_winner = true}};
    assert_int_equal(store_game_finish(f->s, game, STORE_GAME_ABORTED, NULL, 1, results, 5),
                     STORE_OK);
    store_game_record *record = load(f->s, game);
    assert_int_equal(record->status, STORE_GAME_ABORTED);
    assert_true(record->seats[0].has_result);
    store_game_record_free(record);
    assert_int_equal(player(f->s, players[0]).games_played, 0);
    assert_int_equal(player(f->s, players[0]).wins, 0);
}

static void test_player_in_two_seats_plays_one_game(void **state)
{
    struct fixture *f = *state;
    int64_t bot = 0;
    assert_int_equal(store_bot_account_create(f->s, "twin", "twin", "key-twin", 0, &bot), STORE_OK);
    int64_t game = new_game(f->s);
    assert_int_equal(store_seat_set(f->s, game, 0, bot, NULL), STORE_OK);
    assert_int_equal(store_seat_set(f->s, game, 1, bot, NULL), STORE_OK);
    assert_int_equal(store_game_start(f->s, game, 1), STORE_OK);
    store_seat_result results[] = {
        {.seat = 0, .score = 10, .rank = 1, .is_winner = true},
        {.seat = 1, .score = 10, .rank = 1, .is_winner = true},
    };
    assert_int_equal(store_game_finish(f->s, game, STORE_GAME_FINISHED, NULL, 2, results, 5),
                     STORE_OK);
    assert_int_equal(player(f->s, bot).games_played, 1);
    assert_int_equal(player(f->s, bot).wins, 1);
}

/* Accounts. */

#define HASH "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA"

static void test_account_is_found_by_name_in_any_case(void **state)
{
    struct fixture *f = *state;
    int64_t id = 0;
    assert_int_equal(store_account_create(f->s, "Ada", "ada", HASH, "token-ada", &id), STORE_OK);
    store_account account;
    assert_int_equal(store_account_by_name(f->s, "ada", &account), STORE_OK);
    assert_int_equal(account.id, id);
    assert_string_equal(account.name, "Ada");
    assert_false(account.is_bot);
    assert_int_equal(account.owner_id, 0);
    assert_string_equal(account.password_hash, HASH);
    store_player p;
    assert_int_equal(store_player_by_token(f->s, "token-ada", &p), STORE_OK);
    assert_int_equal(p.id, id);
    assert_true(p.is_account);
    assert_int_equal(store_account_by_name(f->s, "grace", &account), STORE_E_NOT_FOUND);
}

static void test_a_name_is_taken_in_every_case_by_accounts_and_bots(void **state)
{
    struct fixture *f = *state;
    int64_t id = 0;
    assert_int_equal(store_account_create(f->s, "Ada", "ada", HASH, "t1", &id), STORE_OK);
    assert_int_equal(store_account_create(f->s, "ADA", "ada", HASH, "t2", &id), STORE_E_CONSTRAINT);
    assert_int_equal(store_bot_account_create(f->s, "aDa", "ada", "k1", 0, &id),
                     STORE_E_CONSTRAINT);
    assert_int_equal(store_bot_account_create(f->s, "Reef", "reef", "k2", 0, &id), STORE_OK);
    assert_int_equal(store_account_create(f->s, "REEF", "reef", HASH, "t3", &id),
                     STORE_E_CONSTRAINT);
    /* Guests are not named: any number of them may be called "ada". */
    new_player(f->s, "ada", "t4");
    new_player(f->s, "ADA", "t5");
    assert_int_equal(test_db_integer(f->path, "SELECT count(*) FROM players"), 4);
}

static void test_a_name_key_must_be_the_names_own(void **state)
{
    struct fixture *f = *state;
    int64_t id = 0;
    assert_int_equal(store_account_create(f->s, "Ada", "bob", HASH, "t1", &id), STORE_E_INVALID);
    assert_int_equal(store_account_create(f->s, "Ada", "Ada", HASH, "t1", &id), STORE_E_INVALID);
    assert_int_equal(store_account_create(f->s, "Ada", "ada", NULL, "t1", &id), STORE_E_INVALID);
    assert_int_equal(store_bot_account_create(f->s, "Bot", NULL, "k", 0, &id), STORE_E_INVALID);
    assert_int_equal(test_db_integer(f->path, "SELECT count(*) FROM players"), 0);
}

static void test_a_guest_claims_a_name_and_keeps_its_games(void **state)
{
    struct fixture *f = *state;
    int64_t guest = new_player(f->s, "ada", "guest-token");
    int64_t game = new_game(f->s);
    assert_int_equal(store_seat_set(f->s, game, 0, guest, NULL), STORE_OK);
    assert_int_equal(store_account_claim(f->s, guest, "Ada", "ada", HASH, "account-token"),
                     STORE_OK);
    store_player p;
    assert_int_equal(store_player_by_token(f->s, "guest-token", &p), STORE_E_NOT_FOUND);
    assert_int_equal(store_player_by_token(f->s, "account-token", &p), STORE_OK);
    assert_int_equal(p.id, guest);
    assert_string_equal(p.name, "Ada");
    assert_true(p.is_account);
    store_game_record *record = load(f->s, game);
    assert_int_equal(record->seats[0].player_id, guest);
    store_game_record_free(record);
    /* An account cannot claim again, nor a bot, nor nobody. */
    assert_int_equal(store_account_claim(f->s, guest, "Eve", "eve", HASH, "t2"), STORE_E_NOT_FOUND);
    int64_t bot = 0;
    assert_int_equal(store_bot_account_create(f->s, "Reef", "reef", "k", 0, &bot), STORE_OK);
    assert_int_equal(store_account_claim(f->s, bot, "Eve", "eve", HASH, "t3"), STORE_E_NOT_FOUND);
    assert_int_equal(store_account_claim(f->s, 999, "Eve", "eve", HASH, "t4"), STORE_E_NOT_FOUND);
}

static void test_a_claimed_name_must_be_free(void **state)
{
    struct fixture *f = *state;
    int64_t id = 0;
    assert_int_equal(store_account_create(f->s, "Ada", "ada", HASH, "t1", &id), STORE_OK);
    int64_t guest = new_player(f->s, "ada", "guest-token");
    assert_int_equal(store_account_claim(f->s, guest, "ADA", "ada", HASH, "t2"),
                     STORE_E_CONSTRAINT);
    store_player p;
    assert_int_equal(store_player_by_token(f->s, "guest-token", &p), STORE_OK);
    assert_false(p.is_account);
}

static void test_a_new_token_replaces_the_old(void **state)
{
    struct fixture *f = *state;
    int64_t id = 0;
    assert_int_equal(store_account_create(f->s, "Ada", "ada", HASH, "first", &id), STORE_OK);
    assert_int_equal(store_player_token_set(f->s, id, "second"), STORE_OK);
    store_player p;
    assert_int_equal(store_player_by_token(f->s, "first", &p), STORE_E_NOT_FOUND);
    assert_int_equal(store_player_by_token(f->s, "second", &p), STORE_OK);
    assert_int_equal(store_player_token_set(f->s, 999, "third"), STORE_E_NOT_FOUND);
}

static void test_bot_key_is_rotated_and_revoked(void **state)
{
    struct fixture *f = *state;
    int64_t owner = 0, bot = 0;
    assert_int_equal(store_account_create(f->s, "Ada", "ada", HASH, "t1", &owner), STORE_OK);
    assert_int_equal(store_bot_account_create(f->s, "Reef", "reef", "old-key", owner, &bot),
                     STORE_OK);
    store_account account;
    assert_int_equal(store_account_by_name(f->s, "reef", &account), STORE_OK);
    assert_true(account.is_bot);
    assert_int_equal(account.owner_id, owner);
    assert_string_equal(account.password_hash, "");
    assert_int_equal(store_bot_key_set(f->s, bot, "new-key"), STORE_OK);
    store_player p;
    assert_int_equal(store_player_by_bot_key(f->s, "old-key", &p), STORE_E_NOT_FOUND);
    assert_int_equal(store_player_by_bot_key(f->s, "new-key", &p), STORE_OK);
    assert_int_equal(p.id, bot);
    assert_int_equal(store_bot_key_set(f->s, bot, NULL), STORE_OK);
    assert_int_equal(store_player_by_bot_key(f->s, "new-key", &p), STORE_E_NOT_FOUND);
    /* Only bot accounts have keys. */
    assert_int_equal(store_bot_key_set(f->s, owner, "k"), STORE_E_NOT_FOUND);
    assert_int_equal(store_bot_key_set(f->s, 999, "k"), STORE_E_NOT_FOUND);
}

/* A dropped connection: the statement that meets it fails (the caller's
 * batch is refused), the next connects again and goes on. */
static void test_a_dropped_connection_fails_one_call_then_reconnects(void **state)
{
    struct fixture *f = *state;
    int64_t ada = new_player(f->s, "ada", "t-ada");
    test_db_cut_connections(&f->db);
    int64_t id = 0;
    assert_int_equal(store_player_create(f->s, "bea", false, "t-bea", &id), STORE_E_IO);
    assert_int_equal(store_player_create(f->s, "bea", false, "t-bea", &id), STORE_OK);
    store_player found;
    assert_int_equal(store_player_by_token(f->s, "t-ada", &found), STORE_OK);
    assert_int_equal(found.id, ada);
    assert_int_equal(store_player_by_token(f->s, "t-bea", &found), STORE_OK);
    assert_int_equal(found.id, id);
}

static int64_t sessions_named(const struct fixture *f, const char *name)
{
    char sql[160];
    snprintf(sql, sizeof(sql),
             "SELECT count(*) FROM pg_stat_activity WHERE application_name = '%s'", name);
    return test_db_integer(f->db.path, sql);
}

/* A killed instance's session may still be applying its last commit when
 * the instance starts again: the restart ends the sessions of its earlier
 * lives (and waits for them) before it takes its rooms back. A takeover
 * of run-out leases, and other instances' sessions, are left alone. */
static void test_a_restart_ends_its_earlier_lives_sessions(void **state)
{
    struct fixture *f = *state;
    test_db_hold *earlier = test_db_hold_begin(f->db.path, "SET application_name = 'tessera:a:1'");
    test_db_hold *other = test_db_hold_begin(f->db.path, "SET application_name = 'tessera:b:1'");
    store_name_sessions('a');
    char expected[STORE_SESSION_NAME_SIZE];
    snprintf(expected, sizeof(expected), "tessera:a:%ld", (long)getpid());
    assert_string_equal(store_session_name(), expected);
    int64_t *ids = NULL;
    int count = 0;
    store_leases_taken taken;
    assert_int_equal(store_leases_take(f->s, 'a', 0, 1000, false, &ids, &count, &taken), STORE_OK);
    free(ids);
    assert_int_equal(sessions_named(f, "tessera:a:1"), 1);
    assert_int_equal(store_leases_take(f->s, 'a', 0, 1000, true, &ids, &count, &taken), STORE_OK);
    free(ids);
    assert_int_equal(sessions_named(f, "tessera:a:1"), 0);
    assert_int_equal(sessions_named(f, "tessera:b:1"), 1);
    store_name_sessions('\0');
    assert_string_equal(store_session_name(), "tessera");
    test_db_hold_end(other);
    test_db_hold_end(earlier); /* its COMMIT fails: the session is gone */
}

/* Reads every column of a one-row statement on PostgreSQL: `sql` with ?1
 * bound to 2^40 + 1. */
static void assert_columns_read_alike(store *storage, int id, const char *sql)
{
    store_stmt stmt = {0};
    assert_int_equal(store_pg_prepare(storage, &stmt, id, sql), STORE_OK);
    int bound = STORE_OK;
    store_bind_int64(&stmt, 1, (INT64_C(1) << 40) + 1, &bound);
    assert_int_equal(store_step_row(&stmt, bound), STORE_OK);
    assert_true(store_column_int64(&stmt, 0) == (INT64_C(1) << 40) + 1);
    assert_string_equal(store_column_text(&stmt, 0), "1099511627777");
    assert_int_equal(store_column_int(&stmt, 1), -7);
    assert_string_equal(store_column_text(&stmt, 1), "-7");
    assert_int_equal(store_pg_column_length(stmt.pg, 1), 2);
    assert_int_equal(store_column_int(&stmt, 2), 3);
    assert_true(store_column_double(&stmt, 3) == 0.1); /* exactly the nearest double */
    assert_int_equal(store_column_int64(&stmt, 3), 0);
    assert_true(store_column_double(&stmt, 4) == 1.5);
    assert_int_equal(store_column_int(&stmt, 5), 1); /* a condition reads as 1 or 0 */
    assert_int_equal(store_column_int(&stmt, 6), 0);
    assert_string_equal(store_column_text(&stmt, 7), "ada");
    assert_int_equal(store_pg_column_length(stmt.pg, 7), 3);
    assert_true(store_column_is_null(&stmt, 8));
    assert_null(store_column_text(&stmt, 8));
    assert_int_equal(store_column_int64(&stmt, 8), 0);
    size_t size = 0;
    const unsigned char *blob = store_column_blob(&stmt, 9, &size);
    assert_int_equal(size, 2);
    assert_true(blob[0] == 0x00 && blob[1] == 0xff);
    assert_false(store_column_is_null(&stmt, 9));
    assert_int_equal(store_step_row(&stmt, STORE_OK), STORE_E_NOT_FOUND);
    store_pg_free(stmt.pg);
}

/* Results come in binary when the statement's columns are all of types
 * read so (store_pg.c), else as text: both read as SQLite's columns do. */
static void test_binary_and_text_results_read_alike(void **state)
{
    struct fixture *f = *state;
#define EVERY_KIND                                                                                 \
    "SELECT CAST(?1 AS BIGINT), CAST(-7 AS INTEGER), CAST(3 AS SMALLINT),"                         \
    " CAST(0.1 AS DOUBLE PRECISION), CAST(1.5 AS REAL), 1 = 1, 1 = 2, 'ada', CAST(NULL AS TEXT),"  \
    " CAST('\\x00ff' AS BYTEA)"
    assert_columns_read_alike(f->s, 9001, EVERY_KIND);
    assert_columns_read_alike(f->s, 9002, EVERY_KIND ", CAST(2 AS NUMERIC)"); /* text */
#undef EVERY_KIND
}

static void test_a_urls_password_is_hidden_in_logs(void **state)
{
    (void)state;
    char shown[128];
    store_path_for_log("postgresql://ada:s3cret@db:5432/tessera", shown, sizeof(shown));
    assert_string_equal(shown, "postgresql://ada:***@db:5432/tessera");
    store_path_for_log("postgres:///tessera?host=/run&password=x&user=a", shown, sizeof(shown));
    assert_string_equal(shown, "postgres:///tessera?host=/run&password=***&user=a");
    store_path_for_log("postgresql://ada@db/t?sslmode=require", shown, sizeof(shown));
    assert_string_equal(shown, "postgresql://ada@db/t?sslmode=require");
    store_path_for_log("./data/pass:word@x.db", shown, sizeof(shown));
    assert_string_equal(shown, "./data/pass:word@x.db");
    assert_true(store_path_is_postgres("postgres://x") && store_path_is_postgres("postgresql://"));
    assert_false(store_path_is_postgres("./postgresql://x"));
}

/* Recovery. */

/* The query plan of `sql` on a raw connection, its details joined by "; ". */
static void raw_plan(const char *path, const char *sql, char *out, size_t size)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *stmt = NULL;
    char explain[512];
    snprintf(explain, sizeof(explain), "EXPLAIN QUERY PLAN %s", sql);
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, explain, -1, &stmt, NULL), SQLITE_OK);
    out[0] = '\0';
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s; ", (const char *)sqlite3_column_text(stmt, 3));
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

/* Unclaimed guests that nothing stored names are deleted once old enough,
 * a batch at a time, oldest first, from where the last batch stopped; a
 * guest with a seat or a Reef run, a held one, a young one and an account
 * stay (issue 16, item 12). */
static void test_unclaimed_guests_expire_in_batches_from_a_cursor(void **state)
{
    struct fixture *f = *state;
    int64_t seated[1];
    new_playing_game(f->s, 1, seated); /* a seat names it */
    int64_t with_run = new_player(f->s, "runner", "t-run");
    store_reef_run run = {.player_id = with_run, .seed = 7, .actions = "[]", .at_ms = 1};
    int64_t run_id = 0;
    bool is_repeat = true;
    assert_int_equal(store_reef_run_add(f->s, &run, &run_id, &is_repeat), STORE_OK);
    assert_false(is_repeat);
    int64_t gone = new_player(f->s, "gone", "t-gone");
    int64_t held = new_player(f->s, "held", "t-held");
    int64_t young = new_player(f->s, "young", "t-young");
    int64_t account = 0, gone_too = new_player(f->s, "gone too", "t-gone-too");
    assert_int_equal(store_account_create(f->s, "Ada", "ada", "$argon2id$x", "t-ada", &account),
                     STORE_OK);
    test_db_execute(f->path, "UPDATE players SET created_at = 1000 + id");
    char sql[128];
    snprintf(sql, sizeof(sql), "UPDATE players SET created_at = 9000 WHERE id = %lld",
             (long long)young);
    test_db_execute(f->path, sql);

    store_guest_cursor cursor = {0, 0};
    int looked_at = -1, deleted = -1;
    assert_int_equal(store_guests_expire(f->s, 5000, 3, &cursor, &held, 1, &looked_at, &deleted),
                     STORE_OK);
    assert_int_equal(looked_at, 3); /* seated, with_run, gone */
    assert_int_equal(deleted, 1);
    assert_int_equal(cursor.id, gone);
    assert_int_equal(store_player_by_id(f->s, gone, &(store_player){0}), STORE_E_NOT_FOUND);
    assert_int_equal(store_player_by_token(f->s, "t-gone", &(store_player){0}), STORE_E_NOT_FOUND);
    assert_int_equal(store_guests_expire(f->s, 5000, 3, &cursor, &held, 1, &looked_at, &deleted),
                     STORE_OK);
    assert_int_equal(looked_at, 2); /* held, gone too; not the young one, nor the account */
    assert_int_equal(deleted, 1);
    assert_int_equal(store_player_by_id(f->s, gone_too, &(store_player){0}), STORE_E_NOT_FOUND);
    assert_int_equal(store_guests_expire(f->s, 5000, 3, &cursor, &held, 1, &looked_at, &deleted),
                     STORE_OK);
    assert_int_equal(looked_at, 0); /* caught up: nothing is looked at twice */
    assert_int_equal(test_db_integer(f->path, "SELECT count(*) FROM players"), 5);
    assert_int_equal(store_guests_expire(f->s, 5000, STORE_GUESTS_EXPIRE_MAX + 1, &cursor, &held, 1,
                                         &looked_at, &deleted),
                     STORE_E_INVALID);

    /* The walk is an index range, never a scan of the players (the query of
     * store_players.c's STORE_SQL_GUESTS_OLDEST): SQLite's plan. */
    if (test_db_is_postgres())
        return;
    char plan[512];
    raw_plan(f->path,
             "SELECT id, created_at FROM players WHERE name_key IS NULL AND (created_at, id) >"
             " (?1, ?2) AND created_at < ?3 ORDER BY created_at, id LIMIT ?4",
             plan, sizeof(plan));
    assert_non_null(strstr(plan, "SEARCH players USING INDEX players_guests_by_age"));
    assert_null(strstr(plan, "SCAN"));
}

static void test_unfinished_games_are_listed(void **state)
{
    struct fixture *f = *state;
    int64_t *ids = (int64_t *)&ids;
    int count = -1;
    assert_int_equal(store_unfinished_games(f->s, &ids, &count), STORE_OK);
    assert_int_equal(count, 0);
    assert_null(ids);

    int64_t players[2];
    int64_t waiting = new_game(f->s);
    int64_t finished = new_playing_game(f->s, 2, players);
    int64_t playing = new_playing_game(f->s, 2, players);
    int64_t aborted = new_game(f->s);
    finish_three_seats(f->s, finished, STORE_OK);
    assert_int_equal(store_game_finish(f->s, aborted, STORE_GAME_ABORTED, NULL, 0, NULL, 5),
                     STORE_OK);

    assert_int_equal(store_unfinished_games(f->s, &ids, &count), STORE_OK);
    assert_int_equal(count, 2);
    assert_int_equal(ids[0], waiting);
    assert_int_equal(ids[1], playing);
    free(ids);
}

/* A game in room `room`, waiting. */
static int64_t new_game_in(store *s, const char *room)
{
    store_game_info info = blokus_info();
    info.room = room;
    int64_t id = 0;
    assert_int_equal(store_game_create(s, &info, &id), STORE_OK);
    return id;
}

static char lease_holder(store *s, const char *room, int64_t *expires_at_ms)
{
    store_lease lease = {0};
    int rc = store_lease_of_room(s, room, &lease);
    if (rc == STORE_E_NOT_FOUND)
        return '\0';
    assert_int_equal(rc, STORE_OK);
    if (expires_at_ms)
        *expires_at_ms = lease.expires_at_ms;
    return lease.instance;
}

/* Leases are renewed by their instance only; a take gets the rooms whose
 * leases ran out, with their unfinished games, and nothing another
 * instance still holds; a room with no game under way loses its lease. */
static void test_leases_are_renewed_and_run_out_rooms_taken(void **state)
{
    struct fixture *f = *state;
    int64_t a1 = new_game_in(f->s, "a1aaaaaa"), a2 = new_game_in(f->s, "a2aaaaaa");
    int64_t b1 = new_game_in(f->s, "b1bbbbbb");
    int64_t a2_rematch = new_game_in(f->s, "a2aaaaaa");
    new_game_in(f->s, "a3aaaaaa");
    assert_int_equal(store_game_finish(f->s, new_game_in(f->s, "a4aaaaaa"), STORE_GAME_ABORTED,
                                       NULL, 0, NULL, 5),
                     STORE_OK);
    assert_int_equal(store_lease_set(f->s, "a1aaaaaa", 'a', 1000), STORE_OK);
    assert_int_equal(store_lease_set(f->s, "a2aaaaaa", 'a', 1000), STORE_OK);
    assert_int_equal(store_lease_set(f->s, "a4aaaaaa", 'a', 1000), STORE_OK);
    assert_int_equal(store_lease_set(f->s, "b1bbbbbb", 'b', 1000), STORE_OK);
    assert_int_equal(store_lease_set(f->s, "x", '\0', 1000), STORE_E_INVALID);
    store_rooms held = {0};
    assert_int_equal(store_leases_renew(f->s, 'b', 3000, &held), STORE_OK);
    assert_int_equal(held.count, 1);
    assert_true(store_rooms_hold(&held, "b1bbbbbb"));
    assert_false(store_rooms_hold(&held, "a1aaaaaa"));
    store_rooms_free(&held);
    int64_t until = 0;
    assert_int_equal(lease_holder(f->s, "b1bbbbbb", &until), 'b');
    assert_int_equal(until, 3000);
    assert_int_equal(lease_holder(f->s, "a1aaaaaa", &until), 'a');
    assert_int_equal(until, 1000);
    assert_int_equal(lease_holder(f->s, "nothere", NULL), '\0');

    /* At 2000 a's leases have run out and b's have not: c takes a's. */
    int64_t *ids = NULL;
    int count = -1;
    store_leases_taken taken = {.tournaments = -1};
    assert_int_equal(store_leases_take(f->s, 'c', 2000, 5000, false, &ids, &count, &taken),
                     STORE_OK);
    assert_int_equal(count, 3);
    assert_int_equal(taken.tournaments, 0);
    assert_true(taken.has_queue); /* the first to look makes quick play's lease and takes it */
    assert_int_equal(ids[0], a1);
    assert_int_equal(ids[1], a2);
    assert_int_equal(ids[2], a2_rematch);
    free(ids);
    assert_int_equal(lease_holder(f->s, "a1aaaaaa", &until), 'c');
    assert_int_equal(until, 5000);
    assert_int_equal(lease_holder(f->s, "b1bbbbbb", NULL), 'b');
    assert_int_equal(lease_holder(f->s, "a4aaaaaa", NULL), '\0'); /* its game is over */
    /* Taken once: a second pass at the same time finds nothing. */
    assert_int_equal(store_leases_take(f->s, 'd', 2000, 5000, false, &ids, &count, &taken),
                     STORE_OK);
    assert_int_equal(count, 0);
    assert_null(ids);
    assert_false(taken.has_queue); /* c's */
    assert_int_equal(lease_holder(f->s, STORE_QUEUE_LEASE, NULL), 'c');

    /* b restarts: it takes its own back at once, and the unfinished game
     * that has no lease (a3, from before there were leases). */
    assert_int_equal(store_leases_take(f->s, 'b', 2000, 6000, true, &ids, &count, &taken),
                     STORE_OK);
    assert_int_equal(count, 2);
    assert_int_equal(ids[0], b1);
    assert_int_equal(lease_holder(f->s, "b1bbbbbb", &until), 'b');
    assert_int_equal(until, 6000);
    assert_int_equal(lease_holder(f->s, "a3aaaaaa", NULL), 'b');
    assert_int_equal(lease_holder(f->s, "a1aaaaaa", NULL), 'c');
    free(ids);

    /* The game's end drops its room's lease. */
    assert_int_equal(store_lease_drop_of_game(f->s, a1), STORE_OK);
    assert_int_equal(lease_holder(f->s, "a1aaaaaa", NULL), '\0');
}

#define STORE_TEST(name)    cmocka_unit_test_setup_teardown(name, setup, teardown)
#define SQLITE_TEST(name)   TEST_DB_SQLITE_ONLY(name, setup, teardown)
#define SQLITE_PLAIN(name)  TEST_DB_SQLITE_ONLY(name, NULL, NULL)
#define POSTGRES_TEST(name) TEST_DB_POSTGRES_ONLY(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        STORE_TEST(test_open_creates_the_current_schema),
        STORE_TEST(test_reopening_migrated_database_is_idempotent),
        STORE_TEST(test_version_9_reef_boards_get_their_counts),
        STORE_TEST(test_version_10_seats_get_their_players),
        STORE_TEST(test_a_seat_shows_its_player_as_it_is_now),
        POSTGRES_TEST(test_a_claim_racing_a_seat_renames_it),
        STORE_TEST(test_newer_schema_version_is_refused),
        SQLITE_TEST(test_version_4_history_is_migrated),
        SQLITE_TEST(test_database_is_in_wal_mode),
        SQLITE_TEST(test_file_that_is_not_a_database_is_corrupt),
        SQLITE_TEST(test_missing_directory_is_an_io_error),
        SQLITE_PLAIN(test_memory_database_works_for_tests_above),
        cmocka_unit_test(test_strerror_describes_every_code),
        STORE_TEST(test_secrets_are_stored_only_as_digests),
        STORE_TEST(test_player_is_found_by_token),
        STORE_TEST(test_account_is_found_by_name_in_any_case),
        STORE_TEST(test_a_name_is_taken_in_every_case_by_accounts_and_bots),
        STORE_TEST(test_a_name_key_must_be_the_names_own),
        STORE_TEST(test_a_guest_claims_a_name_and_keeps_its_games),
        STORE_TEST(test_a_claimed_name_must_be_free),
        STORE_TEST(test_a_new_token_replaces_the_old),
        STORE_TEST(test_unclaimed_guests_expire_in_batches_from_a_cursor),
        STORE_TEST(test_bot_key_is_rotated_and_revoked),
        STORE_TEST(test_bot_account_is_found_by_key),
        STORE_TEST(test_unknown_token_key_and_id_are_not_found),
        STORE_TEST(test_duplicate_token_or_key_is_refused),
        STORE_TEST(test_names_with_sql_metacharacters_round_trip),
        STORE_TEST(test_names_must_be_1_to_63_bytes),
        STORE_TEST(test_game_is_created_waiting_then_started),
        STORE_TEST(test_seat_is_replaced_and_checked),
        STORE_TEST(test_unknown_game_kind_and_bad_options_are_invalid),
        STORE_TEST(test_unknown_game_load_is_not_found),
        STORE_TEST(test_seed_above_int64_max_round_trips),
        STORE_TEST(test_moves_load_in_seq_order),
        STORE_TEST(test_duplicate_seq_is_refused_and_changes_nothing),
        STORE_TEST(test_seq_gap_is_refused),
        STORE_TEST(test_moves_need_a_game_being_played),
        STORE_TEST(test_move_action_must_be_a_record_text),
        STORE_TEST(test_appended_move_survives_reopen),
        STORE_TEST(test_finish_records_seats_and_counters),
        STORE_TEST(test_second_finish_is_refused_and_changes_nothing),
        STORE_TEST(test_failed_finish_changes_nothing),
        STORE_TEST(test_finish_arguments_are_checked),
        STORE_TEST(test_aborted_game_counts_for_no_one),
        STORE_TEST(test_player_in_two_seats_plays_one_game),
        STORE_TEST(test_unfinished_games_are_listed),
        STORE_TEST(test_leases_are_renewed_and_run_out_rooms_taken),
        POSTGRES_TEST(test_a_dropped_connection_fails_one_call_then_reconnects),
        POSTGRES_TEST(test_binary_and_text_results_read_alike),
        POSTGRES_TEST(test_a_restart_ends_its_earlier_lives_sessions),
        cmocka_unit_test(test_a_urls_password_is_hidden_in_logs),
    };
    if (secret_init() != 0)
        return 1;
    return test_db_run(tests, sizeof(tests) / sizeof(tests[0]));
}

/* test_store_migrate.c -- `tessera migrate`: a SQLite database with a row in
 * every table, values at their edges (text with tabs, backslashes, line
 * breaks and non-ASCII letters, a seed past INT64_MAX, NULLs, reals with
 * every digit, the page-cursor key), copied into a new PostgreSQL
 * database: every table reads the same on both, the ids go on from the
 * largest copied, the store works on the copy, and a second copy into the
 * same database is refused and changes nothing. It runs on PostgreSQL only
 * (unit_store_migrate_pg, test_db.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "storage/store.h"
#include "storage/store_migrate.h"
#include "storage/store_read.h"
#include "tests/unit/test_db.h"

struct fixture {
    test_db db;     /* the PostgreSQL database copied into */
    char from[128]; /* the SQLite file copied from */
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    if (!f || test_db_make(&f->db) != 0) {
        free(f);
        return -1;
    }
    snprintf(f->from, sizeof(f->from), "%s/source.db", f->db.directory);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    test_db_drop(&f->db);
    free(f);
    return 0;
}

/* A row in every table, as the server would leave them (the foreign keys
 * hold), with the values a copy could spoil. */
static void fill_source(const char *from)
{
    store *source = NULL;
    assert_int_equal(store_open(from, false, &source), STORE_OK); /* makes the schema */
    store_close(source);
    test_db_execute(
        from,
        "INSERT INTO players (id, name, is_bot, token_digest, created_at, games_played, wins,"
        " name_key, password_hash) VALUES"
        " (1, 'Ada', 0, 'd1', 1000, 2, 1, 'ada', '$argon2id$v=19$m=1,t=1,p=1$a$b'),"
        " (2, 'tab\tback\\slash\nnew line Zoë', 0, NULL, 1001, 1, 0, NULL, NULL),"
        " (3, 'bot:greedy', 1, NULL, 1002, 0, 0, 'bot:greedy', NULL),"
        " (7, 'owned', 1, NULL, 1003, 0, 0, 'owned', NULL);"
        "UPDATE players SET bot_key_digest = 'k7', owner_id = 1, open_to_tournaments = 1"
        " WHERE id = 7;"
        "INSERT INTO games (id, room, game, mode, options, seed, status, result, created_at,"
        " started_at, finished_at) VALUES"
        " (1, 'ABCD', 'blokus', 'duo', '{\"clock\":null}', -9223372036854775807, 'playing',"
        "  NULL, 5, 6, NULL),"
        " (2, 'EFGH', 'reef-builder', 'solo', '{}', 42, 'playing', NULL, 8, 9, NULL);"
        "INSERT INTO seats VALUES (1, 0, 1, NULL, 10, 1, 1, 1, 'Ada', 0, 0),"
        " (1, 1, NULL, 'greedy', -3, 2, 0, 3, NULL, NULL, NULL),"
        " (2, 0, 2, NULL, NULL, NULL, NULL, 2, 'tab\tback\\slash\nnew line Zoë', 1, 0);"
        "INSERT INTO moves VALUES (1, 0, 0, 0, 'X 3 5 6', 12, -1, 100),"
        " (1, 1, 1, 1, 'pass', 0, 59000, 101), (2, 0, 0, 0, 'place 1 2 3', 5, -1, 102);"
        "UPDATE games SET status = 'finished', result = '{\"scores\":[10,-3]}', finished_at = 7"
        " WHERE id = 1;"
        "INSERT INTO ratings VALUES (1, 'blokus-duo', 27.123456789012345, 7.5, 4.623456789012345,"
        " 2, 1, 7, 1, 200), (3, 'blokus-duo', 22.9, 7.9, -0.8, 1, 0, -3, 1, 200);"
        "INSERT INTO rating_history VALUES (1, 'blokus-duo', 1, 25, 8.333333333333334,"
        " 27.123456789012345, 7.5, 200);"
        "INSERT INTO reef_runs VALUES (1, 2, 42, 310, 2, NULL, 300, NULL),"
        " (5, 1, 20261124, 90, NULL, '\"place 1 2 3 skip\"', 301, 'abc');"
        "INSERT INTO reef_best VALUES ('seed:42', 2, 310, 1, 300), ('all', 1, 90, 5, 301);"
        "INSERT INTO tournaments (id, name, game, mode, format, settings, seed, status, arena,"
        " created_at, finished_at, created_by, cancelled_at) VALUES"
        " (1, 'Cup \\ of \"tea\"', 'blokus', 'duo', 'swiss', '{\"rounds\":3}', 9, 'finished',"
        "  'hourly', 400, 500, 1, 500),"
        " (4, 'Open', 'blokus', '4p', 'round-robin', '{}', 10, 'running', NULL, 401, NULL,"
        "  NULL, NULL);"
        "UPDATE games SET tournament_id = 1, tournament_game = 0 WHERE id = 1;"
        "INSERT INTO tournament_entries VALUES (1, 0, 1, NULL, 1.5, 1, 1, 10),"
        " (1, 1, 3, 'greedy', 0.5, 1, 0, -3);"
        "INSERT INTO tournament_games VALUES (1, 0, 0, '[0,1]');"
        "INSERT INTO tournament_invitations VALUES (2, 1, 1, 450);");
}

/* Fills the source and copies it: the copy's report. */
static store_migrate_report fill_and_copy(struct fixture *f)
{
    fill_source(f->from);
    store_migrate_report report;
    char problem[512];
    assert_int_equal(store_migrate(f->from, f->db.path, &report, problem, sizeof(problem)),
                     STORE_OK);
    return report;
}

/* Each table, its rows in key order, as both databases must read them. */
static const char *const TABLE_READS[] = {
    "SELECT * FROM players ORDER BY id",
    "SELECT * FROM games ORDER BY id",
    "SELECT * FROM seats ORDER BY game_id, seat",
    "SELECT * FROM moves ORDER BY game_id, seq",
    "SELECT * FROM ratings ORDER BY player_id, pool",
    "SELECT * FROM rating_history ORDER BY player_id, pool, game_id",
    "SELECT * FROM reef_runs ORDER BY id",
    "SELECT * FROM reef_best ORDER BY board, player_id",
    "SELECT * FROM reef_score_counts ORDER BY board, score",
    "SELECT * FROM tournaments ORDER BY id",
    "SELECT * FROM tournament_entries ORDER BY tournament_id, entry",
    "SELECT * FROM tournament_games ORDER BY tournament_id, number",
    "SELECT * FROM tournament_invitations ORDER BY invitee_id, inviter_id",
    "SELECT name, length(value) FROM secrets ORDER BY name",
};

static void test_every_table_is_copied_as_it_reads(void **state)
{
    struct fixture *f = *state;
    store_migrate_report report = fill_and_copy(f);
    assert_int_equal(report.tables, 14);
    assert_int_equal(report.games, 2);
    assert_int_equal(report.moves, 3);
    for (size_t i = 0; i < sizeof(TABLE_READS) / sizeof(TABLE_READS[0]); i++) {
        char sqlite_rows[4096], postgres_rows[4096];
        test_db_rows(f->from, TABLE_READS[i], sqlite_rows, sizeof(sqlite_rows));
        test_db_rows(f->db.path, TABLE_READS[i], postgres_rows, sizeof(postgres_rows));
        assert_true(sqlite_rows[0] != '\0');
        if (strcmp(sqlite_rows, postgres_rows) != 0)
            fail_msg("%s:\nSQLite:\n%sPostgreSQL:\n%s", TABLE_READS[i], sqlite_rows, postgres_rows);
    }
    /* The history's page cursors stay valid: the same key signs them. */
    store *a = NULL, *b = NULL;
    unsigned char key_a[STORE_CURSOR_KEY_BYTES], key_b[STORE_CURSOR_KEY_BYTES];
    assert_int_equal(store_open_reader(f->from, &a), STORE_OK);
    assert_int_equal(store_open_reader(f->db.path, &b), STORE_OK);
    assert_int_equal(store_read_cursor_key(a, key_a), STORE_OK);
    assert_int_equal(store_read_cursor_key(b, key_b), STORE_OK);
    assert_memory_equal(key_a, key_b, sizeof(key_a));
    store_close(a);
    store_close(b);
    /* New rows go on after the largest ids copied; the copy is a working store. */
    store *copy = NULL;
    assert_int_equal(store_open(f->db.path, false, &copy), STORE_OK);
    int64_t id = 0;
    assert_int_equal(store_player_create(copy, "new", false, "t-new", &id), STORE_OK);
    assert_int_equal(id, 8);
    store_game_info info = {"IJKL", "blokus", "duo", "{}", 1, 10, 0, 0};
    assert_int_equal(store_game_create(copy, &info, &id), STORE_OK);
    assert_int_equal(id, 3);
    store_move next = {2, 1, 0, 1, "skip", 1, -1, 103};
    assert_int_equal(store_move_append(copy, &next), STORE_OK); /* the move guard is back on */
    store_move finished = {1, 2, 0, 2, "pass", 1, -1, 104};
    assert_int_equal(store_move_append(copy, &finished), STORE_E_CONSTRAINT);
    store_close(copy);
}

static void test_a_database_holding_data_is_refused_and_kept(void **state)
{
    struct fixture *f = *state;
    store_migrate_report report = fill_and_copy(f);
    char problem[512];
    test_db_execute(f->from, "UPDATE players SET name = 'changed' WHERE id = 1");
    assert_int_equal(store_migrate(f->from, f->db.path, &report, problem, sizeof(problem)),
                     STORE_E_CONSTRAINT);
    assert_non_null(strstr(problem, "already holds tessera data"));
    char name[32];
    test_db_text(f->db.path, "SELECT name FROM players WHERE id = 1", name, sizeof(name));
    assert_string_equal(name, "Ada");
    assert_int_equal(store_migrate(f->db.path, f->db.path, &report, problem, sizeof(problem)),
                     STORE_E_INVALID); /* from PostgreSQL: not what it does */
}

static void test_a_copy_that_fails_leaves_nothing(void **state)
{
    struct fixture *f = *state;
    fill_source(f->from);
    /* A row PostgreSQL refuses (a seat of a game that is not there: SQLite's
     * raw connection kept no foreign keys) fails the copy half-way. */
    test_db_execute(f->from, "INSERT INTO seats VALUES (99, 0, 1, NULL, NULL, NULL, NULL, 1,"
                             " 'Ada', 0, 0)");
    store_migrate_report report;
    char problem[512];
    assert_int_equal(store_migrate(f->from, f->db.path, &report, problem, sizeof(problem)),
                     STORE_E_CONSTRAINT);
    assert_non_null(strstr(problem, "cannot copy seats"));
    assert_int_equal(test_db_integer(f->db.path, "SELECT count(*) FROM players"), 0);
    assert_int_equal(test_db_integer(f->db.path, "SELECT count(*) FROM secrets"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_every_table_is_copied_as_it_reads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_database_holding_data_is_refused_and_kept, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_copy_that_fails_leaves_nothing, setup, teardown),
    };
    if (!test_db_is_postgres()) {
        fprintf(stderr, "test_store_migrate: runs on PostgreSQL (ctest's unit_store_migrate_pg)\n");
        return 1;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}

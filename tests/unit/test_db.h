/* test_db.h -- a fresh database for a storage test, and plain SQL on it.
 *
 * The database is a SQLite file in a directory of its own, or, when
 * TESSERA_TEST_PG names a PostgreSQL server's socket directory (ctest sets
 * it for the *_pg runs, tests/tools/pg_cluster.sh starts the server), a
 * database of its own on that server. The plain SQL runs on a connection
 * of the test's own, SQLite's or libpq's, and fails the test when the
 * database refuses it. */
#ifndef TESSERA_TEST_DB_H
#define TESSERA_TEST_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct test_db {
    char directory[64]; /* the directory made for it (SQLite files go there) */
    char path[256];     /* what store_open takes: the file, or the database's URL */
    char name[64];      /* PostgreSQL: the database's name; "" on SQLite */
} test_db;

/* Whether the tests run on PostgreSQL. */
bool test_db_is_postgres(void);

/* Makes a new, empty database: 0, or -1 (said on stderr). */
int test_db_make(test_db *db);

/* Removes it: the files, or the database (its connections cut). */
void test_db_drop(test_db *db);

/* PostgreSQL: ends every connection to the database, as a server restart
 * or a network cut does. */
void test_db_cut_connections(const test_db *db);

/* The first column of the first row `sql` answers on `path`, as text ("" for NULL). */
void test_db_text(const char *path, const char *sql, char *out, size_t size);

/* The same, as a number. */
int64_t test_db_integer(const char *path, const char *sql);

/* Every row `sql` answers on `path`, one line each with its columns split
 * by " | " (NULL as "NULL"), into `out` (`size` bytes, asserted enough): a
 * number is written as %.17g, so "25.0" from one database and "25" from
 * the other read the same. */
void test_db_rows(const char *path, const char *sql, char *out, size_t size);

/* Runs `sql` (statements without rows) on `path`. */
void test_db_execute(const char *path, const char *sql);

/* PostgreSQL: another client's transaction on `path`, left open after
 * `sql` ran (its rows held, as a slow or stuck commit holds them), until
 * test_db_hold_end commits it and closes (NULL: a no-op).
 * test_db_hold_send sends it one more statement without waiting for it
 * (one that waits for a lock); test_db_hold_end takes its answer first. */
typedef struct test_db_hold test_db_hold;
test_db_hold *test_db_hold_begin(const char *path, const char *sql);
void test_db_hold_send(test_db_hold *hold, const char *sql);
void test_db_hold_end(test_db_hold *hold);

/* A cmocka test about SQLite alone (its file, its query plans): its name
 * says so, and test_db_run leaves it out on PostgreSQL. */
#define TEST_DB_SQLITE_ONLY(test, setup, teardown)                                                 \
    {                                                                                              \
        "sqlite: " #test, test, setup, teardown, NULL                                              \
    }
/* One about PostgreSQL alone (a dropped connection), left out on SQLite. */
#define TEST_DB_POSTGRES_ONLY(test, setup, teardown)                                               \
    {                                                                                              \
        "postgres: " #test, test, setup, teardown, NULL                                            \
    }

/* Runs the group `tests` (cmocka_run_group_tests), but for the
 * TEST_DB_SQLITE_ONLY ones on PostgreSQL and the TEST_DB_POSTGRES_ONLY
 * ones on SQLite: what main returns. */
struct CMUnitTest;
int test_db_run(const struct CMUnitTest *tests, size_t count);

#endif

/* test_db.c -- a fresh database for a storage test (test_db.h). */
#include "tests/unit/test_db.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libpq-fe.h>
#include <sqlite3.h>

static int database_count;

bool test_db_is_postgres(void)
{
    return getenv("TESSERA_TEST_PG") != NULL;
}

static bool is_postgres_path(const char *path)
{
    return strncmp(path, "postgresql:", 11) == 0;
}

/* Runs `sql` on the server's database "postgres": 0 when it worked. */
static int postgres_admin(const char *sql)
{
    char url[192];
    snprintf(url, sizeof(url), "postgresql:///postgres?host=%s&user=postgres",
             getenv("TESSERA_TEST_PG"));
    PGconn *admin = PQconnectdb(url);
    PGresult *result = PQexec(admin, sql);
    int rc = PQresultStatus(result) == PGRES_COMMAND_OK ? 0 : -1;
    if (rc != 0)
        fprintf(stderr, "test_db: %s: %s", sql, PQerrorMessage(admin));
    PQclear(result);
    PQfinish(admin);
    return rc;
}

int test_db_make(test_db *db)
{
    memset(db, 0, sizeof(*db));
    snprintf(db->directory, sizeof(db->directory), "/tmp/tessera-test-XXXXXX");
    if (!mkdtemp(db->directory)) {
        perror("test_db: mkdtemp");
        return -1;
    }
    if (!test_db_is_postgres()) {
        snprintf(db->path, sizeof(db->path), "%s/tessera.db", db->directory);
        return 0;
    }
    char sql[128];
    snprintf(db->name, sizeof(db->name), "tessera_test_%d_%d", (int)getpid(), ++database_count);
    snprintf(db->path, sizeof(db->path), "postgresql:///%s?host=%s&user=postgres", db->name,
             getenv("TESSERA_TEST_PG"));
    snprintf(sql, sizeof(sql), "CREATE DATABASE %s", db->name);
    if (postgres_admin(sql) == 0)
        return 0;
    db->name[0] = '\0';
    test_db_drop(db);
    return -1;
}

void test_db_cut_connections(const test_db *db)
{
    char sql[192];
    snprintf(sql, sizeof(sql),
             "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '%s'",
             db->name);
    char url[192];
    snprintf(url, sizeof(url), "postgresql:///postgres?host=%s&user=postgres",
             getenv("TESSERA_TEST_PG"));
    PGconn *admin = PQconnectdb(url);
    PGresult *result = PQexec(admin, sql);
    assert_int_equal(PQresultStatus(result), PGRES_TUPLES_OK);
    PQclear(result);
    PQfinish(admin);
}

struct test_db_hold {
    PGconn *connection;
};

test_db_hold *test_db_hold_begin(const char *path, const char *sql)
{
    test_db_hold *hold = calloc(1, sizeof(*hold));
    assert_non_null(hold);
    hold->connection = PQconnectdb(path);
    assert_int_equal(PQstatus(hold->connection), CONNECTION_OK);
    PGresult *result = PQexec(hold->connection, "BEGIN");
    assert_int_equal(PQresultStatus(result), PGRES_COMMAND_OK);
    PQclear(result);
    result = PQexec(hold->connection, sql);
    assert_true(PQresultStatus(result) == PGRES_TUPLES_OK ||
                PQresultStatus(result) == PGRES_COMMAND_OK);
    PQclear(result);
    return hold;
}

void test_db_hold_send(test_db_hold *hold, const char *sql)
{
    assert_int_equal(PQsendQuery(hold->connection, sql), 1);
}

void test_db_hold_end(test_db_hold *hold)
{
    if (!hold)
        return;
    PGresult *result;
    while ((result = PQgetResult(hold->connection)) != NULL) /* what test_db_hold_send sent */
        PQclear(result);
    result = PQexec(hold->connection, "COMMIT");
    PQclear(result);
    PQfinish(hold->connection);
    free(hold);
}

void test_db_drop(test_db *db)
{
    if (db->name[0]) {
        char sql[128];
        snprintf(sql, sizeof(sql), "DROP DATABASE %s WITH (FORCE)", db->name);
        postgres_admin(sql);
        db->name[0] = '\0';
    }
    DIR *folder = opendir(db->directory); /* the files a test made there, and SQLite's */
    struct dirent *entry;
    while (folder && (entry = readdir(folder)) != NULL) {
        char path[sizeof(db->directory) + 260];
        snprintf(path, sizeof(path), "%s/%s", db->directory, entry->d_name);
        if (entry->d_name[0] != '.')
            unlink(path);
    }
    if (folder)
        closedir(folder);
    rmdir(db->directory);
}

/* Calls row(context, count, values) for each row `sql` answers on `path`,
 * the values as text (NULL for SQL NULL; a SQLite real with all its
 * digits, where SQLite's own text keeps 15). */
typedef void row_visit(void *context, int count, const char *const *values);

/* `sql`'s result on the PostgreSQL database `url`, failing the test unless
 * it is `expected` (the caller clears it). */
static PGresult *postgres_exec(const char *url, const char *sql, ExecStatusType expected)
{
    PGconn *connection = PQconnectdb(url);
    PGresult *result = PQexec(connection, sql);
    if (PQresultStatus(result) != expected)
        fail_msg("%s -- in: %s", PQerrorMessage(connection), sql);
    PQfinish(connection); /* a result outlives its connection */
    return result;
}

/* A connection of the test's own to the SQLite file `path`. */
static sqlite3 *sqlite_open(const char *path)
{
    sqlite3 *connection = NULL;
    assert_int_equal(sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(connection, 1000);
    return connection;
}

#define MAX_COLUMNS 32

static void each_row(const char *path, const char *sql, row_visit *row, void *context)
{
    const char *values[MAX_COLUMNS];
    if (is_postgres_path(path)) {
        PGresult *result = postgres_exec(path, sql, PGRES_TUPLES_OK);
        assert_true(PQnfields(result) <= MAX_COLUMNS);
        for (int r = 0; r < PQntuples(result); r++) {
            for (int column = 0; column < PQnfields(result); column++)
                values[column] =
                    PQgetisnull(result, r, column) ? NULL : PQgetvalue(result, r, column);
            row(context, PQnfields(result), values);
        }
        PQclear(result);
        return;
    }
    sqlite3 *connection = sqlite_open(path);
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(connection, sql, -1, &stmt, NULL) != SQLITE_OK ||
        sqlite3_column_count(stmt) > MAX_COLUMNS)
        fail_msg("%s -- in: %s", sqlite3_errmsg(connection), sql);
    char reals[MAX_COLUMNS][32];
    int step;
    while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
        for (int column = 0; column < sqlite3_column_count(stmt); column++) {
            values[column] = (const char *)sqlite3_column_text(stmt, column);
            if (sqlite3_column_type(stmt, column) == SQLITE_FLOAT) {
                snprintf(reals[column], sizeof(reals[column]), "%.17g",
                         sqlite3_column_double(stmt, column));
                values[column] = reals[column];
            }
        }
        row(context, sqlite3_column_count(stmt), values);
    }
    if (step != SQLITE_DONE)
        fail_msg("%s -- in: %s", sqlite3_errmsg(connection), sql);
    sqlite3_finalize(stmt);
    sqlite3_close(connection);
}

struct first_value {
    char *out;
    size_t size;
    bool is_found;
};

static void keep_first(void *context, int count, const char *const *values)
{
    struct first_value *first = context;
    if (!first->is_found && count > 0)
        snprintf(first->out, first->size, "%s", values[0] ? values[0] : "");
    first->is_found = true;
}

void test_db_text(const char *path, const char *sql, char *out, size_t size)
{
    struct first_value first = {out, size, false};
    each_row(path, sql, keep_first, &first);
    if (!first.is_found)
        fail_msg("no row -- in: %s", sql);
}

struct all_rows {
    char *out;
    size_t size;
};

/* Appends a row: " | " between values, a number in one form whatever its
 * database. */
static void append_row(void *context, int count, const char *const *values)
{
    struct all_rows *rows = context;
    for (int column = 0; column < count; column++) {
        const char *text = values[column];
        size_t used = strlen(rows->out);
        char *end = NULL;
        double number = text && text[0] ? strtod(text, &end) : 0;
        const char *gap = column ? " | " : "";
        int written = !text ? snprintf(rows->out + used, rows->size - used, "%sNULL", gap)
                      : end && *end == '\0'
                          ? snprintf(rows->out + used, rows->size - used, "%s%.17g", gap, number)
                          : snprintf(rows->out + used, rows->size - used, "%s%s", gap, text);
        assert_true(written >= 0 && (size_t)written < rows->size - used);
    }
    size_t used = strlen(rows->out);
    assert_true(used + 1 < rows->size);
    rows->out[used] = '\n';
    rows->out[used + 1] = '\0';
}

void test_db_rows(const char *path, const char *sql, char *out, size_t size)
{
    out[0] = '\0';
    struct all_rows rows = {out, size};
    each_row(path, sql, append_row, &rows);
}

int64_t test_db_integer(const char *path, const char *sql)
{
    char text[32];
    test_db_text(path, sql, text, sizeof(text));
    return strtoll(text, NULL, 10);
}

void test_db_execute(const char *path, const char *sql)
{
    if (is_postgres_path(path)) {
        PQclear(postgres_exec(path, sql, PGRES_COMMAND_OK));
        return;
    }
    sqlite3 *connection = sqlite_open(path);
    char *error = NULL;
    if (sqlite3_exec(connection, sql, NULL, NULL, &error) != SQLITE_OK)
        fail_msg("%s -- in: %s", error, sql);
    sqlite3_close(connection);
}

int test_db_run(const struct CMUnitTest *tests, size_t count)
{
    struct CMUnitTest *chosen = calloc(count ? count : 1, sizeof(*chosen));
    if (!chosen)
        return 1;
    size_t chosen_count = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(tests[i].name, test_db_is_postgres() ? "sqlite: " : "postgres: ",
                    test_db_is_postgres() ? 8 : 10) != 0)
            chosen[chosen_count++] = tests[i];
    int failed = _cmocka_run_group_tests(test_db_is_postgres() ? "on PostgreSQL" : "on SQLite",
                                         chosen, chosen_count, NULL, NULL);
    free(chosen);
    return failed;
}

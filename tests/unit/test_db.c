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

void test_db_text(const char *path, const char *sql, char *out, size_t size)
{
    if (is_postgres_path(path)) {
        PGconn *connection = PQconnectdb(path);
        PGresult *result = PQexec(connection, sql);
        if (PQresultStatus(result) != PGRES_TUPLES_OK || PQntuples(result) < 1)
            fail_msg("%s -- in: %s", PQerrorMessage(connection), sql);
        snprintf(out, size, "%s", PQgetvalue(result, 0, 0));
        PQclear(result);
        PQfinish(connection);
        return;
    }
    sqlite3 *connection = NULL;
    sqlite3_stmt *stmt = NULL;
    assert_int_equal(sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(connection, 1000);
    if (sqlite3_prepare_v2(connection, sql, -1, &stmt, NULL) != SQLITE_OK ||
        sqlite3_step(stmt) != SQLITE_ROW)
        fail_msg("%s -- in: %s", sqlite3_errmsg(connection), sql);
    const char *text = (const char *)sqlite3_column_text(stmt, 0);
    snprintf(out, size, "%s", text ? text : "");
    sqlite3_finalize(stmt);
    sqlite3_close(connection);
}

/* Appends one value to out, a number in one form whatever its database. */
static void append_value(char *out, size_t size, const char *text, bool is_first)
{
    size_t used = strlen(out);
    char *end = NULL;
    double number = text && text[0] ? strtod(text, &end) : 0;
    int written;
    if (!text)
        written = snprintf(out + used, size - used, "%sNULL", is_first ? "" : " | ");
    else if (end && *end == '\0')
        written = snprintf(out + used, size - used, "%s%.17g", is_first ? "" : " | ", number);
    else
        written = snprintf(out + used, size - used, "%s%s", is_first ? "" : " | ", text);
    assert_true(written >= 0 && (size_t)written < size - used);
}

static void append_line_end(char *out, size_t size)
{
    size_t used = strlen(out);
    assert_true(used + 1 < size);
    out[used] = '\n';
    out[used + 1] = '\0';
}

void test_db_rows(const char *path, const char *sql, char *out, size_t size)
{
    out[0] = '\0';
    if (is_postgres_path(path)) {
        PGconn *connection = PQconnectdb(path);
        PGresult *result = PQexec(connection, sql);
        if (PQresultStatus(result) != PGRES_TUPLES_OK)
            fail_msg("%s -- in: %s", PQerrorMessage(connection), sql);
        for (int row = 0; row < PQntuples(result); row++) {
            for (int column = 0; column < PQnfields(result); column++)
                append_value(out, size,
                             PQgetisnull(result, row, column) ? NULL
                                                              : PQgetvalue(result, row, column),
                             column == 0);
            append_line_end(out, size);
        }
        PQclear(result);
        PQfinish(connection);
        return;
    }
    sqlite3 *connection = NULL;
    sqlite3_stmt *stmt = NULL;
    assert_int_equal(sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    if (sqlite3_prepare_v2(connection, sql, -1, &stmt, NULL) != SQLITE_OK)
        fail_msg("%s -- in: %s", sqlite3_errmsg(connection), sql);
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        for (int column = 0; column < sqlite3_column_count(stmt); column++) {
            char real[32]; /* SQLite's own text of a real keeps 15 digits only */
            if (sqlite3_column_type(stmt, column) == SQLITE_FLOAT)
                snprintf(real, sizeof(real), "%.17g", sqlite3_column_double(stmt, column));
            append_value(out, size,
                         sqlite3_column_type(stmt, column) == SQLITE_FLOAT
                             ? real
                             : (const char *)sqlite3_column_text(stmt, column),
                         column == 0);
        }
        append_line_end(out, size);
    }
    sqlite3_finalize(stmt);
    sqlite3_close(connection);
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
        PGconn *connection = PQconnectdb(path);
        PGresult *result = PQexec(connection, sql);
        if (PQresultStatus(result) != PGRES_COMMAND_OK)
            fail_msg("%s -- in: %s", PQerrorMessage(connection), sql);
        PQclear(result);
        PQfinish(connection);
        return;
    }
    sqlite3 *connection = NULL;
    char *error = NULL;
    assert_int_equal(sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(connection, 1000);
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

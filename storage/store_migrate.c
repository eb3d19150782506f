/* store_migrate.c -- a SQLite database copied into a new PostgreSQL one
 * (store_migrate.h).
 *
 * Table by table, in the order their foreign keys need, every row is read
 * from SQLite and sent to PostgreSQL with COPY ... FROM STDIN in COPY's
 * text format: one line per row, columns split by tabs, \N for NULL,
 * backslashes, tabs and line breaks escaped, a blob as \\x and its hex.
 * The columns are the SQLite table's own (PRAGMA table_info), which the
 * PostgreSQL schema has by the same names (test_store_migrate compares
 * them). The move log's guard (moves only into a game being played) is
 * off for the copy, whose finished games hold moves: the rows are the
 * guarded log itself; so is reef_best's counting of its scores, whose
 * counts are copied too. Then each identity column's sequence is moved past
 * the largest id copied, every table's row count is checked, and, once
 * committed, the tables are analyzed. */
#include "storage/store_migrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/store_internal.h"

/* The tables, parents first; `id` names the identity column, if any.
 * room_leases is not copied: leases belong to running instances, and the
 * first to start on the copy adopts its unfinished games (store_leases.c). */
static const struct table {
    const char *name;
    const char *id;
} TABLES[] = {
    {"players", "id"},
    {"games", "id"},
    {"seats", NULL},
    {"moves", NULL},
    {"ratings", NULL},
    {"rating_history", NULL},
    {"reef_runs", "id"},
    {"reef_best", NULL},
    {"reef_score_counts", NULL},
    {"tournaments", "id"},
    {"tournament_entries", NULL},
    {"tournament_games", NULL},
    {"tournament_invitations", NULL},
    {"secrets", NULL},
};

#define TABLE_COUNT    ((int)(sizeof(TABLES) / sizeof(TABLES[0])))
#define MAX_COLUMNS    32
#define SQL_SIZE       1024
#define LINE_FLUSH_MIN (256 * 1024) /* a COPY chunk: rows are sent in pieces of about this */

/* A growing text buffer for COPY lines. */
struct line {
    char *data;
    size_t length, capacity;
    bool has_failed;
};

static void put(struct line *line, const char *bytes, size_t count)
{
    if (line->has_failed)
        return;
    if (line->length + count > line->capacity) {
        size_t grown = line->capacity ? line->capacity * 2 : 4096;
        while (grown < line->length + count)
            grown *= 2;
        char *larger = realloc(line->data, grown);
        if (!larger) {
            line->has_failed = true;
            return;
        }
        line->data = larger;
        line->capacity = grown;
    }
    memcpy(line->data + line->length, bytes, count);
    line->length += count;
}

/* A text value in COPY's escaping. */
static void put_text(struct line *line, const unsigned char *text, size_t length)
{
    for (size_t i = 0; i < length; i++) {
        const char *escaped = text[i] == '\\'   ? "\\\\"
                              : text[i] == '\t' ? "\\t"
                              : text[i] == '\n' ? "\\n"
                              : text[i] == '\r' ? "\\r"
                                                : NULL;
        if (escaped)
            put(line, escaped, 2);
        else
            put(line, (const char *)&text[i], 1);
    }
}

/* Column `column` of the current row, as COPY reads it. */
static void put_value(struct line *line, sqlite3_stmt *stmt, int column)
{
    char number[32];
    int length;
    switch (sqlite3_column_type(stmt, column)) {
    case SQLITE_NULL:
        put(line, "\\N", 2);
        return;
    case SQLITE_INTEGER:
        length =
            snprintf(number, sizeof(number), "%lld", (long long)sqlite3_column_int64(stmt, column));
        put(line, number, (size_t)length);
        return;
    case SQLITE_FLOAT:
        length = snprintf(number, sizeof(number), "%.17g", sqlite3_column_double(stmt, column));
        put(line, number, (size_t)length);
        return;
    case SQLITE_BLOB: {
        const unsigned char *bytes = sqlite3_column_blob(stmt, column);
        int size = sqlite3_column_bytes(stmt, column);
        put(line, "\\\\x", 3); /* bytea's hex form, its backslash escaped */
        for (int i = 0; i < size; i++) {
            length = snprintf(number, sizeof(number), "%02x", bytes[i]);
            put(line, number, (size_t)length);
        }
        return;
    }
    default: {
        const unsigned char *text = sqlite3_column_text(stmt, column);
        put_text(line, text, (size_t)sqlite3_column_bytes(stmt, column));
        return;
    }
    }
}

static int say(char *problem, size_t size, int rc, const char *format, const char *detail)
{
    snprintf(problem, size, format, detail);
    return rc;
}

/* The SQLite table's column names, joined by commas, into `columns`. */
static int column_list(sqlite3 *db, const char *table, char *columns, size_t size, int *count)
{
    char sql[SQL_SIZE];
    snprintf(sql, sizeof(sql), "SELECT name FROM pragma_table_info('%s') ORDER BY cid", table);
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    columns[0] = '\0';
    *count = 0;
    while (rc == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW && *count < MAX_COLUMNS) {
        size_t used = strlen(columns);
        snprintf(columns + used, size - used, "%s%s", *count ? ", " : "",
                 (const char *)sqlite3_column_text(stmt, 0));
        (*count)++;
    }
    sqlite3_finalize(stmt);
    return rc == SQLITE_OK && *count > 0 ? STORE_OK : STORE_E_CORRUPT;
}

/* Copies one table; *rows is how many. */
static int copy_table(store *from, store *to, const char *table, int64_t *rows, char *problem,
                      size_t size)
{
    char columns[SQL_SIZE], sql[SQL_SIZE * 2];
    int count = 0;
    *rows = 0;
    if (column_list(from->db, table, columns, sizeof(columns), &count) != STORE_OK)
        return say(problem, size, STORE_E_CORRUPT, "cannot read the columns of %s", table);
    snprintf(sql, sizeof(sql), "SELECT %s FROM %s", columns, table);
    sqlite3_stmt *stmt = NULL;
    int rc = store_error_from_sqlite(sqlite3_prepare_v2(from->db, sql, -1, &stmt, NULL));
    if (rc != STORE_OK)
        return say(problem, size, rc, "cannot read %s", table);
    snprintf(sql, sizeof(sql), "COPY %s (%s) FROM STDIN", table, columns);
    rc = store_pg_copy_begin(to, sql);
    struct line line = {0};
    int step = SQLITE_ROW;
    while (rc == STORE_OK && (step = sqlite3_step(stmt)) == SQLITE_ROW) {
        for (int column = 0; column < count; column++) {
            if (column)
                put(&line, "\t", 1);
            put_value(&line, stmt, column);
        }
        put(&line, "\n", 1);
        (*rows)++;
        if (line.has_failed)
            rc = STORE_E_NOMEM;
        else if (line.length >= LINE_FLUSH_MIN) {
            rc = store_pg_copy_data(to, line.data, line.length);
            line.length = 0;
        }
    }
    if (rc == STORE_OK && step != SQLITE_DONE)
        rc = store_error_from_sqlite(step);
    if (rc == STORE_OK && line.length > 0)
        rc = store_pg_copy_data(to, line.data, line.length);
    int ended = store_pg_copy_end(to, rc != STORE_OK);
    if (rc == STORE_OK)
        rc = ended;
    free(line.data);
    sqlite3_finalize(stmt);
    if (rc != STORE_OK)
        say(problem, size, rc, "cannot copy %s", table);
    if (rc != STORE_OK && to->error_detail[0]) {
        size_t used = strlen(problem);
        snprintf(problem + used, size - used, ": %s", to->error_detail);
    }
    return rc;
}

/* Moves `table`'s id sequence past its largest id, and checks the row
 * count: 0, or a store_error. */
static int settle_table(store *to, const struct table *table, int64_t rows, char *problem,
                        size_t size)
{
    char sql[SQL_SIZE];
    int64_t value = 0;
    if (table->id) {
        snprintf(sql, sizeof(sql),
                 "SELECT setval(pg_get_serial_sequence('%s', '%s'),"
                 " (SELECT coalesce(max(%s), 0) FROM %s) + 1, false)",
                 table->name, table->id, table->id, table->name);
        int rc = store_pg_number(to, sql, &value);
        if (rc != STORE_OK)
            return say(problem, size, rc, "cannot move the id sequence of %s", table->name);
    }
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table->name);
    int rc = store_pg_number(to, sql, &value);
    if (rc == STORE_OK && value != rows)
        rc = STORE_E_INTERNAL;
    return rc == STORE_OK ? rc
                          : say(problem, size, rc, "%s does not hold what was copied", table->name);
}

/* Copies every table inside the two transactions already open. */
static int copy_all(store *from, store *to, store_migrate_report *report, char *problem,
                    size_t size)
{
    int64_t held = 0;
    int rc = store_pg_number(
        to, "SELECT (SELECT count(*) FROM players) + (SELECT count(*) FROM games)", &held);
    if (rc == STORE_OK && held > 0)
        return say(problem, size, STORE_E_CONSTRAINT, "%s",
                   "the PostgreSQL database already holds tessera data: copy into a new one");
    /* The new database's own page-cursor key gives way to the one copied. */
    if (rc == STORE_OK)
        rc = store_pg_exec_script(to, "DELETE FROM secrets;"
                                      "ALTER TABLE moves DISABLE TRIGGER moves_guard;"
                                      "ALTER TABLE reef_best DISABLE TRIGGER reef_best_counted;");
    for (int i = 0; rc == STORE_OK && i < TABLE_COUNT; i++) {
        int64_t rows = 0;
        rc = copy_table(from, to, TABLES[i].name, &rows, problem, size);
        if (rc == STORE_OK)
            rc = settle_table(to, &TABLES[i], rows, problem, size);
        report->tables += rc == STORE_OK;
        report->rows += rows;
        if (strcmp(TABLES[i].name, "games") == 0)
            report->games = rows;
        if (strcmp(TABLES[i].name, "moves") == 0)
            report->moves = rows;
    }
    if (rc == STORE_OK)
        rc = store_pg_exec_script(to, "ALTER TABLE moves ENABLE TRIGGER moves_guard;"
                                      "ALTER TABLE reef_best ENABLE TRIGGER reef_best_counted;");
    if (rc != STORE_OK && !problem[0])
        say(problem, size, rc, "%s", to->error_detail);
    return rc;
}

int store_migrate(const char *from_path, const char *to_url, store_migrate_report *report,
                  char *problem, size_t size)
{
    double started = store_monotonic_s();
    memset(report, 0, sizeof(*report));
    problem[0] = '\0';
    if (store_path_is_postgres(from_path) || !store_path_is_postgres(to_url))
        return say(problem, size, STORE_E_INVALID, "%s",
                   "copies a SQLite file into a PostgreSQL database (--to postgresql://...)");
    store *from = NULL, *to = NULL;
    char why[STORE_WHY_SIZE];
    int rc = store_open_why(from_path, false, &from, why);
    if (rc != STORE_OK)
        return say(problem, size, rc, "cannot open the SQLite database: %s",
                   why[0] ? why : store_strerror(rc));
    rc = store_open_why(to_url, false, &to, why);
    if (rc != STORE_OK) {
        store_close(from);
        return say(problem, size, rc, "cannot open the PostgreSQL database: %s",
                   why[0] ? why : store_strerror(rc));
    }
    /* A read transaction on SQLite: one consistent state, while a server writes. */
    rc = store_error_from_sqlite(sqlite3_exec(from->db, "BEGIN", NULL, NULL, NULL));
    if (rc == STORE_OK)
        rc = store_pg_exec_script(to, "BEGIN");
    if (rc == STORE_OK)
        rc = copy_all(from, to, report, problem, size);
    if (rc == STORE_OK)
        rc = store_pg_exec_script(to, "COMMIT");
    else
        store_pg_exec_script(to, "ROLLBACK");
    /* Fresh statistics for the planner: a bulk copy leaves none, and the
     * history's plans need them from the first request. The copy is
     * committed by then: a failure here only leaves it to autovacuum. */
    if (rc == STORE_OK)
        store_pg_exec_script(to, "ANALYZE");
    sqlite3_exec(from->db, "COMMIT", NULL, NULL, NULL);
    if (rc != STORE_OK && !problem[0])
        say(problem, size, rc, "%s", store_strerror(rc));
    store_close(to);
    store_close(from);
    report->elapsed_s = store_monotonic_s() - started;
    return rc;
}

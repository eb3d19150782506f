/* store_backup.c -- `tessera backup`: SQLite's online backup API from the
 * live file to a fresh one, checked before it takes the target's name.
 *
 * The copy runs as one sqlite3_backup_step(-1): a single read transaction
 * over the source, so a server writing moves meanwhile neither waits (WAL
 * readers do not block the writer) nor makes the copy restart, as a
 * page-by-page backup would after every write by another connection. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/store_backup.h"
#include "storage/store_internal.h"

#define PARTIAL_SUFFIX ".partial"
#define PATH_SIZE      4096

static void say(char *problem, int problem_size, const char *format, ...)
{
    if (!problem || problem_size <= 0)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(problem, (size_t)problem_size, format, args);
    va_end(args);
}

static int64_t count_rows(sqlite3 *db, const char *sql)
{
    int64_t count = -1;
    return store_sqlite_number(db, sql, &count) == STORE_OK ? count : -1;
}

/* PRAGMA integrity_check on the copy: STORE_OK when it says "ok". */
static int check_copy(sqlite3 *copy, char *problem, int problem_size)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(copy, "PRAGMA integrity_check", -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return store_error_from_sqlite(rc);
    rc = sqlite3_step(stmt);
    int result = STORE_OK;
    if (rc != SQLITE_ROW) {
        result = store_error_from_sqlite(rc);
        say(problem, problem_size, "the copy cannot be checked: %s", sqlite3_errmsg(copy));
    } else if (strcmp((const char *)sqlite3_column_text(stmt, 0), "ok") != 0) {
        result = STORE_E_CORRUPT;
        say(problem, problem_size, "the copy fails its integrity check: %s",
            (const char *)sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
    return result;
}

/* Copies every page of `source` into `copy` in one step. */
static int copy_pages(sqlite3 *source, sqlite3 *copy, store_backup_report *report, char *problem,
                      int problem_size)
{
    sqlite3_backup *backup = sqlite3_backup_init(copy, "main", source, "main");
    if (!backup) {
        say(problem, problem_size, "the backup cannot start: %s", sqlite3_errmsg(copy));
        return store_error_from_sqlite(sqlite3_errcode(copy));
    }
    int step = sqlite3_backup_step(backup, -1);
    report->pages = sqlite3_backup_pagecount(backup);
    int finish = sqlite3_backup_finish(backup);
    if (step != SQLITE_DONE || finish != SQLITE_OK) {
        int rc = step != SQLITE_DONE ? step : finish;
        say(problem, problem_size, "the copy failed: %s", sqlite3_errstr(rc));
        return store_error_from_sqlite(rc);
    }
    return STORE_OK;
}

/* fsync of a file by name: the copy is on disk before it is renamed. */
static int sync_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return STORE_E_IO;
    int rc = fsync(fd) == 0 ? STORE_OK : STORE_E_IO;
    close(fd);
    return rc;
}

static int open_source(const char *source_path, sqlite3 **source, char *problem, int problem_size)
{
    if (access(source_path, F_OK) != 0) {
        say(problem, problem_size, "there is no database at %s", source_path);
        return STORE_E_NOT_FOUND;
    }
    int rc = sqlite3_open_v2(source_path, source, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        say(problem, problem_size, "%s cannot be opened: %s", source_path, sqlite3_errstr(rc));
        return store_error_from_sqlite(rc);
    }
    sqlite3_busy_timeout(*source, STORE_BUSY_TIMEOUT_MS);
    return STORE_OK;
}

/* Writes and checks the copy at `partial`; fills the report. */
static int write_copy(sqlite3 *source, const char *partial, store_backup_report *report,
                      char *problem, int problem_size)
{
    sqlite3 *copy = NULL;
    int rc = sqlite3_open_v2(partial, &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        say(problem, problem_size, "%s cannot be created: %s", partial, sqlite3_errstr(rc));
        sqlite3_close(copy);
        return store_error_from_sqlite(rc);
    }
    rc = copy_pages(source, copy, report, problem, problem_size);
    if (rc == STORE_OK)
        rc = check_copy(copy, problem, problem_size);
    if (rc == STORE_OK) {
        report->games = count_rows(copy, "SELECT count(*) FROM games");
        report->moves = count_rows(copy, "SELECT count(*) FROM moves");
    }
    /* The copy says "WAL" in its header like its source; closing the last
     * connection checkpoints and removes its -wal and -shm files. */
    if (sqlite3_close(copy) != SQLITE_OK && rc == STORE_OK) {
        say(problem, problem_size, "%s cannot be closed", partial);
        rc = STORE_E_IO;
    }
    return rc;
}

int store_backup(const char *source_path, const char *target_path, store_backup_report *report,
                 char *problem, int problem_size)
{
    memset(report, 0, sizeof(*report));
    char partial[PATH_SIZE];
    if (snprintf(partial, sizeof(partial), "%s%s", target_path, PARTIAL_SUFFIX) >=
        (int)sizeof(partial)) {
        say(problem, problem_size, "the target path is too long");
        return STORE_E_INVALID;
    }
    if (access(target_path, F_OK) == 0) {
        say(problem, problem_size, "%s already exists: a backup never overwrites a file",
            target_path);
        return STORE_E_CONSTRAINT;
    }
    sqlite3 *source = NULL;
    int rc = open_source(source_path, &source, problem, problem_size);
    if (rc == STORE_OK) {
        unlink(partial); /* a leftover of an interrupted backup */
        rc = write_copy(source, partial, report, problem, problem_size);
    }
    sqlite3_close(source);
    struct stat info;
    if (rc == STORE_OK && stat(partial, &info) == 0)
        report->bytes = info.st_size;
    /* link() rather than rename(): it fails if the target appeared since
     * the check above, so even then nothing is overwritten. */
    if (rc == STORE_OK && (sync_file(partial) != STORE_OK || link(partial, target_path) != 0)) {
        int error = errno;
        say(problem, problem_size, "%s cannot be written: %s", target_path, strerror(error));
        rc = error == EEXIST ? STORE_E_CONSTRAINT : STORE_E_IO;
    }
    unlink(partial);
    return rc;
}

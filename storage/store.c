/* store.c -- the connection: open, configure, migrate, prepare, close; the
 * error mapping and the statement helpers the table files share.
 *
 * Open order matters to SQLite: journal_mode and foreign_keys cannot change
 * inside a transaction, so the connection is configured first, then the
 * schema is migrated (in its own transaction), and only then are the
 * statements prepared, since preparing needs the tables to exist.
 *
 * The connection is opened without SQLite's internal mutexes (NOMUTEX): it
 * belongs to the event-loop thread alone. A reader (store_open_reader) is
 * the same store opened SQLITE_OPEN_READONLY for the history reads: it
 * neither configures the file nor migrates it (the server's writer did),
 * it only checks the schema version, and it too is used by one thread at a
 * time, though not always the same one. Defensive mode forbids the SQL
 * features that can corrupt a database file (writable_schema and friends).
 * trusted_schema stays ON: the file is ours, and SQLite 3.40 counts
 * json_valid, used by the schema's CHECKs, as unsafe for an untrusted
 * schema. The one function we register, run_digest (a submitted Reef run's
 * identity, store_reef_runs.c), appears in statements and a migration,
 * never in the schema, so a database stays readable by any SQLite. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "storage/secret.h"
#include "storage/store_internal.h"

static const store_statement_text TRANSACTION_STATEMENTS[] = {
    {STORE_SQL_BEGIN, "BEGIN IMMEDIATE"},
    {STORE_SQL_COMMIT, "COMMIT"},
    {STORE_SQL_ROLLBACK, "ROLLBACK"},
    {STORE_SQL_PART_BEGIN, "SAVEPOINT part"},
    {STORE_SQL_PART_KEEP, "RELEASE part"},
    {STORE_SQL_PART_UNDO, "ROLLBACK TO part"},
    {STORE_SQL_PING, "SELECT 1"},
    {STORE_SQL_LAST_ID, "SELECT last_insert_rowid()"},
    {STORE_SQL_COUNT, NULL},
};

/* The statements whose PostgreSQL text must differ from the one the table
 * files give: the rest are written in what both read alike. */
static const store_statement_text POSTGRES_TEXTS[] = {
    {STORE_SQL_BEGIN, "BEGIN"},
    {STORE_SQL_LAST_ID, "SELECT lastval()"}, /* the session's last identity value */
    /* A submitted run's actions are a JSON string: its text, unquoted. */
    {STORE_SQL_REEF_SUBMITTED_AFTER, "SELECT id, seed, score, actions::json #>> '{}' FROM reef_runs"
                                     " WHERE id > ?1 AND actions IS NOT NULL ORDER BY id LIMIT ?2"},
    {STORE_SQL_NOTIFY, "SELECT pg_notify('" STORE_LOBBY_CHANNEL "', ?1)"},
    /* Each waited for (up to 10 s): once gone, what it was committing has
     * landed or never will. Only the role's own sessions, which it may end. */
    {STORE_SQL_END_EARLIER_LIVES,
     "SELECT count(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity"
     " WHERE application_name LIKE ?1 AND application_name <> ?2 AND usename = current_user"
     " AND pid <> pg_backend_pid()"},
    /* Held to the end of the transaction: see store_rating_lock. */
    {STORE_SQL_RATING_LOCK, "SELECT pg_advisory_xact_lock(CAST(?1 AS BIGINT))"},
    {STORE_SQL_COUNT, NULL},
};

static const store_statement_text *const STATEMENT_LISTS[] = {
    TRANSACTION_STATEMENTS,     STORE_PLAYER_STATEMENTS,       STORE_GAME_STATEMENTS,
    STORE_SEAT_STATEMENTS,      STORE_LEASE_STATEMENTS,        STORE_MOVE_STATEMENTS,
    STORE_RATING_STATEMENTS,    STORE_REEF_RUN_STATEMENTS,     STORE_TOURNAMENT_STATEMENTS,
    STORE_READ_GAME_STATEMENTS, STORE_READ_RANKING_STATEMENTS,
};

#define STATEMENT_LIST_COUNT ((int)(sizeof(STATEMENT_LISTS) / sizeof(STATEMENT_LISTS[0])))

/* Indexed by -code. */
static const char *const ERROR_MESSAGES[] = {
    "no error",
    "the database cannot be opened, read or written (its file, or its server)",
    "the database file is not a database or is damaged",
    "no such player, game or seat",
    "conflicts with stored data",
    "out of memory",
    "the database was written by a newer version of tessera",
    "the database is locked by another connection",
    "a value the database refuses",
    "the database refused one of our statements",
    "the database can only be read (a read-only file, folder or file system)",
};

#define ERROR_MESSAGE_COUNT ((int)(sizeof(ERROR_MESSAGES) / sizeof(ERROR_MESSAGES[0])))

const char *store_strerror(int code)
{
    if (code > 0 || -code >= ERROR_MESSAGE_COUNT)
        return "unknown storage error";
    return ERROR_MESSAGES[-code];
}

static int constraint_error(int sqlite_code)
{
    /* CHECK and NOT NULL judge the value itself; the other constraints
     * (UNIQUE, PRIMARY KEY, FOREIGN KEY, our triggers) judge it against
     * what is already stored. */
    if (sqlite_code == SQLITE_CONSTRAINT_CHECK || sqlite_code == SQLITE_CONSTRAINT_NOTNULL)
        return STORE_E_INVALID;
    return STORE_E_CONSTRAINT;
}

int store_error_from_sqlite(int sqlite_code)
{
    switch (sqlite_code & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE:
        return STORE_OK;
    case SQLITE_NOMEM:
        return STORE_E_NOMEM;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return STORE_E_BUSY;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return STORE_E_CORRUPT;
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_PROTOCOL:
        return STORE_E_IO;
    case SQLITE_TOOBIG:
    case SQLITE_MISMATCH:
        return STORE_E_INVALID;
    case SQLITE_CONSTRAINT:
        return constraint_error(sqlite_code);
    default:
        return STORE_E_INTERNAL;
    }
}

void store_statement_reset(store_stmt *stmt)
{
    if (stmt->pg) {
        store_pg_reset(stmt->pg);
        return;
    }
    sqlite3_reset(stmt->lite);
    sqlite3_clear_bindings(stmt->lite);
}

void store_bind_text(store_stmt *stmt, int index, const char *text, int *bound)
{
    if (*bound == STORE_OK)
        *bound = stmt->pg ? store_pg_bind(stmt->pg, index, text, false)
                          : store_error_from_sqlite(
                                sqlite3_bind_text(stmt->lite, index, text, -1, SQLITE_STATIC));
}

void store_bind_text_copy(store_stmt *stmt, int index, const char *text, int *bound)
{
    if (*bound == STORE_OK)
        *bound = stmt->pg ? store_pg_bind(stmt->pg, index, text, true)
                          : store_error_from_sqlite(
                                sqlite3_bind_text(stmt->lite, index, text, -1, SQLITE_TRANSIENT));
}

void store_bind_int64(store_stmt *stmt, int index, int64_t value, int *bound)
{
    if (*bound == STORE_OK)
        *bound = stmt->pg ? store_pg_bind_int64(stmt->pg, index, value)
                          : store_error_from_sqlite(sqlite3_bind_int64(stmt->lite, index, value));
}

void store_bind_double(store_stmt *stmt, int index, double value, int *bound)
{
    if (*bound == STORE_OK)
        *bound = stmt->pg ? store_pg_bind_double(stmt->pg, index, value)
                          : store_error_from_sqlite(sqlite3_bind_double(stmt->lite, index, value));
}

int store_execute(store_stmt *stmt, int bound)
{
    if (bound != STORE_OK) {
        store_statement_reset(stmt);
        return bound;
    }
    if (stmt->pg)
        return store_pg_execute(stmt->pg);
    int rc = sqlite3_step(stmt->lite);
    store_statement_reset(stmt);
    if (rc == SQLITE_DONE)
        return STORE_OK;
    return rc == SQLITE_ROW ? STORE_E_INTERNAL : store_error_from_sqlite(rc);
}

int store_step_row(store_stmt *stmt, int bound)
{
    if (bound != STORE_OK)
        return bound;
    if (stmt->pg)
        return store_pg_step_row(stmt->pg);
    int rc = sqlite3_step(stmt->lite);
    if (rc == SQLITE_ROW)
        return STORE_OK;
    if (rc == SQLITE_DONE)
        return STORE_E_NOT_FOUND;
    return store_error_from_sqlite(rc);
}

int64_t store_column_int64(store_stmt *stmt, int column)
{
    return stmt->pg ? store_pg_column_int64(stmt->pg, column)
                    : sqlite3_column_int64(stmt->lite, column);
}

int store_column_int(store_stmt *stmt, int column)
{
    return stmt->pg ? (int)store_pg_column_int64(stmt->pg, column)
                    : sqlite3_column_int(stmt->lite, column);
}

double store_column_double(store_stmt *stmt, int column)
{
    return stmt->pg ? store_pg_column_double(stmt->pg, column)
                    : sqlite3_column_double(stmt->lite, column);
}

const char *store_column_text(store_stmt *stmt, int column)
{
    return stmt->pg ? store_pg_column_text(stmt->pg, column)
                    : (const char *)sqlite3_column_text(stmt->lite, column);
}

bool store_column_is_null(store_stmt *stmt, int column)
{
    return stmt->pg ? store_pg_column_is_null(stmt->pg, column)
                    : sqlite3_column_type(stmt->lite, column) == SQLITE_NULL;
}

const void *store_column_blob(store_stmt *stmt, int column, size_t *size)
{
    if (stmt->pg)
        return store_pg_column_blob(stmt->pg, column, size);
    const void *value =
        sqlite3_column_blob(stmt->lite, column); /* before its size, as SQLite asks */
    *size = (size_t)sqlite3_column_bytes(stmt->lite, column);
    return value;
}

int64_t store_changes(store *storage)
{
    if (storage->pg) /* in a pipeline, once the results owed are read */
        return store_pg_pipeline_sync(storage) == STORE_OK ? storage->pg_changes : 0;
    return sqlite3_changes(storage->db);
}

int64_t store_last_insert_id(store *storage)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_LAST_ID];
    int64_t id = store_step_row(stmt, STORE_OK) == STORE_OK ? store_column_int64(stmt, 0) : 0;
    store_statement_reset(stmt);
    return id;
}

int store_pipeline_begin(store *storage)
{
    return storage->pg ? store_pg_pipeline_begin(storage) : STORE_E_INVALID;
}

int store_pipeline_end(store *storage)
{
    if (!storage->pg)
        return STORE_OK;
    int rc = store_pg_pipeline_end(storage);
    if (rc == STORE_OK && storage->pg_is_commit_sent)
        histogram_observe(&storage->figures.commits, store_monotonic_s() - storage->began_s);
    storage->pg_is_commit_sent = false;
    return rc;
}

/* A text column's length in bytes, once its text was read. */
static size_t column_length(store_stmt *stmt, int column)
{
    return stmt->pg ? store_pg_column_length(stmt->pg, column)
                    : (size_t)sqlite3_column_bytes(stmt->lite, column);
}

void store_column_copy(store_stmt *stmt, int column, char *dst, size_t size)
{
    const char *text = store_column_text(stmt, column);
    size_t length = text ? column_length(stmt, column) : 0;
    if (length >= size)
        length = size - 1;
    if (length > 0)
        memcpy(dst, text, length);
    dst[length] = '\0';
}

char *store_column_strdup(store_stmt *stmt, int column, int *rc)
{
    const char *text = store_column_text(stmt, column);
    if (!text)
        return NULL;
    size_t length = column_length(stmt, column);
    char *copy = malloc(length + 1);
    if (!copy) {
        *rc = STORE_E_NOMEM;
        return NULL;
    }
    memcpy(copy, text, length + 1);
    return copy;
}

int store_sqlite_number(sqlite3 *db, const char *sql, int64_t *value)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW)
        *value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    if (rc == SQLITE_ROW)
        return STORE_OK;
    return rc == SQLITE_DONE ? STORE_E_INTERNAL : store_error_from_sqlite(rc);
}

int64_t store_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

double store_monotonic_s(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int store_transaction_begin(store *storage)
{
    storage->began_s = store_monotonic_s();
    return store_execute(&storage->statements[STORE_SQL_BEGIN], STORE_OK);
}

int store_transaction_commit(store *storage)
{
    int rc = store_execute(&storage->statements[STORE_SQL_COMMIT], STORE_OK);
    if (rc != STORE_OK) {
        storage->figures.commit_failures++;
        store_transaction_rollback(storage);
        return rc;
    }
    if (storage->pg_is_pipelined)
        storage->pg_is_commit_sent = true; /* counted once the pipeline says it went through */
    else
        histogram_observe(&storage->figures.commits, store_monotonic_s() - storage->began_s);
    return rc;
}

void store_figures_read(const store *storage, store_figures *out)
{
    *out = storage->figures;
}

void store_figures_add(store_figures *into, const store_figures *more)
{
    histogram_add(&into->commits, &more->commits);
    into->commit_failures += more->commit_failures;
}

int store_checkpoint_elsewhere(store *storage)
{
    if (storage->pg)
        return STORE_OK; /* PostgreSQL checkpoints on its own */
    return store_error_from_sqlite(
        sqlite3_exec(storage->db, "PRAGMA wal_autocheckpoint = 0", NULL, NULL, NULL));
}

int store_checkpoint(store *storage, bool is_restart, int *wal_frames)
{
    int frames = 0, copied = 0;
    *wal_frames = 0;
    if (storage->pg)
        return STORE_OK;
    int rc = sqlite3_wal_checkpoint_v2(
        storage->db, NULL, is_restart ? SQLITE_CHECKPOINT_RESTART : SQLITE_CHECKPOINT_PASSIVE,
        &frames, &copied);
    *wal_frames = frames;
    return rc == SQLITE_BUSY ? STORE_OK : store_error_from_sqlite(rc); /* busy: not all copied */
}

void store_transaction_rollback(store *storage)
{
    if (store_is_in_transaction(storage))
        store_execute(&storage->statements[STORE_SQL_ROLLBACK], STORE_OK);
}

int store_begin(store *storage)
{
    return store_transaction_begin(storage);
}

int store_commit(store *storage)
{
    return store_transaction_commit(storage);
}

void store_rollback(store *storage)
{
    store_transaction_rollback(storage);
}

int store_part_begin(store *storage)
{
    return store_execute(&storage->statements[STORE_SQL_PART_BEGIN], STORE_OK);
}

int store_part_end(store *storage, int rc)
{
    if (!store_is_in_transaction(storage))
        return rc; /* rolled back whole, the part with it */
    if (rc != STORE_OK)
        store_execute(&storage->statements[STORE_SQL_PART_UNDO], STORE_OK);
    int released = store_execute(&storage->statements[STORE_SQL_PART_KEEP], STORE_OK);
    return rc != STORE_OK ? rc : released;
}

int store_ping(store *storage)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_PING];
    int rc = store_step_row(stmt, STORE_OK);
    store_statement_reset(stmt);
    return rc;
}

bool store_is_in_transaction(const store *storage)
{
    if (storage->pg) /* a pipeline is always a transaction of ours */
        return storage->pg_is_pipelined || store_pg_is_in_transaction(storage);
    return !sqlite3_get_autocommit(storage->db);
}

/* Appends to a malloc'ed array, doubling its capacity when full. */
int store_id_order(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int append_id(int64_t **ids, int *count, int *capacity, int64_t id)
{
    if (*count == *capacity) {
        int grown = *capacity ? *capacity * 2 : 16;
        int64_t *larger = realloc(*ids, (size_t)grown * sizeof(**ids));
        if (!larger)
            return STORE_E_NOMEM;
        *ids = larger;
        *capacity = grown;
    }
    (*ids)[(*count)++] = id;
    return STORE_OK;
}

int store_collect_ids(store_stmt *stmt, int64_t **ids, int *count)
{
    int64_t *found = NULL;
    int found_count = 0, capacity = 0;
    int rc;
    while ((rc = store_step_row(stmt, STORE_OK)) == STORE_OK) {
        rc = append_id(&found, &found_count, &capacity, store_column_int64(stmt, 0));
        if (rc != STORE_OK)
            break;
    }
    store_statement_reset(stmt);
    if (rc != STORE_E_NOT_FOUND) {
        free(found);
        return rc;
    }
    *ids = found;
    *count = found_count;
    return STORE_OK;
}

int store_join_begin(store *storage, bool *is_own)
{
    *is_own = !store_is_in_transaction(storage);
    return *is_own ? store_transaction_begin(storage) : STORE_OK;
}

int store_join_end(store *storage, bool is_own, int rc)
{
    if (!is_own)
        return rc;
    if (rc == STORE_OK)
        return store_transaction_commit(storage);
    store_transaction_rollback(storage);
    return rc;
}

/* journal_mode answers with the mode it ended up in; an in-memory database
 * stays "memory", anything else must be WAL. */
static int enable_wal(sqlite3 *db)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return store_error_from_sqlite(rc);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        const char *mode = (const char *)sqlite3_column_text(stmt, 0);
        rc = mode && (strcmp(mode, "wal") == 0 || strcmp(mode, "memory") == 0) ? STORE_OK
                                                                               : STORE_E_IO;
    } else {
        rc = rc == SQLITE_DONE ? STORE_E_INTERNAL : store_error_from_sqlite(rc);
    }
    sqlite3_finalize(stmt);
    return rc;
}

static int configure(sqlite3 *db, bool is_synchronous_full)
{
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    int rc = enable_wal(db);
    if (rc != STORE_OK)
        return rc;
    const char *pragmas = is_synchronous_full
                              ? "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;"
                              : "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;";
    return store_error_from_sqlite(sqlite3_exec(db, pragmas, NULL, NULL, NULL));
}

static const char *postgres_text(const store_statement_text *entry)
{
    static const store_statement_text *const OVERRIDES[] = {
        POSTGRES_TEXTS, STORE_SEAT_POSTGRES_STATEMENTS, STORE_READ_GAME_POSTGRES_STATEMENTS};
    for (size_t i = 0; i < sizeof(OVERRIDES) / sizeof(OVERRIDES[0]); i++)
        for (const store_statement_text *other = OVERRIDES[i]; other->sql; other++)
            if (other->id == entry->id)
                return other->sql;
    return entry->sql;
}

static int prepare_list(store *storage, const store_statement_text *list)
{
    for (; list->sql; list++) {
        if (storage->pg) {
            int rc = store_pg_prepare(storage, &storage->statements[list->id], list->id,
                                      postgres_text(list));
            if (rc != STORE_OK)
                return rc;
            continue;
        }
        assert(list->id < STORE_SQL_COUNT && !storage->statements[list->id].lite);
        int rc = sqlite3_prepare_v3(storage->db, list->sql, -1, SQLITE_PREPARE_PERSISTENT,
                                    &storage->statements[list->id].lite, NULL);
        if (rc != SQLITE_OK)
            return store_error_from_sqlite(rc);
    }
    return STORE_OK;
}

static int prepare_statements(store *storage)
{
    for (int i = 0; i < STATEMENT_LIST_COUNT; i++) {
        int rc = prepare_list(storage, STATEMENT_LISTS[i]);
        if (rc != STORE_OK)
            return rc;
    }
    for (int id = 0; id < STORE_SQL_COUNT; id++)
        assert((storage->statements[id].lite || storage->statements[id].pg) &&
               "every statement id has its SQL in a table file");
    return STORE_OK;
}

/* A reader's file must already hold this code's schema: it cannot migrate. */
static int check_reader_schema(sqlite3 *db)
{
    int version = 0;
    int rc = store_schema_version(db, &version);
    if (rc == STORE_OK && version > STORE_SCHEMA_VERSION)
        rc = STORE_E_TOO_NEW;
    else if (rc == STORE_OK && version != STORE_SCHEMA_VERSION)
        rc = STORE_E_CORRUPT;
    return rc;
}

/* run_digest(text): the text's digest in hex (secret_digest_hex), NULL for
 * NULL. */
static void run_digest(sqlite3_context *context, int count, sqlite3_value **values)
{
    (void)count;
    if (sqlite3_value_type(values[0]) == SQLITE_NULL) {
        sqlite3_result_null(context);
        return;
    }
    const char *text = (const char *)sqlite3_value_text(values[0]);
    if (!text) {
        sqlite3_result_error_nomem(context);
        return;
    }
    char hex[SECRET_DIGEST_HEX_SIZE];
    secret_digest_hex(text, hex);
    sqlite3_result_text(context, hex, -1, SQLITE_TRANSIENT);
}

/* A reader's writes fail, as on a read-only SQLite file. */
static int read_only_session(store *storage)
{
    return store_pg_exec_script(storage, "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
}

/* A store on the PostgreSQL database `url` names: connected, migrated
 * (or, for a reader, checked) and prepared. */
static int open_postgres(store *storage, const char *url, bool is_reader)
{
    int rc = store_pg_connect(storage, url);
    if (rc == STORE_OK && !is_reader)
        rc = store_schema_migrate_pg(storage);
    if (rc == STORE_OK && is_reader) {
        storage->pg_after_reconnect = read_only_session;
        rc = read_only_session(storage);
    }
    int64_t version = 0;
    if (rc == STORE_OK && is_reader &&
        store_pg_number(storage, "SELECT coalesce(max(version), 0) FROM tessera_schema",
                        &version) == STORE_OK)
        rc = version > STORE_SCHEMA_VERSION    ? STORE_E_TOO_NEW
             : version != STORE_SCHEMA_VERSION ? STORE_E_CORRUPT
                                               : STORE_OK;
    else if (rc == STORE_OK && is_reader)
        rc = STORE_E_CORRUPT; /* no tessera_schema: not a tessera database */
    return rc == STORE_OK ? prepare_statements(storage) : rc;
}

static int open_connection(const char *path, bool is_reader, bool is_synchronous_full, store **out,
                           char *why)
{
    *out = NULL;
    if (why)
        why[0] = '\0';
    if (!path)
        return STORE_E_INVALID;
    store *storage = calloc(1, sizeof(*storage));
    if (!storage)
        return STORE_E_NOMEM;
    if (store_path_is_postgres(path)) {
        int rc = open_postgres(storage, path, is_reader);
        if (rc != STORE_OK) {
            if (why)
                snprintf(why, STORE_WHY_SIZE, "%s", storage->error_detail);
            store_close(storage);
            return rc;
        }
        *out = storage;
        return STORE_OK;
    }
    int flags = is_reader ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    int rc = sqlite3_open_v2(path, &storage->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        rc = store_error_from_sqlite(rc);
        goto fail;
    }
    /* SQLite falls back to reading when it may not write (the file, or a
     * leftover -wal/-shm on a read-only mount): the server would then
     * refuse every move; better to say so now and not start. */
    if (!is_reader && sqlite3_db_readonly(storage->db, "main") == 1) {
        rc = STORE_E_READ_ONLY;
        goto fail;
    }
    rc = store_error_from_sqlite(sqlite3_create_function_v2(storage->db, "run_digest", 1,
                                                            SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                                            NULL, run_digest, NULL, NULL, NULL));
    if (rc != STORE_OK)
        goto fail;
    if (is_reader) {
        sqlite3_extended_result_codes(storage->db, 1);
        sqlite3_busy_timeout(storage->db, STORE_BUSY_TIMEOUT_MS);
        rc = check_reader_schema(storage->db);
    } else {
        rc = configure(storage->db, is_synchronous_full);
        if (rc == STORE_OK)
            rc = store_schema_migrate(storage->db);
    }
    if (rc == STORE_OK)
        rc = prepare_statements(storage);
    if (rc != STORE_OK)
        goto fail;
    *out = storage;
    return STORE_OK;
fail:
    store_close(storage);
    return rc;
}

int store_open(const char *path, bool is_synchronous_full, store **out)
{
    return open_connection(path, false, is_synchronous_full, out, NULL);
}

int store_open_why(const char *path, bool is_synchronous_full, store **out, char *why)
{
    return open_connection(path, false, is_synchronous_full, out, why);
}

int store_open_reader(const char *path, store **out)
{
    return open_connection(path, true, false, out, NULL);
}

int store_open_reader_why(const char *path, store **out, char *why)
{
    return open_connection(path, true, false, out, why);
}

void store_close(store *storage)
{
    if (!storage)
        return;
    for (int id = 0; id < STORE_SQL_COUNT; id++) {
        sqlite3_finalize(storage->statements[id].lite);
        store_pg_free(storage->statements[id].pg);
    }
    store_pg_disconnect(storage);
    /* Closing the last connection checkpoints the WAL into the database. */
    sqlite3_close(storage->db);
    free(storage);
}

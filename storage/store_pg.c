/* store_pg.c -- a store on PostgreSQL: the connection and the statement
 * calls of store_internal.h, through libpq.
 *
 * The table files' SQL is written once, in the subset both databases
 * read alike; the few statements that cannot be have their PostgreSQL
 * text in store.c's POSTGRES_TEXTS. Parameters are written
 * ?N, which store_pg_sql turns into PostgreSQL's $N. Every statement is
 * prepared once at open, as on SQLite, with the parameter types left to
 * the server to infer; values travel as text. Results come back in binary
 * when every column of the statement is of a type read here (numbers,
 * booleans, text, bytea): a rating's reals then cost a copy, not a strtod
 * of 17 digits each (a busy player's profile has up to 2,000). Other statements'
 * results come back as text. Either way store_pg_column_* read them as
 * SQLite's columns read: PostgreSQL answers a condition with a boolean where
 * SQLite gives 0 or 1, and a boolean column reads as 1 or 0.
 *
 * A statement runs when it is executed or first stepped; its result is
 * kept until the reset, so column text lives as long as on SQLite. In a
 * pipeline (store_pg_pipeline_begin) a command is only queued, and a query
 * first reads every result owed before it.
 *
 * The calls block: a store is used by one thread at a time (the server's
 * writer thread, a reader of the reader pool; never the loop), see
 * docs/ARCHITECTURE.md, "The store port". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "storage/store_internal.h"

/* The most parameters a statement of ours has (?1 .. ?12). */
#define MAX_PARAMETERS 16
/* Room for an int64 or a double written as text. */
#define NUMBER_SIZE 32

/* The ids of the built-in types read in binary (PostgreSQL's catalog,
 * pg_type.dat; they are fixed across versions). */
enum {
    PG_BOOL = 16,
    PG_BYTEA = 17,
    PG_NAME = 19,
    PG_INT8 = 20,
    PG_INT2 = 21,
    PG_INT4 = 23,
    PG_TEXT = 25,
    PG_JSON = 114,
    PG_FLOAT4 = 700,
    PG_FLOAT8 = 701,
    PG_BPCHAR = 1042,
    PG_VARCHAR = 1043,
};

struct store_pg_stmt {
    store *owner;
    char name[16];    /* the prepared statement's name on the server: "s<id>" */
    char *sql;        /* its text, $N parameters: prepared again after a reconnect */
    bool is_prepared; /* on the connection's current session */
    int parameter_count;
    const char *values[MAX_PARAMETERS];
    char *copies[MAX_PARAMETERS]; /* values this statement owns */
    char numbers[MAX_PARAMETERS][NUMBER_SIZE];
    int result_format;                /* 1: the results come in binary (see the top) */
    char (*field_texts)[NUMBER_SIZE]; /* a binary number column read as text, per column */
    PGresult *result;                 /* of the last run, until the reset */
    int row;                          /* the row store_pg_step_row gave last; -1 before the first */
    unsigned char *blob;              /* a bytea column, unescaped; until the next step or reset */
};

/* The process's session name (store_name_sessions): set before any store
 * opens, read by every connection. */
static char session_name[STORE_SESSION_NAME_SIZE] = "tessera";

/* What every life of `instance` names its sessions first: "tessera:ID:". */
static int instance_prefix(char instance, char out[STORE_SESSION_NAME_SIZE])
{
    return snprintf(out, STORE_SESSION_NAME_SIZE, "tessera:%c:", instance);
}

void store_name_sessions(char instance)
{
    if (!instance) {
        snprintf(session_name, sizeof(session_name), "tessera");
        return;
    }
    int length = instance_prefix(instance, session_name);
    snprintf(session_name + length, sizeof(session_name) - (size_t)length, "%ld", (long)getpid());
}

void store_session_pattern(char instance, char out[STORE_SESSION_NAME_SIZE])
{
    int length = instance_prefix(instance, out);
    snprintf(out + length, STORE_SESSION_NAME_SIZE - (size_t)length, "%%");
}

const char *store_session_name(void)
{
    return session_name;
}

bool store_path_is_postgres(const char *path)
{
    return strncmp(path, "postgresql://", 13) == 0 || strncmp(path, "postgres://", 11) == 0;
}

/* Writes `text` with "***" in place of the secret that runs from `secret`
 * (a place in `text`) to the first of `stops`. */
static void hide(const char *text, const char *secret, const char *stops, char *out, size_t size)
{
    const char *after = secret + strcspn(secret, stops);
    snprintf(out, size, "%.*s***%s", (int)(secret - text), text, after);
}

void store_path_for_log(const char *path, char *out, size_t size)
{
    char first[STORE_WHY_SIZE * 2];
    snprintf(first, sizeof(first), "%s", path);
    if (store_path_is_postgres(path)) {
        const char *authority = strstr(path, "://") + 3;
        const char *end = authority + strcspn(authority, "/?");
        const char *at = memchr(authority, '@', (size_t)(end - authority));
        const char *colon = at ? memchr(authority, ':', (size_t)(at - authority)) : NULL;
        if (colon) /* user:password@ */
            hide(path, colon + 1, "@", first, sizeof(first));
    }
    const char *password = store_path_is_postgres(path) ? strstr(first, "password=") : NULL;
    if (password)
        hide(first, password + 9, "&", out, size);
    else
        snprintf(out, size, "%s", first);
}

void store_pg_note(store *storage, const char *what)
{
    const char *message = storage->pg ? PQerrorMessage(storage->pg) : "";
    snprintf(storage->error_detail, sizeof(storage->error_detail), "%s%s%s", what,
             message[0] ? ": " : "", message);
    size_t length = strlen(storage->error_detail);
    while (length > 0 && storage->error_detail[length - 1] == '\n')
        storage->error_detail[--length] = '\0';
}

/* The store_error for a failed result (SQLSTATE classes, PostgreSQL's
 * appendix A): the value itself is wrong, or it is against what is
 * stored, or the database is busy or gone. */
static int error_from_result(store *storage, const PGresult *result)
{
    if (PQstatus(storage->pg) != CONNECTION_OK)
        return STORE_E_IO;
    const char *state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : NULL;
    if (!state)
        return result ? STORE_E_INTERNAL : STORE_E_NOMEM;
    if (strcmp(state, "23514") == 0 || strcmp(state, "23502") == 0 || strncmp(state, "22", 2) == 0)
        return STORE_E_INVALID; /* CHECK, NOT NULL, a value of the wrong form */
    if (strncmp(state, "23", 2) == 0 || strcmp(state, "P0001") == 0)
        return STORE_E_CONSTRAINT; /* UNIQUE, FOREIGN KEY, our triggers' RAISE */
    if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 || strcmp(state, "55P03") == 0)
        return STORE_E_BUSY;
    if (strcmp(state, "25006") == 0)
        return STORE_E_IO; /* a write on a reader, as SQLite's read-only file answers */
    if (strncmp(state, "08", 2) == 0 || strncmp(state, "53", 2) == 0 ||
        strncmp(state, "57", 2) == 0 || strncmp(state, "58", 2) == 0)
        return STORE_E_IO;   /* connection, resources, shutdown, system */
    return STORE_E_INTERNAL; /* 25P02 among them: a statement after a failure in its transaction */
}

char *store_pg_sql(const char *sql)
{
    char *out = malloc(strlen(sql) + 1);
    if (!out)
        return NULL;
    char *at = out;
    bool is_quoted = false;
    for (const char *in = sql; *in; in++) {
        if (*in == '\'')
            is_quoted = !is_quoted; /* '' inside a literal toggles twice */
        *at++ = !is_quoted && *in == '?' && in[1] >= '1' && in[1] <= '9' ? '$' : *in;
    }
    *at = '\0';
    return out;
}

static bool is_text_type(Oid type)
{
    return type == PG_TEXT || type == PG_VARCHAR || type == PG_BPCHAR || type == PG_NAME ||
           type == PG_JSON; /* json's binary form is its text */
}

static bool is_binary_readable(Oid type)
{
    return is_text_type(type) || type == PG_BOOL || type == PG_BYTEA || type == PG_INT2 ||
           type == PG_INT4 || type == PG_INT8 || type == PG_FLOAT4 || type == PG_FLOAT8;
}

/* Binary results when `description` (of the prepared statement) has only
 * columns of types read here: 0, or STORE_E_NOMEM. */
static int choose_result_format(struct store_pg_stmt *pg, const PGresult *description)
{
    int count = PQnfields(description);
    bool is_binary = true;
    for (int i = 0; i < count && is_binary; i++)
        is_binary = is_binary_readable(PQftype(description, i));
    free(pg->field_texts);
    pg->field_texts = NULL;
    pg->result_format = is_binary && count > 0;
    if (pg->result_format && !(pg->field_texts = calloc((size_t)count, NUMBER_SIZE)))
        return STORE_E_NOMEM;
    return STORE_OK;
}

/* Prepares `pg` on the connection's current session: 0, or a store_error
 * with the server's words in error_detail. */
static int prepare_on_session(struct store_pg_stmt *pg)
{
    store *storage = pg->owner;
    PGresult *result = PQprepare(storage->pg, pg->name, pg->sql, 0, NULL);
    int rc =
        PQresultStatus(result) == PGRES_COMMAND_OK ? STORE_OK : error_from_result(storage, result);
    if (rc != STORE_OK)
        snprintf(storage->error_detail, sizeof(storage->error_detail), "%s: %s", pg->name,
                 result ? PQresultErrorMessage(result) : "out of memory");
    PQclear(result);
    if (rc != STORE_OK)
        return rc;
    result = PQdescribePrepared(storage->pg, pg->name);
    if (PQresultStatus(result) != PGRES_COMMAND_OK)
        rc = error_from_result(storage, result);
    else if ((pg->parameter_count = PQnparams(result)) > MAX_PARAMETERS)
        rc = STORE_E_INTERNAL;
    else
        rc = choose_result_format(pg, result);
    PQclear(result);
    pg->is_prepared = rc == STORE_OK;
    return rc;
}

int store_pg_prepare(store *storage, store_stmt *stmt, int id, const char *sql)
{
    struct store_pg_stmt *pg = calloc(1, sizeof(*pg));
    if (!pg)
        return STORE_E_NOMEM;
    pg->owner = storage;
    pg->row = -1;
    snprintf(pg->name, sizeof(pg->name), "s%d", id);
    stmt->pg = pg;
    pg->sql = store_pg_sql(sql);
    return pg->sql ? prepare_on_session(pg) : STORE_E_NOMEM;
}

/* A connection the server dropped (a restart, a network cut) is made
 * again before the next statement outside a transaction -- inside one
 * there is nothing to go on with: the statement fails, its transaction
 * with it, and the caller's batch is refused. The statements are
 * prepared again on the new session as they are next run. 0, or
 * STORE_E_IO while the server cannot be reached. */
static int reconnect_if_dropped(store *storage)
{
    if (PQstatus(storage->pg) == CONNECTION_OK)
        return STORE_OK;
    PQreset(storage->pg);
    if (PQstatus(storage->pg) != CONNECTION_OK) {
        store_pg_note(storage, "cannot reconnect");
        return STORE_E_IO;
    }
    for (int id = 0; id < STORE_SQL_COUNT; id++)
        if (storage->statements[id].pg)
            storage->statements[id].pg->is_prepared = false;
    return storage->pg_after_reconnect ? storage->pg_after_reconnect(storage) : STORE_OK;
}

static void clear_row(struct store_pg_stmt *pg)
{
    PQfreemem(pg->blob);
    pg->blob = NULL;
}

void store_pg_reset(struct store_pg_stmt *pg)
{
    clear_row(pg);
    PQclear(pg->result);
    pg->result = NULL;
    pg->row = -1;
    for (int i = 0; i < MAX_PARAMETERS; i++) {
        free(pg->copies[i]);
        pg->copies[i] = NULL;
        pg->values[i] = NULL;
    }
}

void store_pg_free(struct store_pg_stmt *pg)
{
    if (!pg)
        return;
    store_pg_reset(pg);
    free(pg->field_texts);
    free(pg->sql);
    free(pg);
}

int store_pg_bind(struct store_pg_stmt *pg, int index, const char *text, bool is_copy)
{
    if (index < 1 || index > pg->parameter_count)
        return STORE_E_INTERNAL;
    int at = index - 1;
    free(pg->copies[at]);
    pg->copies[at] = NULL;
    if (text && is_copy) {
        pg->copies[at] = strdup(text);
        if (!pg->copies[at])
            return STORE_E_NOMEM;
        text = pg->copies[at];
    }
    pg->values[at] = text;
    return STORE_OK;
}

int store_pg_bind_int64(struct store_pg_stmt *pg, int index, int64_t value)
{
    if (index < 1 || index > pg->parameter_count)
        return STORE_E_INTERNAL;
    snprintf(pg->numbers[index - 1], NUMBER_SIZE, "%lld", (long long)value);
    return store_pg_bind(pg, index, pg->numbers[index - 1], false);
}

int store_pg_bind_double(struct store_pg_stmt *pg, int index, double value)
{
    if (index < 1 || index > pg->parameter_count)
        return STORE_E_INTERNAL;
    snprintf(pg->numbers[index - 1], NUMBER_SIZE, "%.17g", value);
    return store_pg_bind(pg, index, pg->numbers[index - 1], false);
}

/* Runs the prepared statement with its values: 0, or a store_error. */
/* What a statement's result says: 0 (and the rows it changed noted), or
 * a store_error with the server's words in error_detail. */
static int take_result(store *storage, const char *name, const PGresult *result)
{
    ExecStatusType status = PQresultStatus(result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
        const char *changed = PQcmdTuples((PGresult *)result);
        storage->pg_changes = changed[0] ? strtoll(changed, NULL, 10) : 0;
        return STORE_OK;
    }
    if (status == PGRES_PIPELINE_ABORTED)
        return STORE_E_INTERNAL; /* after a failure earlier in the pipeline, which says why */
    int rc = error_from_result(storage, result);
    snprintf(storage->error_detail, sizeof(storage->error_detail), "%s: %s", name,
             result ? PQresultErrorMessage((PGresult *)result) : "out of memory");
    return rc;
}

/* Pipelined: sends the end of the pipeline's batch and reads every result
 * owed, in order, keeping `wanted`'s (the query whose rows are about to
 * be read; NULL for none). The first failure among them sticks to the
 * pipeline (storage->pg_pipeline_rc). */
static int drain(store *storage, struct store_pg_stmt *wanted)
{
    if (PQpipelineSync(storage->pg) != 1) {
        store_pg_note(storage, "pipeline");
        storage->pg_pipeline_rc = STORE_E_IO;
        return STORE_E_IO;
    }
    for (int i = 0; i < storage->pg_pending; i++) {
        struct store_pg_stmt *owner = storage->pg_owed[i];
        PGresult *result = PQgetResult(storage->pg);
        int rc = take_result(storage, owner ? owner->name : "pipeline", result);
        if (rc != STORE_OK && storage->pg_pipeline_rc == STORE_OK)
            storage->pg_pipeline_rc = rc;
        if (owner && owner == wanted) {
            PQclear(owner->result);
            owner->result = result;
        } else {
            PQclear(result);
        }
        while ((result = PQgetResult(storage->pg)) != NULL) /* the query's end */
            PQclear(result);
    }
    storage->pg_pending = 0;
    PGresult *sync = PQgetResult(storage->pg);
    if (PQresultStatus(sync) != PGRES_PIPELINE_SYNC && storage->pg_pipeline_rc == STORE_OK)
        storage->pg_pipeline_rc = STORE_E_IO;
    PQclear(sync);
    return storage->pg_pipeline_rc;
}

/* Pipelined: queues the statement; its result is read at the next drain. */
static int send_pipelined(struct store_pg_stmt *pg)
{
    store *storage = pg->owner;
    if (storage->pg_pipeline_rc != STORE_OK)
        return storage->pg_pipeline_rc; /* the pipeline is spoiled: it is done again unpipelined */
    if (storage->pg_pending == STORE_PG_PIPELINE_MAX && drain(storage, NULL) != STORE_OK)
        return storage->pg_pipeline_rc;
    if (PQsendQueryPrepared(storage->pg, pg->name, pg->parameter_count, pg->values, NULL, NULL,
                            pg->result_format) != 1) {
        store_pg_note(storage, "pipeline");
        storage->pg_pipeline_rc = STORE_E_IO;
        return STORE_E_IO;
    }
    storage->pg_owed[storage->pg_pending++] = pg;
    return STORE_OK;
}

/* Runs the prepared statement with its values: 0, or a store_error. In a
 * pipeline a command is only queued (`needs_result` false) and a query
 * drains the pipeline up to itself. */
static int run(struct store_pg_stmt *pg, bool needs_result)
{
    store *storage = pg->owner;
    if (storage->pg_is_pipelined) {
        int rc = send_pipelined(pg);
        return rc == STORE_OK && needs_result ? drain(storage, pg) : rc;
    }
    int rc = reconnect_if_dropped(storage);
    if (rc == STORE_OK && !pg->is_prepared)
        rc = prepare_on_session(pg);
    if (rc != STORE_OK)
        return rc;
    PQclear(pg->result);
    pg->result = PQexecPrepared(storage->pg, pg->name, pg->parameter_count, pg->values, NULL, NULL,
                                pg->result_format);
    return take_result(storage, pg->name, pg->result);
}

int store_pg_execute(struct store_pg_stmt *pg)
{
    int rc = run(pg, false);
    if (rc == STORE_OK && pg->result && PQresultStatus(pg->result) == PGRES_TUPLES_OK &&
        PQntuples(pg->result) > 0)
        rc = STORE_E_INTERNAL; /* as on SQLite: a statement that returns rows is no command */
    store_pg_reset(pg);        /* sent: libpq holds its own copy of the values */
    return rc;
}

int store_pg_step_row(struct store_pg_stmt *pg)
{
    clear_row(pg);
    if (pg->row < 0) {
        int rc = run(pg, true);
        if (rc != STORE_OK)
            return rc;
    }
    if (pg->row + 1 >= PQntuples(pg->result))
        return STORE_E_NOT_FOUND;
    pg->row++;
    return STORE_OK;
}

bool store_pg_column_is_null(struct store_pg_stmt *pg, int column)
{
    return !pg->result || pg->row < 0 || column < 0 || column >= PQnfields(pg->result) ||
           PQgetisnull(pg->result, pg->row, column);
}

/* Whether the column's value is a number or a boolean in binary (not
 * text, not a bytea's bytes). */
static bool is_binary_number(const struct store_pg_stmt *pg, int column)
{
    Oid type = PQftype(pg->result, column);
    return PQfformat(pg->result, column) == 1 && !is_text_type(type) && type != PG_BYTEA;
}

/* A binary value of the row's column: a number, its kind said by is_real. */
typedef struct binary_number {
    bool is_real;
    int64_t integer;
    double real;
} binary_number;

static binary_number read_binary_number(const struct store_pg_stmt *pg, int column)
{
    const unsigned char *bytes = (const unsigned char *)PQgetvalue(pg->result, pg->row, column);
    int length = PQgetlength(pg->result, pg->row, column);
    uint64_t bits = 0; /* network byte order */
    for (int i = 0; i < length && i < 8; i++)
        bits = bits << 8 | bytes[i];
    binary_number number = {false, 0, 0.0};
    switch (PQftype(pg->result, column)) {
    case PG_INT2:
        number.integer = (int16_t)bits;
        break;
    case PG_INT4:
        number.integer = (int32_t)bits;
        break;
    case PG_FLOAT4: {
        uint32_t narrow = (uint32_t)bits;
        float real;
        memcpy(&real, &narrow, sizeof(real));
        number = (binary_number){true, 0, real};
        break;
    }
    case PG_FLOAT8:
        number.is_real = true;
        memcpy(&number.real, &bits, sizeof(number.real));
        break;
    default: /* int8, and a boolean as 1 or 0 */
        number.integer = (int64_t)bits;
    }
    return number;
}

const char *store_pg_column_text(struct store_pg_stmt *pg, int column)
{
    if (store_pg_column_is_null(pg, column))
        return NULL;
    if (!is_binary_number(pg, column))
        return PQgetvalue(pg->result, pg->row, column); /* libpq ends every value with a NUL */
    binary_number number = read_binary_number(pg, column);
    char *text = pg->field_texts[column];
    if (number.is_real)
        snprintf(text, NUMBER_SIZE, "%.17g", number.real);
    else
        snprintf(text, NUMBER_SIZE, "%lld", (long long)number.integer);
    return text;
}

/* A number column: booleans read as 1 and 0, NULL as 0. */
int64_t store_pg_column_int64(struct store_pg_stmt *pg, int column)
{
    if (store_pg_column_is_null(pg, column))
        return 0;
    if (is_binary_number(pg, column)) {
        binary_number number = read_binary_number(pg, column);
        return number.is_real ? (int64_t)number.real : number.integer;
    }
    const char *text = PQgetvalue(pg->result, pg->row, column);
    if (text[0] == 't' || text[0] == 'f')
        return text[0] == 't';
    return strtoll(text, NULL, 10);
}

double store_pg_column_double(struct store_pg_stmt *pg, int column)
{
    if (store_pg_column_is_null(pg, column))
        return 0.0;
    if (is_binary_number(pg, column)) {
        binary_number number = read_binary_number(pg, column);
        return number.is_real ? number.real : (double)number.integer;
    }
    return strtod(PQgetvalue(pg->result, pg->row, column), NULL);
}

size_t store_pg_column_length(struct store_pg_stmt *pg, int column)
{
    if (store_pg_column_is_null(pg, column))
        return 0;
    if (is_binary_number(pg, column))
        return strlen(store_pg_column_text(pg, column));
    return (size_t)PQgetlength(pg->result, pg->row, column);
}

const void *store_pg_column_blob(struct store_pg_stmt *pg, int column, size_t *size)
{
    *size = 0;
    if (store_pg_column_is_null(pg, column))
        return NULL;
    const char *value = PQgetvalue(pg->result, pg->row, column);
    if (PQfformat(pg->result, column) == 1) {
        *size = (size_t)PQgetlength(pg->result, pg->row, column);
        return value;
    }
    clear_row(pg);
    pg->blob = PQunescapeBytea((const unsigned char *)value, size);
    return pg->blob;
}

/* Notices (CREATE ... IF NOT EXISTS that exists, say) are not errors. */
static void ignore_notice(void *context, const char *message)
{
    (void)context;
    (void)message;
}

int store_pg_connect(store *storage, const char *url)
{
    /* A server that does not answer is given up after 5 s, unless the URL
     * says otherwise (its keywords come after ours, so they win); the
     * session's name comes after the URL's, so ours wins. */
    const char *const keywords[] = {"connect_timeout", "dbname", "application_name", NULL};
    const char *const values[] = {"5", url, session_name, NULL};
    storage->pg = PQconnectdbParams(keywords, values, 1);
    if (!storage->pg)
        return STORE_E_NOMEM;
    if (PQstatus(storage->pg) != CONNECTION_OK) {
        store_pg_note(storage, "cannot connect");
        return STORE_E_IO;
    }
    PQsetNoticeProcessor(storage->pg, ignore_notice, NULL);
    return STORE_OK;
}

int store_pg_exec_script(store *storage, const char *sql)
{
    PGresult *result = PQexec(storage->pg, sql);
    int rc = PQresultStatus(result) == PGRES_COMMAND_OK || PQresultStatus(result) == PGRES_TUPLES_OK
                 ? STORE_OK
                 : error_from_result(storage, result);
    if (rc != STORE_OK)
        snprintf(storage->error_detail, sizeof(storage->error_detail), "%s",
                 result ? PQresultErrorMessage(result) : "out of memory");
    PQclear(result);
    return rc;
}

int store_pg_number(store *storage, const char *sql, int64_t *value)
{
    PGresult *result = PQexec(storage->pg, sql);
    int rc = STORE_OK;
    if (PQresultStatus(result) != PGRES_TUPLES_OK)
        rc = error_from_result(storage, result);
    else if (PQntuples(result) < 1 || PQnfields(result) < 1)
        rc = STORE_E_INTERNAL;
    else
        *value = strtoll(PQgetvalue(result, 0, 0), NULL, 10);
    PQclear(result);
    return rc;
}

bool store_pg_is_in_transaction(const store *storage)
{
    PGTransactionStatusType status = PQtransactionStatus(storage->pg);
    return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE;
}

void store_pg_disconnect(store *storage)
{
    PQfinish(storage->pg); /* NULL is allowed */
    storage->pg = NULL;
}

int store_pg_copy_begin(store *storage, const char *sql)
{
    PGresult *result = PQexec(storage->pg, sql);
    int rc =
        PQresultStatus(result) == PGRES_COPY_IN ? STORE_OK : error_from_result(storage, result);
    if (rc != STORE_OK)
        snprintf(storage->error_detail, sizeof(storage->error_detail), "%s",
                 result ? PQresultErrorMessage(result) : "out of memory");
    PQclear(result);
    return rc;
}

int store_pg_copy_data(store *storage, const char *data, size_t length)
{
    if (PQputCopyData(storage->pg, data, (int)length) == 1)
        return STORE_OK;
    store_pg_note(storage, "copy");
    return STORE_E_IO;
}

int store_pg_copy_end(store *storage, bool is_failed)
{
    if (PQputCopyEnd(storage->pg, is_failed ? "the copy was given up" : NULL) != 1) {
        store_pg_note(storage, "copy");
        return STORE_E_IO;
    }
    int rc = STORE_OK;
    PGresult *result;
    while ((result = PQgetResult(storage->pg)) != NULL) {
        if (rc == STORE_OK && PQresultStatus(result) != PGRES_COMMAND_OK) {
            rc = error_from_result(storage, result);
            snprintf(storage->error_detail, sizeof(storage->error_detail), "%s",
                     PQresultErrorMessage(result));
        }
        PQclear(result);
    }
    return rc;
}

int store_pg_pipeline_begin(store *storage)
{
    int rc = reconnect_if_dropped(storage);
    if (rc != STORE_OK)
        return rc;
    if (PQenterPipelineMode(storage->pg) != 1) {
        store_pg_note(storage, "pipeline");
        return STORE_E_IO;
    }
    storage->pg_is_pipelined = true;
    storage->pg_pipeline_rc = STORE_OK;
    storage->pg_pending = 0;
    return STORE_OK;
}

int store_pg_pipeline_end(store *storage)
{
    if (storage->pg_pending > 0)
        drain(storage, NULL);
    storage->pg_is_pipelined = false;
    if (PQexitPipelineMode(storage->pg) != 1 && storage->pg_pipeline_rc == STORE_OK) {
        store_pg_note(storage, "pipeline");
        storage->pg_pipeline_rc = STORE_E_IO;
    }
    return storage->pg_pipeline_rc;
}

int store_pg_pipeline_sync(store *storage)
{
    return storage->pg_is_pipelined && storage->pg_pending > 0 ? drain(storage, NULL) : STORE_OK;
}

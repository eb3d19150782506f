/* lobby_harness.c -- the lobby tests' shared harness (lobby_harness.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "storage/store_internal.h"
#include "tests/unit/lobby_harness.h"

store *db;
store_port port;
struct lobby *lob;
static char db_path[96];

void harness_start(const char *name, uint64_t seed, const lobby_config *config)
{
    fake_host_reset(seed);
    snprintf(db_path, sizeof(db_path), "/tmp/test_%s_%d.db", name, (int)getpid());
    assert_int_equal(store_open(db_path, false, &db), 0);
    port = fault_store_port(db);
    assert_int_equal(lobby_new(&FAKE_HOST, &port, config, &lob), 0);
}

void harness_restart(const lobby_config *config, int expected)
{
    lobby_shutdown(lob); /* as the server stops: bot jobs are told to stop, then finish */
    fake_host_run_jobs(1000);
    lobby_free(lob);
    assert_int_equal(lobby_new(&FAKE_HOST, &port, config, &lob), 0);
    assert_int_equal(fake_host_restore(lob), expected);
}

void harness_stop(void)
{
    fake_host_run_jobs(1000);
    lobby_free(lob);
    store_close(db);
    fake_host_release();
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof(path), "%s%s", db_path, suffixes[i]);
        unlink(path);
    }
}

static void say_list(uint64_t connection, const char *format, va_list args)
{
    char text[2048];
    vsnprintf(text, sizeof(text), format, args);
    lobby_message(lob, connection, text, strlen(text));
}

void say(uint64_t connection, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    say_list(connection, format, args);
    va_end(args);
}

void say_refused(uint64_t connection, const char *code, const char *format, ...)
{
    int errors = count(connection, "error");
    va_list args;
    va_start(args, format);
    say_list(connection, format, args);
    va_end(args);
    assert_int_equal(count(connection, "error"), errors + 1);
    assert_string_equal(last_error_code(connection), code);
}

json_t *last(uint64_t connection, const char *type)
{
    json_t *inbox = host.inbox[connection];
    for (size_t i = json_array_size(inbox); i-- > 0;) {
        json_t *message = json_array_get(inbox, i);
        if (strcmp(json_string_value(json_object_get(message, "type")), type) == 0)
            return message;
    }
    return NULL;
}

int count(uint64_t connection, const char *type)
{
    int found = 0;
    json_t *inbox = host.inbox[connection];
    for (size_t i = 0; i < json_array_size(inbox); i++)
        found +=
            strcmp(json_string_value(json_object_get(json_array_get(inbox, i), "type")), type) == 0;
    return found;
}

const char *last_error_code(uint64_t connection)
{
    json_t *error = last(connection, "error");
    return error ? json_string_value(json_object_get(error, "code")) : "";
}

int64_t stored_integer(const char *sql)
{
    sqlite3_stmt *stmt = NULL;
    assert_int_equal(sqlite3_prepare_v2(db->db, sql, -1, &stmt, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
    int64_t value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return value;
}

void stored_execute(const char *sql)
{
    assert_int_equal(sqlite3_exec(db->db, sql, NULL, NULL, NULL), SQLITE_OK);
}

/* test_http_accounts.c -- bot accounts over REST, read on a reader pool
 * (server/reader_pool.h) and stored through the fault store's port
 * (tests/unit/fault_store.h).
 *
 * Each change is one record: a creation, a key set or revoked, the
 * tournament flag. For each: a record that is not stored is answered as
 * an error (never as done), leaves the database as it was, and the same
 * request again goes through; a record whose answer is held is answered
 * only when the store answers, and the routes answer other requests
 * meanwhile. Every answer goes through the transport, which the harness
 * stands in for (tests/unit/http_harness.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "server/http_accounts.h"
#include "storage/secret.h"
#include "tests/unit/fault_store.h"
#include "tests/unit/http_harness.h"

#define ADMIN_KEY "admin-key-for-the-tests"

static store *db;
static http_routes *routes;
static struct http_accounts *accounts;

static int setup(void **state)
{
    (void)state;
    assert_int_equal(http_harness_open(), 0);
    db = http_harness_db();
    store_port port = fault_store_port(db);
    fault_store_heal();
    assert_int_equal(http_routes_new(&routes), 0);
    assert_int_equal(http_accounts_new(http_harness_readers(), &port, ADMIN_KEY, 10, &accounts), 0);
    assert_int_equal(http_accounts_add_routes(routes, accounts), 0);
    http_accounts_attach(accounts, http_harness_transport());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fault_store_release();
    fault_store_heal();
    assert_int_equal(http_accounts_in_flight(accounts), 0);
    assert_int_equal(reader_pool_jobs_in_flight(http_harness_readers()), 0);
    http_accounts_free(accounts);
    http_routes_free(routes);
    http_harness_close();
    return 0;
}

/* A request with the admin key, run until it is answered or its record is
 * held by the store: its status (0 when held) and, when answered, its
 * code or key (`field`) into `out`. */
static int ask(const char *method, const char *path, const char *body, const char *field, char *out,
               size_t size)
{
    transport_http_response response;
    http_harness_dispatch(routes, method, path, "Bearer " ADMIN_KEY, body, strlen(body), &response);
    if (!response.status)
        return 0;
    assert_non_null(response.body);
    assert_int_equal(response.body_length, strlen(response.body));
    json_t *answer = json_loads(response.body, 0, NULL);
    assert_non_null(answer);
    const char *value = field ? json_string_value(json_object_get(answer, field)) : NULL;
    if (out)
        snprintf(out, size, "%s", value ? value : "");
    json_decref(answer);
    free(response.body);
    return response.status;
}

/* Creates the bot `name`; its key into `key`. */
static void create_bot(const char *name, char key[SECRET_KEY_SIZE])
{
    char body[64];
    snprintf(body, sizeof(body), "{\"name\":\"%s\"}", name);
    assert_int_equal(ask("POST", "/api/bots", body, "key", key, SECRET_KEY_SIZE), 201);
}

/* Whether a bot account is stored as `name_key`, into *out. */
static bool bot_stored(const char *name_key, store_account *out)
{
    int rc = store_account_by_name(db, name_key, out);
    assert_true(rc == STORE_OK || rc == STORE_E_NOT_FOUND);
    return rc == STORE_OK && out->is_bot;
}

/* Whether `key` signs the bot in. */
static bool key_works(const char *key)
{
    store_player player;
    return store_player_by_bot_key(db, key, &player) == STORE_OK;
}

/* Makes every bot account write fail. */
static void fail_bot_writes(void)
{
    faults.fail_kind = FAULT_BOT_ACCOUNT;
    faults.is_failing_always = true;
}

static void test_a_creation_not_stored_is_an_error_and_may_be_retried(void **state)
{
    (void)state;
    store_account bot;
    char code[32], key[SECRET_KEY_SIZE];
    fail_bot_writes();
    assert_int_equal(ask("POST", "/api/bots", "{\"name\":\"robot\"}", "code", code, sizeof(code)),
                     500);
    assert_string_equal(code, "storage_error");
    assert_false(bot_stored("robot", &bot));
    fault_store_heal();
    create_bot("robot", key);
    assert_true(bot_stored("robot", &bot) && key_works(key));
}

static void test_a_key_not_stored_leaves_the_old_one_and_may_be_retried(void **state)
{
    (void)state;
    char code[32], old_key[SECRET_KEY_SIZE], new_key[SECRET_KEY_SIZE];
    create_bot("robot", old_key);
    fail_bot_writes();
    assert_int_equal(ask("POST", "/api/bots/robot/key", "", "code", code, sizeof(code)), 500);
    assert_string_equal(code, "storage_error");
    assert_int_equal(ask("DELETE", "/api/bots/robot/key", "", "code", code, sizeof(code)), 500);
    assert_true(key_works(old_key));
    fault_store_heal();
    assert_int_equal(ask("POST", "/api/bots/robot/key", "", "key", new_key, sizeof(new_key)), 200);
    assert_true(key_works(new_key) && !key_works(old_key));
    assert_int_equal(ask("DELETE", "/api/bots/robot/key", "", NULL, NULL, 0), 200);
    assert_false(key_works(new_key));
}

static void test_a_tournament_flag_not_stored_stays_and_may_be_retried(void **state)
{
    (void)state;
    store_account bot;
    char code[32], key[SECRET_KEY_SIZE];
    create_bot("robot", key);
    fail_bot_writes();
    assert_int_equal(ask("POST", "/api/bots/robot/tournaments", "", "code", code, sizeof(code)),
                     500);
    assert_string_equal(code, "storage_error");
    assert_true(bot_stored("robot", &bot) && !bot.is_open_to_tournaments);
    fault_store_heal();
    assert_int_equal(ask("POST", "/api/bots/robot/tournaments", "", NULL, NULL, 0), 200);
    assert_true(bot_stored("robot", &bot) && bot.is_open_to_tournaments);
}

/* Answers held back: each change waits for its store's answer (deferred),
 * refusals and other changes are answered or submitted meanwhile, and once
 * the store answers, every change is in the database and nothing is in
 * flight. A creation held while the same name is asked again: the second
 * insert finds the name taken. */
static void test_changes_answered_late_hold_up_no_other_request(void **state)
{
    (void)state;
    store_account bot;
    char code[32], key[SECRET_KEY_SIZE];
    create_bot("robot", key);
    faults.is_holding = true;
    assert_int_equal(ask("POST", "/api/bots", "{\"name\":\"later\"}", NULL, NULL, 0), 0);
    assert_int_equal(ask("POST", "/api/bots/robot/tournaments", "", NULL, NULL, 0), 0);
    assert_int_equal(ask("DELETE", "/api/bots/robot/key", "", NULL, NULL, 0), 0);
    assert_int_equal(http_accounts_in_flight(accounts), 3);
    assert_int_equal(ask("POST", "/api/bots/nobody/key", "", "code", code, sizeof(code)), 404);
    assert_string_equal(code, "not_found");
    assert_int_equal(ask("POST", "/api/bots", "{\"name\":\"later\"}", NULL, NULL, 0), 0);
    assert_int_equal(fault_store_release(), 4);
    assert_int_equal(http_accounts_in_flight(accounts), 0);
    assert_true(bot_stored("later", &bot));
    assert_true(bot_stored("robot", &bot) && bot.is_open_to_tournaments);
    assert_false(key_works(key));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_a_creation_not_stored_is_an_error_and_may_be_retried,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_key_not_stored_leaves_the_old_one_and_may_be_retried,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_tournament_flag_not_stored_stays_and_may_be_retried,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_changes_answered_late_hold_up_no_other_request, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

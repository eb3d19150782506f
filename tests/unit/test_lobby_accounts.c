/* test_lobby_accounts.c -- named accounts through the lobby (account.c).
 *
 * The fake host keeps password jobs in its queue until the test runs them,
 * so "the password is being checked" is a state a test can act in; the
 * lobby hashes at libsodium's least cost here, so the tests stay fast. The
 * store is a real SQLite file behind the failing store port of
 * fault_store.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "lobby/lobby.h"
#include "storage/secret.h"
#include "tests/unit/lobby_harness.h"

#define PASSWORD "correct horse"

static lobby_config test_config(void)
{
    lobby_config config = lobby_default_config();
    config.bot_think_ms = 5;
    config.password_cost = secret_password_cost_minimum();
    config.password_jobs = 2;
    config.password_queue = 3;
    config.failures_per_name = 5;
    config.failures_per_address = 8;
    config.registrations_per_address = 6;
    config.guests_per_address = 4;
    config.guest_ttl_ms = 3600 * 1000;
    return config;
}

static int setup(void **state)
{
    (void)state;
    lobby_config config = test_config();
    harness_start("lobby_accounts", 7, &config);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    harness_stop();
    return 0;
}

/* The last message a connection received (borrowed), or NULL. */
static json_t *latest(uint64_t connection)
{
    json_t *inbox = host.inbox[connection];
    size_t size = json_array_size(inbox);
    return size ? json_array_get(inbox, size - 1) : NULL;
}

static const char *latest_type(uint64_t connection)
{
    json_t *message = latest(connection);
    return message ? json_string_value(json_object_get(message, "type")) : "";
}

static const char *latest_field(uint64_t connection, const char *field)
{
    json_t *message = latest(connection);
    return message ? json_string_value(json_object_get(message, field)) : "";
}

/* The last welcome a connection received (borrowed); it must have one. */
static json_t *last_welcome(uint64_t connection)
{
    json_t *inbox = host.inbox[connection];
    for (size_t i = json_array_size(inbox); i-- > 0;) {
        json_t *message = json_array_get(inbox, i);
        if (strcmp(json_string_value(json_object_get(message, "type")), "welcome") == 0)
            return message;
    }
    fail_msg("connection %d has no welcome", (int)connection);
    return NULL;
}

static json_int_t welcome_player_id(uint64_t connection)
{
    json_t *player = json_object_get(last_welcome(connection), "player");
    return json_integer_value(json_object_get(player, "id"));
}

static const char *welcome_name(uint64_t connection)
{
    json_t *player = json_object_get(last_welcome(connection), "player");
    return json_string_value(json_object_get(player, "name"));
}

static const char *welcome_token(uint64_t connection)
{
    return json_string_value(json_object_get(last_welcome(connection), "token"));
}

/* A connection from `address` that registers `name` and gets its welcome. */
static void register_account(uint64_t connection, const char *address, const char *name)
{
    lobby_connect(lob, connection, address);
    say(connection, "{\"type\":\"account.register\",\"name\":\"%s\",\"password\":\"%s\"}", name,
        PASSWORD);
    fake_host_run_jobs(10);
    assert_string_equal(latest_type(connection), "welcome");
}

static void sign_in(uint64_t connection, const char *name, const char *password)
{
    say(connection, "{\"type\":\"hello\",\"name\":\"%s\",\"password\":\"%s\",\"id\":5}", name,
        password);
    fake_host_run_jobs(10);
}

static bool account_exists(const char *name_key)
{
    store_account account;
    int rc = store_account_by_name(db, name_key, &account);
    assert_true(rc == 0 || rc == STORE_E_NOT_FOUND);
    return rc == 0;
}

static void test_register_signs_in_with_a_token_that_reconnects(void **state)
{
    (void)state;
    lobby_connect(lob, 1, "10.0.0.1");
    say(1, "{\"type\":\"account.register\",\"name\":\"  Ada  \",\"password\":\"%s\",\"id\":3}",
        PASSWORD);
    assert_int_equal(json_array_size(host.inbox[1]), 0); /* hashing, off the loop */
    assert_int_equal(host.job_count, 1);
    assert_int_equal(fake_host_run_jobs(10), 1);
    json_int_t id = welcome_player_id(1);
    assert_true(id > 0);
    assert_string_equal(welcome_name(1), "Ada"); /* trimmed */
    assert_int_equal(json_integer_value(json_object_get(latest(1), "id")), 3);
    char token[80];
    snprintf(token, sizeof(token), "%s", latest_field(1, "token"));
    assert_int_equal(strlen(token), 48);
    /* The account is signed in: it may create rooms. */
    say(1, "{\"type\":\"rooms.list\"}");
    assert_string_equal(latest_type(1), "rooms");
    /* And its token signs it in again, as a guest's would. */
    lobby_disconnect(lob, 1);
    lobby_connect(lob, 2, "10.0.0.1");
    say(2, "{\"type\":\"hello\",\"name\":\"x\",\"token\":\"%s\"}", token);
    assert_int_equal(welcome_player_id(2), id);
    assert_string_equal(welcome_name(2), "Ada");
}

static void test_password_signs_in_with_a_new_token(void **state)
{
    (void)state;
    register_account(1, "10.0.0.1", "Ada");
    json_int_t id = welcome_player_id(1);
    char first_token[80];
    snprintf(first_token, sizeof(first_token), "%s", latest_field(1, "token"));
    lobby_connect(lob, 2, "10.0.0.2");
    sign_in(2, "aDA", PASSWORD); /* the name in any case */
    assert_int_equal(welcome_player_id(2), id);
    assert_string_equal(welcome_name(2), "Ada"); /* as stored */
    assert_int_equal(json_integer_value(json_object_get(latest(2), "id")), 5);
    assert_string_not_equal(latest_field(2, "token"), first_token);
    assert_true(host.is_closed[1]); /* signed in from another connection */
    /* One token per account: the older one stopped working. */
    lobby_connect(lob, 3, "10.0.0.3");
    say(3, "{\"type\":\"hello\",\"name\":\"x\",\"token\":\"%s\"}", first_token);
    assert_string_equal(latest_field(3, "code"), "unauthorized");
}

static void test_wrong_password_and_unknown_name_get_the_same_error(void **state)
{
    (void)state;
    register_account(1, "10.0.0.1", "Ada");
    int64_t bot = 0;
    assert_int_equal(store_bot_account_create(db, "Reef", "reef", "bot-key", 0, &bot), 0);
    static const char *const NAMES[] = {"Ada", "Nobody", "Reef", "greedy"};
    for (int i = 0; i < 4; i++) {
        uint64_t connection = 2 + (uint64_t)i;
        lobby_connect(lob, connection, "10.0.0.2");
        sign_in(connection, NAMES[i], "wrong password");
        assert_string_equal(latest_type(connection), "error");
        assert_string_equal(latest_field(connection, "code"), "unauthorized");
        assert_string_equal(latest_field(connection, "message"), "wrong name or password");
        assert_null(json_object_get(latest(connection), "reason")); /* nothing else differs */
        assert_int_equal(json_integer_value(json_object_get(latest(connection), "id")), 5);
    }
    /* The same work for a name without a password: a job ran for each. */
    lobby_connect(lob, 9, "10.0.0.9");
    sign_in(9, "Nobody", PASSWORD);
    assert_string_equal(latest_field(9, "message"), "wrong name or password");
}

static void test_nothing_but_ping_goes_while_the_password_is_checked(void **state)
{
    (void)state;
    register_account(1, "10.0.0.1", "Ada");
    lobby_connect(lob, 2, "10.0.0.2");
    say(2, "{\"type\":\"hello\",\"name\":\"Ada\",\"password\":\"%s\"}", PASSWORD);
    say(2, "{\"type\":\"hello\",\"name\":\"Ada\"}");
    assert_string_equal(latest_field(2, "message"), "a sign-in is already under way");
    say(2, "{\"type\":\"account.register\",\"name\":\"Eve\",\"password\":\"%s\"}", PASSWORD);
    assert_string_equal(latest_field(2, "message"), "a sign-in is already under way");
    say(2, "{\"type\":\"rooms.list\"}");
    assert_string_equal(latest_field(2, "message"), "say hello first");
    assert_int_equal(host.job_count, 1);
    fake_host_run_jobs(10);
    assert_string_equal(latest_type(2), "welcome");
    assert_false(account_exists("eve"));
}

/* A sign-in's account is looked up through the store port: until the
 * answer, nothing is hashed and the client's next messages wait; a lookup
 * that fails refuses the sign-in with storage_error without counting as a
 * wrong password, and the next one goes through. */
static void test_a_sign_in_waits_for_its_account_lookup(void **state)
{
    (void)state;
    register_account(1, "10.0.0.1", "Ada");
    lobby_connect(lob, 2, "10.0.0.2");
    faults.is_holding = true;
    sign_in(2, "Ada", PASSWORD);
    say(2, "{\"type\":\"ping\",\"id\":6}");
    assert_int_equal(faults.held_count, 1);
    assert_int_equal(fault_store_held(0)->records[0].kind, STORE_RECORD_FIND_ACCOUNT);
    assert_string_equal(fault_store_held(0)->records[0].find_account.name_key, "ada");
    assert_int_equal(host.job_count, 0);
    assert_int_equal(json_array_size(host.inbox[2]), 0);
    assert_int_equal(fault_store_release(), 1);
    assert_string_equal(latest_type(2), "pong"); /* the hash is checked on a worker */
    fake_host_run_jobs(10);
    assert_string_equal(latest_type(2), "welcome");
    faults.fail_kind = FAULT_LOOKUP;
    faults.is_failing_always = true;
    for (int i = 0; i < 8; i++) { /* more than the failures a name may have a minute */
        lobby_connect(lob, 3, "10.0.0.3");
        sign_in(3, "Ada", PASSWORD);
        assert_string_equal(latest_field(3, "code"), "storage_error");
        lobby_disconnect(lob, 3);
    }
    fault_store_heal();
    lobby_connect(lob, 3, "10.0.0.3");
    sign_in(3, "Ada", PASSWORD);
    assert_string_equal(latest_type(3), "welcome");
}

/* A sign-up whose name cannot be looked up is refused and creates
 * nothing; a guest's name that cannot be looked up makes no guest. */
static void test_a_failed_name_lookup_creates_nobody(void **state)
{
    (void)state;
    faults.fail_kind = FAULT_LOOKUP;
    faults.fail_write_in = 1;
    lobby_connect(lob, 1, "10.0.0.1");
    say(1, "{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"%s\"}", PASSWORD);
    assert_int_equal(fake_host_run_jobs(10), 0);
    assert_string_equal(latest_field(1, "code"), "storage_error");
    assert_false(account_exists("ada"));
    faults.fail_write_in = 1;
    say(1, "{\"type\":\"hello\",\"name\":\"bea\"}");
    assert_string_equal(latest_field(1, "code"), "storage_error");
    say(1, "{\"type\":\"rooms.list\"}");
    assert_string_equal(latest_field(1, "message"), "say hello first");
    say(1, "{\"type\":\"hello\",\"name\":\"bea\"}");
    assert_string_equal(latest_type(1), "welcome");
}

static void test_failed_sign_ins_are_limited_per_name(void **state)
{
    (void)state;
    register_account(1, "10.0.0.1", "Ada");
    for (int i = 0; i < 5; i++) {
        uint64_t connection = 2 + (uint64_t)(i % 2);
        lobby_connect(lob, connection, i % 2 ? "10.0.1.1" : "10.0.1.2");
        sign_in(connection, "Ada", "wrong password");
        assert_string_equal(latest_field(connection, "code"), "unauthorized");
        lobby_disconnect(lob, connection);
    }
    /* Even the right password is refused now, and without hashing. */
    lobby_connect(lob, 4, "10.0.1.3");
    say(4, "{\"type\":\"hello\",\"name\":\"ada\",\"password\":\"%s\"}", PASSWORD);
    assert_int_equal(host.job_count, 0);
    assert_string_equal(latest_field(4, "code"), "rate_limited");
    assert_string_equal(latest_field(4, "message"), "too many failed sign-ins; try again in 13 s");
    /* Other names are not held up. */
    register_account(5, "10.0.1.4", "Grace");
    /* Five a minute: one more try every 12 s. */
    host.now += 12000;
    sign_in(4, "Ada", PASSWORD);
    assert_string_equal(latest_type(4), "welcome");
}

static void test_failed_sign_ins_are_limited_per_address(void **state)
{
    (void)state;
    for (int i = 0; i < 8; i++) {
        char name[16];
        snprintf(name, sizeof(name), "nobody%d", i);
        lobby_connect(lob, 1, "2001:db8::1");
        sign_in(1, name, "wrong password");
        assert_string_equal(latest_field(1, "code"), "unauthorized");
        lobby_disconnect(lob, 1);
    }
    lobby_connect(lob, 2, "2001:db8::2"); /* the same /64 */
    say(2, "{\"type\":\"hello\",\"name\":\"someone\",\"password\":\"%s\"}", PASSWORD);
    assert_string_equal(latest_field(2, "code"), "rate_limited");
    assert_int_equal(host.job_count, 0);
    lobby_connect(lob, 3, "10.0.0.3");
    sign_in(3, "someone", PASSWORD);
    assert_string_equal(latest_field(3, "code"), "unauthorized"); /* tried, and unknown */
}

/* Six sign-ups an hour per address (the test's setting): one more every
 * ten minutes. Names found taken cost nothing. */
static void test_sign_ups_are_limited_per_address(void **state)
{
    (void)state;
    register_account(1, "2001:db8::1", "Ada");
    for (uint64_t connection = 2; connection <= 6; connection++) {
        lobby_connect(lob, connection, "2001:db8::2"); /* the same /64 */
        say(connection, "{\"type\":\"account.register\",\"name\":\"ada\",\"password\":\"%s\"}",
            PASSWORD);
        assert_string_equal(latest_field(connection, "code"), "name_taken");
        say(connection, "{\"type\":\"account.register\",\"name\":\"user%d\",\"password\":\"%s\"}",
            (int)connection, PASSWORD);
        fake_host_run_jobs(10);
        assert_string_equal(latest_type(connection), "welcome");
    }
    lobby_connect(lob, 7, "2001:db8::3");
    say(7, "{\"type\":\"account.register\",\"name\":\"user7\",\"password\":\"%s\"}", PASSWORD);
    assert_int_equal(host.job_count, 0);
    assert_string_equal(latest_field(7, "code"), "rate_limited");
    assert_string_equal(latest_field(7, "message"),
                        "too many new accounts from your address; try again in 601 s");
    register_account(8, "10.0.0.8", "Grace"); /* another address is not held up */
    host.now += 600 * 1000;
    say(7, "{\"type\":\"account.register\",\"name\":\"user7\",\"password\":\"%s\"}", PASSWORD);
    fake_host_run_jobs(10);
    assert_string_equal(latest_type(7), "welcome");
}

/* A guest's hello names it under the account rules, and never as an
 * account, a bot account or a built-in bot. */
static void test_guests_follow_the_name_rules_and_take_no_account_name(void **state)
{
    (void)state;
    register_account(1, "10.0.0.1", "Ada");
    int64_t bot = 0;
    assert_int_equal(store_bot_account_create(db, "Reef", "reef", "bot-key", 0, &bot), 0);
    static const char *const BAD[] = {
        "x", "two\\nlines", "esc\\u001b[2J", "bidi\\u202eevil", "greedy (bot)", "\\u00c9mile"};
    static const char *const TAKEN[] = {"ada", " ADA ", "rEEF", "greedy", "Bot mcts", "bot"};
    lobby_connect(lob, 2, "10.0.0.2");
    for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
        say(2, "{\"type\":\"hello\",\"name\":\"%s\"}", BAD[i]);
        assert_string_equal(latest_field(2, "code"), "bad_message");
        say(2, "{\"type\":\"hello\",\"name\":\"%s\",\"bot\":true}", BAD[i]);
        assert_string_equal(latest_field(2, "code"), "bad_message");
    }
    for (size_t i = 0; i < sizeof(TAKEN) / sizeof(TAKEN[0]); i++) {
        say(2, "{\"type\":\"hello\",\"name\":\"%s\"}", TAKEN[i]);
        assert_string_equal(latest_field(2, "code"), "name_taken");
    }
    assert_int_equal(lobby_player_count(lob), 1); /* Ada alone: no guest was made */
    say(2, "{\"type\":\"hello\",\"name\":\"  Ada L. \"}");
    assert_string_equal(welcome_name(2), "Ada L."); /* trimmed, as an account's */
    /* A token signs in whatever name comes with it (the stored one is used). */
    lobby_disconnect(lob, 1);
    lobby_connect(lob, 3, "10.0.0.3");
    say(3, "{\"type\":\"hello\",\"name\":\"x\",\"token\":\"%s\"}", welcome_token(1));
    assert_string_equal(welcome_name(3), "Ada");
}

/* Four new guests a minute per address (the test's setting): one more
 * every 15 s; names refused and tokens cost nothing. */
static void test_new_guests_are_limited_per_address(void **state)
{
    (void)state;
    for (uint64_t connection = 1; connection <= 4; connection++) {
        lobby_connect(lob, connection, "10.0.0.5");
        say(connection, "{\"type\":\"hello\",\"name\":\"guest%d\"}", (int)connection);
        assert_string_equal(latest_type(connection), "welcome");
    }
    char token[80];
    snprintf(token, sizeof(token), "%s", welcome_token(1));
    lobby_connect(lob, 5, "10.0.0.5");
    say(5, "{\"type\":\"hello\",\"name\":\"guest5\"}");
    assert_string_equal(latest_field(5, "code"), "rate_limited");
    assert_string_equal(latest_field(5, "message"),
                        "too many new guests from your address; try again in 16 s");
    assert_int_equal(lobby_player_count(lob), 4);
    say(5, "{\"type\":\"hello\",\"name\":\"greedy\"}");
    assert_string_equal(latest_field(5, "code"), "name_taken");
    lobby_connect(lob, 6, "10.0.0.6"); /* another address is not held up */
    say(6, "{\"type\":\"hello\",\"name\":\"guest6\"}");
    assert_string_equal(latest_type(6), "welcome");
    say(5, "{\"type\":\"hello\",\"name\":\"guest1\",\"token\":\"%s\"}", token);
    assert_string_equal(latest_type(5), "welcome"); /* an existing guest comes back */
    host.now += 15000;
    lobby_connect(lob, 7, "10.0.0.5");
    say(7, "{\"type\":\"hello\",\"name\":\"guest7\"}");
    assert_string_equal(latest_type(7), "welcome");
}

/* Two guests stored by their seats in a waiting room: "stays" (1) keeps
 * its seat, "leaves" (2, its token into `token`) goes away and gives its
 * seat up, so nothing holds it; both rows are then older than the TTL,
 * and the first sweep (at the first tick) has run. */
static void store_two_old_guests(char token[80])
{
    lobby_connect(lob, 1, "10.0.0.1");
    say(1, "{\"type\":\"hello\",\"name\":\"stays\"}");
    say(1, "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    char code[16];
    snprintf(code, sizeof(code), "%s",
             json_string_value(json_object_get(json_object_get(latest(1), "room"), "id")));
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":0}", code);
    lobby_connect(lob, 2, "10.0.0.2");
    say(2, "{\"type\":\"hello\",\"name\":\"leaves\"}");
    snprintf(token, 80, "%s", welcome_token(2));
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":1}", code);
    assert_string_equal(latest_type(2), "room");
    assert_int_equal(stored_integer("SELECT count(*) FROM players"), 2); /* both sat: rows */
    lobby_disconnect(lob, 2); /* gives its waiting seat up; nothing holds it */

    lobby_tick(lob); /* not old enough yet */
    assert_int_equal(stored_integer("SELECT count(*) FROM players"), 2);
    stored_execute("UPDATE players SET created_at = 1700000000000 - 3600 * 1000 - 1");
}

/* A stored guest nobody claimed, that no stored game names and that this
 * process no longer holds, is deleted guest_ttl_ms after it was stored (an
 * hour here) by the tick's sweep; its token stops working. A guest still
 * held (seated in a waiting room, whose seats are not stored yet) stays. */
static void test_unclaimed_guests_expire_and_their_tokens_stop_working(void **state)
{
    (void)state;
    char token[80];
    store_two_old_guests(token);
    host.now += 60 * 1000; /* the next sweep */
    lobby_tick(lob);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'leaves'"), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'stays'"), 1);
    lobby_connect(lob, 3, "10.0.0.3");
    say(3, "{\"type\":\"hello\",\"name\":\"leaves\",\"token\":\"%s\"}", token);
    assert_string_equal(latest_field(3, "message"), "unknown token");
}

/* A sweep batch that is not stored deletes nothing and keeps the cursor:
 * the next batch, a minute later, looks at the same guests and expires
 * the one nothing holds. */
static void test_a_sweep_not_stored_deletes_nothing_and_is_tried_again(void **state)
{
    (void)state;
    char token[80];
    store_two_old_guests(token);
    faults.fail_kind = FAULT_GUESTS_EXPIRE;
    faults.is_failing_always = true;
    host.now += 60 * 1000;
    lobby_tick(lob);
    assert_int_equal(faults.failures, 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM players"), 2);
    fault_store_heal();
    lobby_tick(lob); /* not due again yet */
    assert_int_equal(stored_integer("SELECT count(*) FROM players"), 2);
    host.now += 60 * 1000;
    lobby_tick(lob);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'leaves'"), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'stays'"), 1);
}

/* A sweep batch answered late: it carries its own sorted snapshot of the
 * players held (the seated guest), no second batch goes out while it is
 * out, the lobby answers meanwhile, and the answer's counts schedule the
 * next batch. */
static void test_a_sweep_answered_late_carries_its_snapshot(void **state)
{
    (void)state;
    char token[80];
    store_two_old_guests(token);
    faults.is_holding = true;
    host.now += 60 * 1000;
    lobby_tick(lob);
    assert_int_equal(faults.held_count, 1);
    const store_record *record = &fault_store_held(0)->records[0];
    assert_int_equal(record->kind, STORE_RECORD_GUESTS_EXPIRE);
    assert_int_equal(record->sweep.held_count, 1);
    assert_int_equal(record->sweep.held[0],
                     stored_integer("SELECT id FROM players WHERE name = 'stays'"));
    host.now += 60 * 1000;
    lobby_tick(lob);
    assert_int_equal(faults.held_count, 1); /* one batch out at a time */
    say(1, "{\"type\":\"ping\",\"id\":4}");
    assert_string_equal(latest_type(1), "pong");
    assert_int_equal(fault_store_release(), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'leaves'"), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'stays'"), 1);
}

static void test_hashes_run_two_at_a_time_and_a_flood_is_refused(void **state)
{
    (void)state;
    for (uint64_t connection = 1; connection <= 6; connection++) {
        lobby_connect(lob, connection, "10.0.0.1");
        say(connection, "{\"type\":\"account.register\",\"name\":\"user%d\",\"password\":\"%s\"}",
            (int)connection, PASSWORD);
    }
    assert_int_equal(host.job_count, 2); /* running */
    assert_int_equal(lobby_jobs_in_flight(lob), 2);
    assert_string_equal(latest_field(6, "code"), "rate_limited"); /* past 3 waiting */
    assert_string_equal(latest_field(6, "message"),
                        "too many sign-ins at once; try again in a moment");
    assert_false(account_exists("user6"));
    fake_host_run_jobs(1);
    assert_int_equal(host.job_count, 2); /* the next one started */
    fake_host_run_jobs(10);
    for (uint64_t connection = 1; connection <= 5; connection++)
        assert_string_equal(latest_type(connection), "welcome");
    assert_int_equal(lobby_jobs_in_flight(lob), 0);
}

static void test_a_name_is_taken_in_any_case_by_accounts_bots_and_built_ins(void **state)
{
    (void)state;
    register_account(1, "10.0.0.1", "Ada");
    int64_t bot = 0;
    assert_int_equal(store_bot_account_create(db, "Reef", "reef", "bot-key", 0, &bot), 0);
    static const char *const TAKEN[] = {"ada", " ADA ", "rEEF", "greedy", "Bot mcts"};
    for (int i = 0; i < 5; i++) {
        lobby_connect(lob, 2, "10.0.0.2");
        say(2, "{\"type\":\"account.register\",\"name\":\"%s\",\"password\":\"%s\",\"id\":1}",
            TAKEN[i], PASSWORD);
        assert_int_equal(host.job_count, 0); /* known at once: nothing hashed */
        assert_string_equal(latest_field(2, "code"), "name_taken");
        lobby_disconnect(lob, 2);
    }
    say(1, "{\"type\":\"account.register\",\"name\":\"ok name\",\"password\":\"%s\"}", PASSWORD);
    assert_string_equal(latest_field(1, "message"),
                        "only a guest can register: you are signed in as an account");
}

static void test_two_sign_ups_for_one_name_get_one_account(void **state)
{
    (void)state;
    lobby_connect(lob, 1, "10.0.0.1");
    lobby_connect(lob, 2, "10.0.0.2");
    say(1, "{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"%s\"}", PASSWORD);
    say(2, "{\"type\":\"account.register\",\"name\":\"ada\",\"password\":\"%s\"}", PASSWORD);
    assert_int_equal(host.job_count, 2); /* both free when asked */
    fake_host_run_jobs(10);
    assert_string_equal(latest_type(1), "welcome");
    assert_string_equal(latest_field(2, "code"), "name_taken");
    say(2, "{\"type\":\"rooms.list\"}");
    assert_string_equal(latest_field(2, "message"), "say hello first");
}

static void test_bad_names_and_mixed_hellos_are_refused(void **state)
{
    (void)state;
    lobby_connect(lob, 1, "10.0.0.1");
    say(1, "{\"type\":\"account.register\",\"name\":\"a\",\"password\":\"%s\"}", PASSWORD);
    assert_string_equal(latest_field(1, "code"), "bad_message");
    say(1, "{\"type\":\"account.register\",\"name\":\"semi;colon\",\"password\":\"%s\"}", PASSWORD);
    assert_string_equal(latest_field(1, "code"), "bad_message");
    say(1, "{\"type\":\"hello\",\"name\":\"Ada\",\"password\":\"%s\",\"token\":\"t\"}", PASSWORD);
    assert_string_equal(latest_field(1, "message"),
                        "'password' goes with a name alone, not with 'token' or 'key'");
    assert_int_equal(host.job_count, 0);
    assert_int_equal(store_account_by_name(db, "a", &(store_account){0}), STORE_E_NOT_FOUND);
}

/* The guest's seat is stored under its id: the account must be that id. */
static void test_a_seated_guest_claims_its_name_and_keeps_its_games(void **state)
{
    (void)state;
    lobby_connect(lob, 1, "10.0.0.1");
    say(1, "{\"type\":\"hello\",\"name\":\"ada\"}");
    char guest_token[80];
    snprintf(guest_token, sizeof(guest_token), "%s", latest_field(1, "token"));
    say(1, "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    const char *room = json_string_value(json_object_get(json_object_get(latest(1), "room"), "id"));
    char code[32];
    snprintf(code, sizeof(code), "%s", room);
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\"}", code);
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":1,\"bot\":\"greedy\"}", code);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", code);
    int64_t *ids = NULL;
    int count = 0;
    assert_int_equal(store_unfinished_games(db, &ids, &count), 0);
    assert_int_equal(count, 1);
    store_game_record *record = NULL;
    assert_int_equal(store_game_load(db, ids[0], &record), 0);
    int64_t guest_id = record->seats[0].player_id;
    assert_true(guest_id > 0);
    store_game_record_free(record);
    say(1, "{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"%s\",\"id\":2}",
        PASSWORD);
    fake_host_run_jobs(10);
    assert_int_equal(welcome_player_id(1), guest_id);
    assert_string_equal(welcome_name(1), "Ada");
    assert_string_not_equal(welcome_token(1), guest_token);
    /* The game is still the same player's; the guest's token is gone. */
    assert_int_equal(store_game_load(db, ids[0], &record), 0);
    assert_int_equal(record->seats[0].player_id, guest_id);
    store_game_record_free(record);
    free(ids);
    lobby_connect(lob, 2, "10.0.0.1");
    say(2, "{\"type\":\"hello\",\"name\":\"ada\",\"token\":\"%s\"}", guest_token);
    assert_string_equal(latest_field(2, "code"), "unauthorized");
    sign_in(2, "ada", PASSWORD);
    assert_int_equal(welcome_player_id(2), guest_id);
}

static void test_a_guest_without_a_seat_claims_a_new_row(void **state)
{
    (void)state;
    lobby_connect(lob, 1, "10.0.0.1");
    say(1, "{\"type\":\"hello\",\"name\":\"ada\"}");
    assert_true(json_is_null(json_object_get(json_object_get(latest(1), "player"), "id")));
    say(1, "{\"type\":\"account.register\",\"name\":\"Ada Lovelace\",\"password\":\"%s\"}",
        PASSWORD);
    fake_host_run_jobs(10);
    json_int_t id = welcome_player_id(1);
    assert_true(id > 0);
    assert_string_equal(welcome_name(1), "Ada Lovelace");
    assert_int_equal(lobby_player_count(lob), 1); /* no longer a guest besides */
    say(1, "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    assert_string_equal(latest_type(1), "room");
}

static void test_a_connection_gone_before_its_hash_creates_nothing(void **state)
{
    (void)state;
    lobby_connect(lob, 1, "10.0.0.1");
    say(1, "{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"%s\"}", PASSWORD);
    lobby_disconnect(lob, 1);
    assert_int_equal(fake_host_run_jobs(10), 1);
    assert_false(account_exists("ada"));
    assert_int_equal(json_array_size(host.inbox[1]), 0);
}

static void test_a_failed_store_creates_nothing_and_may_be_retried(void **state)
{
    (void)state;
    lobby_connect(lob, 1, "10.0.0.1");
    faults.fail_kind = FAULT_ACCOUNT_CREATE;
    faults.fail_write_in = 1;
    say(1, "{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"%s\"}", PASSWORD);
    fake_host_run_jobs(10);
    assert_string_equal(latest_field(1, "code"), "storage_error");
    assert_false(account_exists("ada"));
    say(1, "{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"%s\"}", PASSWORD);
    fake_host_run_jobs(10);
    assert_string_equal(latest_type(1), "welcome");
    /* A sign-in whose new token cannot be stored signs nobody in. */
    faults.fail_kind = FAULT_PLAYER_TOKEN_SET;
    faults.fail_write_in = 1;
    lobby_connect(lob, 2, "10.0.0.2");
    sign_in(2, "Ada", PASSWORD);
    assert_string_equal(latest_field(2, "code"), "storage_error");
    assert_false(host.is_closed[1]);
    say(2, "{\"type\":\"rooms.list\"}");
    assert_string_equal(latest_field(2, "message"), "say hello first");
}

/* A sign-up's account is a commit: until the store answers, the client is
 * still signing up (another hello waits its turn) and hears nothing;
 * then it is welcomed. */
static void test_a_sign_up_is_answered_once_its_account_is_stored(void **state)
{
    (void)state;
    lobby_connect(lob, 1, "10.0.0.1");
    faults.is_holding = true;
    faults.is_answering_lookups = true; /* the name is free at once */
    say(1, "{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"%s\"}", PASSWORD);
    assert_int_equal(fake_host_run_jobs(10), 1);
    assert_int_equal(faults.held_count, 1);
    assert_int_equal(fault_store_held(0)->records[0].kind, STORE_RECORD_ACCOUNT_CREATE);
    assert_int_equal(json_array_size(host.inbox[1]), 0);
    say(1, "{\"type\":\"hello\",\"name\":\"bea\"}");
    assert_string_equal(latest_field(1, "message"), "a sign-in is already under way");
    assert_int_equal(fault_store_release(), 1);
    assert_string_equal(latest_type(1), "welcome");
    assert_true(account_exists("ada"));
}

static void test_a_refusing_host_is_an_internal_error(void **state)
{
    (void)state;
    host.is_queue_refusing = true;
    lobby_connect(lob, 1, "10.0.0.1");
    say(1, "{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"%s\"}", PASSWORD);
    assert_string_equal(latest_field(1, "code"), "internal");
    host.is_queue_refusing = false;
    say(1, "{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"%s\"}", PASSWORD);
    fake_host_run_jobs(10);
    assert_string_equal(latest_type(1), "welcome");
}

static void test_shutdown_drops_waiting_sign_ins_and_answers_none(void **state)
{
    (void)state;
    for (uint64_t connection = 1; connection <= 4; connection++) {
        lobby_connect(lob, connection, "10.0.0.1");
        say(connection, "{\"type\":\"account.register\",\"name\":\"user%d\",\"password\":\"%s\"}",
            (int)connection, PASSWORD);
    }
    lobby_shutdown(lob);
    assert_int_equal(lobby_jobs_in_flight(lob), 2);
    assert_int_equal(fake_host_run_jobs(10), 2); /* only those already running */
    assert_int_equal(lobby_jobs_in_flight(lob), 0);
    for (uint64_t connection = 1; connection <= 4; connection++)
        assert_string_equal(latest_type(connection), "server.shutdown");
    assert_false(account_exists("user1"));
}

#define ACCOUNT_TEST(test) cmocka_unit_test_setup_teardown(test, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        ACCOUNT_TEST(test_register_signs_in_with_a_token_that_reconnects),
        ACCOUNT_TEST(test_password_signs_in_with_a_new_token),
        ACCOUNT_TEST(test_wrong_password_and_unknown_name_get_the_same_error),
        ACCOUNT_TEST(test_nothing_but_ping_goes_while_the_password_is_checked),
        ACCOUNT_TEST(test_a_sign_in_waits_for_its_account_lookup),
        ACCOUNT_TEST(test_a_failed_name_lookup_creates_nobody),
        ACCOUNT_TEST(test_failed_sign_ins_are_limited_per_name),
        ACCOUNT_TEST(test_failed_sign_ins_are_limited_per_address),
        ACCOUNT_TEST(test_sign_ups_are_limited_per_address),
        ACCOUNT_TEST(test_guests_follow_the_name_rules_and_take_no_account_name),
        ACCOUNT_TEST(test_new_guests_are_limited_per_address),
        ACCOUNT_TEST(test_unclaimed_guests_expire_and_their_tokens_stop_working),
        ACCOUNT_TEST(test_a_sweep_not_stored_deletes_nothing_and_is_tried_again),
        ACCOUNT_TEST(test_a_sweep_answered_late_carries_its_snapshot),
        ACCOUNT_TEST(test_hashes_run_two_at_a_time_and_a_flood_is_refused),
        ACCOUNT_TEST(test_a_name_is_taken_in_any_case_by_accounts_bots_and_built_ins),
        ACCOUNT_TEST(test_two_sign_ups_for_one_name_get_one_account),
        ACCOUNT_TEST(test_bad_names_and_mixed_hellos_are_refused),
        ACCOUNT_TEST(test_a_seated_guest_claims_its_name_and_keeps_its_games),
        ACCOUNT_TEST(test_a_guest_without_a_seat_claims_a_new_row),
        ACCOUNT_TEST(test_a_connection_gone_before_its_hash_creates_nothing),
        ACCOUNT_TEST(test_a_failed_store_creates_nothing_and_may_be_retried),
        ACCOUNT_TEST(test_a_sign_up_is_answered_once_its_account_is_stored),
        ACCOUNT_TEST(test_a_refusing_host_is_an_internal_error),
        ACCOUNT_TEST(test_shutdown_drops_waiting_sign_ins_and_answers_none),
    };
    if (secret_init() != 0)
        return 1;
    return cmocka_run_group_tests(tests, NULL, NULL);
}

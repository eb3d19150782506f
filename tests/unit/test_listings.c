/* test_listings.c -- rooms.list across instances (lobby/listings.c): two
 * lobbies, instances a and b, on one database; the notices one commits are
 * handed to both as PostgreSQL would deliver them to their listeners. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "lobby/lobby.h"
#include "tests/unit/lobby_harness.h"

#define TELL_MS 250 /* listings.c: changes are told at most this often */

static struct lobby *other; /* instance b; `lob` is instance a */

static lobby_config shared_config(char instance)
{
    lobby_config config = lobby_default_config();
    config.bot_think_ms = 5;
    config.instance = instance;
    config.lease_ms = 3000;
    config.shares_lobby = true;
    return config;
}

/* b's connection: signed in, to ask b for rooms.list. */
#define WATCHER 9

static int setup(void **state)
{
    (void)state;
    lobby_config a_config = shared_config('a'), b_config = shared_config('b');
    harness_start("listings", 7, &a_config);
    assert_int_equal(lobby_new(&FAKE_HOST, &port, &b_config, &other), 0);
    assert_int_equal(fake_host_restore(other), 0);
    lobby_connect(other, WATCHER, "127.0.0.1");
    const char hello[] = "{\"type\":\"hello\",\"name\":\"watcher\"}";
    lobby_message(other, WATCHER, hello, sizeof(hello) - 1);
    assert_non_null(last(WATCHER, "welcome"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    lobby_free(other);
    harness_stop();
    return 0;
}

/* Hands every notice committed so far to both instances (each ignores
 * its own): how many there were. */
static int deliver(void)
{
    int delivered = 0;
    char *notice;
    while ((notice = fault_store_next_notice())) {
        lobby_listings_heard(lob, notice);
        lobby_listings_heard(other, notice);
        free(notice);
        delivered++;
    }
    return delivered;
}

/* Drops the notices committed so far: nobody was listening. */
static void lose_notices(void)
{
    char *notice;
    while ((notice = fault_store_next_notice()))
        free(notice);
}

/* Time goes on by a telling interval, both instances tick, and what they
 * told is delivered: how many notices. */
static int tell_both(void)
{
    host.now += TELL_MS;
    lobby_tick(lob);
    lobby_tick(other);
    return deliver();
}

/* The rooms b lists for rooms.list with `filters` (",\"status\":...", or ""). */
static json_t *listed_on_b(const char *filters)
{
    char text[160];
    int length = snprintf(text, sizeof(text), "{\"type\":\"rooms.list\"%s}", filters);
    lobby_message(other, WATCHER, text, (size_t)length);
    json_t *page = last(WATCHER, "rooms");
    assert_non_null(page);
    return json_object_get(page, "rooms");
}

/* The entry of `code` in `rooms`, or NULL. */
static json_t *entry_of(json_t *rooms, const char *code)
{
    size_t i;
    json_t *room;
    json_array_foreach(rooms, i, room)
    {
        if (strcmp(json_string_value(json_object_get(room, "id")), code) == 0)
            return room;
    }
    return NULL;
}

static const char *seat_kind(json_t *room, int seat)
{
    return json_string_value(
        json_object_get(json_array_get(json_object_get(room, "seats"), seat), "kind"));
}

/* Signs `connection` in on a and creates a room there: its code. */
static const char *create_on_a(uint64_t connection, const char *extra)
{
    lobby_connect(lob, connection, "127.0.0.1");
    say(connection, "{\"type\":\"hello\",\"name\":\"host%d\"}", (int)connection);
    say(connection, "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"4p\"%s}", extra);
    json_t *room = last(connection, "room");
    assert_non_null(room);
    return json_string_value(json_object_get(json_object_get(room, "room"), "id"));
}

/* A public room of a is listed by b, follows a's changes (gathered: two
 * joins in one interval are one entry), moves between statuses, and goes
 * when a closes it; a private room is never told. */
static void test_a_room_of_another_instance_is_listed_and_follows_it(void **state)
{
    (void)state;
    char code[16], secret[16], brief[16];
    snprintf(code, sizeof(code), "%s", create_on_a(1, ""));
    snprintf(secret, sizeof(secret), "%s", create_on_a(5, ",\"private\":true"));
    assert_int_equal(json_array_size(listed_on_b("")), 0);
    assert_true(tell_both() > 0);
    json_t *room = entry_of(listed_on_b(""), code);
    assert_non_null(room);
    assert_string_equal(json_string_value(json_object_get(room, "status")), "waiting");
    assert_string_equal(seat_kind(room, 1), "empty");
    assert_null(entry_of(listed_on_b(""), secret));

    for (uint64_t c = 2; c <= 3; c++) {
        lobby_connect(lob, c, "127.0.0.1");
        say(c, "{\"type\":\"hello\",\"name\":\"guest%d\"}", (int)c);
        say(c, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":%d}", code, (int)c - 1);
    }
    lobby_tick(lob); /* within the interval: nothing told yet */
    assert_int_equal(deliver(), 0);
    assert_int_equal(tell_both(), 1);
    room = entry_of(listed_on_b(""), code);
    assert_string_equal(seat_kind(room, 1), "player");
    assert_string_equal(seat_kind(room, 2), "player");

    say(1, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":0}", code);
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":3,\"bot\":\"greedy\"}", code);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", code);
    assert_non_null(last(1, "room.started"));
    tell_both();
    assert_null(entry_of(listed_on_b(",\"status\":\"waiting\""), code));
    room = entry_of(listed_on_b(",\"status\":\"playing\""), code);
    assert_non_null(room);
    assert_string_equal(seat_kind(room, 3), "bot");

    snprintf(brief, sizeof(brief), "%s", create_on_a(6, ""));
    tell_both();
    assert_non_null(entry_of(listed_on_b(""), brief));
    say(6, "{\"type\":\"room.leave\",\"room\":\"%s\"}", brief); /* empty: it closes */
    tell_both();
    assert_null(entry_of(listed_on_b(""), brief));
    assert_non_null(entry_of(listed_on_b(""), code));
}

/* An instance not heard of past its `until` has died: its rooms go from
 * the others' lists. One that goes on ticking is heard of all along. */
static void test_the_rooms_of_an_instance_not_heard_of_go(void **state)
{
    (void)state;
    char code[16];
    snprintf(code, sizeof(code), "%s", create_on_a(1, ""));
    tell_both();
    for (int i = 0; i < 20; i++) /* 5 s of heartbeats, more than a lease */
        tell_both();
    assert_non_null(entry_of(listed_on_b(""), code));
    host.now += 3000 + 1;
    lobby_tick(other); /* a is silent */
    assert_null(entry_of(listed_on_b(""), code));
    lose_notices();
    /* b was the one that stalled: hearing of a again (a heartbeat comes
     * every third of a lease), it asks again, and a tells it. */
    for (int i = 0; i < 8; i++)
        tell_both();
    assert_non_null(entry_of(listed_on_b(""), code));
}

/* b's listener connects (again) after a told of its room: b asks for
 * everything, and a tells it. */
static void test_a_listener_that_connects_hears_everything(void **state)
{
    (void)state;
    char code[16];
    snprintf(code, sizeof(code), "%s", create_on_a(1, ""));
    host.now += TELL_MS;
    lobby_tick(lob);
    lose_notices(); /* b was not listening yet */
    tell_both();
    assert_null(entry_of(listed_on_b(""), code)); /* heartbeats only */
    lobby_listings_connected(other);
    lobby_tick(other);
    assert_true(deliver() > 0); /* b's hello */
    tell_both();
    assert_non_null(entry_of(listed_on_b(""), code));
}

/* The database comes back and both listeners connect again, b's first:
 * b's hello goes while a is still deaf, and a's room, told while b was,
 * is lost too. a's listener connecting tells a's rooms with its hello. */
static void test_listeners_that_connect_again_in_turn_hear_everything(void **state)
{
    (void)state;
    char code[16];
    snprintf(code, sizeof(code), "%s", create_on_a(1, ""));
    host.now += TELL_MS;
    lobby_tick(lob);
    lose_notices(); /* b was not listening */
    lobby_listings_connected(other);
    lobby_tick(other);
    lose_notices(); /* b's hello: a was not listening */
    tell_both();
    assert_null(entry_of(listed_on_b(""), code)); /* heartbeats only */
    lobby_listings_connected(lob);
    lobby_tick(lob);
    assert_true(deliver() > 0); /* a's hello, and its rooms */
    assert_non_null(entry_of(listed_on_b(""), code));
}

/* What b serves itself outranks what another instance says of the same
 * code; notices that are not understood change nothing. */
static void test_a_room_here_outranks_a_notice(void **state)
{
    (void)state;
    const char create[] = "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"duo\"}";
    lobby_message(other, WATCHER, create, sizeof(create) - 1);
    char code[16];
    snprintf(
        code, sizeof(code), "%s",
        json_string_value(json_object_get(json_object_get(last(WATCHER, "room"), "room"), "id")));
    char notice[400];
    snprintf(notice, sizeof(notice),
             "{\"instance\":\"a\",\"until\":%lld,\"rooms\":[{\"id\":\"%s\",\"mode\":\"4p\","
             "\"status\":\"playing\",\"private\":false}],\"gone\":[]}",
             (long long)host.now + 3000, code);
    lobby_listings_heard(other, notice);
    const char *garbage[] = {
        "",
        "{",
        "[]",
        "{\"instance\":\"a\"}",
        "{\"instance\":\"ab\",\"until\":1}",
        "{\"instance\":\"I\",\"until\":1}",
        "{\"instance\":\"a\",\"until\":1,\"rooms\":[{\"id\":\"nope\"}],\"gone\":[7]}"};
    for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++)
        lobby_listings_heard(other, garbage[i]);
    json_t *rooms = listed_on_b("");
    assert_int_equal(json_array_size(rooms), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rooms, 0), "mode")),
                        "duo");
    lose_notices();
}

/* Many changes at once are told in several notices, each within
 * PostgreSQL's limit, and every room reaches b. */
static void test_many_changes_are_split_into_notices_under_the_limit(void **state)
{
    (void)state;
    for (uint64_t connection = 1; connection <= 3; connection++) {
        create_on_a(connection, "");
        for (int room = 1; room < 10; room++) /* 10 rooms each: the cap per player */
            say(connection, "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"4p\"}");
    }
    host.now += TELL_MS;
    lobby_tick(lob);
    int notices = 0;
    char *notice;
    while ((notice = fault_store_next_notice())) {
        assert_true(strlen(notice) <= STORE_NOTICE_SIZE_MAX);
        lobby_listings_heard(other, notice);
        free(notice);
        notices++;
    }
    assert_true(notices >= 2);
    assert_int_equal(json_array_size(listed_on_b(",\"limit\":100")), 30);
}

/* A tell whose commit fails is told again at the next interval. */
static void test_a_tell_that_is_not_stored_is_told_again(void **state)
{
    (void)state;
    char code[16];
    snprintf(code, sizeof(code), "%s", create_on_a(1, ""));
    faults.fail_kind = FAULT_NOTIFY;
    faults.fail_write_in = 1;
    assert_int_equal(tell_both(), 1); /* b's heartbeat only: a's tell failed */
    assert_int_equal(faults.failures, 1);
    assert_null(entry_of(listed_on_b(""), code));
    tell_both();
    assert_non_null(entry_of(listed_on_b(""), code));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_a_room_of_another_instance_is_listed_and_follows_it,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_rooms_of_an_instance_not_heard_of_go, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_listeners_that_connect_again_in_turn_hear_everything,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_listener_that_connects_hears_everything, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_room_here_outranks_a_notice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_tell_that_is_not_stored_is_told_again, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_many_changes_are_split_into_notices_under_the_limit,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

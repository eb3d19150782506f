/* test_lobby.c -- the lobby driven through its host interface.
 *
 * The fake host (fake_host.h) records every message per connection, keeps
 * bot jobs in a queue the test runs when it wants, and has a clock the test
 * moves by hand. Storage is a real SQLite store, in a temporary file so a
 * second lobby can restore from it. */
#include <limits.h>
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

#include "engine/rng.h"
#include "lobby/lobby.h"
#include "tests/unit/lobby_harness.h"

static int run_jobs(int limit)
{
    return fake_host_run_jobs(limit);
}

static lobby_config test_config(void)
{
    lobby_config config = lobby_default_config();
    config.bot_think_ms = 5;
    config.reconnect_grace_ms = 1000;
    return config;
}

static int setup(void **state)
{
    (void)state;
    lobby_config config = test_config();
    harness_start("lobby", 99, &config);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    harness_stop();
    return 0;
}

/* The process dies and comes back: a new lobby on the same database, which
 * must rebuild `expected` games. */
static void restart_lobby(int expected)
{
    lobby_config config = test_config();
    harness_restart(&config, expected);
}

static void clear_inbox(uint64_t connection)
{
    json_array_clear(host.inbox[connection]);
}

/* Connects and says hello; returns the token. */
static const char *sign_in(uint64_t connection, const char *name)
{
    lobby_connect(lob, connection, "127.0.0.1");
    say(connection, "{\"type\":\"hello\",\"name\":\"%s\"}", name);
    json_t *welcome = last(connection, "welcome");
    assert_non_null(welcome);
    return json_string_value(json_object_get(welcome, "token"));
}

/* Gives the guest of `connection` its player row, as its first place in
 * quick play does (joining a 4p queue alone, then leaving it). */
static void give_row(uint64_t connection)
{
    say(connection, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"4p\"}");
    assert_non_null(last(connection, "queue.joined"));
    say(connection, "{\"type\":\"queue.leave\"}");
    assert_non_null(last(connection, "queue.left"));
}

/* Creates a room from connection 1's session and returns its code. */
static const char *create_room(const char *game, const char *mode, const char *extra)
{
    say(1, "{\"type\":\"room.create\",\"id\":7,\"game\":\"%s\",\"mode\":\"%s\"%s}", game, mode,
        extra);
    json_t *room = last(1, "room");
    assert_non_null(room);
    assert_int_equal(json_integer_value(json_object_get(room, "id")), 7);
    return json_string_value(json_object_get(json_object_get(room, "room"), "id"));
}

static int64_t state_ply(uint64_t connection)
{
    return json_integer_value(json_object_get(last(connection, "game.state"), "ply"));
}

/* A legal move for whoever `connection` is, from the lobby itself. */
static json_t *legal_move(uint64_t connection, const char *room)
{
    say(connection, "{\"type\":\"game.moves\",\"room\":\"%s\"}", room);
    json_t *moves = json_object_get(last(connection, "game.moves"), "moves");
    assert_true(json_array_size(moves) > 0);
    return json_array_get(moves, 0);
}

static void play_first_legal(uint64_t connection, const char *room)
{
    char *action = json_dumps(legal_move(connection, room), JSON_COMPACT);
    say(connection, "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":%lld,\"action\":%s}", room,
        (long long)state_ply(connection), action);
    free(action);
}

/* Four players in a 4p room, started; connection k + 1 has seat k. */
static const char *start_four_player_game(void)
{
    for (int c = 1; c <= 4; c++) {
        char name[16];
        snprintf(name, sizeof(name), "player%d", c);
        sign_in((uint64_t)c, name);
    }
    const char *room = create_room("blokus", "4p", "");
    for (int c = 1; c <= 4; c++)
        say((uint64_t)c, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":%d}", room, c - 1);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    assert_non_null(last(1, "room.started"));
    return room;
}

static void test_hello_gives_a_token_that_signs_in_again(void **state)
{
    (void)state;
    char token[80];
    snprintf(token, sizeof(token), "%s", sign_in(1, "ada"));
    const char *room = create_room("blokus", "duo", "");
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\"}", room); /* a seat stores the player */
    json_int_t id = json_integer_value(json_object_get(
        json_array_get(json_object_get(json_object_get(last(1, "room"), "room"), "seats"), 0),
        "player_id"));
    assert_true(id > 0);
    lobby_disconnect(lob, 1);
    lobby_connect(lob, 2, "127.0.0.1");
    say(2, "{\"type\":\"hello\",\"name\":\"ada\",\"token\":\"%s\"}", token);
    json_t *welcome = last(2, "welcome");
    assert_non_null(welcome);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(welcome, "player"), "id")),
                     id);
}

/* The room object, written directly (room_view.c), whole: every kind of
 * seat, a seed past 2^63 (a string), a clock, a spectator, the owner. */
static void test_room_event_shows_the_whole_room(void **state)
{
    (void)state;
    sign_in(1, "ada");
    sign_in(2, "bob");
    const char *room = create_room("blokus", "4p",
                                   ",\"seed\":\"18446744073709551615\",\"timeout\":\"pass\""
                                   ",\"clock\":{\"initial_ms\":60000,\"increment_ms\":2000}");
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":0}", room);
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":2,\"bot\":\"greedy\"}", room);
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\",\"as\":\"spectator\"}", room);
    json_t *shown = json_object_get(last(2, "room"), "room");
    assert_non_null(shown);
    json_t *seat0 = json_array_get(json_object_get(shown, "seats"), 0);
    json_int_t ada = json_integer_value(json_object_get(seat0, "player_id"));
    assert_true(ada > 0);
    json_t *expected = json_pack(
        "{s:s, s:s, s:s, s:s, s:b, s:{s:s, s:s, s:i, s:s, s:{s:i, s:i}},"
        " s:[{s:i, s:s, s:s, s:I, s:b, s:b, s:b}, {s:i, s:s}, {s:i, s:s, s:s, s:s}, {s:i, s:s}],"
        " s:i, s:O, s:I}",
        "id", room, "game", "blokus", "mode", "4p", "status", "waiting", "private", 0, "options",
        "seed", "18446744073709551615", "timeout", "pass", "seats", 4, "scoring", "squares",
        "clock", "initial_ms", 60000, "increment_ms", 2000, "seats", "seat", 0, "kind", "player",
        "name", "ada", "player_id", ada, "is_bot", 0, "connected", 1, "left", 0, "seat", 1, "kind",
        "empty", "seat", 2, "kind", "bot", "bot", "greedy", "name", "greedy", "seat", 3, "kind",
        "empty", "spectators", 1, "game_id", json_object_get(shown, "game_id"), "owner", ada);
    assert_non_null(expected);
    assert_true(json_equal(shown, expected));
    json_decref(expected);
}

static void test_unknown_token_is_unauthorized(void **state)
{
    (void)state;
    lobby_connect(lob, 1, "127.0.0.1");
    say(1, "{\"type\":\"hello\",\"id\":\"a\",\"name\":\"x\",\"token\":\"nope\"}");
    assert_string_equal(last_error_code(1), "unauthorized");
    assert_string_equal(json_string_value(json_object_get(last(1, "error"), "id")), "a");
}

static void test_nothing_but_hello_before_hello(void **state)
{
    (void)state;
    lobby_connect(lob, 1, "127.0.0.1");
    say(1, "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"4p\"}");
    assert_string_equal(last_error_code(1), "unauthorized");
    assert_int_equal(lobby_room_count(lob), 0);
}

static void test_malformed_messages_get_stable_codes_and_echo_id(void **state)
{
    (void)state;
    sign_in(1, "ada");
    say_refused(1, "bad_json", "{not json");
    say_refused(1, "bad_json", "[1,2]");
    say_refused(1, "unknown_type", "{\"type\":\"fly\",\"id\":5}");
    assert_int_equal(json_integer_value(json_object_get(last(1, "error"), "id")), 5);
    say(1, "{\"type\":\"room.create\",\"id\":6,\"game\":\"blokus\",\"mode\":\"4p\",\"colour\":1}");
    assert_string_equal(last_error_code(1), "bad_message");
    assert_int_equal(json_integer_value(json_object_get(last(1, "error"), "id")), 6);
    say(1, "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"5p\"}");
    assert_string_equal(last_error_code(1), "bad_message");
    say(1, "{\"type\":\"room.create\",\"game\":7,\"mode\":\"4p\"}");
    assert_string_equal(last_error_code(1), "bad_message");
    say(1, "{\"type\":\"room.join\",\"room\":\"zzzzzzzz\"}");
    assert_string_equal(last_error_code(1), "no_such_room");
    assert_int_equal(lobby_room_count(lob), 0);
}

static void test_rooms_list_shows_public_rooms_only(void **state)
{
    (void)state;
    sign_in(1, "ada");
    create_room("blokus", "duo", "");
    create_room("reef-builder", "solo", ",\"private\":true");
    say(1, "{\"type\":\"rooms.list\"}");
    json_t *rooms = json_object_get(last(1, "rooms"), "rooms");
    assert_int_equal(json_array_size(rooms), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rooms, 0), "mode")),
                        "duo");
    assert_int_equal(lobby_room_count(lob), 2);
}

static void test_seats_fill_and_only_the_owner_starts(void **state)
{
    (void)state;
    sign_in(1, "owner");
    sign_in(2, "guest");
    const char *room = create_room("blokus", "2p", "");
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":1}", room);
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":1}", room);
    assert_string_equal(last_error_code(1), "seat_taken");
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    assert_string_equal(last_error_code(1), "seats_empty");
    say(2, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    assert_string_equal(last_error_code(2), "not_owner");
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":0,\"bot\":\"genius\"}", room);
    assert_string_equal(last_error_code(1), "bad_message");
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":0,\"bot\":\"greedy\"}", room);
    sign_in(3, "late");
    say(3, "{\"type\":\"room.join\",\"room\":\"%s\"}", room);
    assert_string_equal(last_error_code(3), "room_full");
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    assert_non_null(last(1, "room.started"));
    assert_non_null(last(2, "game.state"));
}

static void test_moves_are_checked_for_turn_ply_and_legality(void **state)
{
    (void)state;
    const char *room = start_four_player_game();
    assert_int_equal(state_ply(1), 0);
    say(2,
        "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":0,\"action\":{\"piece\":\"I1\","
        "\"orientation\":0,\"row\":0,\"col\":19}}",
        room);
    assert_string_equal(last_error_code(2), "not_your_turn");
    say(1,
        "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":3,\"action\":{\"piece\":\"I1\","
        "\"orientation\":0,\"row\":0,\"col\":0}}",
        room);
    assert_string_equal(last_error_code(1), "stale_ply");
    say(1,
        "{\"type\":\"game.move\",\"id\":9,\"room\":\"%s\",\"ply\":0,\"action\":{\"piece\":"
        "\"I1\",\"orientation\":0,\"row\":5,\"col\":5}}",
        room);
    assert_string_equal(last_error_code(1), "illegal_move");
    assert_string_equal(json_string_value(json_object_get(last(1, "error"), "reason")),
                        "not_on_start");
    say(1, "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":0,\"action\":{\"piece\":\"I1\"}}",
        room);
    assert_string_equal(last_error_code(1), "bad_message");
    assert_int_equal(count(3, "game.moved"), 0);
    say(1,
        "{\"type\":\"game.move\",\"id\":10,\"room\":\"%s\",\"ply\":0,\"action\":{\"cells\":"
        "[[0,0],[0,1]]}}",
        room);
    json_t *moved = last(1, "game.moved");
    assert_non_null(moved);
    assert_int_equal(json_integer_value(json_object_get(moved, "id")), 10);
    json_t *action = json_object_get(moved, "action");
    assert_string_equal(json_string_value(json_object_get(action, "piece")), "I2");
    assert_int_equal(json_integer_value(json_object_get(action, "row")), 0);
    assert_int_equal(json_integer_value(json_object_get(action, "col")), 0);
    assert_true(json_is_integer(json_object_get(action, "orientation")));
    assert_int_equal(json_object_size(action), 4);
    assert_int_equal(json_integer_value(json_object_get(moved, "color")), 0);
    assert_int_equal(json_integer_value(json_object_get(moved, "seat")), 0);
    assert_int_equal(json_integer_value(json_object_get(moved, "ply")), 0);
    json_t *scores = json_object_get(moved, "scores");
    assert_int_equal(json_array_size(scores), 4);
    assert_int_equal(json_integer_value(json_array_get(scores, 0)), 2); /* the I2's squares */
    for (uint64_t c = 2; c <= 4; c++) {
        assert_int_equal(count(c, "game.moved"), 1);
        assert_null(json_object_get(last(c, "game.moved"), "id"));
        assert_int_equal(state_ply(c), 1);
    }
    /* The same move again is stale: it can never be applied twice. */
    say(1,
        "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":0,\"action\":{\"cells\":"
        "[[0,0],[0,1]]}}",
        room);
    assert_string_equal(last_error_code(1), "stale_ply");
    assert_int_equal(count(2, "game.moved"), 1);
}

static void test_player_to_move_gets_hints_others_do_not(void **state)
{
    (void)state;
    start_four_player_game();
    json_t *hints = json_object_get(last(1, "game.state"), "hints");
    assert_non_null(hints);
    assert_int_equal(json_array_size(json_object_get(hints, "attach")), 1);
    assert_null(json_object_get(last(2, "game.state"), "hints"));
}

static void test_spectator_sees_every_move_of_a_bot_game(void **state)
{
    (void)state;
    sign_in(1, "owner");
    sign_in(2, "watcher");
    const char *room = create_room("blokus", "4p", "");
    for (int seat = 0; seat < 4; seat++)
        say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":%d,\"bot\":\"%s\"}", room, seat,
            seat == 0 ? "greedy" : "random");
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\",\"as\":\"spectator\"}", room);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    run_jobs(1000);
    json_t *over = last(2, "game.over");
    assert_non_null(over);
    int moves = count(2, "game.moved");
    assert_true(moves > 40);
    assert_int_equal(count(1, "game.moved"), moves);
    json_t *ranks = json_object_get(json_object_get(over, "result"), "ranks");
    assert_int_equal(json_array_size(ranks), 4);
    /* Every move was stored before it was broadcast. */
    int64_t *ids;
    int unfinished;
    assert_int_equal(store_unfinished_games(db, &ids, &unfinished), 0);
    assert_int_equal(unfinished, 0);
    free(ids);
}

static void test_bots_fill_in_and_the_human_moves_again(void **state)
{
    (void)state;
    sign_in(1, "human");
    const char *room = create_room("blokus", "4p", "");
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":0}", room);
    for (int seat = 1; seat < 4; seat++)
        say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":%d,\"bot\":\"mcts\"}", room,
            seat);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    assert_int_equal(host.job_count, 0);
    play_first_legal(1, room);
    assert_int_equal(host.job_count, 1);
    assert_int_equal(run_jobs(10), 3);
    assert_int_equal(state_ply(1), 4);
    assert_non_null(json_object_get(last(1, "game.state"), "hints"));
}

static void test_reconnect_with_token_returns_seat_and_state(void **state)
{
    (void)state;
    const char *room = start_four_player_game();
    play_first_legal(1, room);
    char token[80];
    lobby_connect(lob, 9, "127.0.0.1");
    /* Player 2 drops and comes back on another connection. */
    json_t *welcome = json_array_get(host.inbox[2], 0);
    snprintf(token, sizeof(token), "%s", json_string_value(json_object_get(welcome, "token")));
    lobby_disconnect(lob, 2);
    assert_false(json_is_true(json_object_get(
        json_array_get(json_object_get(json_object_get(last(1, "room"), "room"), "seats"), 1),
        "connected")));
    say(9, "{\"type\":\"hello\",\"name\":\"player2\",\"token\":\"%s\"}", token);
    json_t *view = last(9, "game.state");
    assert_non_null(view);
    assert_int_equal(json_integer_value(json_object_get(view, "seat")), 1);
    assert_int_equal(state_ply(9), 1);
    play_first_legal(9, room);
    assert_int_equal(state_ply(1), 2);
}

static void test_absent_player_is_covered_by_a_bot_after_the_grace(void **state)
{
    (void)state;
    const char *room = start_four_player_game();
    play_first_legal(1, room);
    lobby_disconnect(lob, 2);
    lobby_tick(lob);
    assert_int_equal(host.job_count, 0);
    host.now += 1000;
    lobby_tick(lob);
    assert_int_equal(host.job_count, 1);
    run_jobs(1);
    json_t *moved = last(1, "game.moved");
    assert_int_equal(json_integer_value(json_object_get(moved, "seat")), 1);
    assert_string_equal(json_string_value(json_object_get(moved, "cause")), "stand_in");
}

static void test_clock_timeout_plays_the_policy_move(void **state)
{
    (void)state;
    sign_in(1, "slow");
    sign_in(2, "fast");
    const char *room =
        create_room("blokus", "duo",
                    ",\"clock\":{\"initial_ms\":5000,\"increment_ms\":0},\"timeout\":\"pass\"");
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\"}", room);
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\"}", room);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    host.now += 4999;
    lobby_tick(lob);
    assert_int_equal(count(2, "game.moved"), 0);
    host.now += 1;
    lobby_tick(lob);
    json_t *moved = last(2, "game.moved");
    assert_non_null(moved);
    assert_string_equal(json_string_value(json_object_get(moved, "cause")), "timeout");
    assert_true(json_is_true(json_object_get(json_object_get(moved, "action"), "pass")));
    json_t *clocks = json_object_get(last(2, "game.state"), "clocks");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(clocks, 0), "ms")), 0);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(clocks, 1), "ms")), 5000);
}

static void test_resigning_a_2p_game_ends_it(void **state)
{
    (void)state;
    sign_in(1, "quitter");
    sign_in(2, "stayer");
    const char *room = create_room("blokus", "2p", "");
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\"}", room);
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\"}", room);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    play_first_legal(1, room);
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    json_t *over = last(2, "game.over");
    assert_non_null(over);
    json_t *result = json_object_get(over, "result");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(result, "winners"), 0)), 1);
    assert_string_equal(json_string_value(json_object_get(result, "reason")), "resignations");
    say(2,
        "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":2,\"action\":{\"piece\":\"I1\","
        "\"orientation\":0,\"row\":0,\"col\":19}}",
        room);
    assert_string_equal(last_error_code(2), "game_over");
}

/* Bots `first` and `second` race on seed 7 for 30 actions each in a room,
 * watched: both boards are played to the end. */
static void race_reef_bots(const char *first, const char *second)
{
    sign_in(1, "owner");
    sign_in(2, "watcher");
    const char *room = create_room("reef-builder", "race", ",\"seed\":7,\"max_turns\":30");
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":0,\"bot\":\"%s\"}", room, first);
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":1,\"bot\":\"%s\"}", room, second);
    assert_null(last(1, "error"));
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\",\"as\":\"spectator\"}", room);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    run_jobs(1000);
    assert_non_null(last(2, "game.over"));
    assert_int_equal(count(2, "game.moved"), 60); /* 30 actions on each board */
}

/* The planner is a Reef room bot like the others: it plays its whole board. */
static void test_reef_planner_plays_its_board_in_a_room(void **state)
{
    (void)state;
    race_reef_bots("planner", "lookahead");
}

/* So is the chainer, the strongest Reef level. */
static void test_reef_chainer_plays_its_board_in_a_room(void **state)
{
    (void)state;
    race_reef_bots("chainer", "planner");
}

static void test_reef_race_boards_move_independently(void **state)
{
    (void)state;
    sign_in(1, "ann");
    sign_in(2, "bob");
    const char *room = create_room("reef-builder", "race", ",\"seed\":7");
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\"}", room);
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\"}", room);
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":3,\"bot\":\"lookahead\"}", room);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    json_t *boards = json_object_get(last(2, "game.state"), "boards");
    assert_int_equal(json_array_size(boards), 3);
    say(2,
        "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":0,\"action\":{\"type\":\"place\","
        "\"row\":0,\"col\":0,\"orientation\":0}}",
        room);
    say(1,
        "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":0,\"action\":{\"type\":\"place\","
        "\"row\":0,\"col\":0,\"orientation\":90}}",
        room);
    assert_int_equal(count(1, "game.moved"), 2);
    json_t *moved = last(1, "game.moved"); /* written directly: every field checked */
    assert_string_equal(json_string_value(json_object_get(moved, "room")), room);
    assert_int_equal(json_integer_value(json_object_get(moved, "seat")), 0);
    assert_int_equal(json_integer_value(json_object_get(moved, "ply")), 0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(moved, "action"), "type")), "place");
    assert_true(json_is_object(json_object_get(moved, "result")));
    assert_int_equal(json_array_size(json_object_get(moved, "scores")), 3);
    assert_null(json_object_get(moved, "cause"));
    say(1,
        "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":1,\"action\":{\"type\":\"place\","
        "\"row\":0,\"col\":0,\"orientation\":0}}",
        room);
    assert_string_equal(last_error_code(1), "illegal_move");
    assert_string_equal(json_string_value(json_object_get(last(1, "error"), "reason")), "occupied");
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    say(2, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    int turns = run_jobs(100000);
    assert_true(turns > 10);
    json_t *over = last(1, "game.over");
    assert_non_null(over);
    json_t *ranks = json_object_get(json_object_get(over, "result"), "ranks");
    assert_int_equal(json_integer_value(json_array_get(ranks, 2)), 1);
}

static void test_unfinished_game_is_restored_from_the_store(void **state)
{
    (void)state;
    const char *room_code = start_four_player_game();
    char room[32], token[80];
    snprintf(room, sizeof(room), "%s", room_code);
    snprintf(token, sizeof(token), "%s",
             json_string_value(json_object_get(json_array_get(host.inbox[3], 0), "token")));
    play_first_legal(1, room);
    play_first_legal(2, room);
    restart_lobby(1);
    assert_int_equal(lobby_room_count(lob), 1);
    clear_inbox(3);
    lobby_connect(lob, 3, "127.0.0.1");
    say(3, "{\"type\":\"hello\",\"name\":\"player3\",\"token\":\"%s\"}", token);
    assert_int_equal(state_ply(3), 2);
    assert_int_equal(json_integer_value(json_object_get(last(3, "game.state"), "seat")), 2);
    play_first_legal(3, room);
    assert_int_equal(state_ply(3), 3);
}

static int restore_ended_with;

static void take_restored(void *context, int rc)
{
    (void)context;
    restore_ended_with = rc;
}

/* A restart reads through the store port: a lookup that fails ends the
 * restore with a store error and rebuilds nothing; answers that come
 * later rebuild the game once they come, and only then is it over. */
static void test_a_restart_reads_through_the_store_port(void **state)
{
    (void)state;
    const char *room_code = start_four_player_game();
    char room[32];
    snprintf(room, sizeof(room), "%s", room_code);
    play_first_legal(1, room);
    lobby_config config = test_config();
    faults.fail_kind = FAULT_LOOKUP;
    faults.fail_write_in = 1;
    harness_restart(&config, STORE_E_IO);
    assert_int_equal(lobby_room_count(lob), 0);
    fault_store_heal();
    lobby_free(lob);
    assert_int_equal(lobby_new(&FAKE_HOST, &port, &config, &lob), 0);
    faults.is_holding = true;
    restore_ended_with = INT_MIN;
    lobby_restore(lob, take_restored, NULL);
    assert_int_equal(faults.held_count, 1); /* the games' lookup */
    assert_int_equal(restore_ended_with, INT_MIN);
    assert_int_equal(lobby_room_count(lob), 0);
    assert_int_equal(fault_store_release(), 1); /* then the tournaments' lookup, answered at once */
    assert_int_equal(restore_ended_with, 1);
    assert_int_equal(lobby_room_count(lob), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'playing'"), 1);
}

static void test_owner_who_disconnects_can_come_back_to_start(void **state)
{
    (void)state;
    char token[80];
    snprintf(token, sizeof(token), "%s", sign_in(1, "owner"));
    sign_in(2, "guest");
    const char *code = create_room("blokus", "duo", "");
    char room[32];
    snprintf(room, sizeof(room), "%s", code);
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\"}", room);
    lobby_disconnect(lob, 1);
    say(2, "{\"type\":\"rooms.list\"}");
    json_t *listed = json_array_get(json_object_get(last(2, "rooms"), "rooms"), 0);
    assert_non_null(json_object_get(listed, "owner"));
    lobby_connect(lob, 3, "127.0.0.1");
    say(3, "{\"type\":\"hello\",\"name\":\"owner\",\"token\":\"%s\"}", token);
    say(3, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":1,\"bot\":\"greedy\"}", room);
    say(3, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    assert_non_null(last(3, "room.started"));
}

static void test_final_state_is_finished_and_comes_before_game_over(void **state)
{
    (void)state;
    sign_in(1, "owner");
    const char *room = create_room("blokus", "duo", "");
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":0,\"bot\":\"random\"}", room);
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":1,\"bot\":\"random\"}", room);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    run_jobs(1000);
    json_t *inbox = host.inbox[1];
    size_t over_at = 0, final_state_at = 0;
    for (size_t i = 0; i < json_array_size(inbox); i++) {
        const char *type = json_string_value(json_object_get(json_array_get(inbox, i), "type"));
        over_at = strcmp(type, "game.over") == 0 ? i : over_at;
        final_state_at = strcmp(type, "game.state") == 0 ? i : final_state_at;
    }
    assert_true(over_at > 0 && final_state_at < over_at);
    json_t *final = json_array_get(inbox, final_state_at);
    assert_string_equal(json_string_value(json_object_get(final, "status")), "finished");
    assert_true(json_is_null(json_object_get(final, "to_move")));
}

static void test_player_who_left_hears_no_more_and_keeps_the_seat_record(void **state)
{
    (void)state;
    const char *room = start_four_player_game();
    say(2, "{\"type\":\"room.leave\",\"room\":\"%s\"}", room);
    assert_non_null(last(2, "room.left"));
    clear_inbox(2);
    play_first_legal(1, room);
    assert_int_equal(count(2, "game.moved"), 0);
    assert_int_equal(count(2, "game.state"), 0);
    json_t *seat =
        json_array_get(json_object_get(json_object_get(last(1, "room"), "room"), "seats"), 1);
    assert_string_equal(json_string_value(json_object_get(seat, "name")), "player2");
    assert_true(json_is_true(json_object_get(seat, "left")));
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\",\"as\":\"spectator\"}", room);
    assert_int_equal(run_jobs(1), 1); /* the stand-in plays the seat they left */
    play_first_legal(3, room);
    assert_int_equal(count(2, "game.moved"), 2);
    assert_null(json_object_get(last(2, "game.state"), "hints"));
}

/* The rooms an owner only watched wait for it for the reconnect grace (a
 * reload), then close, every one of them. */
static void test_disconnect_closes_every_room_left_empty(void **state)
{
    (void)state;
    sign_in(1, "host");
    for (int i = 0; i < 9; i++)
        create_room("blokus", "4p", "");
    assert_int_equal(lobby_room_count(lob), 9);
    lobby_disconnect(lob, 1);
    host.now += 999;
    lobby_tick(lob);
    assert_int_equal(lobby_room_count(lob), 9);
    host.now += 1;
    lobby_tick(lob);
    assert_int_equal(lobby_room_count(lob), 0);
}

static void test_a_player_owns_a_limited_number_of_open_rooms(void **state)
{
    (void)state;
    sign_in(1, "hoarder");
    for (int i = 0; i < 10; i++)
        create_room("reef-builder", "solo", "");
    say(1, "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    assert_string_equal(last_error_code(1), "too_many_rooms");
    assert_int_equal(lobby_room_count(lob), 10);
}

static void test_race_started_with_fewer_players_is_restored(void **state)
{
    (void)state;
    char token[80];
    snprintf(token, sizeof(token), "%s", sign_in(1, "solo-racer"));
    const char *code = create_room("reef-builder", "race", ",\"seed\":3");
    char room[32];
    snprintf(room, sizeof(room), "%s", code);
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\"}", room);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    play_first_legal(1, room);
    restart_lobby(1);
    clear_inbox(2);
    lobby_connect(lob, 2, "127.0.0.1");
    say(2, "{\"type\":\"hello\",\"name\":\"x\",\"token\":\"%s\"}", token);
    json_t *boards = json_object_get(last(2, "game.state"), "boards");
    assert_int_equal(json_array_size(boards), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(boards, 0), "ply")), 1);
}

static void test_bot_move_that_cannot_be_queued_waits_for_the_next_tick(void **state)
{
    (void)state;
    sign_in(1, "owner");
    const char *room = create_room("blokus", "duo", "");
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":0,\"bot\":\"greedy\"}", room);
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":1,\"bot\":\"greedy\"}", room);
    host.is_queue_refusing = true;
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    lobby_tick(lob);
    assert_int_equal(host.job_count, 0);
    assert_int_equal(count(1, "game.moved"), 0);
    assert_int_equal(lobby_jobs_in_flight(lob), 0);
    host.is_queue_refusing = false;
    host.now += 1000; /* the room asks again a second later */
    lobby_tick(lob);
    assert_int_equal(run_jobs(1), 1);
    json_t *moved = last(1, "game.moved");
    assert_non_null(moved);
    assert_int_equal(json_integer_value(json_object_get(moved, "ply")), 0);
}

static void test_leaving_a_game_survives_a_restart(void **state)
{
    (void)state;
    const char *code = start_four_player_game();
    char room[32], token[80];
    snprintf(room, sizeof(room), "%s", code);
    snprintf(token, sizeof(token), "%s",
             json_string_value(json_object_get(json_array_get(host.inbox[1], 0), "token")));
    say(1, "{\"type\":\"room.leave\",\"room\":\"%s\"}", room);
    assert_non_null(last(1, "room.left"));
    run_jobs(1); /* the stand-in plays seat 0 */
    restart_lobby(1);
    lobby_connect(lob, 9, "127.0.0.1");
    say(9, "{\"type\":\"hello\",\"name\":\"x\",\"token\":\"%s\"}", token);
    say(9, "{\"type\":\"game.moves\",\"room\":\"%s\"}", room);
    assert_string_equal(last_error_code(9), "not_in_room");
    json_t *seat =
        json_array_get(json_object_get(json_object_get(last(9, "room"), "room"), "seats"), 0);
    assert_true(json_is_true(json_object_get(seat, "left")));
}

/* ---- several instances (leases.c) ---------------------------------------- */

static lobby_config instance_config(char instance)
{
    lobby_config config = test_config();
    config.instance = instance;
    config.lease_ms = 3000;
    return config;
}

static int64_t lease_expiry(const char *room, char instance)
{
    char sql[160];
    snprintf(sql, sizeof(sql),
             "SELECT coalesce(max(expires_at), -1) FROM room_leases WHERE room = '%s'"
             " AND instance = '%c'",
             room, instance);
    return stored_integer(sql);
}

/* Instance a makes a room (its code starts with a, its lease is stored and
 * renewed); instance b, asked for it, answers moved; once a stops renewing,
 * b takes the room over at the next look after the lease ran out, and the
 * room's players reconnect to b. */
static void test_an_instance_takes_over_the_rooms_of_one_that_stopped(void **state)
{
    (void)state;
    lobby_config a_config = instance_config('a'), b_config = instance_config('b');
    harness_restart(&a_config, 0);
    char room[32], token[80];
    snprintf(room, sizeof(room), "%s", start_four_player_game());
    snprintf(token, sizeof(token), "%s",
             json_string_value(json_object_get(json_array_get(host.inbox[1], 0), "token")));
    assert_int_equal(room[0], 'a');
    assert_int_equal(lease_expiry(room, 'a'), host.now + 3000);
    host.now += 1000;
    lobby_tick(lob);
    assert_int_equal(lease_expiry(room, 'a'), host.now + 3000); /* renewed */

    struct lobby *b = NULL;
    assert_int_equal(lobby_new(&FAKE_HOST, &port, &b_config, &b), 0);
    assert_int_equal(fake_host_restore(b), 0); /* a's room is a's */
    char text[192];
    lobby_connect(b, 9, "127.0.0.1");
    int length = snprintf(text, sizeof(text), "{\"type\":\"hello\",\"name\":\"watcher\"}");
    lobby_message(b, 9, text, (size_t)length);
    char join[96];
    int join_length = snprintf(
        join, sizeof(join), "{\"type\":\"room.join\",\"room\":\"%s\",\"as\":\"spectator\"}", room);
    lobby_message(b, 9, join, (size_t)join_length);
    json_t *moved = last(9, "moved");
    assert_non_null(moved);
    assert_string_equal(json_string_value(json_object_get(moved, "instance")), "a");
    assert_int_equal(json_integer_value(json_object_get(moved, "retry_ms")), 0);

    /* a stops renewing: b takes the room at its first look (every sixth
     * of a lease) after the lease has run out. */
    host.now += 2999;
    lobby_tick(b);
    assert_int_equal(lobby_room_count(b), 0);
    host.now += 500;
    lobby_tick(b);
    assert_int_equal(lobby_room_count(b), 1);
    assert_int_equal(lease_expiry(room, 'b'), host.now + 3000);
    lobby_connect(b, 10, "127.0.0.1");
    length = snprintf(text, sizeof(text), "{\"type\":\"hello\",\"name\":\"back\",\"token\":\"%s\"}",
                      token);
    lobby_message(b, 10, text, (size_t)length);
    json_t *state_now = last(10, "game.state");
    assert_non_null(state_now); /* the seat's reconnect: back in the game, on b */
    assert_string_equal(json_string_value(json_object_get(state_now, "room")), room);
    lobby_message(b, 9, join, (size_t)join_length); /* asked again: the room is here */
    assert_non_null(last(9, "room"));

    /* a, stalled meanwhile, comes back: it stores nothing for the room (it
     * cannot be sure it still holds it) until its renewal says the room is
     * gone; then it sends its members to it and lets the room go. */
    char resign[96];
    int resign_length =
        snprintf(resign, sizeof(resign), "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    lobby_message(lob, 2, resign, (size_t)resign_length);
    assert_string_equal(last_error_code(2), "storage_error");
    assert_int_equal(stored_integer("SELECT count(*) FROM moves WHERE action = 'resign'"), 0);
    lobby_tick(lob);
    assert_int_equal(lobby_room_count(lob), 0);
    json_t *sent_on = last(2, "moved");
    assert_non_null(sent_on);
    assert_string_equal(json_string_value(json_object_get(sent_on, "room")), room);

    /* b's own lease runs out (its renewal failed): b's next look takes it
     * back and leaves the game it is playing alone. */
    stored_execute("UPDATE room_leases SET expires_at = 0");
    faults.fail_kind = FAULT_LEASE;
    faults.fail_write_in = 1; /* the renewal, due with the look */
    host.now += 1000;
    int heard = count(10, "room") + count(10, "game.state");
    lobby_tick(b);
    assert_int_equal(faults.failures, 1);
    assert_int_equal(count(10, "room") + count(10, "game.state"), heard); /* nothing rebuilt */
    assert_int_equal(lease_expiry(room, 'b'), host.now + 3000);
    assert_int_equal(lobby_room_count(b), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'playing'"), 1);
    lobby_free(b);
}

/* A clean stop gives the leases up in one commit: every lease of a runs out
 * at once (b takes the room at its next look, not a lease later), and from
 * the stop on a stores no room event. */
static void test_a_clean_stop_gives_the_leases_up_at_once(void **state)
{
    (void)state;
    lobby_config a_config = instance_config('a'), b_config = instance_config('b');
    harness_restart(&a_config, 0);
    char room[32];
    snprintf(room, sizeof(room), "%s", start_four_player_game());
    assert_int_equal(lease_expiry(room, 'a'), host.now + 3000);
    int64_t moves = stored_integer("SELECT count(*) FROM moves");
    lobby_shutdown(lob);
    assert_int_equal(lease_expiry(room, 'a'), host.now); /* ran out now */
    char resign[96];
    int length =
        snprintf(resign, sizeof(resign), "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    lobby_message(lob, 2, resign, (size_t)length); /* fenced: nothing more is stored */
    assert_int_equal(stored_integer("SELECT count(*) FROM moves"), moves);

    struct lobby *b = NULL;
    assert_int_equal(lobby_new(&FAKE_HOST, &port, &b_config, &b), 0);
    assert_int_equal(fake_host_restore(b), 0);
    host.now += 500; /* b's next look, a sixth of a lease on */
    lobby_tick(b);
    assert_int_equal(lobby_room_count(b), 1);
    assert_int_equal(lease_expiry(room, 'b'), host.now + 3000);
    lobby_free(b);
}

/* ---- storage faults: not stored -> not published -> unchanged -> recovers */

/* Messages connections 1..4 received since the last clear_all. */
static size_t received_by_all(void)
{
    size_t total = 0;
    for (uint64_t c = 1; c <= 4; c++)
        total += json_array_size(host.inbox[c]);
    return total;
}

static void clear_all(void)
{
    for (uint64_t c = 1; c <= 4; c++)
        clear_inbox(c);
}

/* A copy of a room code: clear_all frees the messages codes point into. */
static const char *keep(const char *code)
{
    static char kept[32];
    snprintf(kept, sizeof(kept), "%s", code);
    return kept;
}

/* A duo room with connections 1 and 2 seated, not started. */
static const char *seat_duo(const char *extra)
{
    sign_in(1, "one");
    sign_in(2, "two");
    const char *room = keep(create_room("blokus", "duo", extra));
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":0}", room);
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":1}", room);
    return room;
}

/* A duo room of connections 1 and 2, started. */
static const char *start_duo(const char *extra)
{
    const char *room = seat_duo(extra);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    assert_non_null(last(1, "room.started"));
    return room;
}

/* A game's last batch drops its room's lease. With several writer
 * connections a renewal may be answered while that batch is still in
 * flight: the room, missing from the renewal's list, is not taken for one
 * another instance took (its members are not sent away); it ends as
 * stored. */
static void test_a_renewal_answered_before_a_rooms_last_batch_lets_it_end(void **state)
{
    (void)state;
    lobby_config a_config = instance_config('a');
    harness_restart(&a_config, 0);
    const char *room = start_duo("");
    faults.is_holding = true;
    faults.hold_game_id = stored_integer("SELECT max(id) FROM games");
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_int_equal(faults.held_count, 1); /* stored: the lease is gone; not answered */
    assert_int_equal(lease_expiry(room, 'a'), -1);
    host.now += 1000;
    lobby_tick(lob); /* a renewal, answered at once, without the room */
    assert_null(last(1, "moved"));
    assert_null(last(2, "moved"));
    assert_int_equal(lobby_room_count(lob), 1);
    assert_int_equal(fault_store_release(), 1);
    json_t *over = last(2, "game.state");
    assert_non_null(over);
    assert_string_equal(json_string_value(json_object_get(over, "status")), "finished");
}

#define ONE_SECOND_NO_INCREMENT ",\"clock\":{\"initial_ms\":1000,\"increment_ms\":0}"

/* The clock is judged when the move is read: 5 ms before the flag it is
 * played; 5 ms after, the mover gets out_of_time first, and then the
 * timeout policy plays at once, not at the next tick. */
static void test_a_move_read_after_the_flag_is_refused_and_the_policy_plays(void **state)
{
    (void)state;
    const char *room = start_duo(ONE_SECOND_NO_INCREMENT ",\"timeout\":\"pass\"");
    host.now += 995;
    play_first_legal(1, room);
    assert_int_equal(state_ply(2), 1);
    host.now += 1005;
    char *action = json_dumps(legal_move(2, room), JSON_COMPACT);
    clear_all();
    say(2, "{\"type\":\"game.move\",\"id\":5,\"room\":\"%s\",\"ply\":1,\"action\":%s}", room,
        action);
    free(action);
    json_t *refusal = json_array_get(host.inbox[2], 0);
    assert_string_equal(json_string_value(json_object_get(refusal, "type")), "error");
    assert_string_equal(json_string_value(json_object_get(refusal, "code")), "out_of_time");
    assert_int_equal(json_integer_value(json_object_get(refusal, "id")), 5);
    json_t *moved = json_array_get(host.inbox[2], 1);
    assert_string_equal(json_string_value(json_object_get(moved, "type")), "game.moved");
    assert_int_equal(json_integer_value(json_object_get(moved, "seat")), 1);
    assert_string_equal(json_string_value(json_object_get(moved, "cause")), "timeout");
    assert_true(json_is_true(json_object_get(json_object_get(moved, "action"), "pass")));
    assert_null(json_object_get(moved, "id"));
    assert_int_equal(state_ply(1), 2);
}

/* A Reef board whose bank is empty, with no increment, is flagged again
 * the moment its turn restarts. A tick still handles each room once: the
 * next timeout waits for the next tick, and the third in a row resigns
 * the board, which ends the game. */
static void test_a_tick_handles_each_room_once(void **state)
{
    (void)state;
    sign_in(1, "idle");
    char rooms[2][32];
    for (int i = 0; i < 2; i++) {
        snprintf(
            rooms[i], sizeof(rooms[i]), "%s",
            create_room("reef-builder", "solo", ONE_SECOND_NO_INCREMENT ",\"timeout\":\"pass\""));
        say(1, "{\"type\":\"room.join\",\"room\":\"%s\"}", rooms[i]);
        say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", rooms[i]);
    }
    host.now += 1000;
    lobby_tick(lob);
    assert_int_equal(count(1, "game.moved"), 2); /* each room once */
    lobby_tick(lob);
    assert_int_equal(count(1, "game.moved"), 2); /* no time passed: nothing is due */
    host.now += 100;
    lobby_tick(lob);
    assert_int_equal(count(1, "game.moved"), 4);
    assert_int_equal(count(1, "game.resigned"), 0);
    host.now += 100;
    lobby_tick(lob);
    assert_int_equal(count(1, "game.resigned"), 2);
    assert_string_equal(json_string_value(json_object_get(last(1, "game.resigned"), "cause")),
                        "timeout");
    assert_int_equal(count(1, "game.over"), 2);
    assert_int_equal(stored_integer("SELECT count(*) FROM moves"), 6);
}

/* The sender's error is storage_error and nobody heard anything else. */
static void assert_refused_unheard(uint64_t sender)
{
    assert_string_equal(last_error_code(sender), "storage_error");
    assert_int_equal(received_by_all(), 1);
    assert_true(faults.failures > 0);
}

static void test_a_start_that_is_not_stored_does_not_start(void **state)
{
    (void)state;
    const char *room = seat_duo("");
    clear_all();
    faults.fail_kind = FAULT_SEAT_SET;
    faults.fail_write_in = 2; /* the second seat of the start's transaction */
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    assert_refused_unheard(1);
    restart_lobby(0); /* nothing started was stored: the waiting room is aborted */
}

static void test_a_start_whose_commit_fails_can_be_retried(void **state)
{
    (void)state;
    const char *room = seat_duo("");
    clear_all();
    faults.is_failing_commit = true;
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    assert_refused_unheard(1);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room); /* still waiting: it starts */
    assert_non_null(last(1, "room.started"));
    assert_non_null(last(2, "game.state"));
    restart_lobby(1);
}

/* Starts a Duo room of connections 1 and 2 (start_duo) and returns its
 * code in *room and seat 0's first legal move as action text (the
 * caller frees it); the inboxes are cleared. */
static char *start_duo_with_a_first_move(const char **room)
{
    *room = start_duo("");
    char *action = json_dumps(legal_move(1, *room), JSON_COMPACT);
    clear_all();
    return action;
}

static void test_a_move_that_is_not_stored_is_not_played(void **state)
{
    (void)state;
    const char *room;
    char *action = start_duo_with_a_first_move(&room);
    faults.fail_kind = FAULT_MOVE_APPEND;
    faults.fail_write_in = 1;
    say(1, "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":0,\"action\":%s}", room, action);
    assert_refused_unheard(1);
    say(1, "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":0,\"action\":%s}", room, action);
    assert_int_equal(json_integer_value(json_object_get(last(2, "game.moved"), "ply")), 0);
    assert_int_equal(state_ply(2), 1);
    free(action);
    restart_lobby(1);
    sign_in(3, "watcher");
    say(3, "{\"type\":\"room.join\",\"room\":\"%s\",\"as\":\"spectator\"}", room);
    assert_int_equal(state_ply(3), 1); /* exactly the one stored move */
}

/* Where the first message of `type` is in what `connection` received, or -1. */
static int position_of(uint64_t connection, const char *type)
{
    for (size_t i = 0; i < json_array_size(host.inbox[connection]); i++)
        if (strcmp(json_string_value(
                       json_object_get(json_array_get(host.inbox[connection], i), "type")),
                   type) == 0)
            return (int)i;
    return -1;
}

/* While a room's records are being stored, its next events wait in order
 * and nobody hears of them; another room goes on meanwhile. */
static void test_a_room_storing_an_event_queues_the_next_and_others_go_on(void **state)
{
    (void)state;
    char first[32], second[32];
    snprintf(first, sizeof(first), "%s", start_duo(""));
    sign_in(3, "three");
    sign_in(4, "four");
    snprintf(second, sizeof(second), "%s", create_room("blokus", "duo", ""));
    say(3, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":0}", second);
    say(4, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":1}", second);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", second);
    char *one = json_dumps(legal_move(1, first), JSON_COMPACT);
    char *three = json_dumps(legal_move(3, second), JSON_COMPACT);
    clear_all();
    faults.is_holding = true;
    say(1, "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":0,\"action\":%s}", first, one);
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", first);
    assert_int_equal(faults.held_count, 1); /* the resignation waits for the move */
    say(3, "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":0,\"action\":%s}", second, three);
    assert_int_equal(faults.held_count, 2); /* the other room was not held up */
    assert_int_equal(received_by_all(), 0); /* nothing is told before it is stored */
    assert_int_equal(fault_store_release(), 2);
    assert_true(position_of(2, "game.moved") >= 0);
    assert_true(position_of(2, "game.resigned") > position_of(2, "game.moved"));
    assert_non_null(last(2, "game.over"));
    assert_non_null(last(4, "game.moved"));
    assert_int_equal(stored_integer("SELECT count(*) FROM moves"), 3);
    free(one);
    free(three);
}

/* A player leaves mid-game while the store has not answered yet, and the
 * other resigns meanwhile: once the leave is stored, the resignation that
 * waited behind it is carried out too. */
static void test_an_event_queued_behind_a_leave_is_carried_out(void **state)
{
    (void)state;
    const char *room = start_duo("");
    clear_all();
    faults.is_holding = true;
    say(1, "{\"type\":\"room.leave\",\"room\":\"%s\"}", room);
    say(2, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_int_equal(faults.held_count, 1);
    assert_int_equal(fault_store_release(), 1);
    assert_non_null(last(1, "room.left"));
    assert_non_null(last(2, "game.resigned"));
    assert_non_null(last(2, "game.over"));
}

/* The last player leaves a waiting room and its abort cannot be stored:
 * the room stays, empty and waiting, as stored; a restart aborts it. */
static void test_an_abandon_that_is_not_stored_leaves_the_room_waiting(void **state)
{
    (void)state;
    sign_in(1, "one");
    const char *room = keep(create_room("blokus", "duo", ""));
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":0}", room);
    faults.fail_kind = FAULT_GAME_FINISH;
    faults.is_failing_always = true;
    say(1, "{\"type\":\"room.leave\",\"room\":\"%s\"}", room); /* now nobody is in it */
    assert_non_null(last(1, "room.left"));
    assert_true(faults.failures > 0);
    assert_int_equal(lobby_room_count(lob), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'waiting'"), 1);
    fault_store_heal();
    restart_lobby(0);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'aborted'"), 1);
}

/* Two players meet in quick play while every write of `kind` fails and
 * the store's answers are held back: room_arrange has returned, the
 * room's creation is still unanswered. */
static void match_two_with_held_answers(fault_write kind)
{
    sign_in(1, "quick");
    sign_in(2, "quicker");
    give_row(2);
    say(1, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    faults.fail_kind = kind;
    faults.is_failing_always = true;
    faults.is_holding = true;
    faults.is_answering_lookups = true; /* the join's rating: the match is made at once */
    say(2, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}");
}

/* Quick play's room is started, but its start is answered -- a failure --
 * only after room_arrange returned (the room's creation was held up, so
 * the seats and the start waited behind it): the runner discards the
 * room, its game is stored as aborted and both players hear why. */
static void test_a_matched_room_whose_start_fails_later_is_discarded(void **state)
{
    (void)state;
    match_two_with_held_answers(FAULT_GAME_START);
    assert_int_equal(faults.held_count, 1); /* the room's creation */
    assert_null(last(1, "room"));           /* nothing is told before the start is stored */
    assert_int_equal(lobby_room_count(lob), 1);
    assert_int_equal(fault_store_release(), 1);
    assert_string_equal(last_error_code(1), "storage_error");
    assert_string_equal(last_error_code(2), "storage_error");
    assert_null(last(1, "room"));
    assert_int_equal(lobby_room_count(lob), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'aborted'"), 1);
}

/* A room whose game cannot be stored is not created: its owner hears
 * storage_error, answering the request, and nothing is listed or kept. */
static void test_a_room_that_cannot_be_stored_is_not_created(void **state)
{
    (void)state;
    sign_in(1, "ada");
    faults.fail_kind = FAULT_GAME_CREATE;
    faults.is_failing_always = true;
    say(1, "{\"type\":\"room.create\",\"id\":7,\"game\":\"blokus\",\"mode\":\"duo\"}");
    json_t *error = last(1, "error");
    assert_non_null(error);
    assert_string_equal(json_string_value(json_object_get(error, "code")), "storage_error");
    assert_int_equal(json_integer_value(json_object_get(error, "id")), 7);
    assert_null(last(1, "room"));
    assert_int_equal(lobby_room_count(lob), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM games"), 0);
    fault_store_heal();
    create_room("blokus", "duo", ""); /* the owner's room count was given back */
    assert_int_equal(lobby_room_count(lob), 1);
}

/* A room exists from its room.create on, but is answered, listed and
 * joinable only once its game is stored: a join that guessed its code
 * waits behind the creation and is carried out after it. */
static void test_a_room_is_answered_once_its_game_is_stored(void **state)
{
    (void)state;
    sign_in(1, "ada");
    sign_in(2, "bea");
    give_row(2);
    faults.is_holding = true;
    say(1, "{\"type\":\"room.create\",\"id\":7,\"game\":\"blokus\",\"mode\":\"duo\"}");
    assert_int_equal(faults.held_count, 1);
    assert_null(last(1, "room"));
    assert_null(last(1, "error"));
    say(2, "{\"type\":\"rooms.list\"}");
    assert_int_equal(json_array_size(json_object_get(last(2, "rooms"), "rooms")), 0);
    assert_int_equal(lobby_room_count(lob), 1);
    const store_batch *creation = fault_store_held(0);
    assert_int_equal(creation->records[0].kind, STORE_RECORD_GAME_CREATE);
    char code[STORE_CODE_SIZE];
    snprintf(code, sizeof(code), "%s", creation->records[0].game.room);
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":1}", code);
    assert_null(last(2, "room"));
    assert_int_equal(fault_store_release(), 1);
    json_t *reply = json_array_get(host.inbox[1], json_array_size(host.inbox[1]) - 1);
    size_t index;
    json_t *message;
    json_array_foreach(host.inbox[1], index, message) /* the reply, before the join's news */
        if (json_integer_value(json_object_get(message, "id")) == 7)
    {
        reply = message;
        break;
    }
    assert_string_equal(json_string_value(json_object_get(reply, "type")), "room");
    assert_int_equal(json_integer_value(json_object_get(reply, "id")), 7);
    assert_non_null(last(2, "room"));
    assert_int_equal(stored_integer("SELECT count(*) FROM seats"), 0); /* seats: at the start */
    say(2, "{\"type\":\"rooms.list\"}");
    assert_int_equal(json_array_size(json_object_get(last(2, "rooms"), "rooms")), 1);
}

/* Quick play's room whose creation fails after room_arrange returned:
 * the players it was about to seat hear why, and nothing is stored. */
static void test_a_matched_room_whose_creation_fails_later_is_dropped(void **state)
{
    (void)state;
    match_two_with_held_answers(FAULT_GAME_CREATE);
    assert_int_equal(fault_store_release(), 1);
    assert_string_equal(last_error_code(1), "storage_error");
    assert_string_equal(last_error_code(2), "storage_error");
    assert_int_equal(lobby_room_count(lob), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM games"), 0);
}

/* The index in `connection`'s inbox of the first message of `type`
 * echoing request `id`, or -1. */
static int inbox_index(uint64_t connection, const char *type, int id)
{
    json_t *inbox = host.inbox[connection];
    for (size_t i = 0; i < json_array_size(inbox); i++) {
        json_t *message = json_array_get(inbox, i);
        if (strcmp(json_string_value(json_object_get(message, "type")), type) == 0 &&
            json_integer_value(json_object_get(message, "id")) == id)
            return (int)i;
    }
    return -1;
}

/* A bot account's row, for a sign-in by key that has to look it up. */
static void store_bot_account(const char *name, const char *key)
{
    int64_t id = 0;
    assert_int_equal(store_bot_account_create(db, name, name, key, 0, &id), STORE_OK);
}

#define BOT_ONE_KEY "key-one-0123456789abcdef"

/* Connection 1 says hello (id 1) with the key of a stored bot account,
 * "bot-one", whose player is not in memory. */
static void hello_with_a_stored_key(void)
{
    store_bot_account("bot-one", BOT_ONE_KEY);
    lobby_connect(lob, 1, "127.0.0.1");
    say(1, "{\"type\":\"hello\",\"id\":1,\"name\":\"x\",\"key\":\"" BOT_ONE_KEY "\"}");
}

/* A hello whose player is not in memory waits for its lookup, and so do
 * the client's next messages; then all are answered in order. */
static void test_a_sign_in_by_key_waits_for_its_lookup(void **state)
{
    (void)state;
    faults.is_holding = true;
    hello_with_a_stored_key();
    say(1, "{\"type\":\"rooms.list\",\"id\":2}");
    say(1, "{\"type\":\"ping\",\"id\":3}");
    assert_int_equal(faults.held_count, 1);
    assert_int_equal(fault_store_held(0)->records[0].kind, STORE_RECORD_FIND_PLAYER);
    assert_null(last(1, "welcome"));
    assert_int_equal(count(1, "pong"), 0);
    assert_int_equal(fault_store_release(), 1);
    int welcome = inbox_index(1, "welcome", 1), rooms = inbox_index(1, "rooms", 2),
        pong = inbox_index(1, "pong", 3);
    assert_true(welcome >= 0 && rooms > welcome && pong > rooms); /* signed in first */
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(last(1, "welcome"), "player"), "name")),
        "bot-one");
    assert_int_equal(count(1, "error"), 0);
}

/* A lookup the store cannot answer refuses the hello with storage_error
 * and the messages behind it are handled (a signed-out client's); the
 * next hello tries again. */
static void test_a_failed_lookup_refuses_only_the_hello(void **state)
{
    (void)state;
    faults.fail_kind = FAULT_LOOKUP;
    faults.is_failing_always = true;
    hello_with_a_stored_key();
    assert_string_equal(last_error_code(1), "storage_error");
    say(1, "{\"type\":\"ping\",\"id\":2}");
    assert_true(inbox_index(1, "pong", 2) >= 0);
    fault_store_heal();
    say(1, "{\"type\":\"hello\",\"id\":3,\"name\":\"x\",\"key\":\"" BOT_ONE_KEY "\"}");
    assert_true(inbox_index(1, "welcome", 3) >= 0);
}

/* A client gone while its player is looked up is never signed in. */
static void test_a_client_gone_during_its_lookup_is_not_signed_in(void **state)
{
    (void)state;
    faults.is_holding = true;
    hello_with_a_stored_key();
    say(1, "{\"type\":\"ping\",\"id\":2}");
    lobby_disconnect(lob, 1);
    assert_int_equal(fault_store_release(), 1);
    assert_null(last(1, "welcome"));
    assert_int_equal(count(1, "pong"), 0);
    lobby_connect(lob, 2, "127.0.0.1"); /* the key still signs in */
    say(2, "{\"type\":\"hello\",\"id\":3,\"name\":\"x\",\"key\":\"" BOT_ONE_KEY "\"}");
    assert_true(inbox_index(2, "welcome", 3) >= 0);
}

/* Guest "bea" (connection 2) asks for seat 1 of a room of "ada"'s
 * (request id 5) while the store holds its answers: the seat waits for
 * bea's player row. Returns the room's code. */
static const char *take_a_seat_with_the_row_held(void)
{
    sign_in(1, "ada");
    sign_in(2, "bea");
    const char *room = keep(create_room("blokus", "duo", ""));
    faults.is_holding = true;
    say(2, "{\"type\":\"room.join\",\"id\":5,\"room\":\"%s\",\"seat\":1}", room);
    return room;
}

/* A guest's first seat waits for its player row, and so does every
 * message it sends meanwhile: they are handled, in order, once the row is
 * stored (the seat as a room event, which its room runs in its turn). */
static void test_a_guests_messages_wait_for_its_player_row(void **state)
{
    (void)state;
    take_a_seat_with_the_row_held();
    say(2, "{\"type\":\"ping\",\"id\":6}");
    assert_int_equal(faults.held_count, 1);
    assert_int_equal(fault_store_held(0)->records[0].kind, STORE_RECORD_PLAYER_CREATE);
    assert_int_equal(inbox_index(2, "room", 5), -1);
    assert_int_equal(inbox_index(2, "pong", 6), -1);
    assert_int_equal(fault_store_release(), 1);
    int joined = inbox_index(2, "room", 5), pong = inbox_index(2, "pong", 6);
    assert_true(joined >= 0 && pong >= 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'bea'"), 1);
    say(2, "{\"type\":\"ping\",\"id\":7}"); /* nothing waits any more */
    assert_true(inbox_index(2, "pong", 7) > joined);
}

/* A quick-play join waits for its rating's lookup, and the client's next
 * message (a leave) waits behind it: joined, then left. A lookup that
 * fails refuses the join; the player is not queued. */
static void test_a_queue_join_waits_for_its_rating(void **state)
{
    (void)state;
    sign_in(1, "quick");
    give_row(1);
    faults.is_holding = true;
    say(1, "{\"type\":\"queue.join\",\"id\":1,\"game\":\"blokus\",\"mode\":\"duo\"}");
    say(1, "{\"type\":\"queue.leave\",\"id\":2}");
    assert_int_equal(faults.held_count, 1);
    assert_int_equal(fault_store_held(0)->records[0].kind, STORE_RECORD_FIND_RATING);
    assert_string_equal(fault_store_held(0)->records[0].find_rating.pool, "blokus-duo");
    assert_int_equal(fault_store_release(), 1);
    int joined = inbox_index(1, "queue.joined", 1), left = inbox_index(1, "queue.left", 2);
    assert_true(joined >= 0 && left > joined);
    faults.fail_kind = FAULT_LOOKUP;
    faults.is_failing_always = true;
    say(1, "{\"type\":\"queue.join\",\"id\":3,\"game\":\"blokus\",\"mode\":\"duo\"}");
    assert_true(inbox_index(1, "error", 3) >= 0);
    assert_string_equal(last_error_code(1), "storage_error");
    fault_store_heal();
    say_refused(1, "not_queued", "{\"type\":\"queue.leave\",\"id\":4}");
}

/* A move answered late: the mover's next message (a ping) waits behind
 * it, so its replies come in the order it sent them; another player is
 * answered meanwhile. */
static void test_replies_keep_their_order_behind_a_move_answered_late(void **state)
{
    (void)state;
    const char *room;
    char *action = start_duo_with_a_first_move(&room);
    faults.is_holding = true;
    say(1, "{\"type\":\"game.move\",\"id\":1,\"room\":\"%s\",\"ply\":0,\"action\":%s}", room,
        action);
    say(1, "{\"type\":\"ping\",\"id\":2}");
    say(2, "{\"type\":\"ping\",\"id\":3}");
    assert_int_equal(faults.held_count, 1);
    assert_int_equal(count(1, "pong"), 0); /* behind the move */
    assert_true(inbox_index(2, "pong", 3) >= 0);
    assert_int_equal(fault_store_release(), 1);
    int moved = inbox_index(1, "game.moved", 1), pong = inbox_index(1, "pong", 2);
    assert_true(moved >= 0 && pong > moved);
    say(1, "{\"type\":\"ping\",\"id\":4}"); /* nothing waits any more */
    assert_true(inbox_index(1, "pong", 4) > pong);
    free(action);
}

/* A room whose creation fails while a join waits behind it: the join is
 * refused, and the joiner's messages that waited behind the join go on
 * only once the room is gone -- a spectator join finds no room, a ping is
 * answered -- never from inside the room's freeing. */
static void test_messages_behind_a_refused_join_go_on_after_its_room_is_gone(void **state)
{
    (void)state;
    sign_in(1, "ada");
    sign_in(2, "bea");
    give_row(2);
    clear_all();
    faults.fail_kind = FAULT_GAME_CREATE;
    faults.is_failing_always = true;
    faults.is_holding = true;
    say(1, "{\"type\":\"room.create\",\"id\":1,\"game\":\"blokus\",\"mode\":\"duo\"}");
    assert_int_equal(faults.held_count, 1);
    char code[STORE_CODE_SIZE];
    snprintf(code, sizeof(code), "%s", fault_store_held(0)->records[0].game.room);
    say(2, "{\"type\":\"room.join\",\"id\":5,\"room\":\"%s\",\"seat\":1}", code);
    say(2, "{\"type\":\"room.join\",\"id\":6,\"room\":\"%s\",\"as\":\"spectator\"}", code);
    say(2, "{\"type\":\"ping\",\"id\":7}");
    assert_int_equal(json_array_size(host.inbox[2]), 0);
    fault_store_heal();
    assert_int_equal(fault_store_release(), 1);
    int refused = inbox_index(2, "error", 5), gone = inbox_index(2, "error", 6),
        pong = inbox_index(2, "pong", 7);
    assert_true(refused >= 0 && gone > refused && pong > gone);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(host.inbox[2], (size_t)gone), "code")),
        "no_such_room");
    assert_int_equal(lobby_room_count(lob), 0);
    lobby_disconnect(lob, 2);
}

/* A client that floods while its row is stored has at most 64 messages
 * waiting: the rest are refused at once, the waiting ones answered in
 * order once the row is stored. */
static void test_messages_waiting_for_a_player_row_are_capped(void **state)
{
    (void)state;
    take_a_seat_with_the_row_held();
    for (int id = 6; id < 86; id++)
        say(2, "{\"type\":\"ping\",\"id\":%d}", id);
    assert_int_equal(count(2, "pong"), 0);
    assert_int_equal(count(2, "error"), 80 - 63); /* the join and 63 pings wait */
    assert_string_equal(last_error_code(2), "rate_limited");
    assert_true(inbox_index(2, "error", 69) >= 0 && inbox_index(2, "error", 68) < 0);
    assert_int_equal(fault_store_release(), 1);
    assert_true(inbox_index(2, "room", 5) >= 0);
    assert_int_equal(count(2, "pong"), 63);
    assert_true(inbox_index(2, "pong", 68) > inbox_index(2, "pong", 6));
    say(2, "{\"type\":\"ping\",\"id\":50}"); /* nothing waits any more */
    assert_true(inbox_index(2, "pong", 50) >= 0);
}

/* A player row that cannot be stored refuses the messages that needed it
 * (the seat is not taken) and lets the others through; the next seat
 * tries again. */
static void test_a_player_row_that_is_not_stored_refuses_only_the_seat(void **state)
{
    (void)state;
    sign_in(1, "ada");
    sign_in(2, "bea");
    const char *room = keep(create_room("blokus", "duo", ""));
    faults.fail_kind = FAULT_PLAYER_CREATE;
    faults.is_failing_always = true;
    faults.is_holding = true;
    say(2, "{\"type\":\"room.join\",\"id\":5,\"room\":\"%s\",\"seat\":1}", room);
    say(2, "{\"type\":\"ping\",\"id\":6}");
    assert_int_equal(fault_store_release(), 1);
    int refused = inbox_index(2, "error", 5), pong = inbox_index(2, "pong", 6);
    assert_true(refused >= 0 && pong > refused);
    assert_string_equal(last_error_code(2), "storage_error");
    assert_int_equal(count(2, "room"), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'bea'"), 0);
    fault_store_heal();
    say(2, "{\"type\":\"room.join\",\"id\":8,\"room\":\"%s\",\"seat\":1}", room);
    assert_true(inbox_index(2, "room", 8) >= 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'bea'"), 1);
}

/* A guest that goes away while its row is being stored: the row is kept
 * (a later hello with its token finds it), its waiting seat is dropped. */
static void test_a_guest_gone_while_its_row_is_stored_takes_no_seat(void **state)
{
    (void)state;
    const char *room = take_a_seat_with_the_row_held();
    lobby_disconnect(lob, 2);
    assert_int_equal(fault_store_release(), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'bea'"), 1);
    say(1, "{\"type\":\"room.join\",\"id\":9,\"room\":\"%s\",\"seat\":1}", room);
    assert_true(inbox_index(1, "room", 9) >= 0); /* the seat is free */
}

/* What lobby_reef_run_submit answered, once. */
static struct reef_answer {
    int calls;
    lobby_reef_stored stored;
    protocol_error code; /* 0 when stored */
} reef_answer;

static void on_reef_answer(void *context, const lobby_reef_stored *stored,
                           const protocol_failure *failure)
{
    (void)context;
    reef_answer.calls++;
    reef_answer.code = failure ? failure->code : 0;
    if (stored)
        reef_answer.stored = *stored;
}

/* Submits a Reef run of seed 7 (its history `actions`) for `secret`. */
static void submit_reef_run(const char *secret, const char *actions, int64_t score)
{
    memset(&reef_answer, 0, sizeof(reef_answer));
    lobby_reef_run run = {7, score, actions, 1000};
    lobby_reef_run_submit(lob, secret, &run, on_reef_answer, NULL);
}

/* A guest's first run stores its row in the same commit; the answer names
 * the run, and the guest is the stored player from then on: the same run
 * again is a repeat of it, with no second row. */
static void test_a_guests_reef_run_is_stored_with_its_row(void **state)
{
    (void)state;
    char token[80];
    snprintf(token, sizeof(token), "%s", sign_in(1, "diver"));
    submit_reef_run(token, "[\"a\"]", 12);
    assert_int_equal(reef_answer.calls, 1);
    assert_int_equal(reef_answer.code, 0);
    assert_false(reef_answer.stored.is_repeat);
    assert_string_equal(reef_answer.stored.player_name, "diver");
    int64_t run = reef_answer.stored.run_id;
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'diver'"), 1);
    assert_int_equal(stored_integer("SELECT player_id FROM reef_runs"),
                     stored_integer("SELECT id FROM players WHERE name = 'diver'"));
    submit_reef_run(token, "[\"a\"]", 12);
    assert_true(reef_answer.calls == 1 && reef_answer.stored.is_repeat);
    assert_int_equal(reef_answer.stored.run_id, run);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'diver'"), 1);
    submit_reef_run("nobody's token", "[\"a\"]", 12);
    assert_true(reef_answer.calls == 1 && reef_answer.code == PROTOCOL_E_UNAUTHORIZED);
}

/* A run that cannot be stored is answered storage_error and leaves
 * nothing: no run, no best, no guest row, and the guest still a guest
 * (its row is stored with the next run); a retry is stored. */
static void test_a_reef_run_not_stored_leaves_nothing_and_may_be_retried(void **state)
{
    (void)state;
    char token[80];
    snprintf(token, sizeof(token), "%s", sign_in(1, "diver"));
    faults.fail_kind = FAULT_REEF_RUN_ADD;
    faults.is_failing_always = true;
    submit_reef_run(token, "[\"a\"]", 12);
    assert_true(reef_answer.calls == 1 && reef_answer.code == PROTOCOL_E_STORAGE);
    assert_int_equal(stored_integer("SELECT count(*) FROM reef_runs"), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM reef_best"), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'diver'"), 0);
    fault_store_heal();
    faults.fail_kind = FAULT_PLAYER_CREATE; /* the guest's row fails the run with it */
    faults.is_failing_always = true;
    submit_reef_run(token, "[\"a\"]", 12);
    assert_true(reef_answer.calls == 1 && reef_answer.code == PROTOCOL_E_STORAGE);
    assert_int_equal(stored_integer("SELECT count(*) FROM reef_runs"), 0);
    fault_store_heal();
    submit_reef_run(token, "[\"a\"]", 12);
    assert_true(reef_answer.calls == 1 && reef_answer.code == 0);
    assert_false(reef_answer.stored.is_repeat);
    assert_int_equal(stored_integer("SELECT count(*) FROM reef_runs"), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name = 'diver'"), 1);
}

/* A run's commit answered late: nothing is answered until the store
 * answers, the lobby answers everyone else meanwhile, and the record
 * carries all it needs (the history is the lobby's copy, not the
 * caller's). */
static void test_a_reef_run_answered_late_holds_up_nobody(void **state)
{
    (void)state;
    char token[80];
    snprintf(token, sizeof(token), "%s", sign_in(1, "diver"));
    sign_in(2, "bea");
    faults.is_holding = true;
    char actions[] = "[\"a\"]";
    submit_reef_run(token, actions, 12);
    actions[2] = 'b'; /* the caller's buffer may change once submit returned */
    assert_int_equal(reef_answer.calls, 0);
    const store_batch *held = fault_store_held(0);
    assert_int_equal(held->count, 2);
    assert_int_equal(held->records[0].kind, STORE_RECORD_PLAYER_CREATE);
    assert_int_equal(held->records[1].kind, STORE_RECORD_REEF_RUN);
    say(2, "{\"type\":\"ping\",\"id\":6}");
    assert_true(inbox_index(2, "pong", 6) >= 0);
    assert_int_equal(reef_answer.calls, 0);
    assert_int_equal(fault_store_release(), 1);
    assert_true(reef_answer.calls == 1 && reef_answer.code == 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM reef_runs WHERE actions = '[\"a\"]'"), 1);
}

/* A run whose secret is a stored player's (here a bot account's key) has
 * the player looked up first: its run is stored once the lookup is
 * answered; a lookup the store cannot answer is a storage_error, and
 * nothing is stored. */
static void test_a_reef_run_looks_its_stored_player_up_first(void **state)
{
    (void)state;
    store_bot_account("reef-bot", BOT_ONE_KEY);
    faults.is_holding = true;
    submit_reef_run(BOT_ONE_KEY, "[\"a\"]", 12);
    assert_int_equal(faults.held_count, 1);
    assert_int_equal(fault_store_held(0)->records[0].kind, STORE_RECORD_FIND_PLAYER);
    assert_int_equal(reef_answer.calls, 0);
    assert_int_equal(fault_store_release(), 1);
    assert_true(reef_answer.calls == 1 && reef_answer.code == 0);
    assert_string_equal(reef_answer.stored.player_name, "reef-bot");
    assert_int_equal(stored_integer("SELECT count(*) FROM reef_runs"), 1);
    faults.fail_kind = FAULT_LOOKUP;
    faults.fail_write_in = 1;
    submit_reef_run(BOT_ONE_KEY, "[\"b\"]", 13);
    assert_true(reef_answer.calls == 1 && reef_answer.code == PROTOCOL_E_STORAGE);
    assert_int_equal(stored_integer("SELECT count(*) FROM reef_runs"), 1);
}

/* Quick play's room that cannot be stored while room_arrange runs (the
 * store answers at once): the matched players hear why from the queue,
 * once each, and are out of it; nothing is stored. */
static void test_a_matched_room_that_cannot_be_stored_tells_its_players(void **state)
{
    (void)state;
    sign_in(1, "quick");
    sign_in(2, "quicker");
    say(1, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    faults.fail_kind = FAULT_GAME_CREATE;
    faults.is_failing_always = true;
    say(2, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    for (uint64_t c = 1; c <= 2; c++) {
        assert_string_equal(last_error_code(c), "storage_error");
        assert_int_equal(count(c, "error"), 1);
        assert_null(last(c, "room"));
    }
    fault_store_heal();
    for (uint64_t c = 1; c <= 2; c++) {
        say(c, "{\"type\":\"queue.leave\"}");
        assert_string_equal(last_error_code(c), "not_queued");
    }
    assert_int_equal(lobby_room_count(lob), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM games"), 0);
}

/* A clock runs out while the store is down: no timeout is published, and
 * once the store is back the timer tries again and the policy plays. */
static void timeout_waits_for_the_store(const char *policy, bool is_pass)
{
    char extra[128];
    snprintf(extra, sizeof(extra),
             ",\"clock\":{\"initial_ms\":1000,\"increment_ms\":0},\"timeout\":\"%s\"", policy);
    start_duo(extra);
    clear_all();
    faults.fail_kind = FAULT_MOVE_APPEND;
    faults.is_failing_always = true;
    host.now += 1000;
    lobby_tick(lob);
    assert_int_equal(received_by_all(), 0);
    fault_store_heal();
    host.now += 999;
    lobby_tick(lob);
    assert_int_equal(received_by_all(), 0); /* the retry comes a second after the failure */
    host.now += 1;
    lobby_tick(lob);
    json_t *moved = last(2, "game.moved");
    assert_non_null(moved);
    assert_string_equal(json_string_value(json_object_get(moved, "cause")), "timeout");
    assert_int_equal(json_is_true(json_object_get(json_object_get(moved, "action"), "pass")),
                     is_pass);
    restart_lobby(1);
}

static void test_a_timeout_that_is_not_stored_is_played_later(void **state)
{
    (void)state;
    timeout_waits_for_the_store("bot", false);
}

static void test_a_pass_that_is_not_stored_is_played_later(void **state)
{
    (void)state;
    timeout_waits_for_the_store("pass", true);
}

static void test_a_leave_that_is_not_stored_keeps_the_seat(void **state)
{
    (void)state;
    const char *room = keep(start_four_player_game());
    clear_all();
    faults.fail_kind = FAULT_MOVE_APPEND;
    faults.fail_write_in = 1;
    say(2, "{\"type\":\"room.leave\",\"room\":\"%s\"}", room);
    assert_refused_unheard(2);
    say(2, "{\"type\":\"game.moves\",\"room\":\"%s\"}", room); /* still seated */
    assert_non_null(last(2, "game.moves"));
    say(2, "{\"type\":\"room.leave\",\"room\":\"%s\"}", room);
    assert_non_null(last(2, "room.left"));
    restart_lobby(1);
}

static void test_a_resign_whose_commit_fails_changes_nothing(void **state)
{
    (void)state;
    const char *room = keep(start_four_player_game());
    clear_all();
    faults.is_failing_commit = true;
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_refused_unheard(1);
    play_first_legal(1, room); /* not resigned: seat 0 still moves */
    assert_int_equal(json_integer_value(json_object_get(last(2, "game.moved"), "seat")), 0);
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_non_null(last(2, "game.resigned"));
    restart_lobby(1);
}

/* The last resignation and the result are one transaction: if the result
 * cannot be stored, neither is the resignation, and the game goes on. */
static void test_a_finish_that_is_not_stored_ends_nothing(void **state)
{
    (void)state;
    const char *room = start_duo("");
    clear_all();
    faults.fail_kind = FAULT_GAME_FINISH;
    faults.is_failing_always = true;
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_refused_unheard(1);
    fault_store_heal();
    restart_lobby(1); /* the game is still under way in the store */
    sign_in(1, "again");
    say(1, "{\"type\":\"rooms.list\",\"status\":\"playing\"}");
    assert_int_equal(json_array_size(json_object_get(last(1, "rooms"), "rooms")), 1);
}

static void test_a_finished_game_rates_its_players_in_its_pool(void **state)
{
    (void)state;
    const char *room = start_duo("");
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_non_null(last(2, "game.over"));
    assert_int_equal(stored_integer("SELECT count(*) FROM ratings WHERE pool = 'blokus-duo'"), 2);
    assert_int_equal(stored_integer("SELECT count(*) FROM rating_history"), 2);
    /* the winner (seat 1, "two") went up, the loser down, from mu 25 */
    assert_int_equal(stored_integer("SELECT mu > 25 AND ratings.wins = 1 FROM ratings JOIN players"
                                    " ON players.id = player_id WHERE name = 'two'"),
                     1);
    assert_int_equal(stored_integer("SELECT mu < 25 AND ratings.wins = 0 FROM ratings JOIN players"
                                    " ON players.id = player_id WHERE name = 'one'"),
                     1);
    /* guests are rated but not listed */
    assert_int_equal(stored_integer("SELECT sum(listed) FROM ratings"), 0);
}

/* A human resigns a Duo game against built-in bot `bot`; the bot's win is
 * rated under `entry`, the bot's own name. */
static void assert_bot_rated_as(const char *bot, const char *entry)
{
    sign_in(1, "human");
    const char *room = keep(create_room("blokus", "duo", ""));
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":0}", room);
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":1,\"bot\":\"%s\"}", room, bot);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_non_null(last(1, "game.over"));
    char query[256];
    snprintf(query, sizeof(query),
             "SELECT count(*) FROM ratings JOIN players ON players.id = player_id"
             " WHERE name = '%s' AND listed = 1 AND ratings.wins = 1",
             entry);
    assert_int_equal(stored_integer(query), 1);
}

static void test_a_builtin_bot_has_a_rating_of_its_own(void **state)
{
    (void)state;
    assert_bot_rated_as("mcts", "bot:mcts@5ms");
}

/* The strongest level is a bot of its own: its own rating entry. */
static void test_the_strongest_level_has_a_rating_of_its_own(void **state)
{
    (void)state;
    assert_bot_rated_as("mcts-v2", "bot:mcts-v2@5ms");
}

static void test_a_bot_in_several_seats_is_rated_once(void **state)
{
    (void)state;
    sign_in(1, "human");
    const char *room = keep(create_room("blokus", "4p", ""));
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":0}", room);
    for (int seat = 1; seat < 4; seat++)
        say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":%d,\"bot\":\"greedy\"}", room,
            seat);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    while (!last(1, "game.over"))
        assert_true(run_jobs(1) > 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM ratings"), 2);
    assert_int_equal(stored_integer("SELECT games FROM ratings JOIN players ON players.id ="
                                    " player_id WHERE name = 'bot:greedy'"),
                     1);
    assert_int_equal(stored_integer("SELECT count(*) FROM rating_history"), 2);
    assert_int_equal(stored_integer("SELECT mu < 25 FROM ratings JOIN players ON players.id ="
                                    " player_id WHERE name = 'human'"),
                     1);
}

/* Quick play. */

static void test_two_players_queued_for_duo_are_seated_together(void **state)
{
    (void)state;
    sign_in(1, "quick");
    sign_in(2, "quicker");
    say(1, "{\"type\":\"queue.join\",\"id\":3,\"game\":\"blokus\",\"mode\":\"duo\"}");
    json_t *joined = last(1, "queue.joined");
    assert_non_null(joined);
    assert_int_equal(json_integer_value(json_object_get(joined, "waiting")), 1);
    assert_null(last(1, "room"));
    say(2, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    json_t *room = last(1, "room");
    assert_non_null(room);
    assert_non_null(last(2, "room"));
    assert_int_equal(count(1, "room"), 1); /* the started room, nothing before it */
    json_t *view = json_object_get(room, "room");
    assert_string_equal(json_string_value(json_object_get(view, "status")), "playing");
    const char *names[2];
    for (int seat = 0; seat < 2; seat++)
        names[seat] = json_string_value(
            json_object_get(json_array_get(json_object_get(view, "seats"), (size_t)seat), "name"));
    assert_true((strcmp(names[0], "quick") == 0 && strcmp(names[1], "quicker") == 0) ||
                (strcmp(names[0], "quicker") == 0 && strcmp(names[1], "quick") == 0));
    /* matched players have left the queue */
    say(1, "{\"type\":\"queue.leave\"}");
    assert_string_equal(last_error_code(1), "not_queued");
}

static void test_a_lone_player_gets_bots_after_the_fill_time(void **state)
{
    (void)state;
    sign_in(1, "alone");
    say(1, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"4p\"}");
    host.now += lobby_default_config().queue_fill_ms - 1;
    lobby_tick(lob);
    assert_null(last(1, "room"));
    host.now += 1;
    lobby_tick(lob);
    json_t *seats = json_object_get(json_object_get(last(1, "room"), "room"), "seats");
    int bots = 0;
    for (size_t seat = 0; seat < json_array_size(seats); seat++)
        bots += strcmp(json_string_value(json_object_get(json_array_get(seats, seat), "kind")),
                       "bot") == 0;
    assert_int_equal(json_array_size(seats), 4);
    assert_int_equal(bots, 3);
}

/* Sets a player's duo rating directly in the store. */
static void rate(const char *name, double mu)
{
    char sql[256];
    snprintf(sql, sizeof(sql),
             "INSERT INTO ratings (player_id, pool, mu, sigma, display, listed, updated_at)"
             " SELECT id, 'blokus-duo', %f, 1, %f, 0, 0 FROM players WHERE name = '%s'",
             mu, mu - 3, name);
    stored_execute(sql);
}

static void test_quick_play_waits_for_close_ratings_then_widens(void **state)
{
    (void)state;
    sign_in(1, "strong");
    sign_in(2, "weak");
    sign_in(3, "middling");
    /* stored by a first queue.join, then rated, then queued again */
    for (uint64_t c = 1; c <= 3; c++) {
        say(c, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"4p\"}");
        say(c, "{\"type\":\"queue.leave\"}");
        assert_non_null(last(c, "queue.left"));
    }
    rate("strong", 40);
    rate("weak", 10);
    rate("middling", 32);
    say(1, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    assert_true(json_real_value(json_object_get(last(1, "queue.joined"), "rating")) == 37.0);
    say(2, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    assert_null(last(1, "room"));                      /* 30 points apart */
    host.now += lobby_default_config().queue_widen_ms; /* the window is 10 now */
    say(3, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    assert_non_null(last(1, "room")); /* 8 points from the one who waited */
    assert_non_null(last(3, "room"));
    assert_null(last(2, "room"));
}

static void test_bad_queue_requests_change_nothing(void **state)
{
    (void)state;
    sign_in(1, "picky");
    say_refused(1, "bad_message",
                "{\"type\":\"queue.join\",\"game\":\"reef-builder\",\"mode\":\"solo\"}");
    say_refused(1, "bad_message", "{\"type\":\"queue.join\",\"game\":\"blokus\"}");
    say_refused(1, "bad_message", "{\"type\":\"queue.leave\",\"game\":\"blokus\"}");
    say_refused(1, "not_queued", "{\"type\":\"queue.leave\"}");
    sign_in(2, "other");
    say(2, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    assert_null(last(2, "room"));
}

static void test_a_disconnected_player_leaves_the_queue(void **state)
{
    (void)state;
    sign_in(1, "gone");
    say(1, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    lobby_disconnect(lob, 1);
    sign_in(2, "here");
    say(2, "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    assert_int_equal(json_integer_value(json_object_get(last(2, "queue.joined"), "waiting")), 1);
    assert_null(last(2, "room"));
}

/* Scheduled arenas. */

#define HOUR_MS 3600000LL

/* The lobby again, on the same database, with `arenas` configured; it
 * restores the games under way. */
static void restart_with_arenas(const char *arenas)
{
    int64_t playing = stored_integer("SELECT count(*) FROM games WHERE status = 'playing'");
    lobby_config config = test_config();
    char problem[200];
    assert_int_equal(
        arena_parse_list(arenas, config.arenas, &config.arena_count, problem, sizeof(problem)), 0);
    harness_restart(&config, (int)playing);
}

static void sign_in_bot_account(uint64_t connection, const char *name, const char *key)
{
    store_bot_account(name, key);
    lobby_connect(lob, connection, "127.0.0.1");
    say(connection, "{\"type\":\"hello\",\"name\":\"%s\",\"key\":\"%s\"}", name, key);
    assert_non_null(last(connection, "welcome"));
}

static void test_an_arena_starts_on_the_hour_with_the_connected_bots(void **state)
{
    (void)state;
    restart_with_arenas("hourly every 3600 blokus duo round-robin bots=greedy");
    sign_in_bot_account(1, "bot-one", "key-one-0123456789abcdef");
    sign_in_bot_account(2, "bot-two", "key-two-0123456789abcdef");
    lobby_connect(lob, 3, "127.0.0.1"); /* a guest marked as a bot is no bot account */
    say(3, "{\"type\":\"hello\",\"name\":\"pretender\",\"bot\":true}");
    int64_t hour = host.now - host.now % HOUR_MS + HOUR_MS;
    host.now = hour - 1;
    lobby_tick(lob);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 0);
    host.now = hour + 5;
    lobby_tick(lob);
    lobby_tick(lob);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments WHERE arena = 'hourly'"), 1);
    /* stored as of the hour: another instance's start of it is refused */
    assert_int_equal(stored_integer("SELECT created_at FROM tournaments"), hour);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_entries"), 3);
    assert_non_null(last(1, "tournament.game")); /* the entries hear of their games */
    assert_null(last(3, "tournament.game"));
    /* a restart in the same hour does not run the hour again */
    restart_with_arenas("hourly every 3600 blokus duo round-robin bots=greedy");
    host.now = hour + 10;
    lobby_tick(lob);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 1);
    /* a server that comes up late in an hour waits for the next one */
    host.now = hour + HOUR_MS + 61000;
    lobby_tick(lob);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 1);
}

/* An arena's read of its last start is answered later: ticks meanwhile
 * ask nothing more, and the answer starts the period. A read that fails
 * settles nothing: the next tick reads again. */
static void test_an_arena_starts_when_its_read_is_answered(void **state)
{
    (void)state;
    restart_with_arenas("hourly every 3600 blokus duo round-robin bots=greedy,random");
    int64_t hour = host.now - host.now % HOUR_MS + HOUR_MS;
    host.now = hour + 5;
    faults.fail_kind = FAULT_LOOKUP;
    faults.fail_write_in = 1;
    lobby_tick(lob);
    assert_int_equal(faults.failures, 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 0);
    faults.is_holding = true;
    lobby_tick(lob); /* reads again */
    lobby_tick(lob); /* the read is out: asks nothing */
    assert_int_equal(faults.held_count, 1);
    assert_int_equal(fault_store_held(0)->records[0].kind, STORE_RECORD_FIND_ARENA_START);
    assert_string_equal(fault_store_held(0)->records[0].find_arena.arena, "hourly");
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 0);
    assert_int_equal(fault_store_release(), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments WHERE arena = 'hourly'"), 1);
    lobby_tick(lob); /* the period is settled */
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 1);
}

static void test_an_arena_without_two_entries_skips_its_period(void **state)
{
    (void)state;
    restart_with_arenas("lonely every 600 blokus duo swiss");
    sign_in_bot_account(1, "bot-one", "key-one-0123456789abcdef");
    host.now = host.now - host.now % 600000 + 600000;
    lobby_tick(lob);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 0);
    sign_in_bot_account(2, "bot-two", "key-two-0123456789abcdef");
    host.now += 600000;
    lobby_tick(lob);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 1);
}

static void test_arena_settings_are_checked(void **state)
{
    (void)state;
    arena_spec specs[ARENA_MAX];
    int count = 0;
    char problem[200];
    assert_int_equal(arena_parse_list("a every 3600 blokus duo swiss rounds=3 bots=greedy,mcts; "
                                      "b every 60 reef-builder race fixed games=2;",
                                      specs, &count, problem, sizeof(problem)),
                     0);
    assert_int_equal(count, 2);
    assert_int_equal(specs[0].rounds, 3);
    assert_int_equal(specs[0].bot_count, 2);
    assert_string_equal(specs[0].bots[1], "mcts");
    assert_int_equal(specs[1].period_s, 60);
    assert_int_equal(specs[1].games, 2);
    const char *bad[] = {"a every 59 blokus duo swiss", "a each 3600 blokus duo swiss",
                         "a every 3600 blokus duo", "a every 3600 blokus duo swiss rounds=0",
                         "a every 3600 blokus duo swiss colour=red"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(arena_parse_list(bad[i], specs, &count, problem, sizeof(problem)), -1);
    assert_non_null(strstr(problem, "'colour'"));
    assert_int_equal(arena_parse_list("", specs, &count, problem, sizeof(problem)), 0);
    assert_int_equal(count, 0);
}

/* A rating that cannot be stored takes the result down with it. */
static void test_a_rating_that_is_not_stored_ends_nothing(void **state)
{
    (void)state;
    const char *room = start_duo("");
    clear_all();
    faults.fail_kind = FAULT_RATING_RECORD;
    faults.is_failing_always = true;
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_refused_unheard(1);
    fault_store_heal();
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'finished'"), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM ratings"), 0);
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_non_null(last(2, "game.over"));
    assert_int_equal(stored_integer("SELECT count(*) FROM ratings"), 2);
}

static void test_a_finished_reef_game_adds_a_run_per_player(void **state)
{
    (void)state;
    sign_in(1, "diver");
    const char *room = keep(create_room("reef-builder", "solo", ",\"seed\":77"));
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":0}", room);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_non_null(last(1, "game.over"));
    assert_int_equal(stored_integer("SELECT count(*) FROM reef_runs WHERE seed = 77"), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM reef_best WHERE board = 'seed:77'"), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM ratings"), 0); /* solo: unrated */
}

static void test_an_abort_that_is_not_stored_leaves_the_room_to_the_restart(void **state)
{
    (void)state;
    sign_in(1, "owner");
    const char *room = create_room("blokus", "4p", "");
    char code[32];
    snprintf(code, sizeof(code), "%s", room);
    faults.fail_kind = FAULT_GAME_FINISH;
    faults.fail_write_in = 1;
    say(1, "{\"type\":\"room.leave\",\"room\":\"%s\"}", code);
    assert_non_null(last(1, "room.left"));
    assert_int_equal(lobby_room_count(lob), 1); /* not closed: the abort was not stored */
    restart_lobby(0);                           /* the restart aborts it */
    int64_t *ids = NULL;
    int unfinished = -1;
    assert_int_equal(store_unfinished_games(db, &ids, &unfinished), 0);
    assert_int_equal(unfinished, 0);
    free(ids);
}

static void test_a_bot_move_that_is_not_stored_is_retried(void **state)
{
    (void)state;
    sign_in(1, "owner");
    const char *room = keep(create_room("blokus", "duo", ""));
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":0,\"bot\":\"greedy\"}", room);
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":1,\"bot\":\"greedy\"}", room);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    clear_all();
    faults.fail_kind = FAULT_MOVE_APPEND;
    faults.fail_write_in = 1;
    assert_int_equal(run_jobs(1), 1);
    assert_int_equal(received_by_all(), 0);
    assert_int_equal(run_jobs(10), 0); /* nothing queued until the retry */
    host.now += 1000;
    lobby_tick(lob);
    assert_int_equal(run_jobs(1), 1);
    assert_int_equal(json_integer_value(json_object_get(last(1, "game.moved"), "ply")), 0);
}

/* ---- the same request twice: idempotent or refused ------------------------ */

static void test_every_change_sent_twice_is_applied_once(void **state)
{
    (void)state;
    sign_in(1, "owner");
    sign_in(2, "guest");
    const char *room = create_room("blokus", "duo", "");
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":1}", room);
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":1}", room); /* a refresh */
    assert_int_equal(count(1, "room"), 2); /* created, then guest seated: not the refresh */
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":0,\"bot\":\"greedy\"}", room);
    say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":0,\"bot\":\"greedy\"}", room);
    assert_string_equal(last_error_code(1), "seat_taken");
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
    assert_string_equal(last_error_code(1), "already_started");
    assert_int_equal(run_jobs(1), 1); /* the bot's first move */
    char *action = json_dumps(legal_move(2, room), JSON_COMPACT);
    say(2, "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":1,\"action\":%s}", room, action);
    say(2, "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":1,\"action\":%s}", room, action);
    free(action);
    assert_string_equal(last_error_code(2), "stale_ply");
    int writes = faults.writes;
    say(2, "{\"type\":\"room.leave\",\"room\":\"%s\"}", room);
    assert_int_equal(faults.writes, writes + 1);
    say(2, "{\"type\":\"room.leave\",\"room\":\"%s\"}", room);
    assert_string_equal(last_error_code(2), "not_in_room");
    assert_int_equal(faults.writes, writes + 1); /* the second leave stored nothing */
    say(2, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_string_equal(last_error_code(2), "not_in_room");
}

static void test_resigning_twice_is_refused(void **state)
{
    (void)state;
    const char *room = keep(start_four_player_game());
    say(2, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    int writes = faults.writes;
    say(2, "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
    assert_string_equal(last_error_code(2), "game_over");
    assert_int_equal(faults.writes, writes);
}

/* ---- rooms.list ------------------------------------------------------------ */

static void test_rooms_list_pages_and_filters(void **state)
{
    (void)state;
    sign_in(1, "ann");
    sign_in(2, "bob");
    for (int i = 0; i < 5; i++)
        create_room("blokus", i % 2 ? "duo" : "4p", "");
    for (int i = 0; i < 3; i++) {
        say(2, "{\"type\":\"room.create\",\"game\":\"reef-builder\",\"mode\":\"solo\"}");
    }
    say(2, "{\"type\":\"rooms.list\",\"limit\":3}");
    json_t *page = last(2, "rooms");
    assert_int_equal(json_array_size(json_object_get(page, "rooms")), 3);
    char cursor[32];
    snprintf(cursor, sizeof(cursor), "%s", json_string_value(json_object_get(page, "next")));
    int seen = 3;
    while (cursor[0]) {
        say(2, "{\"type\":\"rooms.list\",\"limit\":3,\"cursor\":\"%s\"}", cursor);
        page = last(2, "rooms");
        seen += (int)json_array_size(json_object_get(page, "rooms"));
        const char *next = json_string_value(json_object_get(page, "next"));
        snprintf(cursor, sizeof(cursor), "%s", next ? next : "");
    }
    assert_int_equal(seen, 8);
    say(2, "{\"type\":\"rooms.list\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    assert_int_equal(json_array_size(json_object_get(last(2, "rooms"), "rooms")), 2);
    say(2, "{\"type\":\"rooms.list\",\"game\":\"reef-builder\",\"status\":\"waiting\"}");
    assert_int_equal(json_array_size(json_object_get(last(2, "rooms"), "rooms")), 3);
    say(2, "{\"type\":\"rooms.list\",\"status\":\"over\"}");
    assert_string_equal(last_error_code(2), "bad_message");
    say(2, "{\"type\":\"rooms.list\",\"limit\":101}");
    assert_string_equal(last_error_code(2), "bad_message");
    lobby_connect(lob, 3, "127.0.0.1");
    say(3, "{\"type\":\"rooms.list\"}");
    assert_string_equal(last_error_code(3), "unauthorized"); /* hello first */
}

static void test_a_guest_is_stored_only_when_it_takes_a_seat(void **state)
{
    (void)state;
    int writes = faults.writes;
    for (uint64_t c = 1; c <= 4; c++)
        sign_in(c, "anonymous");
    assert_int_equal(faults.writes, writes); /* four hellos: no row */
    assert_true(json_is_null(json_object_get(json_object_get(last(1, "welcome"), "player"), "id")));
    const char *room = create_room("blokus", "duo", "");
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\"}", room);
    assert_int_equal(faults.writes, writes + 2); /* the room's game and guest 2 */
    for (uint64_t c = 1; c <= 4; c++)
        lobby_disconnect(lob, c);
    host.now += 1000; /* guest 2's seat is kept for the reconnect grace */
    lobby_tick(lob);
    assert_int_equal(lobby_player_count(lob), 0);
}

/* Before the start, a seat whose player went away waits for the reconnect
 * grace (a page reload); past it, the seat is given up and the room, left
 * with nobody in it, closes. */
static void test_a_waiting_room_keeps_a_departed_seat_for_the_grace(void **state)
{
    (void)state;
    char token[80];
    snprintf(token, sizeof(token), "%s", sign_in(1, "reloads"));
    char room[32];
    snprintf(room, sizeof(room), "%s", create_room("blokus", "duo", ""));
    say(1, "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":0}", room);
    lobby_disconnect(lob, 1);
    host.now += 999;
    lobby_tick(lob);
    assert_int_equal(lobby_room_count(lob), 1);
    lobby_connect(lob, 2, "127.0.0.1");
    say(2, "{\"type\":\"hello\",\"name\":\"reloads\",\"token\":\"%s\"}", token);
    json_t *seat =
        json_array_get(json_object_get(json_object_get(last(2, "room"), "room"), "seats"), 0);
    assert_string_equal(json_string_value(json_object_get(seat, "kind")), "player");
    assert_true(json_is_true(json_object_get(seat, "connected")));
    say(2, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":1,\"bot\":\"greedy\"}", room);
    lobby_disconnect(lob, 2);
    host.now += 1000;
    lobby_tick(lob);
    assert_int_equal(lobby_room_count(lob), 0);
}

/* An owner who only watches its waiting room (bots in every seat) and
 * reloads the page finds it again: the room waits for it for the reconnect
 * grace. One that comes back, or stays away past the grace, and then is
 * not in it has left it, and the room closes. */
static void test_a_waiting_room_waits_for_its_watching_owner_for_the_grace(void **state)
{
    (void)state;
    char token[80];
    snprintf(token, sizeof(token), "%s", sign_in(1, "watches"));
    char room[32];
    snprintf(room, sizeof(room), "%s", create_room("blokus", "duo", ""));
    for (int seat = 0; seat < 2; seat++)
        say(1, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":%d,\"bot\":\"greedy\"}", room,
            seat);
    lobby_disconnect(lob, 1); /* a reload */
    host.now += 999;
    lobby_tick(lob);
    assert_int_equal(lobby_room_count(lob), 1);
    lobby_connect(lob, 2, "127.0.0.1");
    say(2, "{\"type\":\"hello\",\"name\":\"watches\",\"token\":\"%s\"}", token);
    say(2, "{\"type\":\"room.join\",\"room\":\"%s\",\"as\":\"spectator\"}", room);
    assert_non_null(last(2, "room"));
    host.now += 1; /* the grace is over, but the owner is back in the room */
    lobby_tick(lob);
    say(2, "{\"type\":\"room.start\",\"room\":\"%s\"}", room); /* still its owner */
    assert_null(last(2, "error"));
    assert_non_null(last(2, "game.state"));

    /* Away past the grace: the room is given up. */
    say(2, "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"duo\"}");
    snprintf(room, sizeof(room), "%s",
             json_string_value(json_object_get(json_object_get(last(2, "room"), "room"), "id")));
    say(2, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":0,\"bot\":\"greedy\"}", room);
    lobby_disconnect(lob, 2);
    int rooms = lobby_room_count(lob);
    host.now += 1000;
    lobby_tick(lob);
    assert_int_equal(lobby_room_count(lob), rooms - 1);
}

static void test_the_seat_to_move_may_answer_free_of_rate_credits(void **state)
{
    (void)state;
    const char *room = start_duo("");
    assert_int_equal(host.granted[1], 2); /* seat 0 moves first: game.moves + game.move */
    assert_int_equal(host.granted[2], 0);
    play_first_legal(1, room);
    assert_int_equal(host.granted[1], 2);
    assert_int_equal(host.granted[2], 2);
}

/* 170 games a second for a minute, with the default limits: finished rooms
 * stay visible for ten minutes but no longer count against max_rooms, so
 * the server never fills up (it did after about a minute before). */
static void test_a_minute_of_quick_games_never_fills_the_server(void **state)
{
    (void)state;
    lobby_config config = lobby_default_config();
    harness_restart(&config, 0);
    sign_in(1, "busy");
    int games = 60 * 170;
    assert_true(games > config.max_rooms);
    for (int i = 0; i < games; i++) {
        host.now += 1000 / 170;
        say(1, "{\"type\":\"room.create\",\"game\":\"reef-builder\",\"mode\":\"solo\"}");
        json_t *room = last(1, "room");
        assert_non_null(room);
        const char *code =
            keep(json_string_value(json_object_get(json_object_get(room, "room"), "id")));
        say(1, "{\"type\":\"room.join\",\"room\":\"%s\"}", code);
        say(1, "{\"type\":\"room.start\",\"room\":\"%s\"}", code);
        say(1, "{\"type\":\"game.resign\",\"room\":\"%s\"}", code);
        assert_int_equal(count(1, "error"), 0);
        assert_int_equal(count(1, "game.over"), 1);
        clear_inbox(1);
    }
    assert_int_equal(lobby_room_count(lob), games); /* all still on display */
}

/* lobby_connect's failure (out of memory, or an id already in use) is the
 * host's cue to close the connection (the server closes it with 1011);
 * the lobby is left as it was. */
static void test_a_connection_the_lobby_cannot_take_is_refused(void **state)
{
    (void)state;
    sign_in(1, "first");
    assert_int_equal(lobby_connect(lob, 1, "127.0.0.1"), PROTOCOL_E_INTERNAL);
    say(1, "{\"type\":\"ping\",\"id\":5}");
    assert_non_null(last(1, "pong")); /* the first client still works */
}

/* Quick play is served by the instance holding its lease: a, the first
 * to look. A queue.join on b is answered moved to a; once a stops
 * renewing, b takes quick play over, and a, renewing again, sends its
 * waiting player on. */
static void test_quick_play_is_served_where_its_lease_is(void **state)
{
    (void)state;
    lobby_config a_config = instance_config('a'), b_config = instance_config('b');
    harness_restart(&a_config, 0);
    struct lobby *b = NULL;
    assert_int_equal(lobby_new(&FAKE_HOST, &port, &b_config, &b), 0);
    assert_int_equal(fake_host_restore(b), 0);
    const char join[] = "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\"}";
    char hello[] = "{\"type\":\"hello\",\"name\":\"elsewhere\"}";
    lobby_connect(b, 9, "127.0.0.1");
    lobby_message(b, 9, hello, sizeof(hello) - 1);
    lobby_message(b, 9, join, sizeof(join) - 1);
    json_t *moved = last(9, "moved");
    assert_non_null(moved);
    assert_string_equal(json_string_value(json_object_get(moved, "instance")), "a");
    assert_string_equal(json_string_value(json_object_get(moved, "url")), "/ws?instance=a");
    assert_null(json_object_get(moved, "room"));
    assert_null(last(9, "queue.joined"));
    const char unknown[] = "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"5p\"}";
    int moves = count(9, "moved");
    lobby_message(b, 9, unknown, sizeof(unknown) - 1); /* refused here, not sent on */
    assert_string_equal(last_error_code(9), "bad_message");
    assert_int_equal(count(9, "moved"), moves);
    sign_in(1, "waiter");
    say(1, "%s", join);
    assert_non_null(last(1, "queue.joined"));

    host.now += 3000 + 500; /* a's lease ran out: b's next look takes quick play */
    lobby_tick(b);
    lobby_message(b, 9, join, sizeof(join) - 1);
    assert_non_null(last(9, "queue.joined"));
    lobby_tick(lob); /* a renews: quick play is not its own any more */
    moved = last(1, "moved");
    assert_non_null(moved);
    assert_string_equal(json_string_value(json_object_get(moved, "url")), "/ws?instance=a");
    say_refused(1, "not_queued", "{\"type\":\"queue.leave\"}");
    lobby_free(b);
}

static void test_shutdown_is_announced_once(void **state)
{
    (void)state;
    sign_in(1, "ada");
    lobby_shutdown(lob);
    lobby_shutdown(lob);
    assert_int_equal(count(1, "server.shutdown"), 1);
    say(1, "{\"type\":\"rooms.list\",\"id\":3}");
    assert_string_equal(last_error_code(1), "shutting_down");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hello_gives_a_token_that_signs_in_again, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_room_event_shows_the_whole_room, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_token_is_unauthorized, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nothing_but_hello_before_hello, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_messages_get_stable_codes_and_echo_id, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_rooms_list_shows_public_rooms_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_seats_fill_and_only_the_owner_starts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_moves_are_checked_for_turn_ply_and_legality, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_player_to_move_gets_hints_others_do_not, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_spectator_sees_every_move_of_a_bot_game, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bots_fill_in_and_the_human_moves_again, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_reconnect_with_token_returns_seat_and_state, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_absent_player_is_covered_by_a_bot_after_the_grace,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_clock_timeout_plays_the_policy_move, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_move_read_after_the_flag_is_refused_and_the_policy_plays, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_tick_handles_each_room_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resigning_a_2p_game_ends_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reef_chainer_plays_its_board_in_a_room, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_reef_planner_plays_its_board_in_a_room, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_reef_race_boards_move_independently, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unfinished_game_is_restored_from_the_store, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_restart_reads_through_the_store_port, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_owner_who_disconnects_can_come_back_to_start, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_final_state_is_finished_and_comes_before_game_over,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_player_who_left_hears_no_more_and_keeps_the_seat_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disconnect_closes_every_room_left_empty, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_player_owns_a_limited_number_of_open_rooms, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_race_started_with_fewer_players_is_restored, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bot_move_that_cannot_be_queued_waits_for_the_next_tick,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_leaving_a_game_survives_a_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_instance_takes_over_the_rooms_of_one_that_stopped,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_quick_play_is_served_where_its_lease_is, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_clean_stop_gives_the_leases_up_at_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_a_renewal_answered_before_a_rooms_last_batch_lets_it_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shutdown_is_announced_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_connection_the_lobby_cannot_take_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_minute_of_quick_games_never_fills_the_server, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_the_seat_to_move_may_answer_free_of_rate_credits,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_start_that_is_not_stored_does_not_start, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_start_whose_commit_fails_can_be_retried, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_a_room_storing_an_event_queues_the_next_and_others_go_on, setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_event_queued_behind_a_leave_is_carried_out, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_an_abandon_that_is_not_stored_leaves_the_room_waiting,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_matched_room_whose_start_fails_later_is_discarded,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_room_that_cannot_be_stored_is_not_created, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_guests_messages_wait_for_its_player_row, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_sign_in_by_key_waits_for_its_lookup, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_failed_lookup_refuses_only_the_hello, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_client_gone_during_its_lookup_is_not_signed_in,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_queue_join_waits_for_its_rating, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replies_keep_their_order_behind_a_move_answered_late,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_messages_behind_a_refused_join_go_on_after_its_room_is_gone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_messages_waiting_for_a_player_row_are_capped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_player_row_that_is_not_stored_refuses_only_the_seat,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_guest_gone_while_its_row_is_stored_takes_no_seat,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_guests_reef_run_is_stored_with_its_row, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_a_reef_run_not_stored_leaves_nothing_and_may_be_retried, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_reef_run_looks_its_stored_player_up_first, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_reef_run_answered_late_holds_up_nobody, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_room_is_answered_once_its_game_is_stored, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_matched_room_whose_creation_fails_later_is_dropped,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_matched_room_that_cannot_be_stored_tells_its_players,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_move_that_is_not_stored_is_not_played, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_timeout_that_is_not_stored_is_played_later, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_pass_that_is_not_stored_is_played_later, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_leave_that_is_not_stored_keeps_the_seat, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_resign_whose_commit_fails_changes_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_finish_that_is_not_stored_ends_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_an_abort_that_is_not_stored_leaves_the_room_to_the_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_bot_move_that_is_not_stored_is_retried, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_every_change_sent_twice_is_applied_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_resigning_twice_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_finished_game_rates_its_players_in_its_pool, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_builtin_bot_has_a_rating_of_its_own, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_the_strongest_level_has_a_rating_of_its_own, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_bot_in_several_seats_is_rated_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_players_queued_for_duo_are_seated_together, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_lone_player_gets_bots_after_the_fill_time, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_quick_play_waits_for_close_ratings_then_widens, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bad_queue_requests_change_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_disconnected_player_leaves_the_queue, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_an_arena_starts_on_the_hour_with_the_connected_bots,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_arena_starts_when_its_read_is_answered, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_an_arena_without_two_entries_skips_its_period, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_arena_settings_are_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_rating_that_is_not_stored_ends_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_finished_reef_game_adds_a_run_per_player, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_rooms_list_pages_and_filters, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_waiting_room_waits_for_its_watching_owner_for_the_grace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_waiting_room_keeps_a_departed_seat_for_the_grace,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_guest_is_stored_only_when_it_takes_a_seat, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

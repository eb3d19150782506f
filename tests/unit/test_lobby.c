/* test_lobby.c -- the lobby driven through its host interface.
 *
 * The fake host (fake_host.h) records every message per connection, keeps
 * bot jobs in a queue the test runs when it wants, and has a clock the test
 * moves by hand. Storage is a real SQLite store, in a temporary file so a
 * second lobby can restore from it. */
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
#include "tests/unit/fake_host.h"
#include "tests/unit/fault_store.h"

static char db_path[64];
static store *db;
static store_api api;
static lobby *lob;

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
    fake_host_reset(99);
    snprintf(db_path, sizeof(db_path), "/tmp/test_lobby_%d.db", (int)getpid());
    assert_int_equal(store_open(db_path, false, &db), 0);
    api = fault_store_api(db);
    lobby_config config = test_config();
    assert_int_equal(lobby_new(&FAKE_HOST, &api, &config, &lob), 0);
    return 0;
}

static void remove_db_files(void)
{
    char path[80];
    unlink(db_path);
    snprintf(path, sizeof(path), "%s-wal", db_path);
    unlink(path);
    snprintf(path, sizeof(path), "%s-shm", db_path);
    unlink(path);
}

static int teardown(void **state)
{
    (void)state;
    run_jobs(1000);
    lobby_free(lob);
    store_close(db);
    fake_host_release();
    remove_db_files();
    return 0;
}

/* The process dies and comes back: a new lobby on the same database, which
 * must rebuild `expected` games. */
static void restart_lobby(int expected)
{
    lobby_free(lob);
    lobby_config config = test_config();
    assert_int_equal(lobby_new(&FAKE_HOST, &api, &config, &lob), 0);
    assert_int_equal(lobby_restore(lob), expected);
}

static void say(uint64_t connection, const char *format, ...)
{
    char text[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    lobby_message(lob, connection, text, strlen(text));
}

/* The last message of `type` a connection received (borrowed), or NULL. */
static json_t *last(uint64_t connection, const char *type)
{
    json_t *inbox = host.inbox[connection];
    for (size_t i = json_array_size(inbox); i-- > 0;) {
        json_t *m = json_array_get(inbox, i);
        if (strcmp(json_string_value(json_object_get(m, "type")), type) == 0)
            return m;
    }
    return NULL;
}

static int count(uint64_t connection, const char *type)
{
    int n = 0;
    json_t *inbox = host.inbox[connection];
    for (size_t i = 0; i < json_array_size(inbox); i++)
        n +=
            strcmp(json_string_value(json_object_get(json_array_get(inbox, i), "type")), type) == 0;
    return n;
}

static const char *last_error_code(uint64_t connection)
{
    json_t *error = last(connection, "error");
    return error ? json_string_value(json_object_get(error, "code")) : "";
}

static void clear_inbox(uint64_t connection)
{
    json_array_clear(host.inbox[connection]);
}

/* Connects and says hello; returns the token. */
static const char *sign_in(uint64_t connection, const char *name)
{
    lobby_connect(lob, connection);
    say(connection, "{\"type\":\"hello\",\"name\":\"%s\"}", name);
    json_t *welcome = last(connection, "welcome");
    assert_non_null(welcome);
    return json_string_value(json_object_get(welcome, "token"));
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
    lobby_connect(lob, 2);
    say(2, "{\"type\":\"hello\",\"name\":\"ada\",\"token\":\"%s\"}", token);
    json_t *welcome = last(2, "welcome");
    assert_non_null(welcome);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(welcome, "player"), "id")),
                     id);
}

static void test_unknown_token_is_unauthorized(void **state)
{
    (void)state;
    lobby_connect(lob, 1);
    say(1, "{\"type\":\"hello\",\"id\":\"a\",\"name\":\"x\",\"token\":\"nope\"}");
    assert_string_equal(last_error_code(1), "unauthorized");
    assert_string_equal(json_string_value(json_object_get(last(1, "error"), "id")), "a");
}

static void test_nothing_but_hello_before_hello(void **state)
{
    (void)state;
    lobby_connect(lob, 1);
    say(1, "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"4p\"}");
    assert_string_equal(last_error_code(1), "unauthorized");
    assert_int_equal(lobby_room_count(lob), 0);
}

static void test_malformed_messages_get_stable_codes_and_echo_id(void **state)
{
    (void)state;
    sign_in(1, "ada");
    say(1, "{not json");
    assert_string_equal(last_error_code(1), "bad_json");
    say(1, "[1,2]");
    assert_string_equal(last_error_code(1), "bad_json");
    say(1, "{\"type\":\"fly\",\"id\":5}");
    assert_string_equal(last_error_code(1), "unknown_type");
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
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(moved, "action"), "piece")), "I2");
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
    lobby_connect(lob, 9);
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
    lobby_connect(lob, 3);
    say(3, "{\"type\":\"hello\",\"name\":\"player3\",\"token\":\"%s\"}", token);
    assert_int_equal(state_ply(3), 2);
    assert_int_equal(json_integer_value(json_object_get(last(3, "game.state"), "seat")), 2);
    play_first_legal(3, room);
    assert_int_equal(state_ply(3), 3);
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
    lobby_connect(lob, 3);
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

static void test_disconnect_closes_every_room_left_empty(void **state)
{
    (void)state;
    sign_in(1, "host");
    for (int i = 0; i < 9; i++)
        create_room("blokus", "4p", "");
    assert_int_equal(lobby_room_count(lob), 9);
    lobby_disconnect(lob, 1);
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
    lobby_connect(lob, 2);
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
    lobby_connect(lob, 9);
    say(9, "{\"type\":\"hello\",\"name\":\"x\",\"token\":\"%s\"}", token);
    say(9, "{\"type\":\"game.moves\",\"room\":\"%s\"}", room);
    assert_string_equal(last_error_code(9), "not_in_room");
    json_t *seat =
        json_array_get(json_object_get(json_object_get(last(9, "room"), "room"), "seats"), 0);
    assert_true(json_is_true(json_object_get(seat, "left")));
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
        cmocka_unit_test_setup_teardown(test_resigning_a_2p_game_ends_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reef_race_boards_move_independently, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unfinished_game_is_restored_from_the_store, setup,
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
        cmocka_unit_test_setup_teardown(test_shutdown_is_announced_once, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

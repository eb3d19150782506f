/* test_reef_api.c -- the stateless Reef API, one behaviour per test.
 *
 * The tests speak to the API only as a bot would: JSON text in, status and
 * JSON text out, the state carried forward from reply to request. The
 * engine is used beside it as the reference the API must agree with, and a
 * tampering test edits one field of a genuine state, exactly as a cheating
 * client would. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/reef.h"
#include "protocol/game_json.h"
#include "protocol/reef_api.h"

/* Turns at which the scripted game skips instead of placing. */
static const int SCRIPTED_SKIP_TURNS[] = {3, 10, 20, 30};

/* The parsed body of a response, which must be JSON. */
static json_t *reply_of(reef_api_response *response)
{
    assert_non_null(response->body);
    json_t *reply = json_loads(response->body, 0, NULL);
    assert_non_null(reply);
    reef_api_response_clear(response);
    return reply;
}

/* The reply to init?query (NULL: no query); *status gets the HTTP status.
 * The query is split at '&' into pairs, as the server's HTTP library hands
 * them over (already decoded: these tests use no escapes). */
static json_t *init(const char *query, int *status)
{
    url_query arguments = {0};
    for (const char *pair = query; pair != NULL;) {
        const char *end = strchr(pair, '&');
        size_t length = end != NULL ? (size_t)(end - pair) : strlen(pair);
        assert_int_equal(url_query_add(&arguments, pair, length), 0);
        pair = end != NULL ? end + 1 : NULL;
    }
    reef_api_response response = {0};
    reef_api_init(&arguments, &response);
    url_query_clear(&arguments);
    *status = response.status;
    return reply_of(&response);
}

static json_t *init_ok(const char *query)
{
    int status;
    json_t *reply = init(query, &status);
    assert_int_equal(status, 200);
    return reply;
}

/* The reply to a raw action request body. */
static json_t *post_text(const char *body, int *status)
{
    reef_api_response response = {0};
    reef_api_action(body, strlen(body), &response);
    *status = response.status;
    return reply_of(&response);
}

/* The reply to {state, action}; `action` is stolen. */
static json_t *post(const json_t *state, json_t *action, int *status)
{
    json_t *request = json_pack("{s:O, s:o}", "state", state, "action", action);
    assert_non_null(request);
    char *body = json_dumps(request, JSON_COMPACT);
    json_t *reply = post_text(body, status);
    free(body);
    json_decref(request);
    return reply;
}

static json_t *post_ok(const json_t *state, json_t *action)
{
    int status;
    json_t *reply = post(state, action, &status);
    assert_int_equal(status, 200);
    return reply;
}

static json_t *place_action(int row, int col, int orientation)
{
    return json_pack("{s:s, s:i, s:i, s:i}", "type", "place", "row", row, "col", col, "orientation",
                     orientation);
}

static json_t *skip_action(void)
{
    return json_pack("{s:s}", "type", "skip");
}

static json_t *state_of(const json_t *reply)
{
    json_t *state = json_object_get(reply, "state");
    assert_true(json_is_object(state));
    return state;
}

static json_t *legal_actions_of(const json_t *reply)
{
    json_t *actions = json_object_get(reply, "legalActions");
    assert_true(json_is_array(actions));
    return actions;
}

static json_int_t state_integer(const json_t *state, const char *name)
{
    json_t *value = json_object_get(state, name);
    assert_true(json_is_integer(value));
    return json_integer_value(value);
}

static const char *state_string(const json_t *state, const char *name)
{
    const char *text = json_string_value(json_object_get(state, name));
    assert_non_null(text);
    return text;
}

/* Asserts an error reply with this status and code; returns its message. */
static const char *assert_error(const json_t *reply, int status, int expected_status,
                                const char *code)
{
    assert_int_equal(status, expected_status);
    assert_int_equal(json_object_size(reply), 1);
    json_t *error = json_object_get(reply, "error");
    assert_int_equal(json_object_size(error), 2);
    assert_string_equal(json_string_value(json_object_get(error, "code")), code);
    const char *message = json_string_value(json_object_get(error, "message"));
    assert_non_null(message);
    assert_true(strlen(message) > 0);
    return message;
}

static void assert_piece(const json_t *value, reef_piece piece)
{
    char a[2] = {reef_color_letter(piece.a), '\0'}, b[2] = {reef_color_letter(piece.b), '\0'};
    assert_int_equal(json_object_size(value), 2);
    assert_string_equal(json_string_value(json_object_get(value, "a")), a);
    assert_string_equal(json_string_value(json_object_get(value, "b")), b);
}

/* Asserts that the listed actions are the engine's, in the engine's order. */
static void assert_legal_actions(const json_t *actions, const reef_state *state)
{
    reef_action expected[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(state, expected);
    assert_int_equal(json_array_size(actions), count);
    for (int i = 0; i < count; i++) {
        json_t *value = game_json_reef_action_value(expected[i]);
        assert_true(json_equal(value, json_array_get(actions, (size_t)i)));
        json_decref(value);
    }
}

/* The reply after playing the first legal action `count` times from seed 7. */
static json_t *reply_after_first_actions(int count)
{
    json_t *reply = init_ok("seed=7");
    for (int turn = 0; turn < count; turn++) {
        json_t *first = json_array_get(legal_actions_of(reply), 0);
        json_t *next = post_ok(state_of(reply), json_incref(first));
        json_decref(reply);
        reply = next;
    }
    return reply;
}

/* A genuine state from seed 7 after two placements and a skip. */
static json_t *played_state(void)
{
    json_t *reply = reply_after_first_actions(2);
    json_t *after_skip = post_ok(state_of(reply), skip_action());
    json_t *state = json_incref(state_of(after_skip));
    json_decref(after_skip);
    json_decref(reply);
    return state;
}

/* Posts `state` (stolen) with a legal placement and asserts it is refused as
 * tampered, with a message naming `field` (e.g. "'state.board'"). */
static void assert_tampered(json_t *state, const char *field)
{
    int status;
    json_t *reply = post(state, place_action(7, 0, 0), &status);
    const char *message = assert_error(reply, status, 422, "tampered_state");
    assert_non_null(strstr(message, field));
    json_decref(reply);
    json_decref(state);
}

static bool is_scripted_skip(int turn)
{
    for (size_t i = 0; i < sizeof(SCRIPTED_SKIP_TURNS) / sizeof(SCRIPTED_SKIP_TURNS[0]); i++) {
        if (SCRIPTED_SKIP_TURNS[i] == turn)
            return true;
    }
    return false;
}

/* The scripted player: the first legal placement, or the skip (listed last)
 * on a scripted skip turn while one is left. */
static json_t *scripted_choice(const json_t *actions, int turn)
{
    json_t *last = json_array_get(actions, json_array_size(actions) - 1);
    bool can_skip = strcmp(json_string_value(json_object_get(last, "type")), "skip") == 0;
    if (can_skip && is_scripted_skip(turn))
        return last;
    return json_array_get(actions, 0);
}

/* Checks a result against the states before and after the action. */
static void assert_result_matches(const json_t *result, const json_t *before, const json_t *after)
{
    json_int_t points = json_integer_value(json_object_get(result, "points"));
    assert_int_equal(state_integer(after, "score") - state_integer(before, "score"), points);
    json_t *blooms = json_object_get(result, "blooms");
    json_t *board = json_object_get(after, "board");
    size_t index;
    json_t *bloom;
    json_array_foreach(blooms, index, bloom)
    {
        json_t *cells = json_object_get(bloom, "cells");
        assert_int_equal(json_array_size(cells),
                         json_integer_value(json_object_get(bloom, "size")));
        assert_true(json_array_size(cells) >= REEF_BLOOM_SIZE);
        assert_true(strchr("RBGYP", json_string_value(json_object_get(bloom, "color"))[0]));
        for (size_t i = 0; i < json_array_size(cells); i++) {
            json_t *cell = json_array_get(cells, i);
            const char *row = json_string_value(
                json_array_get(board, (size_t)json_integer_value(json_array_get(cell, 0))));
            assert_int_equal(row[json_integer_value(json_array_get(cell, 1))], '.');
        }
    }
}

static void test_init_with_seed_7_starts_an_empty_board_with_three_skips(void **unused)
{
    (void)unused;
    reef_state engine;
    reef_init(&engine, 7);
    json_t *reply = init_ok("seed=7");
    json_t *state = state_of(reply);
    assert_int_equal(json_object_size(reply), 2);
    assert_int_equal(state_integer(state, "seed"), 7);
    json_t *board = json_object_get(state, "board");
    assert_int_equal(json_array_size(board), REEF_ROWS);
    for (size_t row = 0; row < REEF_ROWS; row++)
        assert_string_equal(json_string_value(json_array_get(board, row)), "......");
    assert_piece(json_object_get(state, "current"), reef_current(&engine));
    assert_piece(json_object_get(state, "next"), reef_next(&engine));
    assert_int_equal(state_integer(state, "score"), 0);
    assert_int_equal(state_integer(state, "streak"), 0);
    assert_int_equal(state_integer(state, "skipsLeft"), 3);
    assert_string_equal(state_string(state, "phase"), "playing");
    assert_int_equal(state_integer(state, "turn"), 0);
    assert_int_equal(state_integer(state, "piecesPlaced"), 0);
    assert_string_equal(state_string(state, "history"), "");
    assert_int_equal(json_object_size(state), 11);
    json_decref(reply);
}

static void test_init_lists_every_placement_in_ascending_order_then_the_skip(void **unused)
{
    (void)unused;
    /* Every adjacent empty pair, in both directions, plus the skip. */
    int pairs = REEF_ROWS * (REEF_COLS - 1) + (REEF_ROWS - 1) * REEF_COLS;
    json_t *reply = init_ok("seed=7");
    json_t *actions = legal_actions_of(reply);
    assert_int_equal(json_array_size(actions), 2 * pairs + 1);
    assert_int_equal(json_array_size(actions), 165);
    long previous = -1;
    for (size_t i = 0; i + 1 < json_array_size(actions); i++) {
        json_t *action = json_array_get(actions, i);
        assert_string_equal(json_string_value(json_object_get(action, "type")), "place");
        long key = json_integer_value(json_object_get(action, "row")) * 10000 +
                   json_integer_value(json_object_get(action, "col")) * 1000 +
                   json_integer_value(json_object_get(action, "orientation"));
        assert_true(key > previous);
        previous = key;
    }
    json_t *last = json_array_get(actions, json_array_size(actions) - 1);
    assert_string_equal(json_string_value(json_object_get(last, "type")), "skip");
    assert_int_equal(json_object_size(last), 1);
    json_decref(reply);
}

static void test_init_refuses_a_missing_malformed_or_unknown_parameter(void **unused)
{
    (void)unused;
    static const char *const queries[] = {
        "",
        "seed=",
        "seed=-1",
        "seed=+7",
        "seed=7x",
        "seed=%37", /* decoded already: a literal '%' */
        "seed=7&x=1",
        "x=1",
        "seed=7&seed=7",
        "SEED=7",
        "seed = 7",
        "seed=18446744073709551616",
        "seed=99999999999999999999",
        "\xff\xfe=1",
        "seed",
    };
    int status;
    json_t *reply = init(NULL, &status);
    assert_error(reply, status, 400, "bad_request");
    json_decref(reply);
    for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
        reply = init(queries[i], &status);
        assert_error(reply, status, 400, "bad_request");
        json_decref(reply);
    }
    /* Empty pairs are no parameters, as the URL standard says. */
    json_decref(init_ok("seed=7&"));
    json_decref(init_ok("&&seed=7"));
    /* The message names the parameter, in printable ASCII whatever it was. */
    reply = init("seed=7&player=me", &status);
    assert_string_equal(assert_error(reply, status, 400, "bad_request"),
                        "unknown parameter 'player': the only parameter is seed=N");
    json_decref(reply);
    reply = init("\xc3\xa9t\xc3\xa9=1", &status);
    assert_string_equal(assert_error(reply, status, 400, "bad_request"),
                        "unknown parameter '\?\?t\?\?': the only parameter is seed=N");
    json_decref(reply);
}

static void test_seeds_2_63_and_2_64_minus_1_round_trip_as_strings(void **unused)
{
    (void)unused;
    static const struct {
        const char *query;
        uint64_t seed;
        const char *text;
    } cases[] = {
        {"seed=9223372036854775808", UINT64_C(9223372036854775808), "9223372036854775808"},
        {"seed=18446744073709551615", UINT64_MAX, "18446744073709551615"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        reef_state engine;
        reef_init(&engine, cases[i].seed);
        json_t *reply = init_ok(cases[i].query);
        assert_string_equal(state_string(state_of(reply), "seed"), cases[i].text);
        assert_piece(json_object_get(state_of(reply), "current"), reef_current(&engine));
        json_t *next = post_ok(state_of(reply), place_action(0, 0, 0));
        reef_play(&engine, reef_place(0, 0, 0), NULL);
        assert_string_equal(state_string(state_of(next), "seed"), cases[i].text);
        assert_piece(json_object_get(state_of(next), "next"), reef_next(&engine));
        json_decref(next);
        json_decref(reply);
    }
}

static void test_seeds_up_to_2_63_minus_1_are_integers_and_strings_are_accepted(void **unused)
{
    (void)unused;
    json_t *reply = init_ok("seed=9223372036854775807");
    assert_int_equal(state_integer(state_of(reply), "seed"), INT64_MAX);
    json_decref(reply);
    reply = init_ok("seed=0000000000000000000000007");
    json_t *state = json_deep_copy(state_of(reply));
    json_object_set_new(state, "seed", json_string("7"));
    json_t *next = post_ok(state, place_action(0, 0, 0));
    assert_int_equal(state_integer(state_of(next), "seed"), 7);
    json_decref(next);
    json_decref(state);
    json_decref(reply);
}

static void test_a_full_game_through_the_api_matches_an_engine_replay(void **unused)
{
    (void)unused;
    reef_action played[4096];
    size_t count = 0;
    int blooms = 0;
    json_t *reply = init_ok("seed=7");
    while (strcmp(state_string(state_of(reply), "phase"), "playing") == 0) {
        assert_true(count < sizeof(played) / sizeof(played[0]));
        json_t *choice = scripted_choice(legal_actions_of(reply), (int)count);
        protocol_failure failure;
        assert_int_equal(game_json_reef_action(choice, &played[count++], &failure), 0);
        json_t *next = post_ok(state_of(reply), json_incref(choice));
        assert_result_matches(json_object_get(next, "result"), state_of(reply), state_of(next));
        blooms += (int)json_array_size(json_object_get(json_object_get(next, "result"), "blooms"));
        json_decref(reply);
        reply = next;
    }
    json_t *state = state_of(reply);
    assert_int_equal(json_array_size(legal_actions_of(reply)), 0);
    assert_int_equal(state_integer(state, "turn"), count);
    assert_int_equal(state_integer(state, "skipsLeft"), 0);
    assert_true(blooms > 0);

    reef_state engine;
    reef_init(&engine, 7);
    for (size_t i = 0; i < count; i++)
        assert_int_equal(reef_play(&engine, played[i], NULL), 0);
    assert_true(reef_is_over(&engine));
    assert_true(reef_score(&engine) > 0);
    assert_int_equal(state_integer(state, "score"), reef_score(&engine));
    assert_int_equal(state_integer(state, "piecesPlaced"), engine.placements);
    json_t *board = game_json_reef_board(&engine);
    assert_true(json_equal(board, json_object_get(state, "board")));
    json_decref(board);
    json_decref(reply);
}

static void test_every_reply_lists_the_engines_legal_actions(void **unused)
{
    (void)unused;
    reef_state engine;
    reef_init(&engine, 7);
    json_t *reply = init_ok("seed=7");
    for (int turn = 0; turn < 12; turn++) {
        assert_legal_actions(legal_actions_of(reply), &engine);
        reef_action actions[REEF_MAX_ACTIONS];
        int count = reef_legal_actions(&engine, actions);
        reef_action choice = actions[(turn * 7) % count];
        reef_play(&engine, choice, NULL);
        json_t *next = post_ok(state_of(reply), game_json_reef_action_value(choice));
        json_decref(reply);
        reply = next;
    }
    json_decref(reply);
}

static void test_history_records_each_action_as_a_compact_token(void **unused)
{
    (void)unused;
    json_t *reply = init_ok("seed=7");
    json_t *actions[] = {place_action(0, 0, 0), skip_action(), place_action(2, 3, 90),
                         place_action(5, 1, 180), place_action(7, 5, 270)};
    for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
        json_t *next = post_ok(state_of(reply), actions[i]);
        json_decref(reply);
        reply = next;
    }
    assert_string_equal(state_string(state_of(reply), "history"), "00r s 23d 51l 75u");
    assert_int_equal(state_integer(state_of(reply), "turn"), 5);
    assert_int_equal(state_integer(state_of(reply), "piecesPlaced"), 4);
    json_decref(reply);
}

static void test_an_occupied_cell_is_refused_with_422_and_changes_nothing(void **unused)
{
    (void)unused;
    json_t *reply = init_ok("seed=7");
    json_t *first = post_ok(state_of(reply), place_action(3, 3, 0));
    int status;
    json_t *refused = post(state_of(first), place_action(3, 4, 90), &status);
    const char *message = assert_error(refused, status, 422, "occupied");
    assert_string_equal(message, engine_error_message(ENGINE_E_OCCUPIED));
    /* The refusal carries no state (assert_error checked), and the state
     * sent is still the game: it plays on as if nothing had been tried. */
    json_t *second = post_ok(state_of(first), place_action(4, 4, 90));
    assert_int_equal(state_integer(state_of(second), "turn"), 2);
    assert_string_equal(state_string(state_of(second), "history"), "33r 44d");
    json_decref(second);
    json_decref(refused);
    json_decref(first);
    json_decref(reply);
}

/* Posts `action` (stolen) against `state` and asserts the engine's refusal. */
static void assert_refused(const json_t *state, json_t *action, int engine_code)
{
    int status;
    json_t *reply = post(state, action, &status);
    const char *message = assert_error(reply, status, 422, engine_error_name(engine_code));
    assert_string_equal(message, engine_error_message(engine_code));
    json_decref(reply);
}

static void test_refused_actions_carry_the_engine_code_and_teaching_message(void **unused)
{
    (void)unused;
    json_t *reply = init_ok("seed=7");
    assert_refused(state_of(reply), place_action(7, 0, 90), ENGINE_E_OUT_OF_BOUNDS);
    assert_refused(state_of(reply), place_action(0, 0, 180), ENGINE_E_OUT_OF_BOUNDS);
    assert_refused(state_of(reply), place_action(-1, 0, 0), ENGINE_E_OUT_OF_BOUNDS);
    assert_refused(state_of(reply), place_action(0, 0, 45), ENGINE_E_BAD_ORIENTATION);
    for (int i = 0; i < REEF_SKIPS; i++) {
        json_t *next = post_ok(state_of(reply), skip_action());
        json_decref(reply);
        reply = next;
    }
    assert_int_equal(state_integer(state_of(reply), "skipsLeft"), 0);
    assert_refused(state_of(reply), skip_action(), ENGINE_E_NO_SKIPS);
    json_decref(reply);
}

static void test_an_ended_game_refuses_every_action_with_game_over(void **unused)
{
    (void)unused;
    json_t *reply = init_ok("seed=7");
    while (json_array_size(legal_actions_of(reply)) > 0) {
        json_t *next =
            post_ok(state_of(reply), json_incref(json_array_get(legal_actions_of(reply), 0)));
        json_decref(reply);
        reply = next;
    }
    assert_string_equal(state_string(state_of(reply), "phase"), "ended");
    assert_refused(state_of(reply), place_action(0, 0, 0), ENGINE_E_GAME_OVER);
    assert_refused(state_of(reply), skip_action(), ENGINE_E_GAME_OVER);
    json_decref(reply);
}

static void test_a_tampered_board_is_refused(void **unused)
{
    (void)unused;
    json_t *state = played_state();
    json_array_set_new(json_object_get(state, "board"), 7, json_string("R....."));
    assert_tampered(state, "'state.board'");
}

static void test_a_tampered_score_is_refused(void **unused)
{
    (void)unused;
    json_t *state = played_state();
    json_object_set_new(state, "score", json_integer(state_integer(state, "score") + 100));
    assert_tampered(state, "'state.score'");
}

static void test_a_tampered_current_piece_is_refused(void **unused)
{
    (void)unused;
    json_t *state = played_state();
    /* Purple is only drawn from the 31st piece on. */
    json_object_set_new(state, "current", json_pack("{s:s, s:s}", "a", "P", "b", "P"));
    assert_tampered(state, "'state.current'");
}

static void test_tampered_skips_left_is_refused(void **unused)
{
    (void)unused;
    json_t *state = played_state();
    assert_int_equal(state_integer(state, "skipsLeft"), 2);
    json_object_set_new(state, "skipsLeft", json_integer(3));
    assert_tampered(state, "'state.skipsLeft'");
}

static void test_tampered_streak_phase_and_turn_are_refused(void **unused)
{
    (void)unused;
    json_t *state = played_state();
    json_object_set_new(state, "streak", json_integer(4));
    assert_tampered(state, "'state.streak'");
    state = played_state();
    json_object_set_new(state, "phase", json_string("ended"));
    assert_tampered(state, "'state.phase'");
    state = played_state();
    json_object_set_new(state, "turn", json_integer(0));
    assert_tampered(state, "'state.turn'");
}

static void test_a_forged_history_entry_is_refused(void **unused)
{
    (void)unused;
    /* played_state's history is "00r 02r s". */
    json_t *state = played_state();
    assert_string_equal(state_string(state, "history"), "00r 02r s");
    json_object_set_new(state, "history", json_string("00r 00r s"));
    assert_tampered(state, "'state.history' action 2");
    state = played_state();
    json_object_set_new(state, "history", json_string("00r 02r s s s s"));
    assert_tampered(state, "'state.history' action 6");
    state = played_state();
    json_object_set_new(state, "history", json_string("00r 92r s"));
    assert_tampered(state, "'state.history' action 2");
    /* Legal, but not the game that produced this board. */
    state = played_state();
    json_object_set_new(state, "history", json_string("00r 04r s"));
    assert_tampered(state, "'state.board'");
    /* A shorter history than the visible fields claim. */
    state = played_state();
    json_object_set_new(state, "history", json_string("00r 02r"));
    assert_tampered(state, "'state.");
}

static void test_a_state_from_another_seed_is_refused(void **unused)
{
    (void)unused;
    json_t *state = played_state();
    json_object_set_new(state, "seed", json_integer(8));
    assert_tampered(state, "'state.");
}

static void test_malformed_json_is_bad_json(void **unused)
{
    (void)unused;
    static const char *const bodies[] = {
        "", "{", "{\"state\": }", "[1, 2]", "\"text\"", "null", "{\"state\": {}, \"state\": {}}"};
    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        int status;
        json_t *reply = post_text(bodies[i], &status);
        assert_error(reply, status, 400, "bad_json");
        json_decref(reply);
    }
    reef_api_response response = {0};
    reef_api_action(NULL, 0, &response);
    json_t *reply = reply_of(&response);
    assert_error(reply, response.status, 400, "bad_json");
    json_decref(reply);
}

static void test_unknown_or_malformed_actions_are_bad_request(void **unused)
{
    (void)unused;
    json_t *reply = init_ok("seed=7");
    json_t *actions[] = {
        json_pack("{s:s}", "type", "rotate"),
        json_pack("{s:s, s:i}", "type", "skip", "row", 1),
        json_pack("{s:s, s:i, s:i}", "type", "place", "row", 0, "col", 0),
        json_pack("{s:s, s:i, s:i, s:s}", "type", "place", "row", 0, "col", 0, "orientation", "90"),
        json_pack("{s:i}", "row", 0),
        json_string("skip"),
        json_null(),
    };
    for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
        int status;
        json_t *refused = post(state_of(reply), actions[i], &status);
        assert_error(refused, status, 400, "bad_request");
        json_decref(refused);
    }
    json_decref(reply);
}

static void test_a_missing_state_or_action_is_bad_request(void **unused)
{
    (void)unused;
    json_t *reply = init_ok("seed=7");
    char *state = json_dumps(state_of(reply), JSON_COMPACT);
    char body[4096];
    const char *const bodies[] = {"{\"action\": {\"type\": \"skip\"}}", "{}", body,
                                  "{\"state\": null, \"action\": {\"type\": \"skip\"}}",
                                  "{\"state\": [], \"action\": {\"type\": \"skip\"}}"};
    snprintf(body, sizeof(body), "{\"state\": %s}", state);
    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        int status;
        json_t *refused = post_text(bodies[i], &status);
        assert_error(refused, status, 400, "bad_request");
        json_decref(refused);
    }
    snprintf(body, sizeof(body), "{\"state\": %s, \"action\": {\"type\": \"skip\"}, \"x\": 1}",
             state);
    int status;
    json_t *refused = post_text(body, &status);
    assert_error(refused, status, 400, "bad_request");
    json_decref(refused);
    free(state);
    json_decref(reply);
}

/* Posts `state` (stolen) and asserts 400 bad_request naming `field`. */
static void assert_bad_state(json_t *state, const char *field)
{
    int status;
    json_t *reply = post(state, place_action(7, 0, 0), &status);
    const char *message = assert_error(reply, status, 400, "bad_request");
    assert_non_null(strstr(message, field));
    json_decref(reply);
    json_decref(state);
}

static void test_unknown_missing_or_mistyped_state_fields_are_bad_request(void **unused)
{
    (void)unused;
    json_t *state = played_state();
    json_object_set_new(state, "cheat", json_true());
    assert_bad_state(state, "'state.cheat'");
    state = played_state();
    json_object_del(state, "board");
    assert_bad_state(state, "'state.board'");
    state = played_state();
    json_object_del(state, "seed");
    assert_bad_state(state, "'state.seed'");
    state = played_state();
    json_object_set_new(state, "seed", json_integer(-1));
    assert_bad_state(state, "'state.seed'");
    state = played_state();
    json_object_set_new(state, "seed", json_string("18446744073709551616"));
    assert_bad_state(state, "'state.seed'");
    state = played_state();
    json_object_set_new(state, "score", json_real(0.5));
    assert_bad_state(state, "'state.score'");
    state = played_state();
    json_object_set_new(state, "score", json_string("0"));
    assert_bad_state(state, "'state.score'");
    state = played_state();
    json_object_set_new(state, "current", json_string("RB"));
    assert_bad_state(state, "'state.current'");
}

static void test_a_malformed_history_is_bad_request(void **unused)
{
    (void)unused;
    static const char *const histories[] = {"00r 02r s ", " 00r 02r s", "00r  02r s",
                                            "00r 02x s",  "00 02r s",   "00r 02r skip",
                                            "00r,02r,s",  "0a0r 02r s"};
    for (size_t i = 0; i < sizeof(histories) / sizeof(histories[0]); i++) {
        json_t *state = played_state();
        json_object_set_new(state, "history", json_string(histories[i]));
        assert_bad_state(state, "'state.history'");
    }
    json_t *state = played_state();
    json_object_set_new(state, "history", json_pack("[s, s, s]", "00r", "02r", "s"));
    assert_bad_state(state, "'state.history'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_with_seed_7_starts_an_empty_board_with_three_skips),
        cmocka_unit_test(test_init_lists_every_placement_in_ascending_order_then_the_skip),
        cmocka_unit_test(test_init_refuses_a_missing_malformed_or_unknown_parameter),
        cmocka_unit_test(test_seeds_2_63_and_2_64_minus_1_round_trip_as_strings),
        cmocka_unit_test(test_seeds_up_to_2_63_minus_1_are_integers_and_strings_are_accepted),
        cmocka_unit_test(test_a_full_game_through_the_api_matches_an_engine_replay),
        cmocka_unit_test(test_every_reply_lists_the_engines_legal_actions),
        cmocka_unit_test(test_history_records_each_action_as_a_compact_token),
        cmocka_unit_test(test_an_occupied_cell_is_refused_with_422_and_changes_nothing),
        cmocka_unit_test(test_refused_actions_carry_the_engine_code_and_teaching_message),
        cmocka_unit_test(test_an_ended_game_refuses_every_action_with_game_over),
        cmocka_unit_test(test_a_tampered_board_is_refused),
        cmocka_unit_test(test_a_tampered_score_is_refused),
        cmocka_unit_test(test_a_tampered_current_piece_is_refused),
        cmocka_unit_test(test_tampered_skips_left_is_refused),
        cmocka_unit_test(test_tampered_streak_phase_and_turn_are_refused),
        cmocka_unit_test(test_a_forged_history_entry_is_refused),
        cmocka_unit_test(test_a_state_from_another_seed_is_refused),
        cmocka_unit_test(test_malformed_json_is_bad_json),
        cmocka_unit_test(test_unknown_or_malformed_actions_are_bad_request),
        cmocka_unit_test(test_a_missing_state_or_action_is_bad_request),
        cmocka_unit_test(test_unknown_missing_or_mistyped_state_fields_are_bad_request),
        cmocka_unit_test(test_a_malformed_history_is_bad_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

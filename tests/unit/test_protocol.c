/* test_protocol.c -- the message decoder and the error replies.
 *
 * Most decoding behaviour is exercised through the lobby tests and the
 * fuzz corpus; these are the cases that once went wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/engine_error.h"
#include "protocol/game_json.h"
#include "protocol/protocol.h"

/* Decodes `text`, expects refusal with `code`, and returns the error reply
 * (which must exist and parse, or the client would wait forever). */
static json_t *refused(const char *text, int code)
{
    protocol_message message;
    protocol_failure failure;
    assert_int_equal(protocol_decode(text, strlen(text), &message, &failure), code);
    char *reply = protocol_error_text(message.id, &failure);
    assert_non_null(reply);
    json_t *parsed = json_loads(reply, 0, NULL);
    assert_non_null(parsed);
    free(reply);
    protocol_message_clear(&message);
    return parsed;
}

static void test_unknown_type_with_multibyte_name_still_gets_a_reply(void **state)
{
    (void)state;
    /* 39 ASCII bytes then "é": a cut at 40 bytes would split the é. */
    json_t *reply =
        refused("{\"type\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9\",\"id\":7}",
                PROTOCOL_E_UNKNOWN_TYPE);
    assert_int_equal(json_integer_value(json_object_get(reply, "id")), 7);
    json_decref(reply);
    char text[400] = "{\"type\":\"";
    for (int i = 0; i < 100; i++)
        strcat(text, "\xe2\x82\xac"); /* a long name of three-byte characters */
    strcat(text, "\",\"id\":8}");
    reply = refused(text, PROTOCOL_E_UNKNOWN_TYPE);
    assert_int_equal(json_integer_value(json_object_get(reply, "id")), 8);
    json_decref(reply);
}

/* jansson's complaint quotes the bytes near the fault; stray ones used to
 * make the reply unencodable, and the client heard nothing (found by
 * tests/fuzz/fuzz_messages.c, corpus/messages/crash-invalid-utf8-in-parse-error). */
static void test_bad_json_with_stray_bytes_still_gets_a_reply(void **state)
{
    (void)state;
    json_t *reply = refused("\"\\\xda\x85\xcf\xdd", PROTOCOL_E_BAD_JSON);
    assert_string_equal(json_string_value(json_object_get(reply, "code")), "bad_json");
    json_decref(reply);
    reply = refused("{\"type\":\"ping\",\xff\xfe}", PROTOCOL_E_BAD_JSON);
    json_decref(reply);
}

static void test_extreme_cell_coordinates_are_malformed(void **state)
{
    (void)state;
    blokus_move m;
    protocol_failure failure;
    json_t *action = json_loads("{\"cells\":[[-9223372036854775808,0]]}", 0, NULL);
    assert_int_equal(game_json_blokus_action(action, &m, &failure), PROTOCOL_E_BAD_MESSAGE);
    json_decref(action);
    action = json_loads("{\"cells\":[[101,0]]}", 0, NULL);
    assert_int_equal(game_json_blokus_action(action, &m, &failure), PROTOCOL_E_BAD_MESSAGE);
    json_decref(action);
}

static void test_join_without_seat_means_any_seat(void **state)
{
    (void)state;
    const char *text = "{\"type\":\"room.join\",\"room\":\"abcdefgh\"}";
    protocol_message message;
    protocol_failure failure;
    assert_int_equal(protocol_decode(text, strlen(text), &message, &failure), 0);
    assert_int_equal(message.body.room.seat, -1);
    protocol_message_clear(&message);
}

static void test_a_rematch_names_the_finished_room_and_the_new_one(void **state)
{
    (void)state;
    const char *text = "{\"type\":\"room.rematch\",\"room\":\"abcdefgh\",\"rematch\":"
                       "\"12345678\",\"id\":3}";
    protocol_message message;
    protocol_failure failure;
    assert_int_equal(protocol_decode(text, strlen(text), &message, &failure), 0);
    assert_int_equal(message.type, PROTOCOL_ROOM_REMATCH);
    assert_string_equal(protocol_message_room(&message), "abcdefgh");
    assert_string_equal(message.body.room.rematch, "12345678");
    assert_string_equal(protocol_type_name(PROTOCOL_ROOM_REMATCH), "room.rematch");
    protocol_message_clear(&message);
    json_t *reply = refused("{\"type\":\"room.rematch\",\"room\":\"abcdefgh\",\"id\":4}",
                            PROTOCOL_E_BAD_MESSAGE);
    assert_string_equal(json_string_value(json_object_get(reply, "message")),
                        "missing field 'rematch' in room.rematch");
    json_decref(reply);
    assert_string_equal(protocol_error_name(PROTOCOL_E_NOT_FINISHED), "not_finished");
}

static void test_account_register_takes_a_name_and_a_password(void **state)
{
    (void)state;
    const char *text =
        "{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"12345678\",\"id\":1}";
    protocol_message message;
    protocol_failure failure;
    assert_int_equal(protocol_decode(text, strlen(text), &message, &failure), 0);
    assert_int_equal(message.type, PROTOCOL_ACCOUNT_REGISTER);
    assert_string_equal(message.body.account.name, "Ada");
    assert_string_equal(message.body.account.password, "12345678");
    protocol_message_clear(&message);
}

static void test_passwords_are_8_to_128_bytes(void **state)
{
    (void)state;
    json_t *reply =
        refused("{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"1234567\"}",
                PROTOCOL_E_BAD_MESSAGE);
    assert_string_equal(json_string_value(json_object_get(reply, "message")),
                        "'password' must be 8 to 128 bytes");
    json_decref(reply);
    char text[400];
    snprintf(text, sizeof(text), "{\"type\":\"hello\",\"name\":\"Ada\",\"password\":\"%0129d\"}",
             0);
    json_decref(refused(text, PROTOCOL_E_BAD_MESSAGE));
    snprintf(text, sizeof(text), "{\"type\":\"hello\",\"name\":\"Ada\",\"password\":\"%0128d\"}",
             0);
    protocol_message message;
    protocol_failure failure;
    assert_int_equal(protocol_decode(text, strlen(text), &message, &failure), 0);
    assert_int_equal(strlen(message.body.hello.password), 128);
    protocol_message_clear(&message);
    /* A NUL inside would cut the password short: jansson refuses it. */
    json_decref(refused("{\"type\":\"hello\",\"name\":\"Ada\",\"password\":\"12345678\\u0000x\"}",
                        PROTOCOL_E_BAD_JSON));
    json_decref(
        refused("{\"type\":\"account.register\",\"name\":\"Ada\"}", PROTOCOL_E_BAD_MESSAGE));
    json_decref(refused(
        "{\"type\":\"account.register\",\"name\":\"Ada\",\"password\":\"12345678\",\"x\":1}",
        PROTOCOL_E_BAD_MESSAGE));
}

/* Decodes a game.move whose action is `action`, expecting success. */
static game_move decoded_move(const char *action)
{
    char text[256];
    snprintf(text, sizeof(text), "{\"type\":\"game.move\",\"room\":\"r\",\"ply\":3,\"action\":%s}",
             action);
    protocol_message message;
    protocol_failure failure;
    if (protocol_decode(text, strlen(text), &message, &failure) != 0)
        fail_msg("refused: %s", failure.message);
    assert_int_equal(message.type, PROTOCOL_GAME_MOVE);
    assert_int_equal(message.body.move.ply, 3);
    game_move move = message.body.move.action;
    protocol_message_clear(&message);
    return move;
}

/* The action is decoded with the message, its game told by its shape: a
 * `type` makes it a Reef action, anything else is read as a Blokus one. */
static void test_a_move_is_decoded_with_its_message_by_its_shape(void **state)
{
    (void)state;
    game_move move = decoded_move("{\"piece\":\"F\",\"orientation\":3,\"row\":4,\"col\":5}");
    assert_int_equal(move.kind, GAME_MOVE_BLOKUS);
    assert_int_equal(move.blokus.piece, 9); /* F */
    assert_int_equal(move.blokus.orientation, 3);
    assert_int_equal(move.blokus.row, 4);
    assert_int_equal(move.blokus.col, 5);
    move = decoded_move("{\"cells\":[[0,0],[0,1]]}");
    assert_int_equal(move.kind, GAME_MOVE_BLOKUS);
    assert_int_equal(move.blokus.piece, 1); /* I2 */
    move = decoded_move("{\"type\":\"place\",\"row\":4,\"col\":3,\"orientation\":90}");
    assert_int_equal(move.kind, GAME_MOVE_REEF);
    assert_int_equal(move.reef.type, REEF_ACTION_PLACE);
    assert_int_equal(move.reef.row, 4);
    assert_int_equal(move.reef.col, 3);
    assert_int_equal(move.reef.orientation, 90);
    move = decoded_move("{\"type\":\"skip\"}");
    assert_int_equal(move.kind, GAME_MOVE_REEF);
    assert_int_equal(move.reef.type, REEF_ACTION_SKIP);
}

/* A malformed action refuses the whole message, with the codec's words
 * and the id kept for the reply. */
static void test_a_malformed_action_refuses_the_message(void **state)
{
    (void)state;
    static const struct {
        const char *action;
        int code;
        const char *message;
    } cases[] = {
        {"{\"piece\":\"I1\"}", PROTOCOL_E_BAD_MESSAGE, "missing field 'action.orientation'"},
        {"{\"pass\":true}", PROTOCOL_E_BAD_MESSAGE, "unknown field 'action.pass'"},
        {"{\"type\":\"jump\"}", PROTOCOL_E_BAD_MESSAGE, "'action.type' must be"},
        {"{\"type\":\"skip\",\"row\":1}", PROTOCOL_E_BAD_MESSAGE, "unknown field 'action.row'"},
        {"[1,2]", PROTOCOL_E_BAD_MESSAGE, "'action' must be an object"},
        {"{\"cells\":[[0,0],[5,5]]}", PROTOCOL_E_ILLEGAL_MOVE, "do not form"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[256];
        snprintf(text, sizeof(text),
                 "{\"type\":\"game.move\",\"id\":4,\"room\":\"r\",\"ply\":0,\"action\":%s}",
                 cases[i].action);
        json_t *reply = refused(text, cases[i].code);
        const char *message = json_string_value(json_object_get(reply, "message"));
        if (!strstr(message, cases[i].message))
            fail_msg("%s: %s", cases[i].action, message);
        assert_int_equal(json_integer_value(json_object_get(reply, "id")), 4);
        json_decref(reply);
    }
}

static void test_name_taken_has_its_wire_name(void **state)
{
    (void)state;
    assert_string_equal(protocol_error_name(PROTOCOL_E_NAME_TAKEN), "name_taken");
}

/* A failure carries the engine's reason only for the illegal move it
 * was filled for: filled again, or filled fresh on a stack that held
 * anything, it has none (a stray reason would be bytes of garbage). */
static void test_only_an_illegal_move_has_a_reason(void **state)
{
    (void)state;
    protocol_failure failure;
    memset(&failure, 'x', sizeof(failure));
    protocol_fail(&failure, PROTOCOL_E_UNAUTHORIZED, "wrong name or password");
    assert_string_equal(failure.reason, "");
    assert_int_equal(protocol_fail_engine(&failure, ENGINE_E_EDGE_CONTACT),
                     PROTOCOL_E_ILLEGAL_MOVE);
    assert_string_equal(failure.reason, "edge_contact");
    char *text = protocol_error_text(NULL, &failure);
    assert_non_null(strstr(text, "\"reason\":\"edge_contact\""));
    free(text);
    protocol_fail(&failure, PROTOCOL_E_STALE_PLY, "stale");
    assert_string_equal(failure.reason, "");
    text = protocol_error_text(NULL, &failure);
    assert_null(strstr(text, "reason"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_type_with_multibyte_name_still_gets_a_reply),
        cmocka_unit_test(test_bad_json_with_stray_bytes_still_gets_a_reply),
        cmocka_unit_test(test_extreme_cell_coordinates_are_malformed),
        cmocka_unit_test(test_join_without_seat_means_any_seat),
        cmocka_unit_test(test_a_rematch_names_the_finished_room_and_the_new_one),
        cmocka_unit_test(test_account_register_takes_a_name_and_a_password),
        cmocka_unit_test(test_passwords_are_8_to_128_bytes),
        cmocka_unit_test(test_a_move_is_decoded_with_its_message_by_its_shape),
        cmocka_unit_test(test_a_malformed_action_refuses_the_message),
        cmocka_unit_test(test_name_taken_has_its_wire_name),
        cmocka_unit_test(test_only_an_illegal_move_has_a_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

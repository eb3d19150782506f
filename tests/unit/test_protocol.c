/* test_protocol.c -- the message decoder and the error replies.
 *
 * Most decoding behaviour is exercised through the lobby tests and the
 * fuzz corpus; these are the cases that once went wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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

static void test_name_taken_has_its_wire_name(void **state)
{
    (void)state;
    assert_string_equal(protocol_error_name(PROTOCOL_E_NAME_TAKEN), "name_taken");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_type_with_multibyte_name_still_gets_a_reply),
        cmocka_unit_test(test_bad_json_with_stray_bytes_still_gets_a_reply),
        cmocka_unit_test(test_extreme_cell_coordinates_are_malformed),
        cmocka_unit_test(test_join_without_seat_means_any_seat),
        cmocka_unit_test(test_account_register_takes_a_name_and_a_password),
        cmocka_unit_test(test_passwords_are_8_to_128_bytes),
        cmocka_unit_test(test_name_taken_has_its_wire_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

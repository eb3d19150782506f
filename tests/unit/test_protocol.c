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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_type_with_multibyte_name_still_gets_a_reply),
        cmocka_unit_test(test_extreme_cell_coordinates_are_malformed),
        cmocka_unit_test(test_join_without_seat_means_any_seat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

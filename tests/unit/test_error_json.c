/* test_error_json.c -- the two error shapes, whatever the message holds.
 *
 * Bodies are parsed back with jansson: whatever bytes a message echoes, the
 * result must be JSON with exactly the documented keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "protocol/error_json.h"

/* Renders, checks the reported length, and parses the text back. */
static json_t *render(error_json_shape shape, const char *code, const char *message)
{
    size_t length = 0;
    char *text = error_json_render(shape, code, message, &length);
    assert_non_null(text);
    assert_int_equal(length, strlen(text));
    json_t *value = json_loadb(text, length, JSON_REJECT_DUPLICATES, NULL);
    free(text);
    assert_non_null(value);
    return value;
}

static void test_flat_shape_has_type_code_and_message(void **state)
{
    (void)state;
    json_t *error = render(ERROR_JSON_FLAT, "not_found", "no route for GET /x");
    assert_int_equal(json_object_size(error), 3);
    assert_string_equal(json_string_value(json_object_get(error, "type")), "error");
    assert_string_equal(json_string_value(json_object_get(error, "code")), "not_found");
    assert_string_equal(json_string_value(json_object_get(error, "message")),
                        "no route for GET /x");
    json_decref(error);
}

static void test_nested_shape_is_the_reef_apis(void **state)
{
    (void)state;
    json_t *reply = render(ERROR_JSON_NESTED, "too_big", "request body too large");
    assert_int_equal(json_object_size(reply), 1);
    json_t *error = json_object_get(reply, "error");
    assert_int_equal(json_object_size(error), 2);
    assert_string_equal(json_string_value(json_object_get(error, "code")), "too_big");
    assert_string_equal(json_string_value(json_object_get(error, "message")),
                        "request body too large");
    json_decref(reply);
}

static void test_quotes_and_backslashes_are_escaped(void **state)
{
    (void)state;
    char *text = error_json_render(ERROR_JSON_FLAT, "bad_request", "say \"hi\" \\ bye", NULL);
    assert_string_equal(text, "{\"type\":\"error\",\"code\":\"bad_request\",\"message\":\"say "
                              "\\\"hi\\\" \\\\ bye\"}");
    free(text);
}

static void test_other_bytes_become_question_marks(void **state)
{
    (void)state;
    /* Invalid UTF-8, valid UTF-8, control characters and DEL alike. */
    json_t *error = render(ERROR_JSON_FLAT, "bad_request", "\xff/caf\xc3\xa9\n\t\x01\x7f.");
    assert_string_equal(json_string_value(json_object_get(error, "message")), "?/caf??????.");
    json_decref(error);
}

static void test_empty_message_is_still_json(void **state)
{
    (void)state;
    json_t *reply = render(ERROR_JSON_NESTED, "internal", "");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(reply, "error"), "message")), "");
    json_decref(reply);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_shape_has_type_code_and_message),
        cmocka_unit_test(test_nested_shape_is_the_reef_apis),
        cmocka_unit_test(test_quotes_and_backslashes_are_escaped),
        cmocka_unit_test(test_other_bytes_become_question_marks),
        cmocka_unit_test(test_empty_message_is_still_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_json_out.c -- the direct JSON writer (protocol/json_out.c): what it
 * writes must read back, through jansson, as what was meant. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "protocol/json_out.h"

static void test_an_object_reads_back_as_written(void **state)
{
    (void)state;
    json_out out = JSON_OUT_EMPTY;
    json_out_raw(&out, "{", 1);
    json_out_key(&out, "name");
    json_out_string(&out, "say \"hi\"\\\n\t\x01 é");
    json_out_text(&out, ",");
    json_out_key(&out, "low");
    json_out_int(&out, INT64_MIN);
    json_out_text(&out, ",\"high\":");
    json_out_int(&out, INT64_MAX);
    json_out_raw(&out, "}", 1);
    assert_false(out.has_failed);
    json_error_t error;
    json_t *read = json_loadb(out.data, out.length, 0, &error);
    assert_non_null(read);
    assert_string_equal(json_string_value(json_object_get(read, "name")), "say \"hi\"\\\n\t\x01 é");
    assert_true(json_integer_value(json_object_get(read, "low")) == INT64_MIN);
    assert_true(json_integer_value(json_object_get(read, "high")) == INT64_MAX);
    json_decref(read);
    json_out_reset(&out);
    for (int64_t value = -10; value <= 10; value += 5)
        json_out_int(&out, value), json_out_raw(&out, " ", 1);
    assert_string_equal(out.data, "-10 -5 0 5 10 ");
    json_out_free(&out);
}

static void test_reset_keeps_the_memory_and_take_hands_it_over(void **state)
{
    (void)state;
    json_out out = JSON_OUT_EMPTY;
    for (int i = 0; i < 1000; i++)
        json_out_text(&out, "[1,2,3]");
    char *memory = out.data;
    size_t capacity = out.capacity;
    json_out_reset(&out);
    assert_int_equal(out.length, 0);
    assert_string_equal(out.data, "");
    json_out_text(&out, "[]");
    assert_ptr_equal(out.data, memory);
    assert_int_equal(out.capacity, capacity);
    size_t length;
    char *text = json_out_take(&out, &length);
    assert_string_equal(text, "[]");
    assert_int_equal(length, 2);
    assert_null(out.data);
    free(text);
}

static void test_space_then_advance_appends_what_was_written(void **state)
{
    (void)state;
    json_out out = JSON_OUT_EMPTY;
    json_out_text(&out, "[");
    char *at = json_out_space(&out, 64);
    assert_non_null(at);
    memcpy(at, "1,2", 3);
    json_out_advance(&out, 3);
    json_out_text(&out, "]");
    assert_string_equal(out.data, "[1,2]");
    json_out_free(&out);
}

/* A tree is written as json_dumps(JSON_COMPACT) writes it, byte for byte:
 * member order, escapes, and reals of every shape. */
static void test_a_tree_is_written_as_jansson_dumps_it(void **state)
{
    (void)state;
    json_t *tree =
        json_pack("{s:i, s:s, s:[f, f, f, f, f, f, f, f, f], s:{s:b, s:b, s:n}, s:[], s:{}, s:I}",
                  "zeta", -3, "text", "quote \" back \\ slash / é", "reals", 1.5, 0.1, 1e-5, 1e20,
                  -2.0, 3.0, 123456789.125, -1e-300, 2.5e+300, "nested", "yes", 1, "no", 0, "none",
                  "empty", "hollow", "big", (json_int_t)INT64_MIN);
    assert_non_null(tree);
    char *expected = json_dumps(tree, JSON_COMPACT);
    json_out writer = JSON_OUT_EMPTY;
    json_out_value(&writer, tree);
    size_t length = 0;
    char *text = json_out_take(&writer, &length);
    assert_string_equal(text, expected);
    assert_int_equal(length, strlen(expected));
    free(text);
    free(expected);
    json_decref(tree);
}

/* A real on its own (a rating, written without a tree) reads as jansson
 * writes the same real. */
static void test_a_real_alone_is_written_as_jansson_writes_it(void **state)
{
    (void)state;
    const double reals[] = {25.0, 8.333333333333334, -0.5, 1e-7, 12.904158516655581, 3e22};
    for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
        json_t *real = json_real(reals[i]);
        char *expected = json_dumps(real, JSON_COMPACT | JSON_ENCODE_ANY);
        json_out writer = JSON_OUT_EMPTY;
        json_out_real(&writer, reals[i]);
        char *text = json_out_take(&writer, NULL);
        assert_string_equal(text, expected);
        free(text);
        free(expected);
        json_decref(real);
    }
}

/* No value is no JSON: the writer fails rather than write half of it. */
static void test_a_missing_value_fails_the_writer(void **state)
{
    (void)state;
    json_out writer = JSON_OUT_EMPTY;
    json_out_value(&writer, NULL);
    assert_null(json_out_take(&writer, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_an_object_reads_back_as_written),
        cmocka_unit_test(test_reset_keeps_the_memory_and_take_hands_it_over),
        cmocka_unit_test(test_space_then_advance_appends_what_was_written),
        cmocka_unit_test(test_a_tree_is_written_as_jansson_dumps_it),
        cmocka_unit_test(test_a_real_alone_is_written_as_jansson_writes_it),
        cmocka_unit_test(test_a_missing_value_fails_the_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_utf8.c -- the strict UTF-8 check and the repair of broken text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/utf8.h"

static void test_well_formed_sequences_of_every_length_pass(void **state)
{
    (void)state;
    assert_true(utf8_is_valid(""));
    assert_true(utf8_is_valid("plain ascii"));
    assert_true(utf8_is_valid("\xc3\xa9l\xc3\xa8ve"));                  /* élève */
    assert_true(utf8_is_valid("\xe0\xa0\x80\xed\x9f\xbf\xef\xbf\xbf")); /* U+0800 U+D7FF U+FFFF */
    assert_true(utf8_is_valid("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"));     /* U+10000 U+10FFFF */
}

static void test_overlong_surrogate_and_past_max_sequences_fail(void **state)
{
    (void)state;
    const char *broken[] = {"\xc0\xaf",
                            "\xc1\xbf",
                            "\xe0\x80\xaf",
                            "\xe0\x9f\xbf",
                            "\xed\xa0\x80",
                            "\xed\xbf\xbf",
                            "\xf0\x80\x80\xaf",
                            "\xf4\x90\x80\x80",
                            "\xf5\x80\x80\x80",
                            "\xff",
                            "\x80",
                            "a\xc3",
                            "\xe2\x82"};
    for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++)
        assert_false(utf8_is_valid(broken[i]));
}

static void test_sequence_length_stops_at_the_buffer_end(void **state)
{
    (void)state;
    const unsigned char euro[] = {0xe2, 0x82, 0xac};
    assert_int_equal(utf8_sequence_length(euro, 3), 3);
    assert_int_equal(utf8_sequence_length(euro, 2), 0);
    assert_int_equal(utf8_sequence_length(euro, 0), 0);
}

static void test_repair_turns_each_stray_byte_into_a_question_mark(void **state)
{
    (void)state;
    char text[] = "near '\"\\\xda\x85\xcf' \xc3\xa9 \xed\xa0\x80 \xe2\x82";
    utf8_repair(text);
    assert_true(utf8_is_valid(text));
    assert_string_equal(text, "near '\"\\\xda\x85?' \xc3\xa9 ??? ??");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_well_formed_sequences_of_every_length_pass),
        cmocka_unit_test(test_overlong_surrogate_and_past_max_sequences_fail),
        cmocka_unit_test(test_sequence_length_stops_at_the_buffer_end),
        cmocka_unit_test(test_repair_turns_each_stray_byte_into_a_question_mark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

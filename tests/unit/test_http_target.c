/* test_http_target.c -- the request text checks that need no socket:
 * strict UTF-8 of the path and query, and the Content-Length grammar. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "server/http_target.h"

static void test_ascii_and_well_formed_utf8_pass(void **state)
{
    (void)state;
    assert_true(http_target_is_utf8(""));
    assert_true(http_target_is_utf8("/api/games?x"));
    assert_true(http_target_is_utf8("\xc3\xa9l\xc3\xa8ve")); /* élève */
    assert_true(http_target_is_utf8("\xe2\x82\xac"));        /* U+20AC */
    assert_true(http_target_is_utf8("\xf0\x9f\x8e\xb2"));    /* U+1F3B2 */
    assert_true(http_target_is_utf8("\xf4\x8f\xbf\xbf"));    /* U+10FFFF */
    assert_true(http_target_is_utf8("\xed\x9f\xbf"));        /* U+D7FF */
}

static void test_overlong_forms_surrogates_and_past_max_fail(void **state)
{
    (void)state;
    assert_false(http_target_is_utf8("\xc0\xaf"));         /* overlong '/' */
    assert_false(http_target_is_utf8("\xe0\x80\xaf"));     /* overlong, 3 bytes */
    assert_false(http_target_is_utf8("\xf0\x80\x80\xaf")); /* overlong, 4 bytes */
    assert_false(http_target_is_utf8("\xed\xa0\x80"));     /* U+D800 */
    assert_false(http_target_is_utf8("\xf4\x90\x80\x80")); /* U+110000 */
    assert_false(http_target_is_utf8("\xf5\x80\x80\x80"));
    assert_false(http_target_is_utf8("\x80")); /* a lone continuation */
    assert_false(http_target_is_utf8("\xc3")); /* cut short at the end */
    assert_false(http_target_is_utf8("\xe2\x82"));
}

static void test_every_query_name_and_value_is_checked(void **state)
{
    (void)state;
    url_query query = {NULL, 0};
    assert_int_equal(url_query_add(&query, "a=1", 3), 0);
    assert_true(http_target_is_all_utf8("/p", &query));
    assert_false(http_target_is_all_utf8("/\xff", &query));
    assert_int_equal(url_query_add(&query, "b=\xc0\xaf", 4), 0);
    assert_false(http_target_is_all_utf8("/p", &query));
    url_query_clear(&query);
    assert_int_equal(url_query_add(&query, "\xed\xa0\x80=1", 5), 0);
    assert_false(http_target_is_all_utf8("/p", &query));
    url_query_clear(&query);
}

static void test_content_length_is_digits_then_optional_blanks(void **state)
{
    (void)state;
    size_t length = 99;
    assert_int_equal(http_target_content_length("0", &length), 0);
    assert_int_equal(length, 0);
    assert_int_equal(http_target_content_length("123 \t", &length), 0);
    assert_int_equal(length, 123);
    const char *refused[] = {"", " 5", "+5", "-1", "5x", "5,6", "5 6", "0x10", "1e3"};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        length = 7;
        assert_int_equal(http_target_content_length(refused[i], &length), -EINVAL);
        assert_int_equal(length, 7); /* untouched */
    }
}

static void test_content_length_past_half_of_size_max_is_refused(void **state)
{
    (void)state;
    char text[32];
    size_t length = 0;
    snprintf(text, sizeof(text), "%zu", SIZE_MAX / 2);
    assert_int_equal(http_target_content_length(text, &length), 0);
    assert_int_equal(length, SIZE_MAX / 2);
    snprintf(text, sizeof(text), "%zu", SIZE_MAX / 2 + 1);
    assert_int_equal(http_target_content_length(text, &length), -ERANGE);
    assert_int_equal(http_target_content_length("99999999999999999999999", &length), -ERANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ascii_and_well_formed_utf8_pass),
        cmocka_unit_test(test_overlong_forms_surrogates_and_past_max_fail),
        cmocka_unit_test(test_every_query_name_and_value_is_checked),
        cmocka_unit_test(test_content_length_is_digits_then_optional_blanks),
        cmocka_unit_test(test_content_length_past_half_of_size_max_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

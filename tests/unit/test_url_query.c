/* test_url_query.c -- query arguments, split and looked up by name.
 *
 * Pairs arrive as lws hands them over: one per '&', already decoded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/url_query.h"

static void add(url_query *query, const char *pair)
{
    assert_int_equal(url_query_add(query, pair, strlen(pair)), 0);
}

static void test_pair_splits_at_its_first_equals(void **state)
{
    (void)state;
    url_query query = {0};
    add(&query, "seed=7");
    add(&query, "expr=a=b");
    assert_int_equal(query.count, 2);
    assert_string_equal(url_query_get(&query, "seed"), "7");
    assert_string_equal(url_query_get(&query, "expr"), "a=b");
    url_query_clear(&query);
    assert_int_equal(query.count, 0);
    assert_null(query.arguments);
}

static void test_name_without_equals_has_an_empty_value(void **state)
{
    (void)state;
    url_query query = {0};
    add(&query, "verbose");
    add(&query, "x=");
    add(&query, "=1");
    assert_string_equal(url_query_get(&query, "verbose"), "");
    assert_string_equal(url_query_get(&query, "x"), "");
    assert_string_equal(url_query_get(&query, ""), "1");
    url_query_clear(&query);
}

static void test_empty_pairs_are_skipped(void **state)
{
    (void)state;
    url_query query = {0};
    add(&query, "");
    assert_int_equal(query.count, 0);
    assert_null(url_query_get(&query, ""));
    url_query_clear(&query);
}

static void test_decoded_bytes_are_kept_as_they_are(void **state)
{
    (void)state;
    url_query query = {0};
    /* "q=a%26b+c%3Dd" decoded: the '&' and '=' are inside the value. */
    add(&query, "q=a&b c=d");
    assert_string_equal(url_query_get(&query, "q"), "a&b c=d");
    /* only `length` bytes are read */
    assert_int_equal(url_query_add(&query, "k=v-and-more", 3), 0);
    assert_string_equal(url_query_get(&query, "k"), "v");
    url_query_clear(&query);
}

static void test_repeated_name_is_counted_and_first_wins(void **state)
{
    (void)state;
    url_query query = {0};
    add(&query, "seed=1");
    add(&query, "other=2");
    add(&query, "seed=3");
    assert_int_equal(url_query_count(&query, "seed"), 2);
    assert_int_equal(url_query_count(&query, "other"), 1);
    assert_int_equal(url_query_count(&query, "none"), 0);
    assert_string_equal(url_query_get(&query, "seed"), "1");
    assert_null(url_query_get(&query, "Seed"));
    url_query_clear(&query);
}

static void test_clearing_an_empty_query_is_harmless(void **state)
{
    (void)state;
    url_query query = {0};
    url_query_clear(&query);
    url_query_clear(&query);
    assert_int_equal(query.count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_splits_at_its_first_equals),
        cmocka_unit_test(test_name_without_equals_has_an_empty_value),
        cmocka_unit_test(test_empty_pairs_are_skipped),
        cmocka_unit_test(test_decoded_bytes_are_kept_as_they_are),
        cmocka_unit_test(test_repeated_name_is_counted_and_first_wins),
        cmocka_unit_test(test_clearing_an_empty_query_is_harmless),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_http_encoding.c -- which Accept-Encoding values let a client have
 * gzip: browsers' own, weights, wildcards, refusals, and nonsense. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/http_encoding.h"

static void browsers_and_tools_get_gzip(void **state)
{
    (void)state;
    assert_true(http_accepts_gzip("gzip, deflate, br"));       /* Chromium, Firefox */
    assert_true(http_accepts_gzip("gzip, deflate, br, zstd")); /* newer ones */
    assert_true(http_accepts_gzip("gzip"));
    assert_true(http_accepts_gzip("deflate,gzip"));
    assert_true(http_accepts_gzip("GZIP"));
    assert_true(http_accepts_gzip("x-gzip"));
    assert_true(http_accepts_gzip("br;q=1.0, gzip;q=0.8, *;q=0.1"));
    assert_true(http_accepts_gzip(" gzip ; q=0.001 "));
    assert_true(http_accepts_gzip("*"));
    assert_true(http_accepts_gzip("identity, *;q=0.5"));
}

static void no_header_and_refusals_get_the_plain_bytes(void **state)
{
    (void)state;
    assert_false(http_accepts_gzip(""));
    assert_false(http_accepts_gzip("identity"));
    assert_false(http_accepts_gzip("br, deflate"));
    assert_false(http_accepts_gzip("gzip;q=0"));
    assert_false(http_accepts_gzip("gzip; q=0.000"));
    assert_false(http_accepts_gzip("gzip;Q=0."));
    assert_false(http_accepts_gzip("*, gzip;q=0")); /* named refusal beats the wildcard */
    assert_false(http_accepts_gzip("*;q=0"));
    assert_false(http_accepts_gzip("gzipped, xgzip, gzip2"));
    assert_false(http_accepts_gzip(",,;;,"));
}

static void odd_weights_are_read_as_wanted(void **state)
{
    (void)state;
    assert_true(http_accepts_gzip("gzip;q=0.0001")); /* four digits: not a zero qvalue */
    assert_true(http_accepts_gzip("gzip;q=abc"));
    assert_true(http_accepts_gzip("gzip;level=1"));
    assert_true(http_accepts_gzip("gzip;q=0, gzip")); /* named twice: once wanted */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(browsers_and_tools_get_gzip),
        cmocka_unit_test(no_header_and_refusals_get_the_plain_bytes),
        cmocka_unit_test(odd_weights_are_read_as_wanted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

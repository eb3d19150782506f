/* test_http_etag.c -- a file's entity tag, and which If-None-Match values
 * name it: browsers' own, lists, the wildcard, weak marks, and nonsense. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "server/http_etag.h"

static void a_tag_is_weak_and_follows_the_bytes(void **state)
{
    (void)state;
    char empty[HTTP_ETAG_SIZE], one[HTTP_ETAG_SIZE], other[HTTP_ETAG_SIZE], again[HTTP_ETAG_SIZE];
    http_etag_of("", 0, empty);
    assert_string_equal(empty, "W/\"cbf29ce484222325\""); /* FNV-1a's offset basis */
    http_etag_of("a", 1, one);
    assert_string_equal(one, "W/\"af63dc4c8601ec8c\""); /* FNV-1a 64 of "a" */
    http_etag_of("b", 1, other);
    http_etag_of("a", 1, again);
    assert_string_not_equal(one, other);
    assert_string_equal(one, again);
    assert_int_equal(strlen(one), HTTP_ETAG_SIZE - 1);
}

static void the_tag_sent_back_matches(void **state)
{
    (void)state;
    const char *tag = "W/\"0123456789abcdef\"";
    assert_true(http_etag_matches("W/\"0123456789abcdef\"", tag)); /* as a browser sends it */
    assert_true(http_etag_matches("\"0123456789abcdef\"", tag));   /* weak comparison */
    assert_true(http_etag_matches("\"x\", W/\"0123456789abcdef\"", tag));
    assert_true(http_etag_matches(" \"x\" ,\t\"0123456789abcdef\" ", tag));
    assert_true(http_etag_matches("\"a,b\", \"0123456789abcdef\"", tag)); /* a comma inside */
    assert_true(http_etag_matches("*", tag));
    assert_true(http_etag_matches("\"x\", *", tag));
    assert_true(http_etag_matches("\"0123456789abcdef\"", "\"0123456789abcdef\""));
}

static void other_tags_and_nonsense_do_not(void **state)
{
    (void)state;
    const char *tag = "W/\"0123456789abcdef\"";
    assert_false(http_etag_matches("", tag));
    assert_false(http_etag_matches("W/\"0123456789abcde\"", tag));
    assert_false(http_etag_matches("\"0123456789ABCDEF\"", tag)); /* tags are case-sensitive */
    assert_false(http_etag_matches("\"0123456789abcdef", tag));   /* no closing quote */
    assert_false(http_etag_matches("0123456789abcdef", tag));     /* no quotes */
    assert_false(http_etag_matches("W/", tag));
    assert_false(http_etag_matches("w/\"0123456789abcdef\"", tag)); /* the mark is W/ */
    assert_false(http_etag_matches("*x", tag));
    assert_false(http_etag_matches("junk, \"0123456789abcdef\"", tag)); /* stops at junk */
    assert_false(http_etag_matches(",,, ,", tag));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_tag_is_weak_and_follows_the_bytes),
        cmocka_unit_test(the_tag_sent_back_matches),
        cmocka_unit_test(other_tags_and_nonsense_do_not),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

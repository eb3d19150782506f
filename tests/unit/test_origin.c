/* test_origin.c -- the Origin allow-list: who may open a websocket, and
 * which settings are refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "server/origin.h"

static void no_list_or_no_origin_allows_everyone(void **state)
{
    (void)state;
    assert_true(origin_is_allowed("", "https://evil.example", "play.example"));
    assert_true(origin_is_allowed("https://play.example", "", "play.example"));
}

static void the_server_s_own_page_is_always_allowed(void **state)
{
    (void)state;
    assert_true(
        origin_is_allowed("https://other.example", "http://127.0.0.1:8080", "127.0.0.1:8080"));
    assert_false(
        origin_is_allowed("https://other.example", "http://127.0.0.1:9999", "127.0.0.1:8080"));
}

static void listed_origins_match_whole_and_without_case(void **state)
{
    (void)state;
    const char *list = " https://play.example , http://localhost:3000";
    assert_true(origin_is_allowed(list, "HTTPS://Play.Example", ""));
    assert_true(origin_is_allowed(list, "http://localhost:3000", ""));
    assert_false(origin_is_allowed(list, "https://play.example.evil", ""));
    assert_false(origin_is_allowed(list, "https://play", ""));
    assert_false(origin_is_allowed(list, "null", ""));
    assert_true(origin_is_allowed("https://a.example,*", "null", ""));
}

static void settings_name_the_bad_entry(void **state)
{
    (void)state;
    char problem[128];
    assert_int_equal(
        origin_list_check("https://a.example, http://b:81, *", problem, sizeof(problem)), 0);
    assert_int_equal(origin_list_check("https://a.example/path", problem, sizeof(problem)),
                     -EINVAL);
    assert_non_null(strstr(problem, "https://a.example/path"));
    assert_int_equal(origin_list_check("a.example", problem, sizeof(problem)), -EINVAL);
    assert_int_equal(origin_list_check("ftp://a.example", problem, sizeof(problem)), -EINVAL);
    assert_int_equal(origin_list_check("https://", problem, sizeof(problem)), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_list_or_no_origin_allows_everyone),
        cmocka_unit_test(the_server_s_own_page_is_always_allowed),
        cmocka_unit_test(listed_origins_match_whole_and_without_case),
        cmocka_unit_test(settings_name_the_bad_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_proxy.c -- who counts as a trusted proxy, which address of
 * X-Forwarded-For is believed, and which settings are refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "server/proxy.h"

static void only_listed_addresses_are_trusted(void **state)
{
    (void)state;
    assert_true(proxy_is_trusted("127.0.0.1", "127.0.0.1"));
    assert_true(proxy_is_trusted("10.0.0.2, ::1", "0:0::1"));
    assert_false(proxy_is_trusted("10.0.0.2, ::1", "10.0.0.3"));
    assert_false(proxy_is_trusted("", "127.0.0.1"));
    assert_false(proxy_is_trusted("127.0.0.1", "unknown"));
}

static void the_address_the_proxy_appended_is_the_client(void **state)
{
    (void)state;
    char client[64] = "unchanged";
    assert_true(proxy_forwarded_client("203.0.113.7", client, sizeof(client)));
    assert_string_equal(client, "203.0.113.7");
    /* a client's own forged entries come first and are not believed */
    assert_true(proxy_forwarded_client("1.2.3.4, 6.6.6.6 ,2001:DB8::1 ", client, sizeof(client)));
    assert_string_equal(client, "2001:db8::1");
    strcpy(client, "unchanged");
    assert_false(proxy_forwarded_client("1.2.3.4, unknown", client, sizeof(client)));
    assert_false(proxy_forwarded_client("", client, sizeof(client)));
    assert_false(proxy_forwarded_client("1.2.3.4,", client, sizeof(client)));
    assert_string_equal(client, "unchanged");
}

static void settings_name_the_bad_entry(void **state)
{
    (void)state;
    char problem[96];
    assert_int_equal(proxy_list_check("127.0.0.1, ::1", problem, sizeof(problem)), 0);
    assert_int_equal(proxy_list_check("127.0.0.1, nginx", problem, sizeof(problem)), -EINVAL);
    assert_string_equal(problem, "'nginx' is not an IP address");
    assert_int_equal(proxy_list_check("10.0.0.0/8", problem, sizeof(problem)), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(only_listed_addresses_are_trusted),
        cmocka_unit_test(the_address_the_proxy_appended_is_the_client),
        cmocka_unit_test(settings_name_the_bad_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

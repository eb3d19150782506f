/* test_http_rate.c -- token buckets per address, with a clock of our own.
 *
 * Time is passed in, so every test is exact: no sleeps, no wall clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/http_rate.h"

static http_rate *limiter(int per_second, int burst, size_t max_addresses)
{
    http_rate *rate;
    assert_int_equal(http_rate_new(per_second, burst, max_addresses, &rate), 0);
    return rate;
}

static void test_burst_then_refusal_with_retry_after(void **state)
{
    (void)state;
    http_rate *rate = limiter(2, 3, 100);
    for (int i = 0; i < 3; i++)
        assert_int_equal(http_rate_take(rate, "10.0.0.1", 1000), 0);
    assert_int_equal(http_rate_take(rate, "10.0.0.1", 1000), 1); /* 0.5 s to a token */
    assert_int_equal(http_rate_take(rate, "10.0.0.1", 1499), 1);
    assert_int_equal(http_rate_take(rate, "10.0.0.1", 1500), 0); /* refilled one */
    assert_int_equal(http_rate_take(rate, "10.0.0.1", 1500), 1);
    http_rate_free(rate);
}

static void test_retry_after_covers_a_slow_rate(void **state)
{
    (void)state;
    http_rate *rate = limiter(1, 1, 100);
    assert_int_equal(http_rate_take(rate, "10.0.0.1", 0), 0);
    assert_int_equal(http_rate_take(rate, "10.0.0.1", 0), 2); /* whole seconds, rounded up */
    assert_int_equal(http_rate_take(rate, "10.0.0.1", 999), 1);
    http_rate_free(rate);
}

static void test_addresses_have_their_own_buckets(void **state)
{
    (void)state;
    http_rate *rate = limiter(1, 1, 100);
    assert_int_equal(http_rate_take(rate, "10.0.0.1", 0), 0);
    assert_true(http_rate_take(rate, "10.0.0.1", 0) > 0);
    assert_int_equal(http_rate_take(rate, "10.0.0.2", 0), 0);
    assert_int_equal(http_rate_take(rate, "2001:db8::1", 0), 0);
    assert_int_equal(http_rate_address_count(rate), 3);
    http_rate_free(rate);
}

static void test_ipv6_is_limited_per_64_and_mapped_ipv4_as_ipv4(void **state)
{
    (void)state;
    http_rate *rate = limiter(1, 1, 100);
    assert_int_equal(http_rate_take(rate, "2001:db8:1:2::1", 0), 0);
    assert_true(http_rate_take(rate, "2001:db8:1:2:ffff::9", 0) > 0); /* same /64 */
    assert_int_equal(http_rate_take(rate, "2001:db8:1:3::1", 0), 0);  /* another /64 */
    assert_int_equal(http_rate_take(rate, "192.0.2.7", 0), 0);
    assert_true(http_rate_take(rate, "::ffff:192.0.2.7", 0) > 0);
    assert_int_equal(http_rate_take(rate, "::1", 0), 0);
    assert_true(http_rate_take(rate, "::2", 0) > 0); /* ::/64 too */
    http_rate_free(rate);
}

static void test_unparsable_addresses_share_one_bucket(void **state)
{
    (void)state;
    http_rate *rate = limiter(1, 1, 100);
    assert_int_equal(http_rate_take(rate, "", 0), 0);
    assert_true(http_rate_take(rate, "not an address", 0) > 0);
    http_rate_free(rate);
}

static void test_idle_buckets_are_dropped_once_full_again(void **state)
{
    (void)state;
    http_rate *rate = limiter(10, 20, 100); /* refills in 2 s */
    assert_int_equal(http_rate_take(rate, "10.0.0.1", 0), 0);
    assert_int_equal(http_rate_take(rate, "10.0.0.2", 1000), 0);
    assert_int_equal(http_rate_address_count(rate), 2);
    assert_int_equal(http_rate_take(rate, "10.0.0.3", 1999), 0);
    assert_int_equal(http_rate_address_count(rate), 3); /* 10.0.0.1 not full yet */
    assert_int_equal(http_rate_take(rate, "10.0.0.3", 2000), 0);
    assert_int_equal(http_rate_address_count(rate), 2); /* 10.0.0.1 was */
    assert_int_equal(http_rate_take(rate, "10.0.0.3", 10000), 0);
    assert_int_equal(http_rate_address_count(rate), 1); /* only the one in use */
    http_rate_free(rate);
}

static void test_address_count_is_capped(void **state)
{
    (void)state;
    http_rate *rate = limiter(1, 1, 3);
    static const char *const ADDRESSES[] = {"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(http_rate_take(rate, ADDRESSES[i], 0), 0);
    assert_int_equal(http_rate_address_count(rate), 3);
    /* The least recently used went: 10.0.0.1 starts again with a full bucket. */
    assert_int_equal(http_rate_take(rate, "10.0.0.1", 0), 0);
    assert_true(http_rate_take(rate, "10.0.0.4", 0) > 0);
    http_rate_free(rate);
}

static void test_clock_going_back_adds_nothing(void **state)
{
    (void)state;
    http_rate *rate = limiter(1, 1, 100);
    assert_int_equal(http_rate_take(rate, "10.0.0.1", 5000), 0);
    assert_true(http_rate_take(rate, "10.0.0.1", 4000) > 0);
    http_rate_free(rate);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_then_refusal_with_retry_after),
        cmocka_unit_test(test_retry_after_covers_a_slow_rate),
        cmocka_unit_test(test_addresses_have_their_own_buckets),
        cmocka_unit_test(test_ipv6_is_limited_per_64_and_mapped_ipv4_as_ipv4),
        cmocka_unit_test(test_unparsable_addresses_share_one_bucket),
        cmocka_unit_test(test_idle_buckets_are_dropped_once_full_again),
        cmocka_unit_test(test_address_count_is_capped),
        cmocka_unit_test(test_clock_going_back_adds_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_rate_limit.c -- token buckets by key, with a clock of our own.
 *
 * Time is passed in, so every test is exact: no sleeps, no wall clock.
 * Most tests limit addresses, as the transport does (take() below). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/rate_limit.h"

static rate_limit *limiter(double per_second, int burst, size_t max_keys)
{
    rate_limit *rate;
    assert_int_equal(rate_limit_new(per_second, burst, max_keys, &rate), 0);
    return rate;
}

static int take(rate_limit *rate, const char *address, uint64_t now_ms)
{
    return rate_limit_take(rate, rate_limit_address_key(address), now_ms);
}

static void test_burst_then_refusal_with_retry_after(void **state)
{
    (void)state;
    rate_limit *rate = limiter(2, 3, 100);
    for (int i = 0; i < 3; i++)
        assert_int_equal(take(rate, "10.0.0.1", 1000), 0);
    assert_int_equal(take(rate, "10.0.0.1", 1000), 1); /* 0.5 s to a token */
    assert_int_equal(take(rate, "10.0.0.1", 1499), 1);
    assert_int_equal(take(rate, "10.0.0.1", 1500), 0); /* refilled one */
    assert_int_equal(take(rate, "10.0.0.1", 1500), 1);
    rate_limit_free(rate);
}

static void test_retry_after_covers_a_slow_rate(void **state)
{
    (void)state;
    rate_limit *rate = limiter(1, 1, 100);
    assert_int_equal(take(rate, "10.0.0.1", 0), 0);
    assert_int_equal(take(rate, "10.0.0.1", 0), 2); /* whole seconds, rounded up */
    assert_int_equal(take(rate, "10.0.0.1", 999), 1);
    rate_limit_free(rate);
}

static void test_addresses_have_their_own_buckets(void **state)
{
    (void)state;
    rate_limit *rate = limiter(1, 1, 100);
    assert_int_equal(take(rate, "10.0.0.1", 0), 0);
    assert_true(take(rate, "10.0.0.1", 0) > 0);
    assert_int_equal(take(rate, "10.0.0.2", 0), 0);
    assert_int_equal(take(rate, "2001:db8::1", 0), 0);
    assert_int_equal(rate_limit_key_count(rate), 3);
    rate_limit_free(rate);
}

static void test_ipv6_is_limited_per_64_and_mapped_ipv4_as_ipv4(void **state)
{
    (void)state;
    rate_limit *rate = limiter(1, 1, 100);
    assert_int_equal(take(rate, "2001:db8:1:2::1", 0), 0);
    assert_true(take(rate, "2001:db8:1:2:ffff::9", 0) > 0); /* same /64 */
    assert_int_equal(take(rate, "2001:db8:1:3::1", 0), 0);  /* another /64 */
    assert_int_equal(take(rate, "192.0.2.7", 0), 0);
    assert_true(take(rate, "::ffff:192.0.2.7", 0) > 0);
    assert_int_equal(take(rate, "::1", 0), 0);
    assert_true(take(rate, "::2", 0) > 0); /* ::/64 too */
    rate_limit_free(rate);
}

static void test_unparsable_addresses_share_one_bucket(void **state)
{
    (void)state;
    rate_limit *rate = limiter(1, 1, 100);
    assert_int_equal(take(rate, "", 0), 0);
    assert_true(take(rate, "not an address", 0) > 0);
    rate_limit_free(rate);
}

static void test_idle_buckets_are_dropped_once_full_again(void **state)
{
    (void)state;
    rate_limit *rate = limiter(10, 20, 100); /* refills in 2 s */
    assert_int_equal(take(rate, "10.0.0.1", 0), 0);
    assert_int_equal(take(rate, "10.0.0.2", 1000), 0);
    assert_int_equal(rate_limit_key_count(rate), 2);
    assert_int_equal(take(rate, "10.0.0.3", 1999), 0);
    assert_int_equal(rate_limit_key_count(rate), 3); /* 10.0.0.1 not full yet */
    assert_int_equal(take(rate, "10.0.0.3", 2000), 0);
    assert_int_equal(rate_limit_key_count(rate), 2); /* 10.0.0.1 was */
    assert_int_equal(take(rate, "10.0.0.3", 10000), 0);
    assert_int_equal(rate_limit_key_count(rate), 1); /* only the one in use */
    rate_limit_free(rate);
}

static void test_address_count_is_capped(void **state)
{
    (void)state;
    rate_limit *rate = limiter(1, 1, 3);
    static const char *const ADDRESSES[] = {"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(take(rate, ADDRESSES[i], 0), 0);
    assert_int_equal(rate_limit_key_count(rate), 3);
    /* The least recently used went: 10.0.0.1 starts again with a full bucket. */
    assert_int_equal(take(rate, "10.0.0.1", 0), 0);
    assert_true(take(rate, "10.0.0.4", 0) > 0);
    rate_limit_free(rate);
}

static void test_clock_going_back_adds_nothing(void **state)
{
    (void)state;
    rate_limit *rate = limiter(1, 1, 100);
    assert_int_equal(take(rate, "10.0.0.1", 5000), 0);
    assert_true(take(rate, "10.0.0.1", 4000) > 0);
    rate_limit_free(rate);
}

static void test_a_wait_takes_nothing(void **state)
{
    (void)state;
    rate_limit *rate = limiter(5.0 / 60.0, 2, 100); /* 5 a minute, 2 at once */
    uint64_t key = rate_limit_text_key("ada");
    assert_int_equal(rate_limit_wait(rate, key, 0), 0);
    assert_int_equal(rate_limit_key_count(rate), 0); /* asking adds no bucket */
    assert_int_equal(rate_limit_take(rate, key, 0), 0);
    assert_int_equal(rate_limit_wait(rate, key, 0), 0);
    assert_int_equal(rate_limit_take(rate, key, 0), 0);
    assert_int_equal(rate_limit_wait(rate, key, 0), 13); /* a token every 12 s, +1 */
    assert_int_equal(rate_limit_wait(rate, key, 0), 13); /* still: waiting took none */
    assert_int_equal(rate_limit_wait(rate, key, 11999), 1);
    assert_int_equal(rate_limit_wait(rate, key, 12000), 0);
    assert_int_equal(rate_limit_take(rate, key, 12000), 0);
    assert_true(rate_limit_take(rate, key, 12000) > 0);
    rate_limit_free(rate);
}

static void test_text_keys_differ_and_are_never_zero(void **state)
{
    (void)state;
    assert_int_not_equal(rate_limit_text_key("ada"), rate_limit_text_key("Ada"));
    assert_int_not_equal(rate_limit_text_key(""), 0);
    assert_int_equal(rate_limit_text_key("ada"), rate_limit_text_key("ada"));
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
        cmocka_unit_test(test_a_wait_takes_nothing),
        cmocka_unit_test(test_text_keys_differ_and_are_never_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_account_limits.c -- failed sign-ins and sign-ups counted
 * (lobby/account_limits.c), with plain values: the time written into each
 * event, names and addresses as text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lobby/account_limits.h"

#define T0 1000000

/* 3 failures a minute per name, 4 per address; 2 sign-ups an hour */
static const account_limits_config CONFIG = {3, 4, 2};

static account_limits limits;

static int setup(void **state)
{
    (void)state;
    assert_int_equal(account_limits_init(&limits, &CONFIG), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    account_limits_free(&limits);
    return 0;
}

static int apply(account_limits_event_kind kind, int64_t now_ms, const char *name_key,
                 const char *address)
{
    account_limits_event event = {kind, now_ms, name_key, address};
    return account_limits_apply(&limits, &event);
}

static int sign_in(int64_t now_ms, const char *name_key, const char *address)
{
    return apply(ACCOUNT_LIMITS_SIGN_IN, now_ms, name_key, address);
}

static void fail_sign_in(int64_t now_ms, const char *name_key, const char *address)
{
    assert_int_equal(apply(ACCOUNT_LIMITS_FAILED, now_ms, name_key, address), 0);
}

static void test_a_name_is_refused_after_its_failures_for_a_while(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(sign_in(T0, "ada", "192.0.2.1"), 0);
        fail_sign_in(T0, "ada", "192.0.2.1");
    }
    int wait_s = sign_in(T0, "ada", "192.0.2.9"); /* from anywhere */
    assert_in_range(wait_s, 20, 21);              /* one failure back every 20 s */
    assert_int_equal(sign_in(T0, "bob", "192.0.2.9"), 0);
    assert_int_equal(sign_in(T0 + 1000LL * wait_s, "ada", "192.0.2.9"), 0);
}

static void test_an_address_is_refused_after_its_failures_on_any_names(void **state)
{
    (void)state;
    const char *names[] = {"ada", "bob", "cy", "dee"};
    for (int i = 0; i < 4; i++)
        fail_sign_in(T0, names[i], "192.0.2.1");
    assert_in_range(sign_in(T0, "eve", "192.0.2.1"), 15, 16); /* one back every 15 s */
    assert_int_equal(sign_in(T0, "eve", "192.0.2.2"), 0);
}

static void test_the_longer_wait_counts(void **state)
{
    (void)state;
    fail_sign_in(T0, "ada", "192.0.2.1");
    fail_sign_in(T0, "bob", "192.0.2.1");
    fail_sign_in(T0, "cy", "192.0.2.1");
    fail_sign_in(T0, "dee", "192.0.2.1"); /* the address is out: 15 s */
    fail_sign_in(T0 + 1, "ada", "192.0.2.2");
    fail_sign_in(T0 + 2, "ada", "192.0.2.3"); /* and "ada" too: 20 s */
    assert_in_range(sign_in(T0 + 2, "ada", "192.0.2.1"), 20, 21);
    assert_in_range(sign_in(T0 + 2, "bob", "192.0.2.1"), 15, 16);
}

static void test_asking_counts_nothing(void **state)
{
    (void)state;
    for (int i = 0; i < 100; i++)
        assert_int_equal(sign_in(T0, "ada", "192.0.2.1"), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(apply(ACCOUNT_LIMITS_REGISTER, T0, NULL, "192.0.2.1"), 0);
}

static void test_an_ipv6_block_counts_as_one_address(void **state)
{
    (void)state;
    const char *names[] = {"ada", "bob", "cy", "dee"};
    for (int i = 0; i < 4; i++)
        fail_sign_in(T0, names[i], i % 2 ? "2001:db8::1" : "2001:db8::2");
    assert_true(sign_in(T0, "eve", "2001:db8::ffff") > 0);
    assert_int_equal(sign_in(T0, "eve", "2001:db8:0:1::1"), 0); /* another /64 */
}

static void test_sign_ups_are_limited_per_address_an_hour(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(apply(ACCOUNT_LIMITS_REGISTER, T0, NULL, "192.0.2.1"), 0);
        assert_int_equal(apply(ACCOUNT_LIMITS_REGISTERED, T0, NULL, "192.0.2.1"), 0);
    }
    int wait_s = apply(ACCOUNT_LIMITS_REGISTER, T0, NULL, "192.0.2.1");
    assert_in_range(wait_s, 1800, 1801); /* one back every half hour */
    assert_int_equal(apply(ACCOUNT_LIMITS_REGISTER, T0, NULL, "192.0.2.2"), 0);
    assert_int_equal(sign_in(T0, "ada", "192.0.2.1"), 0); /* sign-ins count apart */
    assert_int_equal(apply(ACCOUNT_LIMITS_REGISTER, T0 + 1000LL * wait_s, NULL, "192.0.2.1"), 0);
}

static void test_failed_sign_ins_do_not_limit_sign_ups(void **state)
{
    (void)state;
    const char *names[] = {"ada", "bob", "cy", "dee"};
    for (int i = 0; i < 4; i++)
        fail_sign_in(T0, names[i], "192.0.2.1");
    assert_int_equal(apply(ACCOUNT_LIMITS_REGISTER, T0, NULL, "192.0.2.1"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_a_name_is_refused_after_its_failures_for_a_while,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_address_is_refused_after_its_failures_on_any_names,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_longer_wait_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_asking_counts_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_ipv6_block_counts_as_one_address, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sign_ups_are_limited_per_address_an_hour, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_failed_sign_ins_do_not_limit_sign_ups, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

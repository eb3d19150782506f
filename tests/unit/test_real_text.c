/* test_real_text.c -- a double written as "%.17g" without printf
 * (protocol/real_text.c): the text must be snprintf's, byte for byte, for
 * every kind of value -- the exact range's edges, halfway cases rounded to
 * even, values just below a power of ten, and those it hands to snprintf. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/real_text.h"

/* real_text(value) is snprintf's "%.17g" of it. */
static void assert_as_printf(double value)
{
    char expected[64], text[REAL_TEXT_SIZE];
    int expected_length = snprintf(expected, sizeof(expected), "%.17g", value);
    int length = real_text(value, text);
    if (length != expected_length || strcmp(text, expected) != 0)
        fail_msg("%a: real_text wrote '%s', printf '%s'", value, text, expected);
}

/* A small generator of its own, so a failure reproduces. */
static uint64_t next_bits(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void test_chosen_values_read_as_printf_writes_them(void **state)
{
    (void)state;
    const double values[] = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             0.1,
                             25.0,
                             8.333333333333334,
                             12.904158516655581,
                             1e-15,
                             9.99e-16,
                             1e-5,
                             1e-4,
                             0.00012345,
                             1e16,
                             9.9999999999999998e16,
                             1e17,
                             123456789.125,
                             1 + 0x1p-17, /* 18 digits ending in 5: a halfway case */
                             3 + 0x1p-17,
                             1 + 0x1p-52,
                             DBL_MAX,
                             DBL_MIN,
                             DBL_TRUE_MIN,
                             INFINITY,
                             -INFINITY,
                             NAN};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
        assert_as_printf(values[i]);
}

/* Every power of ten in and around the range, and its neighbours. */
static void test_powers_of_ten_and_their_neighbours(void **state)
{
    (void)state;
    for (int e = -20; e <= 20; e++) {
        double power = pow(10, e);
        assert_as_printf(power);
        assert_as_printf(nextafter(power, 0));
        assert_as_printf(nextafter(power, INFINITY));
        assert_as_printf(-power);
    }
}

/* Short binary fractions have short decimal expansions: many of them end
 * exactly halfway between two 17-digit numbers. */
static void test_halfway_cases_round_as_printf_rounds_them(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 200000; i++) {
        double odd = (double)(next_bits(&seed) % (1u << 21) | 1);
        int shift = (int)(next_bits(&seed) % 70);
        assert_as_printf(ldexp(odd, -shift));
        assert_as_printf(ldexp(odd, shift % 40));
    }
}

/* Doubles of every exponent, from their raw bits. */
static void test_random_doubles_read_as_printf_writes_them(void **state)
{
    (void)state;
    uint64_t seed = 0x2545f4914f6cdd1du;
    for (int i = 0; i < 300000; i++) {
        uint64_t bits = next_bits(&seed);
        double value;
        memcpy(&value, &bits, sizeof(value));
        assert_as_printf(value);
        /* and one in the ratings' range */
        double uniform = (double)(next_bits(&seed) >> 11) / 9007199254740992.0;
        assert_as_printf((uniform - 0.25) * 120);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chosen_values_read_as_printf_writes_them),
        cmocka_unit_test(test_powers_of_ten_and_their_neighbours),
        cmocka_unit_test(test_halfway_cases_round_as_printf_rounds_them),
        cmocka_unit_test(test_random_doubles_read_as_printf_writes_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_histogram.c -- an observation lands in the first bucket whose bound
 * it does not exceed; past the last bound it only counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/histogram.h"

static void bounds_ascend_from_100_us_to_10_s(void **state)
{
    (void)state;
    assert_true(HISTOGRAM_BOUNDS_S[0] == 0.0001);
    assert_true(HISTOGRAM_BOUNDS_S[HISTOGRAM_BUCKETS - 1] == 10.0);
    for (int i = 1; i < HISTOGRAM_BUCKETS; i++)
        assert_true(HISTOGRAM_BOUNDS_S[i] > HISTOGRAM_BOUNDS_S[i - 1]);
}

static void observations_land_in_their_bucket(void **state)
{
    (void)state;
    histogram figures = {{0}, 0, 0.0};
    histogram_observe(&figures, 0.0);    /* below the first bound */
    histogram_observe(&figures, 0.0001); /* exactly the first bound */
    histogram_observe(&figures, 0.0002); /* the second */
    histogram_observe(&figures, 10.0);   /* exactly the last */
    histogram_observe(&figures, 60.0);   /* past it: counted, in no bucket */
    assert_int_equal(figures.buckets[0], 2);
    assert_int_equal(figures.buckets[1], 1);
    assert_int_equal(figures.buckets[HISTOGRAM_BUCKETS - 1], 1);
    uint64_t in_buckets = 0;
    for (int i = 0; i < HISTOGRAM_BUCKETS; i++)
        in_buckets += figures.buckets[i];
    assert_int_equal(in_buckets, 4);
    assert_int_equal(figures.count, 5);
    assert_true(figures.sum_s > 70.00029 && figures.sum_s < 70.00031);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bounds_ascend_from_100_us_to_10_s),
        cmocka_unit_test(observations_land_in_their_bucket),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_elo.c -- the Elo arithmetic of the selfplay ladder, on figures
 * worked out by hand from the logistic model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/elo.h"

#define TOLERANCE 0.05

static void assert_near(double actual, double expected)
{
    if (actual < expected - TOLERANCE || actual > expected + TOLERANCE)
        fail_msg("%.3f is not %.3f", actual, expected);
}

/* An even score is no difference; 100 games put the 95% interval at a
 * score of 0.5 +- 0.098: 400 log10(0.402 / 0.598) = -69.0 Elo, and +69.0. */
static void test_even_score_is_zero_with_a_symmetric_interval(void **state)
{
    (void)state;
    elo_estimate e = elo_from_score(0.5, 100);
    assert_near(e.elo, 0.0);
    assert_near(e.low, -68.99);
    assert_near(e.high, 68.99);
}

/* 3 wins in 4 is 400 log10(3) = 190.85 Elo; 9 in 10 is 381.70. */
static void test_scores_give_the_logistic_differences(void **state)
{
    (void)state;
    assert_near(elo_from_score(0.75, 100).elo, 190.85);
    assert_near(elo_from_score(0.9, 1000).elo, 381.70);
    assert_near(elo_from_score(0.25, 100).elo, -190.85);
    elo_estimate e = elo_from_score(0.75, 100); /* s in 0.75 +- 0.0849 */
    assert_near(e.low, 119.21);                 /* 400 log10(0.66513 / 0.33487) */
    assert_true(e.high > e.elo && e.low < e.elo);
}

/* A clean sweep is clamped to half a game from the end: a score of 0.995
 * over 100 games, 400 log10(199) = 919.54 Elo, not infinity. */
static void test_a_sweep_is_clamped_to_half_a_game(void **state)
{
    (void)state;
    assert_near(elo_from_score(1.0, 100).elo, 919.54);
    assert_near(elo_from_score(0.0, 100).elo, -919.54);
    elo_estimate e = elo_from_score(1.0, 100);
    assert_true(e.high <= e.elo + TOLERANCE);
}

/* Ratings add up the pairings from the anchor, and so do the variances:
 * two pairings of 100 games at 0.75 each give 381.7 with a half-width of
 * 1.96 * sqrt(2) * 400 / ln 10 * sqrt(0.75 * 0.25 / 100) / (0.75 * 0.25). */
static void test_the_ladder_chains_differences_and_variances(void **state)
{
    (void)state;
    double scores[] = {0.75, 0.75, 0.5};
    long games[] = {100, 100, 400};
    elo_estimate ratings[4];
    elo_ladder(scores, games, 3, ratings);
    assert_near(ratings[0].elo, 0.0);
    assert_near(ratings[0].low, 0.0);
    assert_near(ratings[1].elo, 190.85);
    assert_near(ratings[2].elo, 381.70);
    double one = 400.0 / 2.302585 * 0.0433013 / 0.1875; /* 40.11 Elo */
    assert_near(ratings[1].high - ratings[1].elo, 1.96 * one);
    assert_near(ratings[2].high - ratings[2].elo, 1.96 * 1.414214 * one);
    assert_near(ratings[3].elo, 381.70);
    assert_true(ratings[3].high - ratings[3].elo > ratings[2].high - ratings[2].elo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_even_score_is_zero_with_a_symmetric_interval),
        cmocka_unit_test(test_scores_give_the_logistic_differences),
        cmocka_unit_test(test_a_sweep_is_clamped_to_half_a_game),
        cmocka_unit_test(test_the_ladder_chains_differences_and_variances),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_tournament_plan.c -- tournament schedules, points and seeds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lobby/tournament_plan.h"

static void test_round_robin_plays_every_seating_of_every_group_once(void **state)
{
    (void)state;
    int count = tournament_plan_count(TOURNAMENT_ROUND_ROBIN, 5, 3, 0);
    assert_int_equal(count, 10 * 6);
    /* every ordered triple of distinct entries appears exactly once */
    int seen[5][5][5];
    memset(seen, 0, sizeof(seen));
    for (int number = 0; number < count; number++) {
        int seating[3];
        assert_int_equal(tournament_plan_game(TOURNAMENT_ROUND_ROBIN, 5, 3, 0, number, seating), 0);
        assert_true(seating[0] != seating[1] && seating[1] != seating[2] &&
                    seating[0] != seating[2]);
        seen[seating[0]][seating[1]][seating[2]]++;
    }
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            for (int c = 0; c < 5; c++)
                assert_int_equal(seen[a][b][c], a != b && b != c && a != c);
    int seating[3];
    assert_int_equal(tournament_plan_game(TOURNAMENT_ROUND_ROBIN, 5, 3, 0, count, seating), -1);
}

static void test_round_robin_of_two_is_both_seatings_in_order(void **state)
{
    (void)state;
    int seating[2];
    assert_int_equal(tournament_plan_count(TOURNAMENT_ROUND_ROBIN, 2, 2, 0), 2);
    assert_int_equal(tournament_plan_game(TOURNAMENT_ROUND_ROBIN, 2, 2, 0, 0, seating), 0);
    assert_true(seating[0] == 0 && seating[1] == 1);
    assert_int_equal(tournament_plan_game(TOURNAMENT_ROUND_ROBIN, 2, 2, 0, 1, seating), 0);
    assert_true(seating[0] == 1 && seating[1] == 0);
}

static void test_fixed_rotates_the_seating_of_each_group(void **state)
{
    (void)state;
    assert_int_equal(tournament_plan_count(TOURNAMENT_FIXED, 4, 4, 3), 3);
    int expected[3][4] = {{0, 1, 2, 3}, {1, 2, 3, 0}, {2, 3, 0, 1}};
    for (int number = 0; number < 3; number++) {
        int seating[4];
        assert_int_equal(tournament_plan_game(TOURNAMENT_FIXED, 4, 4, 3, number, seating), 0);
        assert_memory_equal(seating, expected[number], sizeof(seating));
    }
    /* 3 entries in pairs: groups {0,1} {0,2} {1,2}, two games each */
    assert_int_equal(tournament_plan_count(TOURNAMENT_FIXED, 3, 2, 2), 6);
    int seating[2];
    assert_int_equal(tournament_plan_game(TOURNAMENT_FIXED, 3, 2, 2, 5, seating), 0);
    assert_true(seating[0] == 2 && seating[1] == 1);
}

static void test_plans_too_big_or_senseless_are_refused(void **state)
{
    (void)state;
    assert_int_equal(tournament_plan_count(TOURNAMENT_ROUND_ROBIN, 12, 4, 0), -1); /* 11,880 */
    assert_int_equal(tournament_plan_count(TOURNAMENT_ROUND_ROBIN, 3, 4, 0), -1);
    assert_int_equal(tournament_plan_count(TOURNAMENT_FIXED, 4, 2, 0), -1);
    assert_int_equal(tournament_plan_count(TOURNAMENT_SWISS, 4, 2, 0), -1);
    assert_int_equal(tournament_plan_count(TOURNAMENT_FIXED, 64, 2, 1), -1); /* 2,016 */
    assert_int_equal(tournament_plan_count(TOURNAMENT_FIXED, 45, 2, 1), 990);
}

static void test_points_count_seats_beaten_and_half_the_ties(void **state)
{
    (void)state;
    int ranks[] = {2, 1, 2, 4};
    double points[4];
    tournament_points(4, ranks, points);
    assert_float_equal(points[0], 1.5, 0);
    assert_float_equal(points[1], 3.0, 0);
    assert_float_equal(points[2], 1.5, 0);
    assert_float_equal(points[3], 0.0, 0);
    int draw[] = {1, 1};
    tournament_points(2, draw, points);
    assert_float_equal(points[0], 0.5, 0);
}

static void test_formats_and_seeds(void **state)
{
    (void)state;
    tournament_format format;
    assert_int_equal(tournament_format_parse("swiss", &format), 0);
    assert_int_equal(format, TOURNAMENT_SWISS);
    assert_string_equal(tournament_format_name(TOURNAMENT_ROUND_ROBIN), "round-robin");
    assert_int_equal(tournament_format_parse("knockout", &format), -1);
    assert_true(tournament_game_seed(7, 0) == tournament_game_seed(7, 0));
    assert_true(tournament_game_seed(7, 0) != tournament_game_seed(7, 1));
    assert_true(tournament_game_seed(7, 0) != tournament_game_seed(8, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_robin_plays_every_seating_of_every_group_once),
        cmocka_unit_test(test_round_robin_of_two_is_both_seatings_in_order),
        cmocka_unit_test(test_fixed_rotates_the_seating_of_each_group),
        cmocka_unit_test(test_plans_too_big_or_senseless_are_refused),
        cmocka_unit_test(test_points_count_seats_beaten_and_half_the_ties),
        cmocka_unit_test(test_formats_and_seeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_swiss.c -- Swiss pairing (lobby/swiss.c): who meets whom. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/rng.h"
#include "lobby/swiss.h"

#define MAX SWISS_MAX_PLAYERS

struct event {
    int count;
    double points[MAX];
    bool had_bye[MAX];
    bool has_met[MAX * MAX];
    int byes[MAX];
};

static void start(struct event *event, int count)
{
    memset(event, 0, sizeof(*event));
    event->count = count;
}

/* Pairs a round, checks it covers everyone once, and plays it out with
 * random results (the better placed wins 2 times in 3). */
static swiss_round play_round(struct event *event, rng *random)
{
    swiss_round round;
    assert_int_equal(
        swiss_pair(event->count, event->points, event->had_bye, event->has_met, &round), 0);
    int seen[MAX] = {0};
    for (int p = 0; p < round.pair_count; p++) {
        int a = round.pairs[p][0], b = round.pairs[p][1];
        assert_true(a != b);
        seen[a]++;
        seen[b]++;
        event->has_met[a * event->count + b] = event->has_met[b * event->count + a] = true;
        event->points[rng_below(random, 3) ? a : b] += 1.0;
    }
    if (round.bye >= 0) {
        seen[round.bye]++;
        event->had_bye[round.bye] = true;
        event->byes[round.bye]++;
        event->points[round.bye] += 1.0;
    }
    for (int i = 0; i < event->count; i++)
        assert_int_equal(seen[i], 1);
    assert_int_equal(round.bye >= 0, event->count % 2);
    return round;
}

static void test_first_round_pairs_neighbours_by_place(void **state)
{
    (void)state;
    struct event event;
    start(&event, 4);
    double points[4] = {1, 3, 2, 0};
    memcpy(event.points, points, sizeof(points));
    swiss_round round;
    assert_int_equal(swiss_pair(4, event.points, event.had_bye, event.has_met, &round), 0);
    assert_int_equal(round.pair_count, 2);
    assert_int_equal(round.pairs[0][0], 1); /* 3 points meets 2 points */
    assert_int_equal(round.pairs[0][1], 2);
    assert_int_equal(round.pairs[1][0], 0);
    assert_int_equal(round.pairs[1][1], 3);
    assert_false(round.has_repeats);
}

/* Whether the players not yet in `used` can all be paired without a
 * rematch (brute force: the fields here are small). */
static bool rematch_free_pairing_exists(const struct event *event, bool *used)
{
    int first = 0;
    while (first < event->count && used[first])
        first++;
    if (first == event->count)
        return true;
    used[first] = true;
    for (int other = first + 1; other < event->count; other++) {
        if (used[other] || event->has_met[first * event->count + other])
            continue;
        used[other] = true;
        bool exists = rematch_free_pairing_exists(event, used);
        used[other] = false;
        if (exists) {
            used[first] = false;
            return true;
        }
    }
    used[first] = false;
    return false;
}

/* Round after round of random results, for fields of 6 and 8: whenever
 * the round can be paired with no rematch, it is. (A Swiss pairs one round
 * at a time, so a late round may have no such pairing left.) */
static void test_no_rematch_while_a_pairing_avoids_it(void **state)
{
    (void)state;
    int rounds_checked = 0;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        for (int count = 6; count <= 8; count += 2) {
            rng random = rng_seeded(seed);
            struct event event;
            start(&event, count);
            for (int r = 0; r < count; r++) {
                bool used[MAX] = {false};
                bool is_avoidable = rematch_free_pairing_exists(&event, used);
                assert_int_equal(play_round(&event, &random).has_repeats, !is_avoidable);
                rounds_checked += is_avoidable;
            }
        }
    }
    assert_true(rounds_checked > 500);
}

static void test_byes_go_round_before_anyone_gets_a_second(void **state)
{
    (void)state;
    rng random = rng_seeded(7);
    struct event event;
    start(&event, 7);
    for (int r = 0; r < 7; r++)
        play_round(&event, &random);
    for (int i = 0; i < 7; i++)
        assert_int_equal(event.byes[i], 1);
}

static void test_rematches_only_when_nothing_else_is_left(void **state)
{
    (void)state;
    rng random = rng_seeded(3);
    struct event event;
    start(&event, 4);
    for (int r = 0; r < 3; r++)
        assert_false(play_round(&event, &random).has_repeats);
    assert_true(play_round(&event, &random).has_repeats); /* everyone met everyone */
}

static void test_a_field_out_of_range_is_refused(void **state)
{
    (void)state;
    struct event event;
    start(&event, 1);
    swiss_round round;
    assert_int_equal(swiss_pair(1, event.points, event.had_bye, event.has_met, &round), -1);
    assert_int_equal(swiss_pair(MAX + 1, event.points, event.had_bye, event.has_met, &round), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_round_pairs_neighbours_by_place),
        cmocka_unit_test(test_no_rematch_while_a_pairing_avoids_it),
        cmocka_unit_test(test_byes_go_round_before_anyone_gets_a_second),
        cmocka_unit_test(test_rematches_only_when_nothing_else_is_left),
        cmocka_unit_test(test_a_field_out_of_range_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

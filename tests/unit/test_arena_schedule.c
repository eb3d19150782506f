/* test_arena_schedule.c -- when an arena starts (lobby/arena_schedule.c),
 * with plain values: ticks with the time written in, and the store's
 * answers given by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lobby/arena_schedule.h"

#define HOUR_MS 3600000LL
/* 2026-11-26 10:00:00 UTC, a start of an hourly arena */
#define T0 1795687200000LL

static arena_schedule schedule;
static arena_schedule_effect effect;

static int setup(void **state)
{
    (void)state;
    schedule = (arena_schedule){0}; /* as after a start-up */
    return 0;
}

static arena_schedule_action tick(int64_t now_ms)
{
    arena_schedule_event event = {
        .kind = ARENA_SCHEDULE_TICK, .now_ms = now_ms, .period_ms = HOUR_MS};
    arena_schedule_apply(&schedule, &event, &effect);
    return effect.action;
}

static arena_schedule_action answer(arena_schedule_event event)
{
    arena_schedule_apply(&schedule, &event, &effect);
    return effect.action;
}

static arena_schedule_action never(void)
{
    return answer((arena_schedule_event){.kind = ARENA_SCHEDULE_NEVER});
}

static arena_schedule_action last_start(int64_t at_ms)
{
    return answer(
        (arena_schedule_event){.kind = ARENA_SCHEDULE_LAST_START, .last_start_ms = at_ms});
}

static void test_an_arena_starts_at_its_period_start(void **state)
{
    (void)state;
    assert_int_equal(T0 % HOUR_MS, 0);
    assert_int_equal(tick(T0 - 1), ARENA_SCHEDULE_NOTHING); /* the last period's 59th minute */
    assert_int_equal(tick(T0 + 5), ARENA_SCHEDULE_READ);
    assert_int_equal(effect.period_start_ms, T0);
    assert_int_equal(never(), ARENA_SCHEDULE_START);
    assert_int_equal(effect.period_start_ms, T0); /* named after the period, not the tick */
}

static void test_a_period_starts_once_and_the_next_is_due_a_period_later(void **state)
{
    (void)state;
    assert_int_equal(tick(T0), ARENA_SCHEDULE_READ);
    assert_int_equal(never(), ARENA_SCHEDULE_START);
    assert_int_equal(tick(T0 + 100), ARENA_SCHEDULE_NOTHING);
    assert_int_equal(tick(T0 + HOUR_MS - 1), ARENA_SCHEDULE_NOTHING);
    assert_int_equal(tick(T0 + HOUR_MS), ARENA_SCHEDULE_READ);
    assert_int_equal(effect.period_start_ms, T0 + HOUR_MS);
    assert_int_equal(last_start(T0), ARENA_SCHEDULE_START); /* the last one was an hour ago */
    assert_int_equal(effect.period_start_ms, T0 + HOUR_MS);
}

static void test_a_restart_within_the_period_does_not_start_it_again(void **state)
{
    (void)state;
    assert_int_equal(tick(T0 + 10), ARENA_SCHEDULE_READ);
    assert_int_equal(last_start(T0), ARENA_SCHEDULE_NOTHING); /* stored before the restart */
    assert_int_equal(tick(T0 + 20), ARENA_SCHEDULE_NOTHING);  /* settled: no read again */
    assert_int_equal(tick(T0 + HOUR_MS), ARENA_SCHEDULE_READ);
}

static void test_a_server_up_late_in_a_period_waits_for_the_next(void **state)
{
    (void)state;
    assert_int_equal(tick(T0 + ARENA_SCHEDULE_LATE_MS), ARENA_SCHEDULE_NOTHING);
    assert_int_equal(tick(T0 + HOUR_MS - 1), ARENA_SCHEDULE_NOTHING);
    assert_int_equal(tick(T0 + HOUR_MS + ARENA_SCHEDULE_LATE_MS - 1), ARENA_SCHEDULE_READ);
    assert_int_equal(effect.period_start_ms, T0 + HOUR_MS);
}

static void test_periods_missed_while_down_are_not_made_up(void **state)
{
    (void)state;
    assert_int_equal(tick(T0), ARENA_SCHEDULE_READ);
    assert_int_equal(never(), ARENA_SCHEDULE_START);
    /* down for a day and half an hour: the day's periods are gone */
    assert_int_equal(tick(T0 + 24 * HOUR_MS + HOUR_MS / 2), ARENA_SCHEDULE_NOTHING);
    assert_int_equal(tick(T0 + 25 * HOUR_MS), ARENA_SCHEDULE_READ);
    assert_int_equal(last_start(T0), ARENA_SCHEDULE_START);
    assert_int_equal(effect.period_start_ms, T0 + 25 * HOUR_MS);
}

static void test_a_failed_read_is_asked_again_on_the_next_tick(void **state)
{
    (void)state;
    assert_int_equal(tick(T0), ARENA_SCHEDULE_READ);
    assert_int_equal(answer((arena_schedule_event){.kind = ARENA_SCHEDULE_READ_FAILED}),
                     ARENA_SCHEDULE_NOTHING);
    assert_int_equal(tick(T0 + 100), ARENA_SCHEDULE_READ);
    assert_int_equal(never(), ARENA_SCHEDULE_START);
}

static void test_one_read_at_a_time(void **state)
{
    (void)state;
    assert_int_equal(tick(T0), ARENA_SCHEDULE_READ);
    assert_int_equal(tick(T0 + 100), ARENA_SCHEDULE_NOTHING); /* its answer is still out */
    assert_int_equal(never(), ARENA_SCHEDULE_START);
    assert_int_equal(never(), ARENA_SCHEDULE_NOTHING); /* an answer nobody asked for */
}

static void test_periods_are_counted_from_the_epoch(void **state)
{
    (void)state;
    arena_schedule_event event = {
        .kind = ARENA_SCHEDULE_TICK, .now_ms = T0 + 30000, .period_ms = 600000};
    arena_schedule_apply(&schedule, &event, &effect); /* every 10 minutes: on the 10 */
    assert_int_equal(effect.action, ARENA_SCHEDULE_READ);
    assert_int_equal(effect.period_start_ms, T0);
    assert_int_equal(never(), ARENA_SCHEDULE_START);
    event.now_ms = T0 + 600000 + 59999;
    arena_schedule_apply(&schedule, &event, &effect);
    assert_int_equal(effect.action, ARENA_SCHEDULE_READ);
    assert_int_equal(effect.period_start_ms, T0 + 600000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_an_arena_starts_at_its_period_start, setup),
        cmocka_unit_test_setup(test_a_period_starts_once_and_the_next_is_due_a_period_later, setup),
        cmocka_unit_test_setup(test_a_restart_within_the_period_does_not_start_it_again, setup),
        cmocka_unit_test_setup(test_a_server_up_late_in_a_period_waits_for_the_next, setup),
        cmocka_unit_test_setup(test_periods_missed_while_down_are_not_made_up, setup),
        cmocka_unit_test_setup(test_a_failed_read_is_asked_again_on_the_next_tick, setup),
        cmocka_unit_test_setup(test_one_read_at_a_time, setup),
        cmocka_unit_test_setup(test_periods_are_counted_from_the_epoch, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* arena_schedule.c -- when an arena starts (arena_schedule.h). */
#include <stdbool.h>

#include "lobby/arena_schedule.h"

static void tick(arena_schedule *schedule, int64_t now_ms, int64_t period_ms,
                 arena_schedule_effect *effect)
{
    int64_t start = now_ms - now_ms % period_ms;
    bool is_late = now_ms - start >= ARENA_SCHEDULE_LATE_MS;
    if (schedule->reading_ms != 0 || schedule->settled_ms == start || is_late)
        return;
    schedule->reading_ms = start;
    *effect = (arena_schedule_effect){ARENA_SCHEDULE_READ, start};
}

/* The read's answer: `has_started` whether the arena ever started, and
 * `last_start_ms` when it last did. */
static void answer(arena_schedule *schedule, bool has_started, int64_t last_start_ms,
                   arena_schedule_effect *effect)
{
    int64_t start = schedule->reading_ms;
    if (start == 0)
        return; /* no read is out */
    schedule->reading_ms = 0;
    schedule->settled_ms = start;
    if (has_started && last_start_ms >= start)
        return; /* started already in this period (before a restart) */
    *effect = (arena_schedule_effect){ARENA_SCHEDULE_START, start};
}

void arena_schedule_apply(arena_schedule *schedule, const arena_schedule_event *event,
                          arena_schedule_effect *effect)
{
    *effect = (arena_schedule_effect){ARENA_SCHEDULE_NOTHING, 0};
    switch (event->kind) {
    case ARENA_SCHEDULE_TICK:
        tick(schedule, event->now_ms, event->period_ms, effect);
        break;
    case ARENA_SCHEDULE_LAST_START:
        answer(schedule, true, event->last_start_ms, effect);
        break;
    case ARENA_SCHEDULE_NEVER:
        answer(schedule, false, 0, effect);
        break;
    case ARENA_SCHEDULE_READ_FAILED:
        schedule->reading_ms = 0; /* the next tick asks again */
        break;
    }
}

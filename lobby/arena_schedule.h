/* arena_schedule.h -- when an arena starts: its timing rule as a pure
 * machine.
 *
 *     arena_schedule_apply(schedule, event) -> effect (the state changed in place)
 *
 * An arena starts at every multiple of its period since the Unix epoch, and
 * only in the first ARENA_SCHEDULE_LATE_MS of it: a server that comes up
 * later in a period (a restart, a long downtime) waits for the next one
 * rather than start out of time, and missed periods are never made up.
 * Each period is settled once: on a tick in its first minute the machine
 * asks for the arena's last stored start (ARENA_SCHEDULE_READ); the answer
 * is an event, and the period is started (ARENA_SCHEDULE_START) unless the
 * store says it started already (a restart within the period), or skipped
 * that way. A read that failed settles nothing: the next tick asks again.
 * While a read is out, ticks ask nothing more.
 *
 * The time, the period and the store's answer are part of the events:
 * nothing here reads a clock or the store. lobby/arena.c is the shell
 * that reads and starts tournaments. The state is changed in place, as
 * it stores no records; its zero value is an arena that has looked at no
 * period yet (as after a start-up). */
#ifndef TESSERA_ARENA_SCHEDULE_H
#define TESSERA_ARENA_SCHEDULE_H

#include <stdint.h>

/* How late in its period an arena may still start. */
#define ARENA_SCHEDULE_LATE_MS 60000

typedef struct arena_schedule {
    int64_t settled_ms; /* the start of the period last settled; 0: none */
    int64_t reading_ms; /* the start of the period whose read is out; 0: none */
} arena_schedule;

typedef enum arena_schedule_event_kind {
    ARENA_SCHEDULE_TICK,       /* `now_ms`; the arena's period is `period_ms` */
    ARENA_SCHEDULE_LAST_START, /* the read's answer: `last_start_ms` */
    ARENA_SCHEDULE_NEVER,      /* the read's answer: the arena never started */
    ARENA_SCHEDULE_READ_FAILED /* the read's answer: the store failed */
} arena_schedule_event_kind;

typedef struct arena_schedule_event {
    arena_schedule_event_kind kind;
    int64_t now_ms;        /* TICK */
    int64_t period_ms;     /* TICK */
    int64_t last_start_ms; /* LAST_START: the start of its last tournament */
} arena_schedule_event;

typedef enum arena_schedule_action {
    ARENA_SCHEDULE_NOTHING,
    ARENA_SCHEDULE_READ, /* read the arena's last start, and answer with an event */
    ARENA_SCHEDULE_START /* start the arena's tournament of the period */
} arena_schedule_action;

typedef struct arena_schedule_effect {
    arena_schedule_action action;
    int64_t period_start_ms; /* READ, START: the period's start */
} arena_schedule_effect;

/* Runs `event` on `schedule`; *effect says what the shell does next. */
void arena_schedule_apply(arena_schedule *schedule, const arena_schedule_event *event,
                          arena_schedule_effect *effect);

#endif

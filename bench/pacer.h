/* pacer.h -- hands out move permits at a target total rate.
 *
 * In paced mode every seat that is to move asks the pacer for a permit
 * before it sends its game.moves and game.move; permits are granted in
 * the order they were asked for, at `rate` per second for the whole
 * process, from a 1 ms timer. Credit that finds nobody waiting is kept
 * only up to MAX_BANKED_MS worth, so an idle moment is not made up later
 * by a burst. With a rate of 0 (as fast as allowed) a permit is granted
 * at once, inside pacer_request.
 *
 * Waiters are intrusive (a pacer_waiter lives in the seat that waits), so
 * the pacer allocates nothing; a waiter may wait for one permit at a time. */
#ifndef TESSERA_BENCH_PACER_H
#define TESSERA_BENCH_PACER_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

typedef struct pacer_waiter pacer_waiter;
struct pacer_waiter {
    pacer_waiter *next;
    void (*on_granted)(pacer_waiter *waiter);
};

typedef struct pacer {
    uv_timer_t timer;
    double rate;   /* permits per second; 0: no pacing */
    double credit; /* permits earned and not yet given */
    uint64_t last_tick_ns;
    pacer_waiter *head, *tail;
    bool is_stopped;
} pacer;

/* Starts a pacer on `loop` (no timer when `rate` is 0); 0 or a uv error. */
int pacer_init(pacer *p, uv_loop_t *loop, double rate);

/* Asks for a permit: `waiter->on_granted` is called when it is granted,
 * at once when the pacer does not pace. Nothing is granted once stopped. */
void pacer_request(pacer *p, pacer_waiter *waiter);

/* Stops granting and closes the timer (the loop must run for it to close). */
void pacer_stop(pacer *p);

#endif

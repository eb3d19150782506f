/* pacer.c -- a token bucket drained by a FIFO of waiting seats (see pacer.h).
 *
 * The credit is computed from uv_hrtime at each tick rather than by
 * counting ticks, because a loop busy with I/O fires a 1 ms timer late
 * and the rate would drift low. */
#include "bench/pacer.h"

#define TICK_MS       1
#define MAX_BANKED_MS 10.0

static void grant_due(pacer *p)
{
    while (p->head && p->credit >= 1.0 && !p->is_stopped) {
        pacer_waiter *waiter = p->head;
        p->head = waiter->next;
        if (!p->head)
            p->tail = NULL;
        waiter->next = NULL;
        p->credit -= 1.0;
        waiter->on_granted(waiter);
    }
}

static void on_tick(uv_timer_t *timer)
{
    pacer *p = timer->data;
    uint64_t now_ns = uv_hrtime();
    double banked_max = p->rate * MAX_BANKED_MS / 1000.0;
    p->credit += p->rate * (double)(now_ns - p->last_tick_ns) / 1e9;
    p->last_tick_ns = now_ns;
    grant_due(p);
    if (!p->head && p->credit > banked_max)
        p->credit = banked_max < 1.0 ? 1.0 : banked_max;
}

int pacer_init(pacer *p, uv_loop_t *loop, double rate)
{
    p->rate = rate;
    p->credit = 0;
    p->head = p->tail = NULL;
    p->is_stopped = false;
    p->last_tick_ns = uv_hrtime();
    p->timer.data = p;
    int rc = uv_timer_init(loop, &p->timer);
    if (rc < 0 || rate <= 0)
        return rc;
    return uv_timer_start(&p->timer, on_tick, TICK_MS, TICK_MS);
}

void pacer_request(pacer *p, pacer_waiter *waiter)
{
    if (p->is_stopped)
        return;
    if (p->rate <= 0) {
        waiter->on_granted(waiter);
        return;
    }
    waiter->next = NULL;
    if (p->tail)
        p->tail->next = waiter;
    else
        p->head = waiter;
    p->tail = waiter;
}

void pacer_stop(pacer *p)
{
    if (p->is_stopped)
        return;
    p->is_stopped = true;
    p->head = p->tail = NULL;
    uv_close((uv_handle_t *)&p->timer, NULL);
}

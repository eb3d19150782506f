/* room_wake.c -- when each room next wants to look at the time.
 *
 * A room that has a clock running, a player away within the grace, or a
 * finished game on display names the moment it must be woken (match's
 * wake_at_ms). The rooms with such a moment sit in a binary min-heap keyed
 * by it, each knowing its place (wake_index), so changing a room's moment
 * is O(log rooms) and the tick pops only the rooms that are due: its cost
 * does not grow with rooms that have nothing to do. */
#include <stdlib.h>

#include "lobby/lobby_internal.h"

static bool is_earlier(const struct room *a, const struct room *b)
{
    return a->wake_at_ms < b->wake_at_ms;
}

static void place(struct lobby *l, size_t index, struct room *r)
{
    l->wake_heap[index] = r;
    r->wake_index = index;
}

static void sift_up(struct lobby *l, size_t index)
{
    struct room *r = l->wake_heap[index];
    while (index > 0 && is_earlier(r, l->wake_heap[(index - 1) / 2])) {
        place(l, index, l->wake_heap[(index - 1) / 2]);
        index = (index - 1) / 2;
    }
    place(l, index, r);
}

static void sift_down(struct lobby *l, size_t index)
{
    struct room *r = l->wake_heap[index];
    for (;;) {
        size_t child = 2 * index + 1;
        if (child >= l->wake_count)
            break;
        if (child + 1 < l->wake_count && is_earlier(l->wake_heap[child + 1], l->wake_heap[child]))
            child++;
        if (!is_earlier(l->wake_heap[child], r))
            break;
        place(l, index, l->wake_heap[child]);
        index = child;
    }
    place(l, index, r);
}

static void remove_at(struct lobby *l, size_t index)
{
    struct room *last = l->wake_heap[--l->wake_count];
    if (index == l->wake_count)
        return;
    place(l, index, last);
    sift_down(l, index);
    sift_up(l, last->wake_index);
}

static int grow(struct lobby *l)
{
    if (l->wake_count < l->wake_capacity)
        return 0;
    size_t capacity = l->wake_capacity ? 2 * l->wake_capacity : 64;
    struct room **heap = realloc(l->wake_heap, capacity * sizeof(*heap));
    if (!heap)
        return -1;
    l->wake_heap = heap;
    l->wake_capacity = capacity;
    return 0;
}

/* Sets (0: clears) the moment `r` wants to be woken. Out of memory, a
 * room that cannot be added wakes at the next event that reaches it. */
void room_wake_set(struct room *r, int64_t at_ms)
{
    struct lobby *l = r->lobby;
    if (r->wake_at_ms != 0)
        remove_at(l, r->wake_index);
    r->wake_at_ms = 0;
    if (at_ms == 0 || grow(l) != 0)
        return;
    r->wake_at_ms = at_ms;
    place(l, l->wake_count++, r);
    sift_up(l, r->wake_index);
}

/* The next room due at `now` (taken off the heap), or NULL. */
struct room *room_wake_due(struct lobby *l, int64_t now)
{
    if (l->wake_count == 0 || l->wake_heap[0]->wake_at_ms > now)
        return NULL;
    struct room *r = l->wake_heap[0];
    remove_at(l, 0);
    r->wake_at_ms = 0;
    return r;
}

void room_wake_free(struct lobby *l)
{
    free(l->wake_heap);
    l->wake_heap = NULL;
    l->wake_count = l->wake_capacity = 0;
}

/* room_wake.c -- when each room next wants to look at the time.
 *
 * A room that has a clock running, a player away within the grace, or a
 * finished game on display names the moment it must be woken (match's
 * wake_at_ms). The rooms with such a moment sit in a binary min-heap keyed
 * by it, each knowing its place (wake_index), so changing a room's moment
 * is O(log rooms) and the tick pops only the rooms that are due: its cost
 * does not grow with rooms that have nothing to do.
 *
 * A tick handles each room at most once. A room it handles may want the
 * time again at once (a bank of 0 and no increment runs out as soon as the
 * turn comes back); popping rooms while "due at the tick's time" included
 * that room again would loop without end inside one tick, while nothing
 * else is served. So a moment at or before the last tick's time is put off
 * to just after it: the room is due at the next tick. */
#include <stdlib.h>

#include "lobby/lobby_internal.h"

static bool is_earlier(const struct room *a, const struct room *b)
{
    return a->wake_at_ms < b->wake_at_ms;
}

static void place(struct lobby *lobby, size_t index, struct room *room)
{
    lobby->wake_heap[index] = room;
    room->wake_index = index;
}

static void sift_up(struct lobby *lobby, size_t index)
{
    struct room *room = lobby->wake_heap[index];
    while (index > 0 && is_earlier(room, lobby->wake_heap[(index - 1) / 2])) {
        place(lobby, index, lobby->wake_heap[(index - 1) / 2]);
        index = (index - 1) / 2;
    }
    place(lobby, index, room);
}

static void sift_down(struct lobby *lobby, size_t index)
{
    struct room *room = lobby->wake_heap[index];
    for (;;) {
        size_t child = 2 * index + 1;
        if (child >= lobby->wake_count)
            break;
        if (child + 1 < lobby->wake_count &&
            is_earlier(lobby->wake_heap[child + 1], lobby->wake_heap[child]))
            child++;
        if (!is_earlier(lobby->wake_heap[child], room))
            break;
        place(lobby, index, lobby->wake_heap[child]);
        index = child;
    }
    place(lobby, index, room);
}

static void remove_at(struct lobby *lobby, size_t index)
{
    struct room *last = lobby->wake_heap[--lobby->wake_count];
    if (index == lobby->wake_count)
        return;
    place(lobby, index, last);
    sift_down(lobby, index);
    sift_up(lobby, last->wake_index);
}

static int grow(struct lobby *lobby)
{
    if (lobby->wake_count < lobby->wake_capacity)
        return 0;
    size_t capacity = lobby->wake_capacity ? 2 * lobby->wake_capacity : 64;
    struct room **heap = realloc(lobby->wake_heap, capacity * sizeof(*heap));
    if (!heap)
        return -1;
    lobby->wake_heap = heap;
    lobby->wake_capacity = capacity;
    return 0;
}

/* Out of memory, a room that cannot be added wakes at the next event that
 * reaches it. */
void room_wake_set(struct room *room, int64_t at_ms)
{
    struct lobby *lobby = room->lobby;
    if (room->wake_at_ms != 0)
        remove_at(lobby, room->wake_index);
    room->wake_at_ms = 0;
    if (at_ms == 0 || grow(lobby) != 0)
        return;
    if (at_ms <= lobby->tick_ms)
        at_ms = lobby->tick_ms + 1;
    room->wake_at_ms = at_ms;
    place(lobby, lobby->wake_count++, room);
    sift_up(lobby, room->wake_index);
}

void room_wake_retry(struct room *room, int64_t now)
{
    int64_t retry = now + LOBBY_RETRY_MS;
    if (!room->wake_at_ms || room->wake_at_ms > retry)
        room_wake_set(room, retry);
}

struct room *room_wake_due(struct lobby *lobby, int64_t now)
{
    if (lobby->tick_ms < now)
        lobby->tick_ms = now;
    if (lobby->wake_count == 0 || lobby->wake_heap[0]->wake_at_ms > now)
        return NULL;
    struct room *room = lobby->wake_heap[0];
    remove_at(lobby, 0);
    room->wake_at_ms = 0;
    return room;
}

void room_wake_free(struct lobby *lobby)
{
    free(lobby->wake_heap);
    lobby->wake_heap = NULL;
    lobby->wake_count = lobby->wake_capacity = 0;
}

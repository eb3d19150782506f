/* matchmaking.c -- quick play's rules (matchmaking.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/matchmaking.h"

static const matchmaking_kind KINDS[MATCHMAKING_KIND_COUNT] = {
    {"blokus", "4p", 4},  {"blokus", "3p", 3},         {"blokus", "2p", 2},
    {"blokus", "duo", 2}, {"reef-builder", "race", 2},
};

const matchmaking_kind *matchmaking_kind_at(int kind)
{
    return &KINDS[kind];
}

int matchmaking_kind_of(const char *game, const char *mode)
{
    for (int kind = 0; kind < MATCHMAKING_KIND_COUNT; kind++)
        if (strcmp(KINDS[kind].game, game) == 0 && strcmp(KINDS[kind].mode, mode) == 0)
            return kind;
    return -1;
}

void matchmaking_init(matchmaking *queue, const matchmaking_config *config)
{
    *queue = (matchmaking){.config = *config};
}

void matchmaking_free(matchmaking *queue)
{
    free(queue->entries);
    queue->entries = NULL;
    queue->count = queue->capacity = 0;
}

static int index_of(const matchmaking *queue, int64_t player_id)
{
    for (int i = 0; i < queue->count; i++)
        if (queue->entries[i].player_id == player_id)
            return i;
    return -1;
}

/* Removes entry i, keeping the others in the order they joined. */
static void remove_at(matchmaking *queue, int i)
{
    memmove(&queue->entries[i], &queue->entries[i + 1],
            sizeof(queue->entries[0]) * (size_t)(queue->count - i - 1));
    queue->count--;
}

static matchmaking_effect *add_effect(matchmaking_effects *effects, matchmaking_effect_kind kind,
                                      int64_t player_id, int of_kind)
{
    matchmaking_effect *effect = &effects->items[effects->count++];
    *effect = (matchmaking_effect){.kind = kind, .player_id = player_id, .queue = of_kind};
    return effect;
}

/* The rating window of an entry that has waited since `joined_ms`. */
static double window(const matchmaking *queue, int64_t joined_ms, int64_t now_ms)
{
    double widenings = (double)(now_ms - joined_ms) / (double)queue->config.widen_ms;
    return queue->config.window * (1.0 + floor(widenings > 0 ? widenings : 0));
}

static bool fits(const matchmaking *queue, const matchmaking_entry *a, const matchmaking_entry *b,
                 int64_t now_ms)
{
    int64_t longest = a->joined_ms < b->joined_ms ? a->joined_ms : b->joined_ms;
    return a->kind == b->kind && fabs(a->rating - b->rating) <= window(queue, longest, now_ms);
}

/* Picks the anchor's opponents, closest rating first: their indexes in
 * picked[] (the anchor first); returns how many were found. */
static int pick(const matchmaking *queue, int anchor, int wanted, int64_t now_ms, int *picked)
{
    const matchmaking_entry *first = &queue->entries[anchor];
    int count = 0;
    picked[count++] = anchor;
    while (count < wanted) {
        int best = -1;
        for (int i = 0; i < queue->count; i++) {
            bool is_taken = false;
            for (int k = 0; k < count; k++)
                is_taken |= picked[k] == i;
            if (is_taken || !fits(queue, first, &queue->entries[i], now_ms))
                continue;
            if (best < 0 || fabs(queue->entries[i].rating - first->rating) <
                                fabs(queue->entries[best].rating - first->rating))
                best = i;
        }
        if (best < 0)
            break;
        picked[count++] = best;
    }
    return count;
}

/* Deals the `players` picked entries, and fill bots in the seats left,
 * into the kind's seats in the order `shuffle` says (matchmaking.h). */
static void deal(const matchmaking *queue, int kind, const int *picked, int players,
                 const uint32_t *shuffle, matchmaking_match *out)
{
    *out =
        (matchmaking_match){.kind = kind, .seat_count = KINDS[kind].seats, .player_count = players};
    for (int seat = 0; seat < players; seat++)
        out->seats[seat] = queue->entries[picked[seat]].player_id;
    for (int seat = out->seat_count - 1, i = 0; seat > 0; seat--, i++) {
        int other = (int)(shuffle[i] % (uint32_t)(seat + 1));
        int64_t swap = out->seats[seat];
        out->seats[seat] = out->seats[other];
        out->seats[other] = swap;
    }
}

/* Makes the first match that can be made at `now_ms`, if any: the
 * matched entries leave the queue. */
static void match_one(matchmaking *queue, int64_t now_ms, const uint32_t *shuffle,
                      matchmaking_effects *effects)
{
    for (int anchor = 0; anchor < queue->count; anchor++) {
        const matchmaking_entry *entry = &queue->entries[anchor];
        int wanted = KINDS[entry->kind].seats;
        int picked[MATCHMAKING_MAX_SEATS];
        int found = pick(queue, anchor, wanted, now_ms, picked);
        if (found < wanted && now_ms - entry->joined_ms < queue->config.fill_ms)
            continue;
        matchmaking_effect *effect = add_effect(effects, MATCHMAKING_MATCHED, 0, entry->kind);
        deal(queue, entry->kind, picked, found, shuffle, &effect->match);
        for (int seat = 0; seat < effect->match.seat_count; seat++)
            if (effect->match.seats[seat] != 0)
                remove_at(queue, index_of(queue, effect->match.seats[seat]));
        return;
    }
}

/* Makes room for one more entry: 0, or -1 (out of memory). */
static int reserve(matchmaking *queue)
{
    if (queue->count < queue->capacity)
        return 0;
    int capacity = queue->capacity ? 2 * queue->capacity : 16;
    matchmaking_entry *grown = realloc(queue->entries, sizeof(*grown) * (size_t)capacity);
    if (!grown)
        return -1;
    queue->entries = grown;
    queue->capacity = capacity;
    return 0;
}

static int join(matchmaking *queue, const matchmaking_event *event, matchmaking_effects *effects,
                protocol_failure *failure)
{
    if (event->queue < 0 || event->queue >= MATCHMAKING_KIND_COUNT)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "no quick play of kind %d",
                             event->queue);
    int old = index_of(queue, event->player_id);
    if (old < 0 && reserve(queue) != 0)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    if (old >= 0)
        remove_at(queue, old); /* one queue at a time */
    queue->entries[queue->count++] =
        (matchmaking_entry){event->player_id, event->queue, event->rating, event->now_ms};
    matchmaking_effect *joined =
        add_effect(effects, MATCHMAKING_JOINED, event->player_id, event->queue);
    joined->rating = event->rating;
    joined->has_moved = old >= 0;
    for (int i = 0; i < queue->count; i++)
        joined->waiting += queue->entries[i].kind == event->queue;
    match_one(queue, event->now_ms, event->shuffle, effects);
    return 0;
}

/* A leave (`is_gone` false: queue.leave, answered) or a disconnection. */
static int leave(matchmaking *queue, const matchmaking_event *event, bool is_gone,
                 matchmaking_effects *effects, protocol_failure *failure)
{
    int i = index_of(queue, event->player_id);
    if (i < 0 && is_gone)
        return 0;
    if (i < 0)
        return protocol_fail(failure, PROTOCOL_E_NOT_QUEUED, "you are not in a queue");
    add_effect(effects, is_gone ? MATCHMAKING_DROPPED : MATCHMAKING_LEFT, event->player_id,
               queue->entries[i].kind);
    remove_at(queue, i);
    return 0;
}

int matchmaking_apply(matchmaking *queue, const matchmaking_event *event,
                      matchmaking_effects *effects, protocol_failure *failure)
{
    effects->count = 0;
    switch (event->kind) {
    case MATCHMAKING_EVENT_JOIN:
        return join(queue, event, effects, failure);
    case MATCHMAKING_EVENT_LEAVE:
        return leave(queue, event, false, effects, failure);
    case MATCHMAKING_EVENT_GONE:
        return leave(queue, event, true, effects, failure);
    case MATCHMAKING_EVENT_TICK:
        match_one(queue, event->now_ms, event->shuffle, effects);
        return 0;
    }
    return protocol_fail(failure, PROTOCOL_E_INTERNAL, "unknown quick-play event %d",
                         (int)event->kind);
}

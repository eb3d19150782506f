/* matchmaking.h -- quick play's rules as a pure machine: who waits, and who
 * is matched with whom.
 *
 *     matchmaking_apply(state, event) -> effects (the state changed in place)
 *
 * The state is the queue: one entry per waiting player (its stored id, the
 * kind of game it waits for, its conservative rating, when it joined), in
 * the order they joined, and the three numbers of the rules. Events are a
 * join, a queue.leave, a player gone (disconnected), and the time passing
 * (a tick); the time and the random numbers a match's seat order needs are
 * part of the event. Nothing here reads a clock, draws a random number,
 * touches a player, a socket or the store: lobby/queue.c is the shell that
 * does, and carries the effects out in the order they come.
 *
 * Unlike match_apply, this one changes the state in place: the queue
 * stores no records, so there is no commit to wait for before adopting the
 * next state; a refused event leaves the state as it was.
 *
 * The rules. A player waits in one queue at a time: joining again moves
 * its entry (to the end, with the new kind, rating and time). Matching runs
 * on a join and on a tick; the entry that has waited longest picks first.
 * Its opponents are the waiting entries of its kind whose rating is within
 * the window of its own, closest first. The window is `window` rating
 * points, and grows by as much again for every `widen_ms` either entry has
 * waited (the longer wait counts). An entry that has waited `fill_ms` is
 * matched with whoever fits by then, and fill bots (MATCHMAKING_FILL_BOT)
 * take the seats left. Seats are dealt in the order the event's random
 * numbers say, so nobody always moves first. One event makes at most one
 * match (the random numbers it carries are one match's): while an event
 * made one, the shell ticks again at the same time for the next. */
#ifndef TESSERA_MATCHMAKING_H
#define TESSERA_MATCHMAKING_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/protocol_error.h"

/* The most seats a quick-play match has (Blokus 4p). */
#define MATCHMAKING_MAX_SEATS 4
/* The built-in bot that fills seats nobody came for. */
#define MATCHMAKING_FILL_BOT "greedy"
/* The random numbers one match's seat order takes. */
#define MATCHMAKING_SHUFFLE_NUMBERS (MATCHMAKING_MAX_SEATS - 1)

/* A kind of game one can queue for: quick play's kinds are numbered
 * 0 .. MATCHMAKING_KIND_COUNT - 1. */
typedef struct matchmaking_kind {
    const char *game;
    const char *mode;
    int seats; /* the seats a match of it has */
} matchmaking_kind;

#define MATCHMAKING_KIND_COUNT 5

/* The kind numbered `kind` (0 .. MATCHMAKING_KIND_COUNT - 1). */
const matchmaking_kind *matchmaking_kind_at(int kind);

/* The number of the kind of `game` and `mode`, or -1 if there is no quick
 * play for it. */
int matchmaking_kind_of(const char *game, const char *mode);

/* The rules' numbers (lobby_config's queue_window, queue_widen_ms and
 * queue_fill_ms). */
typedef struct matchmaking_config {
    double window;    /* rating points apart at most, at first */
    int64_t widen_ms; /* the window grows by `window` for every this long waited */
    int64_t fill_ms;  /* waited this long: matched with whoever fits, and fill bots */
} matchmaking_config;

typedef struct matchmaking_entry {
    int64_t player_id; /* the stored player: the entry's key */
    int kind;
    double rating; /* conservative rating in the kind's pool */
    int64_t joined_ms;
} matchmaking_entry;

/* The queue. Its fields may be read; only matchmaking_apply changes them. */
typedef struct matchmaking {
    matchmaking_config config;
    matchmaking_entry *entries; /* in the order they joined; owned */
    int count, capacity;
} matchmaking;

typedef enum matchmaking_event_kind {
    MATCHMAKING_EVENT_JOIN,  /* `player_id` waits for `kind` with `rating` (queue.join) */
    MATCHMAKING_EVENT_LEAVE, /* `player_id` stops waiting (queue.leave) */
    MATCHMAKING_EVENT_GONE,  /* `player_id` disconnected: out of the queue, nobody told */
    MATCHMAKING_EVENT_TICK   /* time passes */
} matchmaking_event_kind;

typedef struct matchmaking_event {
    matchmaking_event_kind kind;
    int64_t now_ms;    /* JOIN, TICK */
    int64_t player_id; /* JOIN, LEAVE, GONE */
    int queue;         /* JOIN: the kind of game */
    double rating;     /* JOIN */
    /* JOIN, TICK: the seat order of a match, dealt from the last seat down:
     * number i swaps seat (seats - 1 - i) with seat (number % (seats - i)). */
    uint32_t shuffle[MATCHMAKING_SHUFFLE_NUMBERS];
} matchmaking_event;

/* A match to arrange: seats in order, each a waiting player's id or 0 for
 * a fill bot. The matched players (the non-zero seats) have left the
 * queue. */
typedef struct matchmaking_match {
    int kind;
    int seat_count; /* the kind's seats */
    int player_count;
    int64_t seats[MATCHMAKING_MAX_SEATS];
} matchmaking_match;

typedef enum matchmaking_effect_kind {
    MATCHMAKING_JOINED,  /* reply queue.joined: `player_id` waits for `queue` with `waiting` */
    MATCHMAKING_LEFT,    /* reply queue.left: `player_id` no longer waits for `queue` */
    MATCHMAKING_DROPPED, /* `player_id` (gone) no longer waits for `queue`; no reply */
    MATCHMAKING_MATCHED  /* arrange `match` */
} matchmaking_effect_kind;

typedef struct matchmaking_effect {
    matchmaking_effect_kind kind;
    int64_t player_id;       /* JOINED, LEFT, DROPPED */
    int queue;               /* JOINED, LEFT, DROPPED: the kind of game */
    double rating;           /* JOINED: the rating it waits with */
    int waiting;             /* JOINED: the entries of that kind now, the joined one included */
    bool has_moved;          /* JOINED: it was waiting already; its old entry is gone */
    matchmaking_match match; /* MATCHED */
} matchmaking_effect;

/* A reply, then at most one match. */
#define MATCHMAKING_MAX_EFFECTS 2

typedef struct matchmaking_effects {
    matchmaking_effect items[MATCHMAKING_MAX_EFFECTS];
    int count;
} matchmaking_effects;

/* An empty queue with `config`. */
void matchmaking_init(matchmaking *queue, const matchmaking_config *config);

/* Frees the entries (the queue is empty and usable again after it). */
void matchmaking_free(matchmaking *queue);

/* Runs `event` on `queue`: 0 with *effects (in the order to carry them
 * out), or a protocol error code with *failure and the queue unchanged:
 * PROTOCOL_E_NOT_QUEUED for a leave of a player not waiting, PROTOCOL_E_BAD_MESSAGE
 * for a kind out of range, PROTOCOL_E_INTERNAL when a join cannot grow the
 * queue (out of memory). */
int matchmaking_apply(matchmaking *queue, const matchmaking_event *event,
                      matchmaking_effects *effects, protocol_failure *failure);

#endif

/* load_history.h -- the history API's REST queries at a steady rate.
 *
 * tessera-load --history RATE sends a mix of GETs over every history
 * route to the server it drives, RATE per second, while the game
 * scenario plays (or alone, with --games 0). The database is one
 * bench/gen_history_db wrote, so the queries name its players, games,
 * tournaments and Reef seeds (bench/history_names.h): random players
 * (drawn as the generator drew them, so busy players are looked up more),
 * random game ids, deep cursors made from random ids, and leaderboard
 * pages that follow each answer's `next`, so the walks go ever deeper.
 *
 * Before it starts, it learns the newest game id and samples Blokus game
 * ids (the SGF route serves Blokus games only) with a few list requests.
 *
 * The schedule is open-loop: request k is due at start + k / RATE and is
 * sent on the first 1 ms tick at or after that time, whatever the answers
 * before it, on a connection of its own (http_client.h). Each request's
 * latency is measured twice, to the moment its whole answer is in: from
 * when it was sent (the server's time, and the network's) and from when
 * it was due, which adds the load generator's own lateness (the tick, and
 * any stall of its loop: no coordinated omission hides there); `send_lag`
 * shows that lateness alone. Only requests due while
 * load_stats.is_measuring are counted. */
#ifndef TESSERA_BENCH_LOAD_HISTORY_H
#define TESSERA_BENCH_LOAD_HISTORY_H

#include <stdint.h>
#include <uv.h>

#include "bench/histogram.h"
#include "bench/load_stats.h"

typedef enum load_history_route {
    LOAD_HISTORY_GAMES,            /* /api/games: all, by kind, mode or status */
    LOAD_HISTORY_GAMES_OF_PLAYER,  /* /api/games?player= */
    LOAD_HISTORY_GAMES_OF_CONTEST, /* /api/games?tournament= */
    LOAD_HISTORY_GAME,             /* /api/games/{id} */
    LOAD_HISTORY_REPLAY,           /* /api/games/{id}/replay */
    LOAD_HISTORY_SGF,              /* /api/games/{id}.blksgf */
    LOAD_HISTORY_PLAYER,           /* /api/players/{name} */
    LOAD_HISTORY_BLOKUS_BOARD,     /* /api/leaderboards/blokus?kind= */
    LOAD_HISTORY_REEF_BOARD,       /* /api/leaderboards/reef?seed=|period= */
    LOAD_HISTORY_REEF_AROUND,      /* /api/leaderboards/reef?...&around= */
    LOAD_HISTORY_ROUTES
} load_history_route;

typedef struct load_history_config {
    const char *host; /* an IPv4 address */
    int port;
    double rate;         /* requests per second */
    int players;         /* players the database was generated with */
    int max_connections; /* keep-alive connections, at most */
    uint64_t seed;       /* the queries' random choices */
} load_history_config;

/* What was measured, per route. */
typedef struct load_history_stats {
    /* 200 and 404 answers: sent -> answer complete, and due -> complete */
    histogram latency_us[LOAD_HISTORY_ROUTES], due_latency_us[LOAD_HISTORY_ROUTES];
    histogram all_latency_us, all_due_latency_us;
    histogram send_lag_us;                   /* due -> sent */
    uint64_t answers[LOAD_HISTORY_ROUTES];   /* 200 */
    uint64_t not_found[LOAD_HISTORY_ROUTES]; /* 404 (e.g. around a player with no run) */
    uint64_t errors[LOAD_HISTORY_ROUTES];    /* any other status, or no answer */
    uint64_t bytes[LOAD_HISTORY_ROUTES];     /* bodies of 200 answers */
    uint64_t due;                            /* requests due in the window */
} load_history_stats;

typedef struct load_history load_history;

/* Starts the queries; `stats` (borrowed) says when to count. 0 or a
 * negative uv error. */
int load_history_new(uv_loop_t *loop, const load_history_config *config, const load_stats *stats,
                     load_history **out);

/* Sends no more requests; answers still arriving are counted. */
void load_history_stop(load_history *history);

/* The figures so far. */
const load_history_stats *load_history_stats_of(const load_history *history);

/* Whether the set-up (newest id, Blokus sample) failed: nothing was sent. */
bool load_history_has_failed(const load_history *history);

/* A route's short name for reports ("games", "game", "replay", ...). */
const char *load_history_route_name(load_history_route route);

/* Stops, closes every connection and frees everything. NULL is allowed. */
void load_history_free(load_history *history);

#endif

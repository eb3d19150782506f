/* load_stats.h -- what a load run counts, shared by its drivers.
 *
 * Counting happens only while `is_measuring` (after the warm-up, until the
 * end of the run), so the figures describe the steady state. Message sizes
 * are averaged per kind so the echo baseline can replay the same pattern:
 * the game.moves request and its reply, the game.move request, and the
 * game.moved and game.state every member receives. */
#ifndef TESSERA_BENCH_LOAD_STATS_H
#define TESSERA_BENCH_LOAD_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/histogram.h"

typedef enum load_size_kind {
    LOAD_SIZE_MOVES_REQUEST, /* game.moves, sent */
    LOAD_SIZE_MOVES_REPLY,   /* game.moves, received */
    LOAD_SIZE_MOVE_REQUEST,  /* game.move, sent */
    LOAD_SIZE_MOVED,         /* game.moved, received by each member */
    LOAD_SIZE_STATE,         /* game.state, received by each member */
    LOAD_SIZE_KINDS
} load_size_kind;

typedef struct load_stats {
    bool is_measuring;
    uint64_t moves;          /* game.move requests answered by game.moved */
    uint64_t games_finished; /* game.over seen by the creator */
    uint64_t errors;         /* error replies other than rate_limited */
    uint64_t rate_limited;
    uint64_t messages_received;
    histogram round_trip_us; /* game.move sent -> its game.moved received */
    uint64_t size_sum[LOAD_SIZE_KINDS], size_count[LOAD_SIZE_KINDS];
    /* With one room: server CPU and moves between a game's first state and
     * its game.over, which leaves out room setup (joins, start). */
    uint64_t in_play_server_cpu_us, in_play_moves;
} load_stats;

/* Counts a message of `kind` and `bytes` (while measuring). */
void load_stats_size(load_stats *stats, load_size_kind kind, uint64_t bytes);

/* The mean size of `kind`, 0 if none was seen. */
uint64_t load_stats_mean_size(const load_stats *stats, load_size_kind kind);

#endif

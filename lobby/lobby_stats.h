/* lobby_stats.h -- what the lobby counts, for the server's /metrics.
 *
 * Counters only grow (games started and finished by kind, actions stored,
 * errors sent by code, bot moves and how long each took); gauges are read
 * when asked (rooms by kind and status, players, quick-play queue,
 * tournaments, jobs). Counting happens where the lobby already decides:
 * records are counted once stored (room_run.c), errors where they are
 * sent, bot moves when they come back. */
#ifndef TESSERA_LOBBY_STATS_H
#define TESSERA_LOBBY_STATS_H

#include <stdint.h>

#include "lobby/game.h"
#include "protocol/protocol.h"
#include "util/histogram.h"

/* The six kinds of game: Blokus 4p, 3p, 2p, duo, then Reef solo, race. */
#define LOBBY_KIND_COUNT 6
/* Statuses of a room: waiting, playing, finished (match_status order). */
#define LOBBY_STATUS_COUNT 3
/* Error codes 0 .. -(LOBBY_ERROR_CODES - 1): every protocol_error. */
#define LOBBY_ERROR_CODES PROTOCOL_ERROR_COUNT

extern const char *const LOBBY_KIND_GAMES[LOBBY_KIND_COUNT]; /* "blokus", "reef-builder" */
extern const char *const LOBBY_KIND_MODES[LOBBY_KIND_COUNT]; /* "4p" ... "race" */
extern const char *const LOBBY_STATUS_NAMES[LOBBY_STATUS_COUNT];

/* The kind index of a game's options. */
int lobby_kind_of(const game_options *options);

typedef struct lobby_counters {
    uint64_t games_started[LOBBY_KIND_COUNT];
    uint64_t games_finished[LOBBY_KIND_COUNT];
    uint64_t games_aborted[LOBBY_KIND_COUNT];
    uint64_t actions[LOBBY_KIND_COUNT]; /* moves, passes and resignations stored */
    uint64_t errors[LOBBY_ERROR_CODES]; /* error replies sent, by -code */
    histogram bot_move;                 /* from a bot's turn to its move being played */
} lobby_counters;

typedef struct lobby_stats {
    lobby_counters counters;
    int rooms[LOBBY_KIND_COUNT][LOBBY_STATUS_COUNT];
    int players;             /* known to this process */
    int queue_waiting;       /* players in the quick-play queue */
    int tournaments_running; /* tournaments this process is running */
    int jobs_in_flight;      /* bot searches and password hashes on workers */
} lobby_stats;

struct lobby;

/* A snapshot of the counters and the gauges; O(rooms). */
void lobby_stats_read(const struct lobby *lobby, lobby_stats *out);

#endif

/* load_echo.h -- the move pattern of load_game, against bench/echo_server.
 *
 * The same rooms (one group per room: its seats and spectators), the same
 * turn order and pacing, and frames of the sizes a real run measured, but
 * no protocol: see echo_server.c for the frames. A "move" is: the seat to
 * move asks the pacer, sends a game.moves-sized request and gets the reply
 * size back, then sends a game.move-sized request; it gets game.moved and
 * game.state sized frames back, every other member gets the same pair, and
 * the state frame names the next seat. The round trip is from the second
 * request to the mover's game.moved-sized frame, as in a real run. Rooms
 * do not end: the echo server has no games, so there is nothing to set up
 * again. */
#ifndef TESSERA_BENCH_LOAD_ECHO_H
#define TESSERA_BENCH_LOAD_ECHO_H

#include <stdint.h>
#include <uv.h>

#include "bench/load_stats.h"
#include "bench/pacer.h"

typedef struct load_echo load_echo;

typedef struct load_echo_config {
    const char *host;
    int port;
    int seats; /* per room */
    int rooms;
    int spectators;
    int local_addresses;             /* as in load_game_config */
    uint64_t sizes[LOAD_SIZE_KINDS]; /* bytes of each kind of message */
} load_echo_config;

/* Connects every client and starts the pattern; 0 or -errno. */
int load_echo_new(uv_loop_t *loop, const load_echo_config *config, pacer *p, load_stats *stats,
                  load_echo **out);

/* No new move after this. */
void load_echo_stop(load_echo *echo);

/* Connections that failed or were closed early. */
int load_echo_lost_connections(const load_echo *echo);

/* Closes every connection and frees everything. */
void load_echo_free(load_echo *echo);

#endif

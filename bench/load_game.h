/* load_game.h -- rooms of seat and spectator clients playing Blokus.
 *
 * Each room is one websocket per seat plus its spectators. Every client
 * says hello; seat 0 creates the room (mode duo or 4p), then the seats join
 * with their `seat` and the spectators with "as":"spectator", and seat 0
 * starts it. A seat that a game.state names to move asks the pacer for a
 * permit, sends game.moves and then game.move with the first legal move
 * and the reply's ply; the round trip is game.move sent -> its game.moved
 * received. When seat 0 sees game.over it creates the next room, and the
 * same connections play again, until load_game_stop.
 *
 * With a single room, games never overlap, so the server's CPU can also be
 * read at each game's first state and at its game.over: that in-play
 * figure leaves out room setup, whose cost grows with the square of the
 * members (each join is broadcast to everyone already in the room). */
#ifndef TESSERA_BENCH_LOAD_GAME_H
#define TESSERA_BENCH_LOAD_GAME_H

#include <sys/types.h>
#include <uv.h>

#include "bench/load_stats.h"
#include "bench/pacer.h"

typedef struct load_game load_game;

typedef struct load_game_config {
    const char *host; /* an IPv4 address */
    int port;
    const char *mode; /* "duo" or "4p" */
    int rooms;
    int spectators;      /* per room */
    pid_t server_pid;    /* 0, or with one room: measure in-play CPU (load_stats) */
    int local_addresses; /* connection i binds to 127.0.0.(1 + i % local_addresses) */
} load_game_config;

/* Connects every client and starts playing; counts into `stats`, paces with
 * `p` (both borrowed, outliving the load_game). 0 or -errno. */
int load_game_new(uv_loop_t *loop, const load_game_config *config, pacer *p, load_stats *stats,
                  load_game **out);

/* Stops playing: no new move or game; every seat resigns the game it is in,
 * so the server is not left with games for stand-in bots to finish. Run the
 * loop a little after it for those messages to go out. */
void load_game_stop(load_game *game);

/* Connections open, and connections that failed or were closed early. */
int load_game_open_connections(const load_game *game);
int load_game_lost_connections(const load_game *game);

/* Closes every connection and frees everything. */
void load_game_free(load_game *game);

#endif

/* queue.h -- quick play: players ask for a game, the server finds them
 * opponents of their strength.
 *
 * `queue.join {game, mode}` puts a signed-in player in the queue of one
 * kind of game: blokus 4p, 3p, 2p or duo, or a reef-builder race (two
 * players). A player waits in one queue at a time (joining another moves
 * them) until `queue.leave`, a disconnection, or a match. Who is matched
 * with whom, and when, is decided by the pure machine lobby/matchmaking.h
 * (the rating window, its widening, bot fill, the seat order).
 *
 * This module is its shell: it decodes the requests, looks the player's
 * conservative rating up (rating.h; 0 for a newcomer), gives the machine
 * the time and the random numbers it needs, and carries its effects out
 * in order: the replies, and each match as an arranged room
 * (room_arrange.h), whose players hear the `room` event of the started
 * room as if they had been seated by hand. A waiting player is pinned, so
 * the machine's player ids always name a player in memory. With several
 * instances, only the one holding quick play's lease (lobby/leases.c)
 * keeps a queue: a queue.join elsewhere is answered `moved` to it. */
#ifndef TESSERA_QUEUE_H
#define TESSERA_QUEUE_H

#include "lobby/lobby_internal.h"

/* An empty queue with the lobby's quick-play settings. */
void queue_init(struct lobby *lobby);

/* queue.join and queue.leave. */
int queue_handle(struct lobby *lobby, struct client *client, const protocol_message *message,
                 protocol_failure *failure);

/* Matches whoever can be matched now (costs nothing with nobody waiting). */
void queue_tick(struct lobby *lobby, int64_t now_ms);

/* Takes `player` out of the queue, if it waits (it disconnected). */
void queue_forget(struct lobby *lobby, struct player *player);

/* Quick play is no longer served here (another instance took its lease):
 * every waiting player leaves the queue and is sent on
 * (leases_send_queue_away). */
void queue_give_up(struct lobby *lobby);

/* Frees the queue (the lobby is going away). */
void queue_free(struct lobby *lobby);

#endif

/* queue.h -- quick play: players ask for a game, the server finds them
 * opponents of their strength.
 *
 * `queue.join {game, mode}` puts a signed-in player in the queue of one
 * kind of game: blokus 4p, 3p, 2p or duo, or a reef-builder race (two
 * players). A player waits in one queue at a time (joining another moves
 * them) until `queue.leave`, a disconnection, or a match.
 *
 * Matching happens when someone joins and on every lobby tick. The player
 * who has waited longest picks first: its opponents are the waiting
 * players of that kind whose conservative rating (rating.h; 0 for a
 * newcomer) is within the window of its own, closest first. The window is
 * queue_window rating points, and grows by as much again for every
 * queue_widen_ms either player has waited (the longer wait counts). A
 * player who has waited queue_fill_ms is matched with whoever fits by
 * then, and built-in bots (greedy) fill the empty seats. Seats are dealt
 * in random order, so nobody always moves first. The match is an arranged
 * room (room_arrange.h): the players hear the `room` event of the started
 * room, as if they had been seated by hand. */
#ifndef TESSERA_QUEUE_H
#define TESSERA_QUEUE_H

#include "lobby/lobby_internal.h"

/* A waiting player. */
struct queue_entry {
    struct player *player; /* pinned while it waits */
    int kind;              /* which queue: an index of queue.c's table */
    double rating;         /* conservative rating in the queue's pool */
    int64_t joined_ms;
};

/* queue.join and queue.leave. */
int queue_handle(struct lobby *lobby, struct client *client, const protocol_message *message,
                 protocol_failure *failure);

/* Matches whoever can be matched now (costs nothing with nobody waiting). */
void queue_tick(struct lobby *lobby, int64_t now_ms);

/* Takes `player` out of the queue, if it waits (it disconnected). */
void queue_forget(struct lobby *lobby, struct player *player);

/* Frees the queue (the lobby is going away). */
void queue_free(struct lobby *lobby);

#endif

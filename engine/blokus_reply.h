/* blokus_reply.h -- last-good-reply tables for MCTS playouts.
 *
 * A playout that answers a move the way an earlier winning simulation did
 * plays better than one drawing at random (Drake's last-good-reply, the
 * "forgetting" variant LGRF-1): after each simulation, every move of a
 * player who won becomes the reply its color keeps to the move before it,
 * and every move of a player who lost is forgotten as a reply, if it was
 * one. A table is owned by one search and holds one reply per (color,
 * previous move); it allocates once, in blokus_reply_new. */
#ifndef TESSERA_BLOKUS_REPLY_H
#define TESSERA_BLOKUS_REPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/blokus.h"

typedef struct blokus_reply_table blokus_reply_table;

/* An empty table, or NULL when out of memory. */
blokus_reply_table *blokus_reply_new(void);

/* Frees a table (NULL is fine). */
void blokus_reply_free(blokus_reply_table *table);

/* Learns from one simulation: moves[i] was played by colors[i] (passes are
 * skipped, as the move before them), and is_win[i] says whether that
 * color's player won the simulation. */
void blokus_reply_learn(blokus_reply_table *table, const blokus_move *moves, const uint8_t *colors,
                        const bool *is_win, int count);

/* The reply `color` keeps to `previous`: true and *out, or false. The
 * reply need not be legal in the current position; the caller checks. */
bool blokus_reply_find(const blokus_reply_table *table, int color, blokus_move previous,
                       blokus_move *out);

#endif

/* blokus_book.h -- mcts-v2's opening book for Blokus Duo.
 *
 * A search of the first moves of Duo gets its fewest playouts exactly where
 * the game is widest: at 300 ms mcts-v2 opened with a different piece for
 * almost every seed, where a search a hundred times longer (and mcts-v1 at
 * 1 s) always opens with the same one. The book holds what long searches
 * chose, offline: the opening move, and the answer to each of the first
 * moves the built-in bots play. It is a small table in blokus_book.c,
 * written by gen_blokus_book (engine/gen_blokus_book.c), which runs those
 * searches with fixed seeds and playouts, so the table is reproducible.
 *
 * Duo's empty board is symmetric about its main diagonal (both start
 * cells lie on it), so a first move and its mirror image across that
 * diagonal lead to the same game: the book stores one of the two (the one
 * with the smaller blokus_move_key) and mirrors its answer for the other.
 * The book knows Duo only (either scoring: the opening does not depend on
 * it) and positions after at most one move. */
#ifndef TESSERA_BLOKUS_BOOK_H
#define TESSERA_BLOKUS_BOOK_H

#include <stdbool.h>

#include "engine/blokus.h"

/* The book's move for `state` into *out: true when the book knows the
 * position. The move is legal in it. */
bool blokus_book_find(const blokus_state *state, blokus_move *out);

/* The mirror image of a placement across the main diagonal (row and
 * column swapped): the same piece, possibly in another orientation. */
blokus_move blokus_move_transposed(blokus_move move);

/* Of a Duo first move and its mirror image, the one the book stores. */
blokus_move blokus_book_canonical(blokus_move move);

#endif

/* blokus_games.h -- seeded Blokus games for the generator tests.
 *
 * test_blokus_movelists.c and test_blokus_reference.c both check every
 * position of many seeded games, each with its own check; this is the
 * shared part: the move choosers that shape the games, and the driver
 * that runs a check over seeds and modes. */
#ifndef TESSERA_BLOKUS_GAMES_H
#define TESSERA_BLOKUS_GAMES_H

#include <stdint.h>

#include "engine/blokus.h"
#include "engine/rng.h"

/* Chooses the next move of a seeded game (the game is not over). */
typedef blokus_move (*blokus_games_chooser)(const blokus_state *s, rng *r);

/* Plays and checks one game of `mode` from `seed`, moves by `choose`. */
typedef void (*blokus_games_check)(blokus_mode mode, uint64_t seed, blokus_games_chooser choose);

/* A legal move drawn uniformly. */
blokus_move blokus_games_random(const blokus_state *s, rng *r);

/* The largest piece first: long games and crowded boards, where most
 * attach cells are dead ends and colors run out of moves one by one. */
blokus_move blokus_games_largest(const blokus_state *s, rng *r);

/* Runs `check` on the games of seeds first_seed .. first_seed + count - 1
 * in every mode (4p, 3p, 2p, Duo), moves drawn uniformly. */
void blokus_games_random_in_every_mode(blokus_games_check check, uint64_t first_seed, int count);

/* Runs `check` on the same seeds' largest-piece-first games in 4p and Duo. */
void blokus_games_largest_in_4p_and_duo(blokus_games_check check, uint64_t first_seed, int count);

#endif

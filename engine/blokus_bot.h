/* blokus_bot.h -- built-in Blokus bots: random, greedy and MCTS.
 *
 * A bot is a pure function from a position to a move: it reads the state
 * (never changing it), draws its random numbers from a splitmix64 stream
 * seeded by the caller, and keeps nothing between calls. There are no
 * globals and no I/O (MCTS only reads CLOCK_MONOTONIC for its deadline), so
 * any number of searches may run at once on different threads.
 *
 *   random  a legal move drawn uniformly.
 *   greedy  the legal move with the best blokus_bot_score_moves() score; ties
 *           are broken uniformly by the seed.
 *   mcts    Monte Carlo tree search (see blokus_mcts.c): UCT over the
 *           heuristic's best candidates with progressive widening, and fast
 *           playouts that prefer large pieces. Kept fixed as the reference
 *           level mcts-v1 of `tessera selfplay`.
 *   mcts-v2 the same search with priors from a learned model of long
 *           searches' choices (blokus_prior.h) over far more
 *           candidates (PUCT), RAVE, playouts that answer the opponent's
 *           last move and keep last good replies, and an early stop once
 *           the choice cannot change; Duo's first two moves come from an
 *           opening book (blokus_book.h). The lobby's strongest level.
 *
 * Determinism: random and greedy depend only on the state and the seed. MCTS
 * depends on the state, the seed and the number of playouts it runs, so a
 * budget with a playout limit and no time limit gives the same move for the
 * same seed on any machine; a time limit makes the playout count, and
 * therefore the move, depend on the machine and its load.
 *
 * Memory: random and greedy allocate one move buffer per call; MCTS
 * allocates one node arena and one move buffer per search (mcts-v2 also
 * its AMAF marks and last-good-reply table, about 1.2 MB). All of it is
 * freed before the call returns; nothing is allocated per playout move. */
#ifndef TESSERA_BLOKUS_BOT_H
#define TESSERA_BLOKUS_BOT_H

#include <stdatomic.h>
#include <stdint.h>

#include "engine/blokus.h"

typedef enum blokus_bot_kind {
    BLOKUS_BOT_RANDOM = 0,
    BLOKUS_BOT_GREEDY = 1,
    BLOKUS_BOT_MCTS = 2, /* mcts-v1, the fixed reference level */
    BLOKUS_BOT_MCTS2 = 3 /* mcts-v2, the strongest level */
} blokus_bot_kind;

/* How long a search may run. A zero field is no limit on that axis; the
 * search stops at the first limit reached. MCTS needs at least one limit;
 * random and greedy ignore the budget (it may be NULL for them). Another
 * thread may stop a search early by setting *cancel (NULL: no flag): it is
 * polled between playouts, well under a millisecond apart, and the best
 * move found so far is returned. */
typedef struct blokus_bot_budget {
    uint32_t time_ms;          /* wall-clock time for the whole call */
    uint32_t playouts;         /* playouts (tree iterations) */
    const atomic_bool *cancel; /* set: stop now */
} blokus_bot_budget;

/* What a search did, for benchmarks and logs. */
typedef struct blokus_bot_stats {
    uint64_t playouts;   /* tree iterations run, each ending in a playout or a final position */
    uint32_t nodes;      /* tree nodes allocated */
    uint32_t candidates; /* root moves the search considered */
    double seconds;      /* wall-clock time spent */
} blokus_bot_stats;

/* Parses the lobby's bots "random", "greedy", "mcts", "mcts-v2": 0 and
 * *kind set, or ENGINE_E_BAD_ARGUMENT. */
int blokus_bot_parse(const char *name, blokus_bot_kind *kind);

/* Parses every level, for selfplay: the lobby's names and "mcts-v1" (the
 * same bot as "mcts"). 0 and *kind, or ENGINE_E_BAD_ARGUMENT. */
int blokus_bot_parse_level(const char *name, blokus_bot_kind *kind);

/* The name of `kind`, a static string; "unknown" for an invalid kind. */
const char *blokus_bot_name(blokus_bot_kind kind);

/* Chooses a legal move for the color to move into *out. Returns 0,
 * ENGINE_E_GAME_OVER, ENGINE_E_BAD_ARGUMENT (unknown kind, MCTS without a
 * limit) or ENGINE_E_NO_MEMORY. */
int blokus_bot_choose(blokus_bot_kind kind, const blokus_state *state,
                      const blokus_bot_budget *budget, uint64_t seed, blokus_move *out);

/* MCTS with statistics: as blokus_bot_choose(BLOKUS_BOT_MCTS, ...), and
 * fills *stats (when not NULL) on success. */
int blokus_bot_mcts(const blokus_state *state, const blokus_bot_budget *budget, uint64_t seed,
                    blokus_move *out, blokus_bot_stats *stats);

/* Either MCTS (kind BLOKUS_BOT_MCTS or BLOKUS_BOT_MCTS2) with statistics,
 * as blokus_bot_mcts; ENGINE_E_BAD_ARGUMENT for another kind. */
int blokus_bot_search(blokus_bot_kind kind, const blokus_state *state,
                      const blokus_bot_budget *budget, uint64_t seed, blokus_move *out,
                      blokus_bot_stats *stats);

/* mcts-v2's search without its opening book (engine/blokus_book.h), as
 * blokus_bot_search(BLOKUS_BOT_MCTS2, ...) otherwise: what gen_blokus_book
 * runs to write the book. */
int blokus_bot_search_unbooked(const blokus_state *state, const blokus_bot_budget *budget,
                               uint64_t seed, blokus_move *out, blokus_bot_stats *stats);

/* Scores `count` legal moves of the color to move with the greedy
 * heuristic (higher is better; the terms are documented in blokus_bot.c)
 * into scores[0 .. count-1]. */
void blokus_bot_score_moves(const blokus_state *state, const blokus_move *moves, int count,
                            int *scores);

#endif

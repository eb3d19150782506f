/* reef_bench.h -- what the Reef experiments (reef_clairvoyant,
 * reef_sampled_futures; docs/BOTS.md, "The Reef bots") share. */
#ifndef TESSERA_REEF_BENCH_H
#define TESSERA_REEF_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/reef.h"

/* A hash of a position's board, streak, skips and score, never 0 (so an
 * open-addressing set can mark a free slot with 0). */
uint64_t reef_bench_position_hash(const reef_state *state);

/* Reads "A..B" or "A" (A <= B) into *first and *last; false if it is not. */
bool reef_bench_parse_seeds(const char *text, uint64_t *first, uint64_t *last);

#endif

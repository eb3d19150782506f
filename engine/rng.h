/* rng.h -- splitmix64, the engine's only source of randomness.
 *
 * A tiny value type: copy it to fork a stream, seed it to replay one. Games
 * and bots are deterministic for a given seed because nothing else in the
 * engine draws random numbers (no rand(), no time). The Reef generator
 * `reef-gen-1` is defined in terms of exactly this generator and rng_below(). */
#ifndef TESSERA_RNG_H
#define TESSERA_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t state;
} rng;

/* A generator whose first output is splitmix64's first output for `seed`. */
static inline rng rng_seeded(uint64_t seed)
{
    rng generator = {seed};
    return generator;
}

/* The next 64-bit output (Vigna's splitmix64). */
static inline uint64_t rng_next(rng *generator)
{
    uint64_t z = (generator->state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* next() % n, as reef-gen-1 specifies (the tiny modulo bias is part of the
 * definition). n must be > 0. */
static inline uint32_t rng_below(rng *generator, uint32_t n)
{
    return (uint32_t)(rng_next(generator) % n);
}

#endif

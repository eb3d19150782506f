/* bits.h -- bit counting for the engine's bitboards and Reef's cell masks.
 *
 * GCC's __builtin_popcount compiles to a library call on the default x86-64
 * target (no POPCNT instruction), which showed up in bot profiles; this is
 * the branch-free SWAR count, a dozen instructions, inlined. */
#ifndef TESSERA_BITS_H
#define TESSERA_BITS_H

#include <stdint.h>

/* Number of set bits of `x`. */
static inline int bits_count(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (int)((((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

/* Number of set bits of a 64-bit `x` (Reef's 48-cell masks). */
static inline int bits_count64(uint64_t x)
{
    return bits_count((uint32_t)x) + bits_count((uint32_t)(x >> 32));
}

#endif

/* histogram.c -- log-linear buckets (see histogram.h).
 *
 * For v >= 32, with m the index of v's highest set bit, the bucket is
 * (m - 5) * 32 + (v >> (m - 5)): the top six bits of v pick one of 32
 * buckets within its power of two (the leading bit is always set). For
 * v < 32 the bucket is v itself, and the two ranges meet without a gap. */
#include <string.h>

#include "bench/histogram.h"

#define SUB_BITS 5

static int bucket_of(uint64_t value)
{
    if (value < (1u << SUB_BITS))
        return (int)value;
    int top_bit = 63 - __builtin_clzll(value);
    int shift = top_bit - SUB_BITS;
    return (shift << SUB_BITS) + (int)(value >> shift);
}

/* The largest value that falls in `bucket`. */
static uint64_t bucket_top(int bucket)
{
    if (bucket < (2 << SUB_BITS))
        return (uint64_t)bucket;
    int shift = (bucket >> SUB_BITS) - 1;
    uint64_t mantissa = (uint64_t)(bucket - (shift << SUB_BITS));
    return ((mantissa + 1) << shift) - 1;
}

void histogram_clear(histogram *h)
{
    memset(h, 0, sizeof(*h));
}

void histogram_record(histogram *h, uint64_t value)
{
    h->counts[bucket_of(value)]++;
    h->total++;
    if (value > h->maximum)
        h->maximum = value;
}

uint64_t histogram_percentile(const histogram *h, double fraction)
{
    if (h->total == 0)
        return 0;
    uint64_t rank = (uint64_t)(fraction * (double)h->total);
    if (rank >= h->total)
        rank = h->total - 1;
    uint64_t seen = 0;
    for (int b = 0; b < HISTOGRAM_BUCKETS; b++) {
        seen += h->counts[b];
        if (seen > rank) {
            uint64_t top = bucket_top(b);
            return top < h->maximum ? top : h->maximum;
        }
    }
    return h->maximum;
}

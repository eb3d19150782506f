/* histogram.h -- a latency histogram with fixed buckets in seconds, the
 * shape Prometheus reads (cumulative `le` buckets, a sum and a count).
 *
 * Every histogram of the server uses the same bounds, from 100 µs to 10 s,
 * so figures compare at a glance. Observing is a few comparisons and two
 * additions: cheap enough for every move. */
#ifndef TESSERA_HISTOGRAM_H
#define TESSERA_HISTOGRAM_H

#include <stdint.h>

#define HISTOGRAM_BUCKETS 16

/* The upper bounds of the buckets, in seconds, ascending. */
extern const double HISTOGRAM_BOUNDS_S[HISTOGRAM_BUCKETS];

typedef struct histogram {
    uint64_t buckets[HISTOGRAM_BUCKETS]; /* observations <= that bound (not cumulative) */
    uint64_t count;                      /* every observation, the ones past 10 s too */
    double sum_s;
} histogram;

void histogram_observe(histogram *into, double seconds);

/* Adds every observation of `more` to `into`. */
void histogram_add(histogram *into, const histogram *more);

#endif

/* histogram.h -- latency percentiles in constant memory.
 *
 * A log-linear histogram of microsecond values, in the spirit of
 * HdrHistogram: values below 64 have a bucket each; above, every power of
 * two is split into 32 buckets, so a reported percentile is within about
 * 3% of the true sample. Recording is an index computation and an
 * increment, whatever the number of samples. */
#ifndef TESSERA_BENCH_HISTOGRAM_H
#define TESSERA_BENCH_HISTOGRAM_H

#include <stdint.h>

#define HISTOGRAM_BUCKETS 1920 /* enough for values up to 2^63 */

typedef struct histogram {
    uint64_t counts[HISTOGRAM_BUCKETS];
    uint64_t total;
    uint64_t maximum;
} histogram;

/* Empties `h`. */
void histogram_clear(histogram *h);

/* Counts one value (microseconds). */
void histogram_record(histogram *h, uint64_t value);

/* The value at `fraction` (0.5 for the median) of the samples: the upper
 * edge of its bucket, capped at the largest sample; 0 if there are none. */
uint64_t histogram_percentile(const histogram *h, double fraction);

#endif

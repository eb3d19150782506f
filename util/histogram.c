/* histogram.c -- see histogram.h. */
#include "util/histogram.h"

const double HISTOGRAM_BOUNDS_S[HISTOGRAM_BUCKETS] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
    0.05,   0.1,     0.25,   0.5,   1.0,    2.5,   5.0,  10.0,
};

void histogram_observe(histogram *into, double seconds)
{
    for (int i = 0; i < HISTOGRAM_BUCKETS; i++) {
        if (seconds <= HISTOGRAM_BOUNDS_S[i]) {
            into->buckets[i]++;
            break;
        }
    }
    into->count++;
    into->sum_s += seconds;
}

void histogram_add(histogram *into, const histogram *more)
{
    for (int i = 0; i < HISTOGRAM_BUCKETS; i++)
        into->buckets[i] += more->buckets[i];
    into->count += more->count;
    into->sum_s += more->sum_s;
}

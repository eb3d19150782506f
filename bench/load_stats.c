/* load_stats.c -- mean message sizes (the counters are plain fields). */
#include "bench/load_stats.h"

void load_stats_size(load_stats *stats, load_size_kind kind, uint64_t bytes)
{
    if (!stats->is_measuring)
        return;
    stats->size_sum[kind] += bytes;
    stats->size_count[kind]++;
}

uint64_t load_stats_mean_size(const load_stats *stats, load_size_kind kind)
{
    if (stats->size_count[kind] == 0)
        return 0;
    return (stats->size_sum[kind] + stats->size_count[kind] / 2) / stats->size_count[kind];
}

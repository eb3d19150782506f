/* reef_bench.c -- what the Reef experiments share (reef_bench.h). */
#include <stdio.h>

#include "bench/reef_bench.h"

uint64_t reef_bench_position_hash(const reef_state *state)
{
    uint64_t hash = UINT64_C(1469598103934665603);
    for (int index = 0; index < REEF_COLORS; index++) {
        hash = (hash ^ state->color_cells[index]) * UINT64_C(1099511628211);
        hash ^= hash >> 29;
    }
    hash = (hash ^ ((uint64_t)state->streak * 31 + state->skips_left)) * UINT64_C(1099511628211);
    return ((hash ^ (uint64_t)state->score) * UINT64_C(1099511628211)) | 1;
}

bool reef_bench_parse_seeds(const char *text, uint64_t *first, uint64_t *last)
{
    unsigned long long from = 0, to = 0;
    char extra;
    int fields = sscanf(text, "%llu..%llu%c", &from, &to, &extra);
    if (fields == 1 && sscanf(text, "%llu%c", &from, &extra) != 1)
        return false;
    if (fields < 1 || fields > 2)
        return false;
    *first = from;
    *last = fields == 2 ? to : from;
    return *first <= *last;
}

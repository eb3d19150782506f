/* cmd_perft.c -- `tessera perft`: legal move sequences from the empty board.
 *
 * The standard move-generator check: the number of distinct sequences of
 * `depth` placements (colors in rotation, automatic passes not counted) must
 * match the reference figures of docs/ARCHITECTURE.md,
 * "Move-generator reference figures". The leaf level counts moves without
 * applying them. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "engine/blokus.h"
#include "cli/commands.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: tessera perft [--mode 4p|3p|2p|duo] [--depth N]\n\n"
                 "Counts the legal move sequences of N placements from the empty board\n"
                 "(default 4p, depth 3). Standard output gets one line, the count for\n"
                 "depth N; standard error gets the smaller depths and timings.\n");
}

int cmd_perft(int argc, char **argv)
{
    static const struct option options[] = {{"mode", required_argument, NULL, 'm'},
                                            {"depth", required_argument, NULL, 'd'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    blokus_mode mode = BLOKUS_MODE_4P;
    int depth = 3, opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            return 0;
        }
        if (opt == 'm' && blokus_mode_parse(optarg, &mode) == 0)
            continue;
        if (opt == 'd' && (depth = atoi(optarg)) >= 1 && depth <= 8)
            continue;
        usage(stderr);
        return 2;
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }
    blokus_move *buffers = malloc(sizeof(blokus_move) * BLOKUS_MAX_MOVES * (size_t)depth);
    if (!buffers) {
        fprintf(stderr, "perft: out of memory\n");
        return 1;
    }
    blokus_state state;
    blokus_init(&state, mode, BLOKUS_SCORING_SQUARES);
    for (int d = 1; d <= depth; d++) {
        struct timespec start, end;
        clock_gettime(CLOCK_MONOTONIC, &start);
        uint64_t count = blokus_perft(&state, d, buffers);
        clock_gettime(CLOCK_MONOTONIC, &end);
        double seconds = (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
        if (d < depth) {
            fprintf(stderr, "depth %d: %llu (%.3f s)\n", d, (unsigned long long)count, seconds);
            continue;
        }
        fprintf(stderr, "depth %d: %.3f s\n", d, seconds);
        printf("%llu\n", (unsigned long long)count);
    }
    free(buffers);
    return 0;
}

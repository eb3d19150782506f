/* bench_engine.c -- `tessera bench engine`: engine speed figures.
 *
 * Prints throughput for: random classic 4p games and Duo games (the full
 * legal move list regenerated every turn, one uniformly drawn), perft(4),
 * MCTS playouts per second from a mid-game position, and random Reef runs.
 * Each figure runs for a fixed wall time on one core and reports the rate,
 * so runs are comparable across machines; it checks nothing (tests do). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "engine/blokus.h"
#include "engine/blokus_bot.h"
#include "engine/reef.h"
#include "engine/rng.h"

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Plays one game choosing uniformly among all legal moves each turn;
 * returns the number of placements. */
static int random_game(blokus_mode mode, rng *r, blokus_move *moves)
{
    blokus_state s;
    blokus_init(&s, mode, BLOKUS_SCORING_SQUARES);
    int placements = 0;
    while (!s.is_over) {
        int count = blokus_generate(&s, moves);
        blokus_apply(&s, moves[rng_below(r, (uint32_t)count)]);
        placements++;
    }
    return placements;
}

static void bench_random_games(const char *label, blokus_mode mode, double seconds)
{
    blokus_move *moves = malloc(sizeof(blokus_move) * BLOKUS_MAX_MOVES);
    if (!moves) {
        fprintf(stderr, "bench: out of memory\n");
        return;
    }
    rng r = rng_seeded(1);
    long games = 0, placements = 0;
    double start = now_seconds(), elapsed;
    do {
        placements += random_game(mode, &r, moves);
        games++;
    } while ((elapsed = now_seconds() - start) < seconds);
    printf("%-28s %10.0f games/s  (%ld games, %.1f placements/game)\n", label, games / elapsed,
           games, (double)placements / games);
    free(moves);
}

static void bench_perft(void)
{
    blokus_move *buffers = malloc(sizeof(blokus_move) * BLOKUS_MAX_MOVES * 4);
    if (!buffers) {
        fprintf(stderr, "bench: out of memory\n");
        return;
    }
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_SQUARES);
    double start = now_seconds();
    uint64_t count = blokus_perft(&s, 4, buffers);
    printf("%-28s %10.3f s      (%llu sequences)\n", "perft(4) classic 4p", now_seconds() - start,
           (unsigned long long)count);
    free(buffers);
}

/* One MCTS search of `seconds` from ply 16 of a 4p game played by uniform
 * random moves from a fixed seed: a mid-game position, where playouts are
 * longest. */
static void bench_mcts(double seconds)
{
    blokus_move *moves = malloc(sizeof(blokus_move) * BLOKUS_MAX_MOVES);
    if (!moves) {
        fprintf(stderr, "bench: out of memory\n");
        return;
    }
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_SQUARES);
    rng r = rng_seeded(16);
    while (s.ply < 16 && !s.is_over)
        blokus_apply(&s, moves[rng_below(&r, (uint32_t)blokus_generate(&s, moves))]);
    free(moves);
    blokus_bot_budget budget = {.time_ms = (uint32_t)(seconds * 1000)};
    blokus_bot_stats stats;
    blokus_move best;
    if (blokus_bot_mcts(&s, &budget, 1, &best, &stats) != 0) {
        printf("%-28s failed\n", "MCTS playouts/s at ply 16");
        return;
    }
    printf("%-28s %10.0f playouts/s  (%llu playouts, %u nodes)\n", "MCTS playouts/s at ply 16",
           (double)stats.playouts / stats.seconds, (unsigned long long)stats.playouts, stats.nodes);
}

/* Plays Reef runs choosing uniformly among the legal actions (skips
 * included) until each run ends; returns the actions played. */
static long random_reef_game(uint64_t seed, rng *r)
{
    reef_state s;
    reef_action actions[REEF_MAX_ACTIONS];
    reef_init(&s, seed);
    long turns = 0;
    for (int count; (count = reef_legal_actions(&s, actions)) > 0; turns++)
        reef_play(&s, actions[rng_below(r, (uint32_t)count)], NULL);
    return turns;
}

static void bench_reef_games(double seconds)
{
    rng r = rng_seeded(3);
    long games = 0, turns = 0;
    double start = now_seconds(), elapsed;
    do {
        turns += random_reef_game((uint64_t)games, &r);
        games++;
    } while ((elapsed = now_seconds() - start) < seconds);
    printf("%-28s %10.0f games/s  (%ld games, %.1f actions/game)\n", "random reef games",
           games / elapsed, games, (double)turns / games);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: tessera bench engine [--seconds S]\n\n"
                 "Prints engine throughput figures (one core each).\n");
}

int cmd_bench(int argc, char **argv)
{
    static const struct option options[] = {{"seconds", required_argument, NULL, 's'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    double seconds = 2.0;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            return 0;
        }
        if (opt == 's' && (seconds = atof(optarg)) > 0)
            continue;
        usage(stderr);
        return 2;
    }
    if (optind != argc - 1 || strcmp(argv[optind], "engine") != 0) {
        usage(stderr);
        return 2;
    }
    bench_random_games("random classic 4p games", BLOKUS_MODE_4P, seconds);
    bench_random_games("random duo games", BLOKUS_MODE_DUO, seconds);
    bench_perft();
    bench_mcts(seconds);
    bench_reef_games(seconds);
    return 0;
}

/* bench_engine.c -- `tessera bench engine`: engine speed figures.
 *
 * Prints throughput for: random classic 4p games and Duo games (the full
 * legal move list regenerated every turn, one uniformly drawn), perft(4)
 * classic and perft(3) Duo, MCTS playouts per second from a mid-game
 * position, and random Reef runs. Each figure runs for a fixed time on one
 * core and reports the rate, so runs are comparable across machines; it
 * checks nothing (tests do). The Blokus generator figures are printed
 * twice, by the engine and by the engine's former whole-board scan
 * generator (blokus_scan_*, the reference), with their ratio: the two take
 * turns in rounds and are timed in CPU time, so a change of generator is
 * measured against the old one on the same machine in one run. */
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

/* CPU time of this thread: what the generator comparisons are timed in, so
 * that other processes on a shared machine slow both sides alike instead
 * of whichever ran while they were busy. */
static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The engine's generator, or the reference scan. */
struct generator {
    const char *name;
    int (*generate_for)(const blokus_state *state, int color, blokus_move *moves);
    void (*apply)(blokus_state *state, blokus_move move);
    uint64_t (*perft)(const blokus_state *state, int depth, blokus_move *buffers);
};

static const struct generator GENERATORS[] = {
    {"engine", blokus_generate_for, blokus_apply, blokus_perft},
    {"scan (former)", blokus_scan_generate_for, blokus_scan_apply, blokus_scan_perft},
};

#define GENERATOR_COUNT ((int)(sizeof(GENERATORS) / sizeof(GENERATORS[0])))

/* Plays one game choosing uniformly among all legal moves each turn;
 * returns the number of placements. */
static int random_game(const struct generator *generator, blokus_mode mode, rng *r,
                       blokus_move *moves)
{
    blokus_state s;
    blokus_init(&s, mode, BLOKUS_SCORING_SQUARES);
    int placements = 0;
    while (!s.is_over) {
        int count = generator->generate_for(&s, s.to_move, moves);
        generator->apply(&s, moves[rng_below(r, (uint32_t)count)]);
        placements++;
    }
    return placements;
}

/* The generators take turns in this many rounds, so a change of machine
 * load or clock during the run falls on both. */
#define ROUNDS 4

/* Random games per CPU second of each generator. The two list the same
 * moves in different orders, so from the same seed they play different
 * (equally random) games; the placements per game show they are alike. */
static void bench_random_games(const char *label, blokus_mode mode, double seconds)
{
    blokus_move *moves = malloc(sizeof(blokus_move) * BLOKUS_MAX_MOVES);
    if (!moves) {
        fprintf(stderr, "bench: out of memory\n");
        return;
    }
    rng streams[GENERATOR_COUNT];
    long games[GENERATOR_COUNT] = {0}, placements[GENERATOR_COUNT] = {0};
    double spent[GENERATOR_COUNT] = {0};
    for (int g = 0; g < GENERATOR_COUNT; g++)
        streams[g] = rng_seeded(1);
    for (int round = 0; round < ROUNDS; round++)
        for (int g = 0; g < GENERATOR_COUNT; g++) {
            double start = cpu_seconds(), elapsed;
            do {
                placements[g] += random_game(&GENERATORS[g], mode, &streams[g], moves);
                games[g]++;
            } while ((elapsed = cpu_seconds() - start) < seconds / ROUNDS);
            spent[g] += elapsed;
        }
    for (int g = 0; g < GENERATOR_COUNT; g++)
        printf("%-28s %10.0f games/s  (%s; %ld games, %.1f placements/game)\n", label,
               games[g] / spent[g], GENERATORS[g].name, games[g], (double)placements[g] / games[g]);
    printf("%-28s %10.2fx\n", "  engine / scan", (games[0] / spent[0]) / (games[1] / spent[1]));
    free(moves);
}

/* Perft from the empty board by each generator, the best CPU time of
 * ROUNDS runs each, taken in turns. */
static void bench_perft(const char *label, blokus_mode mode, int depth)
{
    blokus_move *buffers = malloc(sizeof(blokus_move) * BLOKUS_MAX_MOVES * (size_t)depth);
    if (!buffers) {
        fprintf(stderr, "bench: out of memory\n");
        return;
    }
    double best[GENERATOR_COUNT];
    uint64_t counts[GENERATOR_COUNT];
    for (int round = 0; round < ROUNDS; round++)
        for (int g = 0; g < GENERATOR_COUNT; g++) {
            blokus_state s;
            blokus_init(&s, mode, BLOKUS_SCORING_SQUARES);
            double start = cpu_seconds();
            counts[g] = GENERATORS[g].perft(&s, depth, buffers);
            double elapsed = cpu_seconds() - start;
            if (round == 0 || elapsed < best[g])
                best[g] = elapsed;
        }
    for (int g = 0; g < GENERATOR_COUNT; g++)
        printf("%-28s %10.3f s      (%s; %llu sequences)\n", label, best[g], GENERATORS[g].name,
               (unsigned long long)counts[g]);
    printf("%-28s %10.2fx\n", "  engine / scan", best[1] / best[0]);
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
    bench_perft("perft(4) classic 4p", BLOKUS_MODE_4P, 4);
    bench_perft("perft(3) duo", BLOKUS_MODE_DUO, 3);
    bench_mcts(seconds);
    bench_reef_games(seconds);
    return 0;
}

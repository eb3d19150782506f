/* cmd_selfplay.c -- `tessera selfplay`: bots play each other, results tallied.
 *
 * The bots of --bots are entries, one per seat. Seats rotate between games:
 * in game g (0-based) seat s is taken by entry (s + g) mod N, so over any N
 * consecutive games every entry plays every seat once and no entry keeps the
 * first-move advantage; use a multiple of N games for a fair comparison.
 *
 * Everything is derived from --seed: game g's seed is a splitmix64 draw from
 * seed + g, and each move's bot seed is the next draw of that game's stream.
 * So a game depends only on (seed, g, options), never on --jobs or on which
 * thread played it, and with --playouts (no --time-ms) a whole run replays
 * exactly. Worker threads take games in order and the lines are printed in
 * game order as soon as every earlier game is done.
 *
 * The table counts a win shared by k tied winners as 1/k win for each, so
 * the wins of a run add up to its number of games. The average score is the
 * entry's player score under the chosen scoring (2p: both its colors).
 *
 * `--game reef` hands the whole command line to selfplay_reef(). */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/blokus_bot.h"
#include "engine/rng.h"
#include "cli/commands.h"

#define MAX_GAMES  100000
#define MAX_JOBS   64
#define LABEL_SIZE 16

struct options {
    blokus_mode mode;
    blokus_scoring scoring;
    blokus_bot_kind bots[BLOKUS_MAX_PLAYERS];
    char labels[BLOKUS_MAX_PLAYERS][LABEL_SIZE]; /* "mcts", or "random#3" when repeated */
    int bot_count;
    long games;
    uint64_t seed;
    blokus_bot_budget budget;
    int jobs;
};

/* One finished game, indexed by bot entry (not seat) where it says so. */
struct game_result {
    int rc; /* 0, or the engine error that stopped the game */
    int entry_of_seat[BLOKUS_MAX_PLAYERS];
    int scores[BLOKUS_MAX_PLAYERS]; /* by seat */
    unsigned winners;               /* bit per seat */
    int plies;
    double entry_seconds[BLOKUS_MAX_PLAYERS]; /* thinking time, by entry */
    long entry_moves[BLOKUS_MAX_PLAYERS];
    uint64_t entry_playouts[BLOKUS_MAX_PLAYERS];
};

struct run {
    const struct options *options;
    struct game_result *results;
    pthread_mutex_t lock;
    long next_game;  /* next game to hand to a worker */
    long next_print; /* next game to print */
    bool *is_done;
};

static void usage(FILE *out)
{
    fprintf(out, "usage: tessera selfplay [--game blokus|reef] [--mode 4p|3p|2p|duo]\n"
                 "                        [--bots B1,B2,...] [--games N] [--seed S]\n"
                 "                        [--scoring squares|official] [--time-ms T]\n"
                 "                        [--playouts P] [--jobs J]\n\n"
                 "Plays N games between built-in bots. Prints one line per game (each seat's\n"
                 "bot and score in seat order, * marking the winners), then a table per bot:\n"
                 "games, wins (a win shared by k tied winners counts 1/k for each), win %%,\n"
                 "average score, and thinking time and MCTS playouts per move.\n\n"
                 "  --bots      one bot per seat: random, greedy or mcts (default: the first\n"
                 "              players of mcts,greedy,random,random). Seats rotate between\n"
                 "              games, so use a multiple of the player count of games.\n"
                 "  --games     games to play (default 10)\n"
                 "  --seed      run seed; games and bot moves derive from it (default 1)\n"
                 "  --time-ms   MCTS time per move (default 100 unless --playouts is given)\n"
                 "  --playouts  MCTS playouts per move; without --time-ms the run is fully\n"
                 "              reproducible from the seed\n"
                 "  --jobs      games played in parallel threads (default 1)\n"
                 "  --game reef runs Reef Builder selfplay instead (see --game reef --help)\n");
}

static int parse_long(const char *text, long min, long max, long *out)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || value < min || value > max)
        return -1;
    *out = value;
    return 0;
}

static int parse_seed(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 0);
    if (*text == '\0' || *text == '-' || *end != '\0' || errno == ERANGE)
        return -1;
    *out = (uint64_t)value;
    return 0;
}

/* Parses "a,b,c" into options->bots and gives each entry its label. */
static int parse_bots(const char *list, struct options *options)
{
    char copy[128];
    if (strlen(list) >= sizeof(copy))
        return -1;
    strcpy(copy, list);
    options->bot_count = 0;
    for (char *save, *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (options->bot_count == BLOKUS_MAX_PLAYERS ||
            blokus_bot_parse(name, &options->bots[options->bot_count]) != 0)
            return -1;
        options->bot_count++;
    }
    return options->bot_count > 0 ? 0 : -1;
}

static void label_bots(struct options *options)
{
    for (int i = 0; i < options->bot_count; i++) {
        const char *name = blokus_bot_name(options->bots[i]);
        bool is_repeated = false;
        for (int j = 0; j < options->bot_count; j++)
            is_repeated |= j != i && options->bots[j] == options->bots[i];
        if (is_repeated)
            snprintf(options->labels[i], LABEL_SIZE, "%s#%d", name, i + 1);
        else
            snprintf(options->labels[i], LABEL_SIZE, "%s", name);
    }
}

static int parse_option(int opt, const char *arg, struct options *options, bool *has_bots)
{
    long value;
    switch (opt) {
    case 'g':
        return strcmp(arg, "blokus") == 0 ? 0 : -1;
    case 'm':
        return blokus_mode_parse(arg, &options->mode);
    case 'c':
        return blokus_scoring_parse(arg, &options->scoring);
    case 'b':
        *has_bots = true;
        return parse_bots(arg, options);
    case 'n':
        return parse_long(arg, 1, MAX_GAMES, &options->games);
    case 's':
        return parse_seed(arg, &options->seed);
    case 't':
        if (parse_long(arg, 1, 3600 * 1000, &value) != 0)
            return -1;
        options->budget.time_ms = (uint32_t)value;
        return 0;
    case 'p':
        if (parse_long(arg, 1, 100000000, &value) != 0)
            return -1;
        options->budget.playouts = (uint32_t)value;
        return 0;
    case 'j':
        if (parse_long(arg, 1, MAX_JOBS, &value) != 0)
            return -1;
        options->jobs = (int)value;
        return 0;
    }
    return -1;
}

/* 0, 1 after --help, or -1 on bad usage. */
static int parse_options(int argc, char **argv, struct options *options)
{
    static const struct option long_options[] = {{"game", required_argument, NULL, 'g'},
                                                 {"mode", required_argument, NULL, 'm'},
                                                 {"scoring", required_argument, NULL, 'c'},
                                                 {"bots", required_argument, NULL, 'b'},
                                                 {"games", required_argument, NULL, 'n'},
                                                 {"seed", required_argument, NULL, 's'},
                                                 {"time-ms", required_argument, NULL, 't'},
                                                 {"playouts", required_argument, NULL, 'p'},
                                                 {"jobs", required_argument, NULL, 'j'},
                                                 {"help", no_argument, NULL, 'h'},
                                                 {NULL, 0, NULL, 0}};
    bool has_bots = false;
    int opt, index = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", long_options, &index)) != -1) {
        if (opt == 'h')
            return 1;
        if (opt == '?')
            return -1; /* getopt has said why */
        if (parse_option(opt, optarg, options, &has_bots) != 0) {
            fprintf(stderr, "selfplay: bad value '%s' for --%s\n", optarg,
                    long_options[index].name);
            return -1;
        }
    }
    int players = blokus_player_count(options->mode);
    if (!has_bots) {
        parse_bots("mcts,greedy,random,random", options);
        options->bot_count = players;
    }
    if (optind != argc) {
        fprintf(stderr, "selfplay: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (options->bot_count != players) {
        fprintf(stderr, "selfplay: mode %s needs %d bots, --bots names %d\n",
                blokus_mode_name(options->mode), players, options->bot_count);
        return -1;
    }
    if (!options->budget.time_ms && !options->budget.playouts)
        options->budget.time_ms = 100;
    label_bots(options);
    return 0;
}

static double now_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* One move by the bot entry `entry`; its time and playouts go to *result. */
static int bot_move(const struct options *options, int entry, const blokus_state *state,
                    uint64_t seed, struct game_result *result, blokus_move *move)
{
    double start = now_seconds();
    blokus_bot_stats stats = {0};
    int rc;
    if (options->bots[entry] == BLOKUS_BOT_MCTS)
        rc = blokus_bot_mcts(state, &options->budget, seed, move, &stats);
    else
        rc = blokus_bot_choose(options->bots[entry], state, &options->budget, seed, move);
    result->entry_seconds[entry] += now_seconds() - start;
    result->entry_moves[entry]++;
    result->entry_playouts[entry] += stats.playouts;
    return rc;
}

static void play_game(const struct options *options, long game, struct game_result *result)
{
    memset(result, 0, sizeof(*result));
    for (int seat = 0; seat < options->bot_count; seat++)
        result->entry_of_seat[seat] = (int)((seat + game) % options->bot_count);
    rng stream = rng_seeded(options->seed + (uint64_t)game);
    stream = rng_seeded(rng_next(&stream));
    blokus_state state;
    blokus_init(&state, options->mode, options->scoring);
    while (!state.is_over && result->rc == 0) {
        int seat = blokus_player_to_move(&state);
        blokus_move move;
        result->rc = bot_move(options, result->entry_of_seat[seat], &state, rng_next(&stream),
                              result, &move);
        if (result->rc == 0)
            result->rc = blokus_play(&state, seat, move);
    }
    blokus_scores(&state, result->scores);
    result->winners = blokus_winners(&state);
    result->plies = state.ply;
}

static void print_game(const struct options *options, long game, const struct game_result *result)
{
    printf("game %ld:", game + 1);
    for (int seat = 0; seat < options->bot_count; seat++) {
        const char *label = options->labels[result->entry_of_seat[seat]];
        bool is_winner = (result->winners >> seat) & 1u;
        printf(" %s%s=%d", label, is_winner ? "*" : "", result->scores[seat]);
    }
    printf("  (%d plies)", result->plies);
    if (result->rc != 0)
        printf("  stopped: %s", engine_error_message(result->rc));
    printf("\n");
    fflush(stdout);
}

/* Prints the finished games that every earlier game has caught up with.
 * Called with run->lock held. */
static void print_ready(struct run *run)
{
    while (run->next_print < run->options->games && run->is_done[run->next_print]) {
        print_game(run->options, run->next_print, &run->results[run->next_print]);
        run->next_print++;
    }
}

static void *worker(void *argument)
{
    struct run *run = argument;
    for (;;) {
        pthread_mutex_lock(&run->lock);
        long game = run->next_game < run->options->games ? run->next_game++ : -1;
        pthread_mutex_unlock(&run->lock);
        if (game < 0)
            return NULL;
        struct game_result result;
        play_game(run->options, game, &result);
        pthread_mutex_lock(&run->lock);
        run->results[game] = result;
        run->is_done[game] = true;
        print_ready(run);
        pthread_mutex_unlock(&run->lock);
    }
}

/* Runs the games on options->jobs threads, the calling thread being one of
 * them; if a thread cannot be started, the others play its share. */
static void play_games(struct run *run)
{
    pthread_t threads[MAX_JOBS];
    int started = 0;
    for (int i = 1; i < run->options->jobs; i++) {
        if (pthread_create(&threads[started], NULL, worker, run) != 0)
            break;
        started++;
    }
    worker(run);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
}

/* One bot entry's figures over a run. */
struct totals {
    double wins;
    double score;
    double seconds;
    long moves;
    uint64_t playouts;
};

static void add_game(const struct game_result *played, int entry, int seats, struct totals *totals)
{
    for (int seat = 0; seat < seats; seat++) {
        if (played->entry_of_seat[seat] != entry)
            continue;
        totals->score += played->scores[seat];
        if ((played->winners >> seat) & 1u)
            totals->wins += 1.0 / __builtin_popcount(played->winners);
    }
    totals->seconds += played->entry_seconds[entry];
    totals->moves += played->entry_moves[entry];
    totals->playouts += played->entry_playouts[entry];
}

static void print_table(const struct options *options, const struct game_result *results)
{
    printf("\n%-10s %6s %8s %7s %10s %10s %12s\n", "bot", "games", "wins", "win %", "avg score",
           "ms/move", "playouts/mv");
    double games = (double)options->games;
    for (int entry = 0; entry < options->bot_count; entry++) {
        struct totals totals = {0};
        for (long g = 0; g < options->games; g++)
            add_game(&results[g], entry, options->bot_count, &totals);
        double per_move = totals.moves ? 1.0 / (double)totals.moves : 0.0;
        printf("%-10s %6ld %8.1f %7.1f %10.1f %10.2f %12.0f\n", options->labels[entry],
               options->games, totals.wins, 100.0 * totals.wins / games, totals.score / games,
               1000.0 * totals.seconds * per_move, (double)totals.playouts * per_move);
    }
}

/* Whether the command line asks for `--game reef` (in either spelling). */
static bool is_reef(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--game=reef") == 0)
            return true;
        if (strcmp(argv[i], "--game") == 0 && i + 1 < argc && strcmp(argv[i + 1], "reef") == 0)
            return true;
    }
    return false;
}

int cmd_selfplay(int argc, char **argv)
{
    if (is_reef(argc, argv))
        return selfplay_reef(argc, argv);
    struct options options = {.mode = BLOKUS_MODE_4P, .games = 10, .seed = 1, .jobs = 1};
    int parsed = parse_options(argc, argv, &options);
    if (parsed != 0) {
        usage(parsed > 0 ? stdout : stderr);
        return parsed > 0 ? 0 : 2;
    }
    struct run run = {.options = &options};
    run.results = calloc((size_t)options.games, sizeof(struct game_result));
    run.is_done = calloc((size_t)options.games, sizeof(bool));
    int status = 1;
    if (!run.results || !run.is_done) {
        fprintf(stderr, "selfplay: out of memory\n");
        goto out;
    }
    pthread_mutex_init(&run.lock, NULL);
    play_games(&run);
    pthread_mutex_destroy(&run.lock);
    print_table(&options, run.results);
    status = 0;
    for (long g = 0; g < options.games; g++)
        if (run.results[g].rc != 0)
            status = 1;
out:
    free(run.results);
    free(run.is_done);
    return status;
}

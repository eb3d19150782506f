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
 * thread played it, and with playouts only (--playouts or NAME@Np, no
 * time) a whole run replays exactly. Worker threads take games in order
 * and the lines are printed in game order as soon as every earlier game is
 * done.
 *
 * The table counts a win shared by k tied winners as 1/k win for each, so
 * the wins of a run add up to its number of games. The average score is the
 * entry's player score under the chosen scoring (2p: both its colors).
 *
 * An entry may carry its own time per move, "mcts-v2@300", or its own
 * playouts per move, "mcts-v1@6660p". `--ladder` reads --bots as levels,
 * weakest first, and plays --games games between each level and the one
 * below it: in Duo and 2p one seat each, in 4p two seats each
 * (alternating, so the seat rotation gives each level every seat). The
 * upper level's score in a pairing is its share of the wins;
 * util/elo.h turns the pairings into a rating per level, the weakest at 0,
 * with 95% intervals. Pairing i's games derive from seed + i.
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
#include "util/elo.h"

#define MAX_GAMES    100000
#define MAX_JOBS     64
#define MAX_PLAYOUTS 100000000
#define LABEL_SIZE   24
/* Entries of --bots: one per seat, or the levels of a ladder. */
#define MAX_ENTRIES 8

struct options {
    blokus_mode mode;
    blokus_scoring scoring;
    blokus_bot_kind bots[MAX_ENTRIES];
    uint32_t time_ms[MAX_ENTRIES];          /* the entry's own time per move; 0: none */
    uint32_t playouts[MAX_ENTRIES];         /* the entry's own playouts per move; 0: none */
    blokus_bot_budget budgets[MAX_ENTRIES]; /* what each entry searches with */
    char labels[MAX_ENTRIES][LABEL_SIZE];   /* "mcts", "mcts-v2@300", or "random#3" when repeated */
    int bot_count;
    long games;
    uint64_t seed;
    blokus_bot_budget budget; /* the shared budget */
    int jobs;
    bool is_ladder;
};

/* One finished game, indexed by bot entry (not seat) where it says so. */
struct game_result {
    int rc; /* 0, or the engine error that stopped the game */
    int entry_of_seat[BLOKUS_MAX_PLAYERS];
    int scores[BLOKUS_MAX_PLAYERS]; /* by seat */
    unsigned winners;               /* bit per seat */
    int plies;
    double entry_seconds[MAX_ENTRIES]; /* thinking time, by entry */
    long entry_moves[MAX_ENTRIES];
    uint64_t entry_playouts[MAX_ENTRIES];
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
                 "                        [--playouts P] [--jobs J] [--ladder]\n\n"
                 "Plays N games between built-in bots. Prints one line per game (each seat's\n"
                 "bot and score in seat order, * marking the winners), then a table per bot:\n"
                 "games, wins (a win shared by k tied winners counts 1/k for each), win %%,\n"
                 "average score, and thinking time and MCTS playouts per move.\n\n"
                 "  --bots      one bot per seat: random, greedy, mcts (also mcts-v1) or\n"
                 "              mcts-v2, each optionally with its own time per move as\n"
                 "              NAME@MS or its own playouts per move as NAME@Np\n"
                 "              (mcts-v1@6660p) (default: the first players of\n"
                 "              mcts,greedy,random,random). Seats rotate between\n"
                 "              games, so use a multiple of the player count of games.\n"
                 "  --ladder    --bots lists 2 to 8 levels, weakest first; each plays\n"
                 "              --games games against the level below it (duo, 2p, 4p),\n"
                 "              then a table gives each level's Elo with a 95%% interval\n"
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

/* Parses one entry, "name", "name@ms" or "name@Np" (N playouts a move),
 * into entry `index`. */
static int parse_entry(char *text, struct options *options, int index)
{
    long time_ms = 0, playouts = 0;
    char *at = strchr(text, '@');
    if (at) {
        *at = '\0';
        size_t length = strlen(at + 1);
        if (length > 1 && at[length] == 'p') {
            at[length] = '\0';
            if (parse_long(at + 1, 1, MAX_PLAYOUTS, &playouts) != 0)
                return -1;
        } else if (parse_long(at + 1, 1, 3600 * 1000, &time_ms) != 0) {
            return -1;
        }
    }
    options->time_ms[index] = (uint32_t)time_ms;
    options->playouts[index] = (uint32_t)playouts;
    return blokus_bot_parse_level(text, &options->bots[index]);
}

/* Parses "a,b@300,c" into options->bots and their own times. */
static int parse_bots(const char *list, struct options *options)
{
    char copy[256];
    if (strlen(list) >= sizeof(copy))
        return -1;
    strcpy(copy, list);
    options->bot_count = 0;
    for (char *save, *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (options->bot_count == MAX_ENTRIES ||
            parse_entry(name, options, options->bot_count) != 0)
            return -1;
        options->bot_count++;
    }
    return options->bot_count > 0 ? 0 : -1;
}

static bool is_same_entry(const struct options *options, int a, int b)
{
    return options->bots[a] == options->bots[b] && options->time_ms[a] == options->time_ms[b] &&
           options->playouts[a] == options->playouts[b];
}

/* Gives each entry its label and its budget: its own time or playouts, or
 * the shared budget. */
static void label_bots(struct options *options)
{
    for (int i = 0; i < options->bot_count; i++) {
        char name[LABEL_SIZE - 3]; /* room for "#N" */
        if (options->time_ms[i])
            snprintf(name, sizeof(name), "%s@%u", blokus_bot_name(options->bots[i]),
                     options->time_ms[i]);
        else if (options->playouts[i])
            snprintf(name, sizeof(name), "%s@%up", blokus_bot_name(options->bots[i]),
                     options->playouts[i]);
        else
            snprintf(name, sizeof(name), "%s", blokus_bot_name(options->bots[i]));
        bool is_repeated = false;
        for (int j = 0; j < options->bot_count; j++)
            is_repeated |= j != i && is_same_entry(options, i, j);
        if (is_repeated)
            snprintf(options->labels[i], LABEL_SIZE, "%s#%d", name, i + 1);
        else
            snprintf(options->labels[i], LABEL_SIZE, "%s", name);
        options->budgets[i] = options->budget;
        if (options->time_ms[i] || options->playouts[i])
            options->budgets[i] =
                (blokus_bot_budget){options->time_ms[i], options->playouts[i], NULL};
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
        if (parse_long(arg, 1, MAX_PLAYOUTS, &value) != 0)
            return -1;
        options->budget.playouts = (uint32_t)value;
        return 0;
    case 'j':
        if (parse_long(arg, 1, MAX_JOBS, &value) != 0)
            return -1;
        options->jobs = (int)value;
        return 0;
    case 'l':
        options->is_ladder = true;
        return 0;
    }
    return -1;
}

/* The ladder's checks: levels to pair, in a mode whose seats split evenly
 * between two levels. 0 or -1 (said why). */
static int check_ladder(const struct options *options, int players)
{
    if (players == 3) {
        fprintf(stderr, "selfplay: --ladder plays duo, 2p or 4p\n");
        return -1;
    }
    if (options->bot_count < 2) {
        fprintf(stderr, "selfplay: --ladder needs at least 2 levels in --bots\n");
        return -1;
    }
    return 0;
}

/* 0, 1 after --help, or -1 on bad usage. */
static int parse_options(int argc, char **argv, struct options *options)
{
    static const struct option long_options[] = {
        {"game", required_argument, NULL, 'g'},    {"mode", required_argument, NULL, 'm'},
        {"scoring", required_argument, NULL, 'c'}, {"bots", required_argument, NULL, 'b'},
        {"games", required_argument, NULL, 'n'},   {"seed", required_argument, NULL, 's'},
        {"time-ms", required_argument, NULL, 't'}, {"playouts", required_argument, NULL, 'p'},
        {"jobs", required_argument, NULL, 'j'},    {"ladder", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
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
    if (options->is_ladder) {
        if (check_ladder(options, players) != 0)
            return -1;
    } else if (options->bot_count != players) {
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
    const blokus_bot_budget *budget = &options->budgets[entry];
    if (options->bots[entry] == BLOKUS_BOT_MCTS || options->bots[entry] == BLOKUS_BOT_MCTS2)
        rc = blokus_bot_search(options->bots[entry], state, budget, seed, move, &stats);
    else
        rc = blokus_bot_choose(options->bots[entry], state, budget, seed, move);
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

/* Plays options->games games and prints them and the table; *results
 * (owned by the caller, freed with free()) gets them. 0, 1 when a game
 * stopped on an engine error, -1 when out of memory (said). */
static int run_games(const struct options *options, struct game_result **results)
{
    struct run run = {.options = options};
    run.results = calloc((size_t)options->games, sizeof(struct game_result));
    run.is_done = calloc((size_t)options->games, sizeof(bool));
    int status = -1;
    if (!run.results || !run.is_done) {
        fprintf(stderr, "selfplay: out of memory\n");
        goto out;
    }
    pthread_mutex_init(&run.lock, NULL);
    play_games(&run);
    pthread_mutex_destroy(&run.lock);
    print_table(options, run.results);
    status = 0;
    for (long g = 0; g < options->games; g++)
        if (run.results[g].rc != 0)
            status = 1;
out:
    free(run.is_done);
    *results = run.results;
    return status;
}

/* The options of ladder pairing `pairing`: level pairing + 1 against level
 * `pairing`, alternating over the seats (entry 2k the lower level, entry
 * 2k + 1 the upper one). */
static void pairing_options(const struct options *ladder, int pairing, struct options *pair)
{
    *pair = *ladder;
    pair->is_ladder = false;
    pair->bot_count = blokus_player_count(ladder->mode);
    pair->seed = ladder->seed + (uint64_t)pairing;
    for (int entry = 0; entry < pair->bot_count; entry++) {
        int level = pairing + entry % 2;
        pair->bots[entry] = ladder->bots[level];
        pair->time_ms[entry] = ladder->time_ms[level];
    }
    label_bots(pair);
}

/* The upper level's share of the wins of a pairing. */
static double upper_score(const struct options *pair, const struct game_result *results)
{
    double wins = 0.0;
    for (long g = 0; g < pair->games; g++)
        for (int entry = 1; entry < pair->bot_count; entry += 2) {
            struct totals totals = {0};
            add_game(&results[g], entry, pair->bot_count, &totals);
            wins += totals.wins;
        }
    return wins / (double)pair->games;
}

/* An estimate as "elo [low..high]". */
static void print_estimate(elo_estimate estimate)
{
    printf(" %6.0f [%5.0f..%5.0f]", estimate.elo, estimate.low, estimate.high);
}

static void print_ladder(const struct options *options, const double *scores, const long *games)
{
    elo_estimate ratings[MAX_ENTRIES];
    int pairings = options->bot_count - 1;
    elo_ladder(scores, games, pairings, ratings);
    printf("ladder (%s, %s scoring, seed %llu)\n", blokus_mode_name(options->mode),
           blokus_scoring_name(options->scoring), (unsigned long long)options->seed);
    printf("%-16s %6s %8s %21s %21s\n", "level", "games", "score %", "Elo vs below [95%]",
           "Elo [95%]");
    printf("%-16s %6s %8s %21s", options->labels[0], "-", "-", "-");
    print_estimate(ratings[0]);
    printf("\n");
    for (int i = 0; i < pairings; i++) {
        printf("%-16s %6ld %8.1f", options->labels[i + 1], games[i], 100.0 * scores[i]);
        print_estimate(elo_from_score(scores[i], games[i]));
        print_estimate(ratings[i + 1]);
        printf("\n");
    }
}

/* --ladder: every level against the one below it, then the Elo table. */
static int run_ladder(const struct options *options)
{
    double scores[MAX_ENTRIES];
    long games[MAX_ENTRIES];
    int status = 0;
    for (int i = 0; i + 1 < options->bot_count; i++) {
        struct options pair;
        struct game_result *results;
        pairing_options(options, i, &pair);
        printf("pairing %d: %s against %s\n", i + 1, options->labels[i + 1], options->labels[i]);
        int rc = run_games(&pair, &results);
        if (rc < 0) {
            free(results);
            return 1;
        }
        status |= rc;
        scores[i] = upper_score(&pair, results);
        games[i] = pair.games;
        free(results);
        printf("\n");
    }
    print_ladder(options, scores, games);
    return status;
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
    if (options.is_ladder)
        return run_ladder(&options);
    struct game_result *results;
    int rc = run_games(&options, &results);
    free(results);
    return rc == 0 ? 0 : 1;
}

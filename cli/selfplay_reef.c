/* selfplay_reef.c -- `tessera selfplay --game reef`: built-in bots play seeds.
 *
 * Plays one run per seed with one built-in bot and prints a line per run and
 * a summary, so bot changes can be compared on fixed seeds:
 *
 *   seed=1 score=133150 turns=1000 placed=998 blooms=431 end=cap
 *   games=100 bot=lookahead max_turns=1000 mean=131234.5 sd=1234.5 min=98000 max=170250
 *
 * `sd` is the standard deviation of the scores (over the runs played, not
 * an estimate for more: one run has sd=0.0).
 *
 * A good bot keeps a Reef run alive forever (blooms free cells faster than
 * pieces fill them), so every run is cut after --max-turns actions; `end=`
 * says whether the run ended by the rules (`over`) or by the cap (`cap`).
 *
 * Options are parsed by hand rather than with getopt_long: the caller has
 * already run its own parser over the same argv, and getopt's global state
 * (optind and friends) would have to be reset in a glibc-specific way. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/reef.h"
#include "engine/reef_bot.h"
#include "cli/commands.h"

#define DEFAULT_MAX_TURNS 1000

typedef struct selfplay_options {
    reef_bot_kind bot;
    uint64_t first_seed;
    uint64_t last_seed;
    uint32_t max_turns;
    bool is_help;
} selfplay_options;

typedef struct selfplay_totals {
    uint64_t games;
    double score_sum;
    double square_sum; /* of the scores, for sd */
    int64_t min_score;
    int64_t max_score;
} selfplay_totals;

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: tessera selfplay --game reef [--bot NAME] [--seeds A..B|N]\n"
            "                        [--max-turns N]\n"
            "Plays one Reef Builder run per seed with a built-in bot.\n"
            "  --bot NAME       greedy, lookahead, planner or chainer (default lookahead)\n"
            "  --seeds A..B     inclusive seed range, or a single seed N (default 1..10)\n"
            "  --max-turns N    cut a run after N actions, N >= 1 (default %d)\n"
            "  --help           show this help\n",
            DEFAULT_MAX_TURNS);
}

/* Parses a whole decimal uint64 (no sign, no trailing text). */
static bool parse_u64(const char *text, const char *end, uint64_t *value)
{
    if (text == end || *text < '0' || *text > '9')
        return false;
    uint64_t result = 0;
    for (const char *digit = text; digit < end; digit++) {
        if (*digit < '0' || *digit > '9')
            return false;
        uint64_t next = result * 10 + (uint64_t)(*digit - '0');
        if (next / 10 != result)
            return false;
        result = next;
    }
    *value = result;
    return true;
}

static bool parse_seeds(const char *text, selfplay_options *options)
{
    const char *end = text + strlen(text);
    const char *dots = strstr(text, "..");
    if (dots == NULL) {
        bool is_valid = parse_u64(text, end, &options->first_seed);
        options->last_seed = options->first_seed;
        return is_valid;
    }
    return parse_u64(text, dots, &options->first_seed) &&
           parse_u64(dots + 2, end, &options->last_seed) &&
           options->first_seed <= options->last_seed;
}

static bool parse_max_turns(const char *text, selfplay_options *options)
{
    uint64_t value;
    if (!parse_u64(text, text + strlen(text), &value) || value == 0 || value > UINT32_MAX)
        return false;
    options->max_turns = (uint32_t)value;
    return true;
}

/* Applies option `name` with `value`; false if either is invalid. */
static bool apply_option(const char *name, const char *value, selfplay_options *options)
{
    if (strcmp(name, "--game") == 0)
        return strcmp(value, "reef") == 0;
    if (strcmp(name, "--bot") == 0)
        return reef_bot_parse(value, &options->bot) == 0;
    if (strcmp(name, "--seeds") == 0)
        return parse_seeds(value, options);
    if (strcmp(name, "--max-turns") == 0)
        return parse_max_turns(value, options);
    return false;
}

/* Splits "--name=value" or "--name value" at argv[*index]; advances *index
 * past what it used. Returns false on a missing value. */
static bool split_option(int argc, char **argv, int *index, char *name, size_t name_size,
                         const char **value)
{
    const char *argument = argv[*index];
    const char *equals = strchr(argument, '=');
    if (equals != NULL) {
        size_t length = (size_t)(equals - argument);
        if (length >= name_size)
            return false;
        memcpy(name, argument, length);
        name[length] = '\0';
        *value = equals + 1;
        return true;
    }
    if (*index + 1 >= argc || strlen(argument) >= name_size)
        return false;
    strcpy(name, argument);
    *index += 1;
    *value = argv[*index];
    return true;
}

static bool parse_options(int argc, char **argv, selfplay_options *options)
{
    for (int index = 1; index < argc; index++) {
        if (strcmp(argv[index], "--help") == 0 || strcmp(argv[index], "-h") == 0) {
            options->is_help = true;
            return true;
        }
        if (strncmp(argv[index], "--", 2) != 0) {
            fprintf(stderr, "tessera selfplay: unexpected argument %s\n", argv[index]);
            return false;
        }
        char name[32];
        const char *value;
        if (!split_option(argc, argv, &index, name, sizeof(name), &value)) {
            fprintf(stderr, "tessera selfplay: %s needs a value\n", argv[index]);
            return false;
        }
        if (!apply_option(name, value, options)) {
            fprintf(stderr, "tessera selfplay: invalid option %s %s\n", name, value);
            return false;
        }
    }
    return true;
}

/* Plays one run; returns 0 or the engine error that stopped it. */
static int play_seed(reef_bot_kind bot, uint64_t seed, uint32_t max_turns, reef_state *state)
{
    reef_init(state, seed);
    while (!reef_is_over(state) && reef_turns(state) < max_turns) {
        reef_action action;
        int error = reef_bot_choose(bot, state, &action);
        if (error == 0)
            error = reef_play(state, action, NULL);
        if (error < 0)
            return error;
    }
    return 0;
}

static void add_to_totals(selfplay_totals *totals, int64_t score)
{
    if (totals->games == 0 || score < totals->min_score)
        totals->min_score = score;
    if (totals->games == 0 || score > totals->max_score)
        totals->max_score = score;
    totals->score_sum += (double)score;
    totals->square_sum += (double)score * (double)score;
    totals->games++;
}

static int run_seeds(const selfplay_options *options)
{
    selfplay_totals totals = {0};
    for (uint64_t seed = options->first_seed;; seed++) {
        reef_state state;
        int error = play_seed(options->bot, seed, options->max_turns, &state);
        if (error < 0) {
            fprintf(stderr, "tessera selfplay: seed %" PRIu64 ": %s\n", seed,
                    engine_error_message(error));
            return 1;
        }
        printf("seed=%" PRIu64 " score=%" PRId64 " turns=%" PRIu32 " placed=%" PRIu32
               " blooms=%" PRIu32 " end=%s\n",
               seed, reef_score(&state), reef_turns(&state), reef_placements(&state),
               reef_blooms(&state), reef_is_over(&state) ? "over" : "cap");
        add_to_totals(&totals, reef_score(&state));
        if (seed == options->last_seed)
            break;
    }
    double mean = totals.score_sum / (double)totals.games;
    double variance = totals.square_sum / (double)totals.games - mean * mean;
    printf("games=%" PRIu64 " bot=%s max_turns=%" PRIu32 " mean=%.1f sd=%.1f min=%" PRId64
           " max=%" PRId64 "\n",
           totals.games, reef_bot_name(options->bot), options->max_turns, mean,
           variance > 0.0 ? sqrt(variance) : 0.0, totals.min_score, totals.max_score);
    return 0;
}

int selfplay_reef(int argc, char **argv)
{
    selfplay_options options = {REEF_BOT_LOOKAHEAD, 1, 10, DEFAULT_MAX_TURNS, false};
    if (!parse_options(argc, argv, &options)) {
        print_usage(stderr);
        return 2;
    }
    if (options.is_help) {
        print_usage(stdout);
        return 0;
    }
    return run_seeds(&options);
}

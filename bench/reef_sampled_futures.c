/* reef_sampled_futures.c -- reef_sampled_futures: a fair Reef player that
 * chooses by sampled futures, measured against the built-in levels.
 *
 *   reef_sampled_futures [--candidates N] [--futures K] [--depth D]
 *                        [--width W] [--finalists F --extra-futures K2]
 *                        [--streak-worth S] [--chainer-policy 1]
 *                        [--future-beams 1] [--seeds A..B] [--max-turns T]
 *
 * Perfect-information Monte Carlo ("determinization"): the first actions
 * are ranked as lookahead ranks them (points of the action, then the best
 * points + value of the visible next piece's placement after it) and the
 * best N are kept; K futures of the pieces nobody has seen are sampled, the
 * same K for every candidate (common random numbers); in each, the
 * candidate is played, then D more actions by a W-wide beam over the sampled
 * pieces (W = 1: greedy), or by the chainer itself with --chainer-policy;
 * the candidate with the best sum wins. With --finalists, the best F after
 * the K futures get K2 more. With --future-beams, each future instead gets
 * one W-wide beam over D actions from the root, and each first action earns
 * the best value of the lines that start with it there (every first action
 * is a candidate; one pruned from the beam gets the future's worst value).
 *
 * It sees what a player sees. A sampled future is the state with its piece
 * generator replaced by a fresh splitmix64 stream positioned at draw
 * turns + 2 (the draw after `next`): reef-gen-1's pieces depend on the
 * stream and the draw index alone (docs/ARCHITECTURE.md,
 * "Reef Builder piece generator"), so the futures follow the true
 * distribution and the real generator is never read. The stream's seed is a hash of the visible
 * state (board, pieces, score, streak, skips, turn), so the choice is
 * deterministic. Values are in points: the points earned on the line, a
 * skip charged 150 on top of its 50, a bloom charged 200 while the streak
 * is 0 and more than 12 cells are free (the chainer's build rule), and at
 * the horizon reef_bot_health() plus S per streak step.
 *
 * An experiment, not a level: it scored no better than the chainer at 8 to
 * 130 times its cost (docs/BOTS.md, "The Reef bots"). It prints a line per
 * run and the mean, spread and CPU time per action. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/reef_bench.h"
#include "engine/bits.h"
#include "engine/reef.h"
#include "engine/reef_bot.h"
#include "util/ranked.h"

#define NO_VALUE       INT64_MIN
#define MAX_CANDIDATES 32
#define MAX_WIDTH      64
#define MAX_FUTURES    1024
#define RUN_END_COST   3000
#define SKIP_RESERVE   150
#define BUILD_BLOOM    200
#define BUILD_FREE     12

typedef struct sampler_params {
    int candidates;    /* first actions kept for the sampled futures */
    int futures;       /* sampled futures, shared by every candidate */
    int finalists;     /* candidates kept for the second round */
    int extra_futures; /* futures added for the finalists */
    int depth;         /* actions played in each future after the candidate */
    int width;         /* beam width of those actions (1: greedy) */
    int streak_worth;  /* per streak step, at the horizon */
    bool is_chainer_policy;
    bool is_future_beam; /* one beam per future over every first action */
} sampler_params;

static int free_cells(const reef_state *state)
{
    uint64_t board = (UINT64_C(1) << REEF_CELLS) - 1;
    return bits_count64(~reef_occupied(state) & board);
}

static int64_t leaf_value(const sampler_params *params, const reef_state *state)
{
    if (reef_is_over(state))
        return -RUN_END_COST;
    uint32_t step = state->streak < REEF_MAX_STREAK_STEP ? state->streak : REEF_MAX_STREAK_STEP;
    return reef_bot_health(state) + (int64_t)params->streak_worth * step;
}

/* Plays `action`; returns its points with a skip's reserve and a building
 * bloom's charge. */
static int64_t play_priced(reef_state *state, reef_action action)
{
    bool is_building = state->streak == 0 && free_cells(state) > BUILD_FREE;
    reef_result result;
    reef_play(state, action, &result);
    if (action.type == REEF_ACTION_SKIP)
        return result.points - SKIP_RESERVE;
    if (is_building && result.bloom_count > 0)
        return result.points - BUILD_BLOOM;
    return result.points;
}

/* A placement that only repeats another one's cells and colours. */
static bool is_duplicate(const reef_state *state, reef_action action)
{
    return action.type == REEF_ACTION_PLACE && state->current.a == state->current.b &&
           action.orientation >= 180;
}

/* A node of a beam within one future: the points of its line, their
 * value with the leaf's, the position's hash (future-beam mode keeps a
 * position once) and the root action the line started with. */
typedef struct beam_node {
    int64_t points;
    int64_t value;
    uint64_t hash;
    int first;
    reef_state state;
} beam_node;

typedef struct beam {
    beam_node nodes[MAX_WIDTH];
    int count;
} beam;

/* Keeps `node` among the best `width` of `set`, best first; with
 * `is_unique`, not when a node of the same position is kept already. */
static void keep_node(beam *set, int width, const beam_node *node, bool is_unique)
{
    for (int index = 0; is_unique && index < set->count; index++) {
        if (set->nodes[index].hash == node->hash)
            return;
    }
    ranked_insert(set->nodes, sizeof(set->nodes[0]), &set->count, width, node,
                  offsetof(beam_node, value));
}

static void expand_node(const sampler_params *params, const beam_node *node, bool is_root,
                        bool is_unique, beam *next)
{
    if (reef_is_over(&node->state)) {
        keep_node(next, params->width, node, is_unique);
        return;
    }
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(&node->state, actions);
    for (int choice = 0; choice < count; choice++) {
        if (is_duplicate(&node->state, actions[choice]))
            continue;
        beam_node child = *node;
        child.points += play_priced(&child.state, actions[choice]);
        child.value = child.points + leaf_value(params, &child.state);
        if (is_unique)
            child.hash = reef_bench_position_hash(&child.state);
        if (is_root)
            child.first = choice;
        keep_node(next, params->width, &child, is_unique);
    }
}

/* Runs a beam of `params->width` for `params->depth` actions from `start`
 * (in sets[0]): the set holding the last step's nodes, best first. */
static beam *run_beam(const sampler_params *params, const beam_node *start, bool is_unique,
                      beam sets[2])
{
    sets[0].nodes[0] = *start;
    sets[0].count = 1;
    int from = 0;
    for (int step = 0; step < params->depth; step++) {
        sets[1 - from].count = 0;
        for (int index = 0; index < sets[from].count; index++)
            expand_node(params, &sets[from].nodes[index], step == 0, is_unique, &sets[1 - from]);
        from = 1 - from;
    }
    return &sets[from];
}

/* The points + leaf value reached in `depth` more actions of one future. */
static int64_t future_value(const sampler_params *params, const reef_state *start)
{
    if (params->is_chainer_policy) {
        reef_state line = *start;
        int64_t points = 0;
        for (int step = 0; step < params->depth && !reef_is_over(&line); step++) {
            reef_action action;
            reef_bot_choose(REEF_BOT_CHAINER, &line, &action);
            points += play_priced(&line, action);
        }
        return points + leaf_value(params, &line);
    }
    beam sets[2];
    beam_node root = {0, leaf_value(params, start), 0, -1, *start};
    return run_beam(params, &root, false, sets)->nodes[0].value;
}

typedef struct candidate {
    reef_action action;
    int64_t value; /* the first ranking's */
    int64_t total; /* over the sampled futures */
} candidate;

/* A first action's points plus the best points + leaf value of the visible
 * next piece after it. */
static int64_t first_value(const sampler_params *params, const reef_state *state,
                           reef_action action)
{
    reef_state middle = *state;
    int64_t points = play_priced(&middle, action);
    if (reef_is_over(&middle))
        return points - RUN_END_COST;
    reef_action seconds[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(&middle, seconds);
    int64_t best = NO_VALUE;
    for (int second = 0; second < count; second++) {
        if (is_duplicate(&middle, seconds[second]))
            continue;
        reef_state after = middle;
        int64_t value = play_priced(&after, seconds[second]) + leaf_value(params, &after);
        best = value > best ? value : best;
    }
    return points + best;
}

static int rank_candidates(const sampler_params *params, const reef_state *state,
                           candidate out[MAX_CANDIDATES])
{
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(state, actions);
    int kept = 0;
    for (int index = 0; index < count; index++) {
        if (is_duplicate(state, actions[index]))
            continue;
        candidate entry = {actions[index], first_value(params, state, actions[index]), 0};
        ranked_insert(out, sizeof(out[0]), &kept, params->candidates, &entry,
                      offsetof(candidate, value));
    }
    return kept;
}

/* A 64-bit digest of what a player sees: the sampling seed. */
static uint64_t visible_hash(const reef_state *state)
{
    uint64_t words[REEF_COLORS + 3];
    for (int index = 0; index < REEF_COLORS; index++)
        words[index] = state->color_cells[index];
    words[REEF_COLORS] = (uint64_t)state->current.a | (uint64_t)state->current.b << 8 |
                         (uint64_t)state->next.a << 16 | (uint64_t)state->next.b << 24 |
                         (uint64_t)state->skips_left << 32;
    words[REEF_COLORS + 1] = (uint64_t)state->score;
    words[REEF_COLORS + 2] = (uint64_t)state->streak << 32 | state->turns;
    uint64_t hash = UINT64_C(0x9E3779B97F4A7C15);
    for (size_t index = 0; index < sizeof(words) / sizeof(words[0]); index++) {
        rng mix = rng_seeded(hash ^ words[index]);
        hash = rng_next(&mix);
    }
    return hash;
}

/* Adds each candidate's value in futures [first, last) to its total. */
static void sample_futures(const sampler_params *params, const reef_state *state, int first,
                           int last, candidate candidates[], int count)
{
    uint64_t root = visible_hash(state);
    for (int future = first; future < last; future++) {
        rng mix = rng_seeded(root ^ (uint64_t)future * UINT64_C(0xD1B54A32D192ED03));
        reef_generator sampled = {rng_seeded(rng_next(&mix)), (uint64_t)state->turns + 2};
        for (int index = 0; index < count; index++) {
            reef_state line = *state;
            line.generator = sampled;
            int64_t points = play_priced(&line, candidates[index].action);
            candidates[index].total += points + future_value(params, &line);
        }
    }
}

/* Sorts by total, best first; equal totals keep their order. */
static void sort_by_total(candidate candidates[], int count)
{
    for (int index = 1; index < count; index++) {
        candidate moving = candidates[index];
        int slot = index;
        while (slot > 0 && candidates[slot - 1].total < moving.total) {
            candidates[slot] = candidates[slot - 1];
            slot--;
        }
        candidates[slot] = moving;
    }
}

/* Future-beam mode: in each sampled future a W-wide beam runs D actions
 * from the root; each first action earns the best value of the lines that
 * start with it, or the future's worst kept value when none survived. */
static reef_action choose_by_future_beams(const sampler_params *params, const reef_state *state)
{
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(state, actions);
    int64_t totals[REEF_MAX_ACTIONS] = {0};
    uint64_t root = visible_hash(state);
    beam sets[2];
    for (int future = 0; future < params->futures; future++) {
        rng mix = rng_seeded(root ^ (uint64_t)future * UINT64_C(0xD1B54A32D192ED03));
        beam_node start = {0, 0, 0, 0, *state};
        start.state.generator.rng = rng_seeded(rng_next(&mix));
        start.state.generator.drawn = (uint64_t)state->turns + 2;
        const beam *last = run_beam(params, &start, true, sets);
        int64_t best[REEF_MAX_ACTIONS];
        int64_t worst = last->nodes[last->count - 1].value;
        for (int index = 0; index < count; index++)
            best[index] = worst;
        for (int index = last->count - 1; index >= 0; index--)
            best[last->nodes[index].first] = last->nodes[index].value;
        for (int index = 0; index < count; index++)
            totals[index] += best[index];
    }
    int chosen = 0;
    for (int index = 1; index < count; index++)
        chosen = totals[index] > totals[chosen] ? index : chosen;
    return actions[chosen];
}

static reef_action choose(const sampler_params *params, const reef_state *state)
{
    if (params->is_future_beam)
        return choose_by_future_beams(params, state);
    candidate candidates[MAX_CANDIDATES];
    int count = rank_candidates(params, state, candidates);
    if (count == 1)
        return candidates[0].action;
    sample_futures(params, state, 0, params->futures, candidates, count);
    sort_by_total(candidates, count);
    if (params->finalists > 1 && params->extra_futures > 0) {
        count = count < params->finalists ? count : params->finalists;
        sample_futures(params, state, params->futures, params->futures + params->extra_futures,
                       candidates, count);
        sort_by_total(candidates, count);
    }
    return candidates[0].action;
}

static double cpu_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

typedef struct options {
    sampler_params params;
    uint64_t first_seed;
    uint64_t last_seed;
    uint32_t max_turns;
} options;

typedef struct totals {
    uint64_t games;
    uint64_t actions;
    double score_sum;
    double square_sum;
    int64_t min_score;
    int64_t max_score;
    double cpu_sum;
    double cpu_max;
} totals;

static void play_run(const options *parsed, uint64_t seed, totals *sums)
{
    reef_state state;
    reef_init(&state, seed);
    while (!reef_is_over(&state) && reef_turns(&state) < parsed->max_turns) {
        double start = cpu_seconds();
        reef_action action = choose(&parsed->params, &state);
        double spent = cpu_seconds() - start;
        sums->cpu_sum += spent;
        sums->cpu_max = spent > sums->cpu_max ? spent : sums->cpu_max;
        sums->actions++;
        reef_play(&state, action, NULL);
    }
    int64_t score = reef_score(&state);
    printf("seed=%" PRIu64 " score=%" PRId64 " turns=%u end=%s\n", seed, score,
           (unsigned)reef_turns(&state), reef_is_over(&state) ? "over" : "cap");
    fflush(stdout);
    sums->games++;
    sums->score_sum += (double)score;
    sums->square_sum += (double)score * (double)score;
    sums->min_score = sums->games == 1 || score < sums->min_score ? score : sums->min_score;
    sums->max_score = sums->games == 1 || score > sums->max_score ? score : sums->max_score;
}

/* Sets the option `name` to `value`; false for an unknown name or a value
 * out of its range. */
static bool set_option(options *parsed, const char *name, long value)
{
    sampler_params *params = &parsed->params;
    struct {
        const char *name;
        int *field;
        long min;
        long max;
    } fields[] = {
        {"--candidates", &params->candidates, 1, MAX_CANDIDATES},
        {"--futures", &params->futures, 1, MAX_FUTURES},
        {"--finalists", &params->finalists, 0, MAX_CANDIDATES},
        {"--extra-futures", &params->extra_futures, 0, MAX_FUTURES},
        {"--depth", &params->depth, 0, 1000},
        {"--width", &params->width, 1, MAX_WIDTH},
        {"--streak-worth", &params->streak_worth, 0, 10000},
    };
    for (size_t index = 0; index < sizeof(fields) / sizeof(fields[0]); index++) {
        if (strcmp(name, fields[index].name) != 0)
            continue;
        if (value < fields[index].min || value > fields[index].max)
            return false;
        *fields[index].field = (int)value;
        return true;
    }
    if (strcmp(name, "--future-beams") == 0) {
        params->is_future_beam = value != 0;
        return true;
    }
    if (strcmp(name, "--chainer-policy") == 0) {
        params->is_chainer_policy = value != 0;
        return true;
    }
    if (strcmp(name, "--max-turns") == 0 && value >= 1) {
        parsed->max_turns = (uint32_t)value;
        return true;
    }
    return false;
}

static bool parse_options(int argc, char **argv, options *parsed)
{
    options defaults = {{12, 16, 0, 0, 4, 1, 40, false, false}, 1001, 1010, REEF_STANDARD_TURNS};
    *parsed = defaults;
    if (argc % 2 != 1)
        return false;
    for (int index = 1; index + 1 < argc; index += 2) {
        if (strcmp(argv[index], "--seeds") == 0) {
            if (!reef_bench_parse_seeds(argv[index + 1], &parsed->first_seed, &parsed->last_seed))
                return false;
            continue;
        }
        char *end = NULL;
        long value = strtol(argv[index + 1], &end, 10);
        if (end == argv[index + 1] || *end != '\0' || !set_option(parsed, argv[index], value))
            return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    options parsed;
    if (!parse_options(argc, argv, &parsed)) {
        fprintf(stderr, "usage: reef_sampled_futures [--candidates N] [--futures K] [--depth D] "
                        "[--width W] [--finalists F --extra-futures K2] [--streak-worth S] "
                        "[--chainer-policy 1] [--seeds A..B] [--max-turns T]\n");
        return 2;
    }
    totals sums = {0};
    for (uint64_t seed = parsed.first_seed; seed <= parsed.last_seed; seed++)
        play_run(&parsed, seed, &sums);
    double games = (double)sums.games;
    double mean = sums.score_sum / games;
    double variance = games > 1 ? (sums.square_sum - games * mean * mean) / (games - 1) : 0;
    const sampler_params *params = &parsed.params;
    printf("games=%" PRIu64 " candidates=%d futures=%d+%dx%d depth=%d width=%d%s "
           "max_turns=%u mean=%.1f sd=%.1f min=%" PRId64 " max=%" PRId64
           " ms_per_action=%.2f ms_max=%.1f\n",
           sums.games, params->candidates, params->futures, params->extra_futures,
           params->finalists, params->depth, params->width,
           params->is_chainer_policy ? " policy=chainer"
           : params->is_future_beam  ? " future-beams"
                                     : "",
           (unsigned)parsed.max_turns, mean, sqrt(variance > 0 ? variance : 0), sums.min_score,
           sums.max_score, 1000 * sums.cpu_sum / (double)sums.actions, 1000 * sums.cpu_max);
    return 0;
}

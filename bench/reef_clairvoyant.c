/* reef_clairvoyant.c -- reef_clairvoyant: how far a player who knew every
 * future piece would get, to measure the headroom above the Reef bots.
 *
 *   reef_clairvoyant [--rolling H] [--width W] [--seeds A..B] [--max-turns N]
 *
 * An experiment, not a bot: it plays copies of the real state, so every
 * piece it sees after the two visible ones comes from the seed's own
 * generator (docs/ARCHITECTURE.md, "Reef Builder piece generator"). No
 * fair player can do this; what it scores bounds what sampled or searched
 * futures could add to a level that sees two pieces (docs/BOTS.md, "The
 * Reef bots").
 *
 * Two searches, both beams ranked by the points earned since the search
 * began plus reef_bot_health() of the position reached (a skip is charged
 * its 50 points plus 150, as the bots charge it; an ended run loses
 * 100,000):
 *   global (the default) keeps the best W positions after every action of
 *          the whole run and reports the best final score: a plan over all
 *          1,000 pieces, chosen with hindsight;
 *   --rolling H plays one action at a time, each the first action of the
 *          best line a W-wide beam finds over the next H actions: a player
 *          that sees the next H pieces (the two visible ones included) and
 *          plans again after every action.
 * Positions that repeat one another (same board, streak, skips and score)
 * are kept once, and a double's mirrored placements are not tried, so a
 * beam's width buys distinct plans.
 *
 * Cost: a beam step tries every placement of W positions (about 30 each on
 * the mostly full boards of a run): 1,000 turns at W = 1,000 take about
 * 10 s of CPU; --rolling H runs H such steps for every action (6.4 ms an
 * action at H = 8, W = 100). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/reef_bench.h"
#include "engine/reef.h"
#include "engine/reef_bot.h"

#define RUN_END_COST     100000
#define SKIP_RESERVE     150
#define DEFAULT_WIDTH    1000
#define DEFAULT_MAX_TURN 1000

typedef struct options {
    int horizon; /* 0: one global beam over the whole run */
    int width;
    uint64_t first_seed;
    uint64_t last_seed;
    uint32_t max_turns;
} options;

/* A position of a beam and the first action of the line that reached it. */
typedef struct beam_node {
    int64_t value;
    int64_t charges; /* skip reserves paid on the line */
    reef_action first;
    reef_state state;
} beam_node;

/* Two buffers of 2W nodes, the beam and the candidates it expands into,
 * and an open-addressing set of the positions kept (0 marks a free slot). */
typedef struct beam {
    beam_node *nodes;
    beam_node *children;
    uint64_t *seen;
    size_t seen_mask; /* slots - 1, a power of two minus one */
    int count;
    int width;
} beam;

static int64_t node_value(const beam_node *node, int64_t base_score)
{
    if (reef_is_over(&node->state))
        return reef_score(&node->state) - base_score - RUN_END_COST;
    return reef_score(&node->state) - base_score - node->charges + reef_bot_health(&node->state);
}

/* Adds `hash` to the set; false if it was there already. */
static bool mark_seen(beam *search, uint64_t hash)
{
    size_t slot = (size_t)(hash >> 7) & search->seen_mask;
    while (search->seen[slot] != 0) {
        if (search->seen[slot] == hash)
            return false;
        slot = (slot + 1) & search->seen_mask;
    }
    search->seen[slot] = hash;
    return true;
}

/* Keeps the 2W best candidates in a min-heap on value. */
static void heap_push(beam_node *heap, int *count, int capacity, const beam_node *node)
{
    int slot = *count;
    if (slot == capacity) {
        if (node->value <= heap[0].value)
            return;
        slot = 0;
        heap[0] = *node;
        for (;;) {
            int smallest = slot;
            for (int child = 2 * slot + 1; child <= 2 * slot + 2 && child < *count; child++)
                smallest = heap[child].value < heap[smallest].value ? child : smallest;
            if (smallest == slot)
                return;
            beam_node swap = heap[smallest];
            heap[smallest] = heap[slot];
            heap[slot] = swap;
            slot = smallest;
        }
    }
    heap[(*count)++] = *node;
    while (slot > 0 && heap[(slot - 1) / 2].value > heap[slot].value) {
        beam_node swap = heap[(slot - 1) / 2];
        heap[(slot - 1) / 2] = heap[slot];
        heap[slot] = swap;
        slot = (slot - 1) / 2;
    }
}

static int by_value_descending(const void *left, const void *right)
{
    int64_t a = ((const beam_node *)left)->value;
    int64_t b = ((const beam_node *)right)->value;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* Sorts the candidates and keeps the best W distinct ones as the beam. */
static void select_beam(beam *search, int candidates)
{
    qsort(search->children, (size_t)candidates, sizeof(beam_node), by_value_descending);
    memset(search->seen, 0, sizeof(uint64_t) * (search->seen_mask + 1));
    int kept = 0;
    for (int index = 0; index < candidates && kept < search->width; index++) {
        if (mark_seen(search, reef_bench_position_hash(&search->children[index].state)))
            search->nodes[kept++] = search->children[index];
    }
    search->count = kept;
}

/* A double placed at 180 or 270 degrees covers what another placement of
 * it covers at 0 or 90: trying both would fill the candidates twice. */
static bool is_mirrored_double(const reef_state *state, reef_action action)
{
    return action.type == REEF_ACTION_PLACE && state->current.a == state->current.b &&
           action.orientation >= 180;
}

/* One action deeper: every action of every position of the beam. */
static void expand(beam *search, int64_t base_score, bool is_root)
{
    int candidates = 0;
    int capacity = 2 * search->width;
    reef_action actions[REEF_MAX_ACTIONS];
    for (int index = 0; index < search->count; index++) {
        const beam_node *node = &search->nodes[index];
        if (reef_is_over(&node->state)) {
            heap_push(search->children, &candidates, capacity, node);
            continue;
        }
        int count = reef_legal_actions(&node->state, actions);
        for (int choice = 0; choice < count; choice++) {
            if (is_mirrored_double(&node->state, actions[choice]))
                continue;
            beam_node child = *node;
            reef_play(&child.state, actions[choice], NULL);
            if (actions[choice].type == REEF_ACTION_SKIP)
                child.charges += SKIP_RESERVE;
            if (is_root)
                child.first = actions[choice];
            child.value = node_value(&child, base_score);
            heap_push(search->children, &candidates, capacity, &child);
        }
    }
    select_beam(search, candidates);
}

static void start_beam(beam *search, const reef_state *state)
{
    beam_node root = {0, 0, reef_skip(), *state};
    search->nodes[0] = root;
    search->count = 1;
}

static int64_t play_global(beam *search, uint64_t seed, uint32_t max_turns)
{
    reef_state state;
    reef_init(&state, seed);
    start_beam(search, &state);
    for (uint32_t turn = 0; turn < max_turns; turn++)
        expand(search, 0, false);
    int64_t best = 0;
    for (int index = 0; index < search->count; index++) {
        int64_t score = reef_score(&search->nodes[index].state);
        best = score > best ? score : best;
    }
    return best;
}

static int64_t play_rolling(beam *search, int horizon, uint64_t seed, uint32_t max_turns)
{
    reef_state state;
    reef_init(&state, seed);
    while (!reef_is_over(&state) && reef_turns(&state) < max_turns) {
        uint32_t depth = max_turns - reef_turns(&state);
        depth = depth < (uint32_t)horizon ? depth : (uint32_t)horizon;
        start_beam(search, &state);
        for (uint32_t step = 0; step < depth; step++)
            expand(search, reef_score(&state), step == 0);
        reef_play(&state, search->nodes[0].first, NULL);
    }
    return reef_score(&state);
}

static bool parse_int(const char *text, long min, long max, long *value)
{
    char *end = NULL;
    long parsed = strtol(text, &end, 10);
    if (end == text || *end != '\0' || parsed < min || parsed > max)
        return false;
    *value = parsed;
    return true;
}

static bool parse_options(int argc, char **argv, options *parsed)
{
    options defaults = {0, DEFAULT_WIDTH, 1001, 1010, DEFAULT_MAX_TURN};
    *parsed = defaults;
    for (int index = 1; index + 1 < argc; index += 2) {
        const char *name = argv[index];
        const char *text = argv[index + 1];
        long value = 0;
        if (strcmp(name, "--seeds") == 0 &&
            reef_bench_parse_seeds(text, &parsed->first_seed, &parsed->last_seed))
            continue;
        if (!parse_int(text, 1, 1000000, &value))
            return false;
        if (strcmp(name, "--rolling") == 0)
            parsed->horizon = (int)value;
        else if (strcmp(name, "--width") == 0)
            parsed->width = (int)value;
        else if (strcmp(name, "--max-turns") == 0)
            parsed->max_turns = (uint32_t)value;
        else
            return false;
    }
    return argc % 2 == 1;
}

int main(int argc, char **argv)
{
    options parsed;
    if (!parse_options(argc, argv, &parsed)) {
        fprintf(stderr, "usage: reef_clairvoyant [--rolling H] [--width W] [--seeds A..B] "
                        "[--max-turns N]\n");
        return 2;
    }
    size_t slots = 1;
    while (slots < 4 * (size_t)parsed.width)
        slots *= 2;
    beam search = {malloc(sizeof(beam_node) * 2 * (size_t)parsed.width),
                   malloc(sizeof(beam_node) * 2 * (size_t)parsed.width),
                   malloc(sizeof(uint64_t) * slots),
                   slots - 1,
                   0,
                   parsed.width};
    int status = 0;
    if (search.nodes == NULL || search.children == NULL || search.seen == NULL) {
        fprintf(stderr, "reef_clairvoyant: out of memory\n");
        status = 1;
        goto out;
    }
    double sum = 0;
    uint64_t games = 0;
    for (uint64_t seed = parsed.first_seed; seed <= parsed.last_seed; seed++) {
        int64_t score = parsed.horizon == 0
                            ? play_global(&search, seed, parsed.max_turns)
                            : play_rolling(&search, parsed.horizon, seed, parsed.max_turns);
        printf("seed=%" PRIu64 " score=%" PRId64 "\n", seed, score);
        fflush(stdout);
        sum += (double)score;
        games++;
    }
    printf("games=%" PRIu64 " search=%s horizon=%d width=%d max_turns=%u mean=%.1f\n", games,
           parsed.horizon == 0 ? "global" : "rolling", parsed.horizon, parsed.width,
           (unsigned)parsed.max_turns, sum / (double)games);
out:
    free(search.nodes);
    free(search.children);
    free(search.seen);
    return status;
}

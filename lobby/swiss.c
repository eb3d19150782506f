/* swiss.c -- the Swiss pairing of swiss.h: a depth-first search over
 * opponents, best-placed first, that a step budget keeps from running
 * away on large fields (past it, repeats are allowed and the greedy order
 * decides). */
#include "lobby/swiss.h"

#include <string.h>

#define STEP_BUDGET 200000

struct search {
    int count;
    const bool *has_met;
    const int *order; /* players by place, best first */
    bool is_paired[SWISS_MAX_PLAYERS];
    bool may_repeat;
    long steps;
    swiss_round *round;
};

static bool have_met(const struct search *search, int a, int b)
{
    return search->has_met[a * search->count + b] || search->has_met[b * search->count + a];
}

/* Pairs the best-placed unpaired player, then the rest; false when no
 * pairing of the rest exists under the search's rules (or out of steps). */
static bool pair_rest(struct search *search)
{
    int first = -1;
    for (int k = 0; k < search->count && first < 0; k++)
        if (!search->is_paired[search->order[k]])
            first = k;
    if (first < 0)
        return true;
    int player = search->order[first];
    search->is_paired[player] = true;
    for (int k = first + 1; k < search->count; k++) {
        int opponent = search->order[k];
        if (search->is_paired[opponent] ||
            (!search->may_repeat && have_met(search, player, opponent)))
            continue;
        if (++search->steps > STEP_BUDGET && !search->may_repeat)
            break;
        search->is_paired[opponent] = true;
        swiss_round *round = search->round;
        round->pairs[round->pair_count][0] = player;
        round->pairs[round->pair_count][1] = opponent;
        round->pair_count++;
        if (pair_rest(search))
            return true;
        round->pair_count--;
        search->is_paired[opponent] = false;
    }
    search->is_paired[player] = false;
    return false;
}

/* Players by points, best first; equal points keep their given order. */
static void rank_players(int count, const double *points, int *order)
{
    for (int i = 0; i < count; i++)
        order[i] = i;
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && points[order[j - 1]] < points[order[j]]; j--) {
            int swap = order[j];
            order[j] = order[j - 1];
            order[j - 1] = swap;
        }
}

/* Tries a pairing with `bye` sitting out (-1: none). */
static bool try_pairing(struct search *search, int bye, bool may_repeat)
{
    memset(search->is_paired, 0, sizeof(search->is_paired));
    search->round->pair_count = 0;
    search->round->bye = bye;
    search->may_repeat = may_repeat;
    search->steps = 0;
    if (bye >= 0)
        search->is_paired[bye] = true;
    return pair_rest(search);
}

/* The bye candidates, lowest-placed first: those without a bye, then (only
 * if all had one) everyone. */
static int bye_candidates(int count, const int *order, const bool *had_bye, int *candidates)
{
    int found = 0;
    for (int k = count - 1; k >= 0; k--)
        if (!had_bye[order[k]])
            candidates[found++] = order[k];
    for (int k = count - 1; k >= 0 && found == 0; k--)
        candidates[found++] = order[k];
    return found;
}

int swiss_pair(int count, const double *points, const bool *had_bye, const bool *has_met,
               swiss_round *out)
{
    if (count < 2 || count > SWISS_MAX_PLAYERS)
        return -1;
    int order[SWISS_MAX_PLAYERS], candidates[SWISS_MAX_PLAYERS];
    rank_players(count, points, order);
    struct search search = {.count = count, .has_met = has_met, .order = order, .round = out};
    memset(out, 0, sizeof(*out));
    int bye_count = count % 2 ? bye_candidates(count, order, had_bye, candidates) : 0;
    for (int pass = 0; pass < 2; pass++) {
        bool may_repeat = pass == 1;
        if (count % 2 == 0 && try_pairing(&search, -1, may_repeat))
            break;
        bool is_done = false;
        for (int c = 0; c < bye_count && !is_done; c++)
            is_done = try_pairing(&search, candidates[c], may_repeat);
        if (is_done)
            break;
    }
    out->has_repeats = search.may_repeat;
    return 0;
}

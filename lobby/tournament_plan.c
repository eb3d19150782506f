/* tournament_plan.c -- schedules, points and seeds (tournament_plan.h). */
#include <string.h>

#include "lobby/tournament_plan.h"

static const char *const FORMAT_NAMES[] = {"round-robin", "fixed", "swiss"};

int tournament_format_parse(const char *name, tournament_format *out)
{
    for (int format = 0; format < 3; format++)
        if (strcmp(name, FORMAT_NAMES[format]) == 0) {
            *out = (tournament_format)format;
            return 0;
        }
    return -1;
}

const char *tournament_format_name(tournament_format format)
{
    return FORMAT_NAMES[format];
}

/* C(n, k), or more than `cap` as soon as it exceeds it. */
static int64_t choose(int n, int k, int64_t cap)
{
    int64_t result = 1;
    for (int i = 1; i <= k; i++) {
        result = result * (n - k + i) / i;
        if (result > cap)
            return cap + 1;
    }
    return result;
}

static int64_t factorial(int k)
{
    int64_t result = 1;
    for (int i = 2; i <= k; i++)
        result *= i;
    return result;
}

/* Games one group plays. */
static int64_t games_per_group(tournament_format format, int seats, int games)
{
    return format == TOURNAMENT_ROUND_ROBIN ? factorial(seats) : games;
}

int tournament_plan_count(tournament_format format, int entries, int seats, int games)
{
    if (format == TOURNAMENT_SWISS || seats < 1 || seats > 4 || entries < seats ||
        entries > TOURNAMENT_MAX_ENTRIES || (format == TOURNAMENT_FIXED && games < 1))
        return -1;
    int64_t total =
        choose(entries, seats, TOURNAMENT_MAX_GAMES) * games_per_group(format, seats, games);
    return total > TOURNAMENT_MAX_GAMES ? -1 : (int)total;
}

/* The group-th combination of k of n entries, in lexicographic order. */
static void nth_group(int n, int k, int64_t group, int *out)
{
    int next = 0;
    for (int place = 0; place < k; place++) {
        for (;; next++) {
            int64_t with_next = choose(n - next - 1, k - place - 1, INT64_MAX / 2);
            if (group < with_next)
                break;
            group -= with_next;
        }
        out[place] = next++;
    }
}

/* The index-th permutation of items[0 .. k - 1], in lexicographic order. */
static void nth_permutation(const int *items, int k, int64_t index, int *out)
{
    int left[4];
    memcpy(left, items, sizeof(int) * (size_t)k);
    for (int place = 0; place < k; place++) {
        int64_t block = factorial(k - place - 1);
        int pick = (int)(index / block);
        index %= block;
        out[place] = left[pick];
        memmove(&left[pick], &left[pick + 1], sizeof(int) * (size_t)(k - place - pick - 1));
    }
}

int tournament_plan_game(tournament_format format, int entries, int seats, int games, int number,
                         int *seating)
{
    int count = tournament_plan_count(format, entries, seats, games);
    if (count < 0 || number < 0 || number >= count)
        return -1;
    int64_t per_group = games_per_group(format, seats, games);
    int group[4];
    nth_group(entries, seats, number / per_group, group);
    int64_t within = number % per_group;
    if (format == TOURNAMENT_ROUND_ROBIN) {
        nth_permutation(group, seats, within, seating);
        return 0;
    }
    for (int seat = 0; seat < seats; seat++)
        seating[seat] = group[(seat + within) % seats];
    return 0;
}

void tournament_points(int count, const int *ranks, double *points)
{
    for (int i = 0; i < count; i++) {
        points[i] = 0.0;
        for (int j = 0; j < count; j++)
            if (j != i)
                points[i] += ranks[i] < ranks[j] ? 1.0 : ranks[i] == ranks[j] ? 0.5 : 0.0;
    }
}

/* splitmix64: consecutive numbers give unrelated seeds. */
uint64_t tournament_game_seed(uint64_t seed, int number)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (uint64_t)(number + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

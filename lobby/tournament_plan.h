/* tournament_plan.h -- what a tournament plays, worked out from its
 * settings alone: pure functions, so a tournament is reproducible from
 * its seed and a restart plans exactly what the first run did.
 *
 * Formats, for n entries and games of k seats:
 *   round-robin  every group of k entries plays once in every seating
 *                order: C(n, k) * k! games (2 entries, 2 seats: 2 games);
 *   fixed        every group plays `games` games, the seating rotated one
 *                place each game (group order, then rotation);
 *   swiss        two-seat games only: `rounds` rounds, each paired from
 *                the standings so far (lobby/swiss.h), planned when the
 *                round before has finished.
 * Groups are taken in lexicographic order of entry numbers, seatings in
 * lexicographic order of permutations; game numbers run in that order.
 *
 * Points: in a game of k seats, each seat gets one point for every seat
 * ranked below it and half a point for every seat tied with it; a
 * two-player win is 1, a draw 1/2. A Swiss bye is worth 1. */
#ifndef TESSERA_TOURNAMENT_PLAN_H
#define TESSERA_TOURNAMENT_PLAN_H

#include <stdint.h>

#define TOURNAMENT_MAX_ENTRIES 64
#define TOURNAMENT_MAX_GAMES   1000

typedef enum tournament_format {
    TOURNAMENT_ROUND_ROBIN,
    TOURNAMENT_FIXED,
    TOURNAMENT_SWISS
} tournament_format;

/* "round-robin", "fixed", "swiss": 0 and *out, or -1. */
int tournament_format_parse(const char *name, tournament_format *out);
const char *tournament_format_name(tournament_format format);

/* Games a round-robin or fixed tournament of `entries` entries and
 * `seats`-seat games plays (`games` per group for fixed), or -1 when it
 * would be more than TOURNAMENT_MAX_GAMES or the numbers make no sense. */
int tournament_plan_count(tournament_format format, int entries, int seats, int games);

/* The entries by seat of game `number` of such a tournament, into
 * seating[0 .. seats - 1]: 0, or -1 for a number out of range. */
int tournament_plan_game(tournament_format format, int entries, int seats, int games, int number,
                         int *seating);

/* The points of each of `count` seats from their ranks (1 best). */
void tournament_points(int count, const int *ranks, double *points);

/* Game `number`'s seed, from the tournament's. */
uint64_t tournament_game_seed(uint64_t seed, int number);

#endif

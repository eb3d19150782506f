/* swiss.h -- pairing one round of a Swiss tournament of two-player games.
 *
 * Players are ranked by points (ties keep the given order, so a caller
 * that lists them by seed gets a reproducible draw) and paired top-down:
 * each player meets the best-placed player it has not met yet. When that
 * leads to a dead end the pairing backtracks, so no two players meet
 * twice while any pairing avoids it; only when none does (a small field
 * late in a long event) are repeats allowed. With an odd field the bye
 * goes to the lowest-placed player who has not had one.
 *
 * Pure: plain arrays in, plain arrays out, nothing allocated. */
#ifndef TESSERA_SWISS_H
#define TESSERA_SWISS_H

#include <stdbool.h>

#define SWISS_MAX_PLAYERS 64

typedef struct swiss_round {
    int pairs[SWISS_MAX_PLAYERS / 2][2]; /* player indexes, the better placed first */
    int pair_count;
    int bye;          /* the player sitting out, or -1 */
    bool has_repeats; /* no pairing without a rematch existed */
} swiss_round;

/* Pairs `count` players (2 .. SWISS_MAX_PLAYERS). points[i] is player i's
 * score so far, had_bye[i] whether it sat out a round, and has_met[i *
 * count + j] whether i and j have played. 0 and *out, or -1 for a count
 * out of range. */
int swiss_pair(int count, const double *points, const bool *had_bye, const bool *has_met,
               swiss_round *out);

#endif

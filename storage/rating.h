/* rating.h -- player ratings: Weng-Lin Bayesian rating, Plackett-Luce model.
 *
 * The OpenSkill family's model, as the `openskill` package (v5) computes
 * it: a rating is a belief about a player's skill, a normal distribution
 * with mean mu and deviation sigma. After a game of any number of players
 * ranked 1st, 2nd, ... (ties share a place), each player's mu moves
 * towards what the result suggests and sigma shrinks; before that, sigma
 * grows by tau (a player may have changed since). The value to show and
 * rank by is the conservative mu - 3 sigma: a new player starts at 0.
 *
 * Pure arithmetic on plain values: no allocation, no I/O. Golden vectors
 * from the reference implementation (tests/tools/openskill_golden.mjs)
 * hold it to 1e-6. */
#ifndef TESSERA_RATING_H
#define TESSERA_RATING_H

/* Players one game may rate at once. */
#define RATING_MAX_PLAYERS 8

typedef struct rating {
    double mu;
    double sigma;
} rating;

typedef struct rating_config {
    double mu;    /* a new player's mean, 25 */
    double sigma; /* a new player's deviation, 25/3 */
    double beta;  /* the spread of one game's performance, 25/6 */
    double tau;   /* drift added to sigma before each game, 25/300 */
    double kappa; /* floor under the factor that shrinks sigma, 1e-4 */
} rating_config;

/* OpenSkill's defaults (in brackets above). */
rating_config rating_default_config(void);

/* A new player's rating. */
rating rating_initial(const rating_config *config);

/* The value shown and ranked by: mu - 3 sigma. */
double rating_display(rating value);

/* Rates one game of `count` players (2 .. RATING_MAX_PLAYERS): before[i]
 * and ranks[i] (1 best; equal ranks are ties) give after[i]. `after` may
 * be `before`. 0, or STORE_E_INVALID for a count out of range. */
int rating_update(const rating_config *config, int count, const rating *before, const int *ranks,
                  rating *after);

#endif

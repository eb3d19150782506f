/* rating.c -- the Plackett-Luce update of rating.h.
 *
 * Following Weng and Lin (2011), algorithm 4, with one-player teams, in
 * the order the reference implementation computes it: players are sorted
 * by rank (stably), each gets the index of the first player of its rank
 * as its place, and then, with c the overall spread,
 *
 *   c        = sqrt(sum over all of (sigma_i^2 + beta^2))
 *   sum_q    = sum of exp(mu_i / c) over players i placed no better than q
 *   a_q      = how many players share q's place
 *   omega_i  = sum over q placed no worse than i:  (i == q ? 1 - p : -p) / a_q
 *   delta_i  = sum over the same q:               p (1 - p) / a_q
 *              where p = exp(mu_i / c) / sum_q
 *   mu_i    += sigma_i^2 / c * omega_i
 *   sigma_i *= sqrt(max(1 - sigma_i^2 / c^2 * gamma_i * delta_i, kappa)),
 *              gamma_i = sigma_i / c
 *
 * after sigma_i^2 has first grown by tau^2. */
#include "storage/rating.h"
#include "storage/store.h"

#include <math.h>

rating_config rating_default_config(void)
{
    rating_config config = {25.0, 25.0 / 3.0, 25.0 / 6.0, 25.0 / 300.0, 1e-4};
    return config;
}

rating rating_initial(const rating_config *config)
{
    rating value = {config->mu, config->sigma};
    return value;
}

double rating_display(rating value)
{
    return value.mu - 3.0 * value.sigma;
}

/* order[] lists players by rank, ties in their given order. */
static void sort_by_rank(int count, const int *ranks, int *order)
{
    for (int i = 0; i < count; i++)
        order[i] = i;
    for (int i = 1; i < count; i++) /* insertion sort: stable, and count is tiny */
        for (int j = i; j > 0 && ranks[order[j - 1]] > ranks[order[j]]; j--) {
            int swap = order[j];
            order[j] = order[j - 1];
            order[j - 1] = swap;
        }
}

int rating_update(const rating_config *config, int count, const rating *before, const int *ranks,
                  rating *after)
{
    if (count < 2 || count > RATING_MAX_PLAYERS)
        return STORE_E_INVALID;
    int order[RATING_MAX_PLAYERS], place[RATING_MAX_PLAYERS];
    double mu[RATING_MAX_PLAYERS], variance[RATING_MAX_PLAYERS];
    double strength[RATING_MAX_PLAYERS], sum_below[RATING_MAX_PLAYERS];
    int sharing[RATING_MAX_PLAYERS];
    sort_by_rank(count, ranks, order);
    double spread = 0.0;
    for (int k = 0; k < count; k++) {
        const rating *player = &before[order[k]];
        mu[k] = player->mu;
        variance[k] = player->sigma * player->sigma + config->tau * config->tau;
        place[k] = k > 0 && ranks[order[k - 1]] == ranks[order[k]] ? place[k - 1] : k;
        spread += variance[k] + config->beta * config->beta;
    }
    spread = sqrt(spread);
    for (int k = 0; k < count; k++)
        strength[k] = exp(mu[k] / spread);
    for (int q = 0; q < count; q++) {
        sum_below[q] = 0.0;
        sharing[q] = 0;
        for (int i = 0; i < count; i++) {
            sum_below[q] += place[i] >= place[q] ? strength[i] : 0.0;
            sharing[q] += place[i] == place[q];
        }
    }
    for (int i = 0; i < count; i++) {
        double omega = 0.0, delta = 0.0;
        for (int q = 0; q < count; q++) {
            if (place[q] > place[i])
                continue;
            double share = strength[i] / sum_below[q];
            omega += (i == q ? 1.0 - share : -share) / sharing[q];
            delta += share * (1.0 - share) / sharing[q];
        }
        double gamma = sqrt(variance[i]) / spread;
        double shrink = 1.0 - variance[i] / (spread * spread) * gamma * delta;
        rating *out = &after[order[i]];
        out->mu = mu[i] + variance[i] / spread * omega;
        out->sigma = sqrt(variance[i]) * sqrt(shrink > config->kappa ? shrink : config->kappa);
    }
    return 0;
}

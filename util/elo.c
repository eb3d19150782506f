/* elo.c -- the Elo arithmetic of a bot ladder (see elo.h for the model). */
#include "util/elo.h"

#include <math.h>

/* 1.96: the two-sided 95% quantile of the normal distribution. */
#define Z_95 1.96

static double clamp_score(double score, long games)
{
    double edge = 0.5 / (double)games;
    return score < edge ? edge : score > 1.0 - edge ? 1.0 - edge : score;
}

static double elo_of(double score)
{
    return 400.0 * log10(score / (1.0 - score));
}

/* The standard error, in Elo, of a difference measured from `score`. */
static double elo_error(double score, long games)
{
    double score_error = sqrt(score * (1.0 - score) / (double)games);
    return 400.0 / log(10.0) * score_error / (score * (1.0 - score));
}

elo_estimate elo_from_score(double score, long games)
{
    double s = clamp_score(score, games);
    double half = Z_95 * sqrt(s * (1.0 - s) / (double)games);
    elo_estimate estimate = {elo_of(s), elo_of(clamp_score(s - half, games)),
                             elo_of(clamp_score(s + half, games))};
    return estimate;
}

void elo_ladder(const double *scores, const long *games, int pairings, elo_estimate *ratings)
{
    double rating = 0.0, variance = 0.0;
    ratings[0] = (elo_estimate){0.0, 0.0, 0.0};
    for (int i = 0; i < pairings; i++) {
        double s = clamp_score(scores[i], games[i]);
        double error = elo_error(s, games[i]);
        rating += elo_of(s);
        variance += error * error;
        double half = Z_95 * sqrt(variance);
        ratings[i + 1] = (elo_estimate){rating, rating - half, rating + half};
    }
}

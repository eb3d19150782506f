/* elo.h -- the Elo arithmetic of a bot ladder.
 *
 * A pairing of two levels gives a score: the upper level's wins over the
 * games played (a win shared by k tied winners counts 1/k). The logistic
 * Elo model turns a score s into a rating difference 400 log10(s / (1 - s));
 * the 95% interval comes from the binomial standard error of s,
 * sqrt(s (1 - s) / games), taken through the same curve (ties only make the
 * true error smaller, so the interval is a little wide, never narrow). A
 * ladder chains pairings of adjacent levels from an anchor at 0: a level's
 * rating is the sum of the differences below it, and its interval adds the
 * pairings' variances (Elo-space standard errors by the delta method).
 * A score of 0 or 1 would mean an infinite difference, so it is clamped to
 * half a game from the end: 1 / (2 games) and 1 - 1 / (2 games). */
#ifndef TESSERA_ELO_H
#define TESSERA_ELO_H

/* A rating (or difference) with its 95% interval. */
typedef struct elo_estimate {
    double elo;
    double low;
    double high;
} elo_estimate;

/* The difference a pairing's `score` (in [0, 1]) over `games` (> 0) games
 * means, with its 95% interval. */
elo_estimate elo_from_score(double score, long games);

/* The ratings of a ladder of `pairings` + 1 levels, weakest first: pairing
 * i is level i + 1 against level i, with scores[i] for level i + 1 over
 * games[i] games. ratings[0] is the anchor (0, interval 0 to 0). */
void elo_ladder(const double *scores, const long *games, int pairings, elo_estimate *ratings);

#endif

/* gen_blokus_prior.c -- fits mcts-v2's learned prior and writes its weights
 * (engine/blokus_prior_weights.h) to stdout:
 *
 *   build/engine/gen_blokus_prior [DUO_GAMES CLASSIC_GAMES] \
 *       > engine/blokus_prior_weights.h
 *
 * For each board it plays games of mcts-v2 against itself (Duo, and 4p
 * for the 20x20 board) at PLAY_PLAYOUTS a move, and at each position it
 * records every legal move's features (blokus_prior.h) and the choice of a
 * long mcts-v2 search from there (LONG_PLAYOUTS, fewer once its early
 * stop finds the choice settled). The weights maximise the likelihood of
 * those choices under a conditional logit (a softmax over the position's
 * moves), with a small ridge penalty, by Newton's method: 35 weights,
 * a few iterations. The ridge also settles what the data cannot: the
 * piece indicators determine the size term, so only the penalty chooses
 * between them.
 *
 * The games alternate between fitting and testing: the header's comment
 * gives the test games' figures (mean log-likelihood of the long search's
 * choice, and how often it is the prior's first, or among its first 8)
 * beside the heuristic's (blokus_bot.c's score / 8 as a logit, as mcts-v2
 * used it before), and the weights written are then fitted on all games.
 * The long searches use the prior compiled into this build, so a rerun
 * after regenerating fits a stronger search's choices. Seeds are fixed:
 * the same engine writes the same header. With the default game counts (those of
 * the header in the repository) it takes about 25 minutes, the two
 * boards' games on two threads; it is not part of the build. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/blokus_bot.h"
#include "engine/blokus_prior.h"
#include "engine/blokus_tables.h"

#define DUO_GAMES     120
#define CLASSIC_GAMES 32
#define PLAY_PLAYOUTS 2000
#define LONG_PLAYOUTS 30000
#define RIDGE         1.0
#define NEWTON_ROUNDS 30
/* 4p: a long search at every other position of a game is enough (its
 * neighbours are much alike) and halves the time. */
#define CLASSIC_STRIDE 2
/* Duo's first two moves come from the opening book, not a search. */
#define DUO_BOOK_PLIES 2

#define FEATURES BLOKUS_PRIOR_FEATURES
#define TERMS    BLOKUS_PRIOR_TERM_COUNT

/* One position: its moves' terms and pieces, the heuristic's scores, and
 * which move the long search chose. */
struct sample {
    int count;
    int chosen;
    int game;
    int8_t *terms; /* count x TERMS */
    uint8_t *pieces;
    int16_t *heuristic;
};

struct samples {
    struct sample *items;
    int count;
    int capacity;
};

/* Figures of a set of positions under some scores. */
struct fit_report {
    double log_likelihood; /* mean per position */
    double top1;           /* share where the choice scores best */
    double top8;           /* share where at most 7 moves score higher */
    int positions;
};

static void *checked(void *pointer)
{
    if (!pointer) {
        fprintf(stderr, "gen_blokus_prior: out of memory\n");
        exit(1);
    }
    return pointer;
}

/* One board's games, played on a thread of their own. */
struct board_run {
    struct samples samples;
    blokus_mode mode;
    int games;
    int first_ply; /* the first position recorded */
    int stride;    /* every stride-th position from there */
    uint64_t seed;
    int terms[BLOKUS_MAX_MOVES * TERMS]; /* scratch for one position */
    int scores[BLOKUS_MAX_MOVES];
    blokus_move moves[BLOKUS_MAX_MOVES];
};

static void record(struct board_run *run, const blokus_state *state, int count, int chosen,
                   int game)
{
    struct samples *samples = &run->samples;
    const blokus_move *moves = run->moves;
    int *terms = run->terms, *scores = run->scores;
    if (samples->count == samples->capacity) {
        samples->capacity = samples->capacity ? 2 * samples->capacity : 1024;
        samples->items =
            checked(realloc(samples->items, sizeof(struct sample) * (size_t)samples->capacity));
    }
    struct sample *sample = &samples->items[samples->count++];
    *sample = (struct sample){count,
                              chosen,
                              game,
                              checked(malloc((size_t)count * TERMS)),
                              checked(malloc((size_t)count)),
                              checked(malloc(sizeof(int16_t) * (size_t)count))};
    blokus_prior_terms(state, moves, count, terms);
    blokus_bot_score_moves(state, moves, count, scores);
    for (int i = 0; i < count; i++) {
        for (int k = 0; k < TERMS; k++)
            sample->terms[i * TERMS + k] = (int8_t)terms[i * TERMS + k];
        sample->pieces[i] = (uint8_t)moves[i].piece;
        sample->heuristic[i] = (int16_t)scores[i];
    }
}

/* mcts-v2's move: the long searches do without the Duo book (they are
 * what it would be written from); the games use it. */
static blokus_move search(const blokus_state *state, uint32_t playouts, uint64_t seed,
                          bool uses_book)
{
    blokus_bot_budget budget = {0, playouts, NULL};
    blokus_move move = {BLOKUS_PASS, 0, 0, 0};
    int rc = uses_book ? blokus_bot_search(BLOKUS_BOT_MCTS2, state, &budget, seed, &move, NULL)
                       : blokus_bot_search_unbooked(state, &budget, seed, &move, NULL);
    if (rc != 0) {
        fprintf(stderr, "gen_blokus_prior: search failed\n");
        exit(1);
    }
    return move;
}

/* Plays the run's games, recording every `stride`-th position from
 * `first_ply` on that has a choice to make. */
static void *play_games(void *argument)
{
    struct board_run *run = argument;
    for (int game = 0; game < run->games; game++) {
        blokus_state state;
        blokus_init(&state, run->mode, BLOKUS_SCORING_OFFICIAL);
        for (int ply = 0; !state.is_over; ply++) {
            uint64_t ply_seed = run->seed + (uint64_t)game * 1000 + (uint64_t)ply;
            int count = blokus_generate(&state, run->moves);
            if (count > 1 && ply >= run->first_ply && ply % run->stride == 0) {
                blokus_move best = search(&state, LONG_PLAYOUTS, ply_seed * 7, false);
                for (int i = 0; i < count; i++)
                    if (blokus_move_equal(run->moves[i], best))
                        record(run, &state, count, i, game);
            }
            blokus_move move =
                count == 1 ? run->moves[0] : search(&state, PLAY_PLAYOUTS, ply_seed, true);
            blokus_apply(&state, move);
        }
        fprintf(stderr, "%s game %d: %d positions\n", blokus_mode_name(run->mode), game,
                run->samples.count);
    }
    return NULL;
}

static double dot(const double *weights, const struct sample *sample, int i)
{
    double sum = weights[TERMS + sample->pieces[i]];
    for (int k = 0; k < TERMS; k++)
        sum += weights[k] * sample->terms[i * TERMS + k];
    return sum;
}

/* Softmax of the sample's moves under `weights` (or the heuristic when
 * NULL) into q[]; returns the log-likelihood of the choice. */
static double softmax(const double *weights, const struct sample *sample, double *q)
{
    double best = -INFINITY, total = 0.0;
    for (int i = 0; i < sample->count; i++) {
        q[i] = weights ? dot(weights, sample, i) : sample->heuristic[i] / 8.0;
        if (q[i] > best)
            best = q[i];
    }
    double chosen = q[sample->chosen] - best;
    for (int i = 0; i < sample->count; i++) {
        q[i] = exp(q[i] - best);
        total += q[i];
    }
    for (int i = 0; i < sample->count; i++)
        q[i] /= total;
    return chosen - log(total);
}

/* A game's part: 0 fits, 1 tests, -1 both. */
static bool in_part(const struct sample *sample, int part)
{
    return part < 0 || sample->game % 2 == part;
}

static struct fit_report report(const struct samples *samples, const double *weights, int part)
{
    static double q[BLOKUS_MAX_MOVES];
    struct fit_report out = {0};
    for (int s = 0; s < samples->count; s++) {
        const struct sample *sample = &samples->items[s];
        if (!in_part(sample, part))
            continue;
        out.log_likelihood += softmax(weights, sample, q);
        int higher = 0;
        for (int i = 0; i < sample->count; i++)
            higher += q[i] > q[sample->chosen];
        out.top1 += higher == 0;
        out.top8 += higher < 8;
        out.positions++;
    }
    if (out.positions > 0) {
        out.log_likelihood /= out.positions;
        out.top1 /= out.positions;
        out.top8 /= out.positions;
    }
    return out;
}

/* Adds one sample's gradient and Hessian (of minus the log-likelihood's
 * curvature) to grad and hessian, exploiting the one-hot pieces. */
static void accumulate(const double *weights, const struct sample *sample, double *grad,
                       double hessian[FEATURES][FEATURES])
{
    static double q[BLOKUS_MAX_MOVES];
    double mean[FEATURES] = {0};
    softmax(weights, sample, q);
    for (int i = 0; i < sample->count; i++) {
        const int8_t *terms = &sample->terms[i * TERMS];
        int piece = TERMS + sample->pieces[i];
        for (int k = 0; k < TERMS; k++) {
            mean[k] += q[i] * terms[k];
            for (int j = 0; j <= k; j++)
                hessian[k][j] += q[i] * terms[k] * terms[j];
            hessian[piece][k] += q[i] * terms[k];
        }
        mean[piece] += q[i];
        hessian[piece][piece] += q[i];
    }
    const int8_t *chosen = &sample->terms[sample->chosen * TERMS];
    for (int k = 0; k < TERMS; k++)
        grad[k] += chosen[k];
    grad[TERMS + sample->pieces[sample->chosen]] += 1.0;
    for (int k = 0; k < FEATURES; k++) {
        grad[k] -= mean[k];
        for (int j = 0; j <= k; j++)
            hessian[k][j] -= mean[k] * mean[j];
    }
}

/* Solves a x = b for the symmetric positive definite a (lower triangle
 * used) by Cholesky; b becomes x. */
static void solve(double a[FEATURES][FEATURES], double *b)
{
    double l[FEATURES][FEATURES] = {{0}};
    for (int i = 0; i < FEATURES; i++) {
        for (int j = 0; j <= i; j++) {
            double sum = a[i][j];
            for (int k = 0; k < j; k++)
                sum -= l[i][k] * l[j][k];
            l[i][j] = i == j ? sqrt(sum) : sum / l[j][j];
        }
    }
    for (int i = 0; i < FEATURES; i++) {
        for (int k = 0; k < i; k++)
            b[i] -= l[i][k] * b[k];
        b[i] /= l[i][i];
    }
    for (int i = FEATURES - 1; i >= 0; i--) {
        for (int k = i + 1; k < FEATURES; k++)
            b[i] -= l[k][i] * b[k];
        b[i] /= l[i][i];
    }
}

/* The penalised log-likelihood of `weights` on `part`: what fit() raises. */
static double objective(const struct samples *samples, int part, const double *weights)
{
    static double q[BLOKUS_MAX_MOVES];
    double sum = 0.0;
    for (int s = 0; s < samples->count; s++)
        if (in_part(&samples->items[s], part))
            sum += softmax(weights, &samples->items[s], q);
    for (int k = 0; k < FEATURES; k++)
        sum -= 0.5 * RIDGE * weights[k] * weights[k];
    return sum;
}

/* The ridge-penalised maximum-likelihood weights on `part`: Newton's
 * steps, each halved until it raises the objective (a full step can
 * overshoot far from the optimum). */
static void fit(const struct samples *samples, int part, double *weights)
{
    memset(weights, 0, sizeof(double) * FEATURES);
    double current = objective(samples, part, weights);
    for (int round = 0; round < NEWTON_ROUNDS; round++) {
        double grad[FEATURES] = {0}, hessian[FEATURES][FEATURES] = {{0}}, trial[FEATURES];
        for (int s = 0; s < samples->count; s++)
            if (in_part(&samples->items[s], part))
                accumulate(weights, &samples->items[s], grad, hessian);
        for (int k = 0; k < FEATURES; k++) {
            grad[k] -= RIDGE * weights[k];
            hessian[k][k] += RIDGE;
        }
        solve(hessian, grad);
        for (double scale = 1.0; scale > 1e-6; scale /= 2) {
            for (int k = 0; k < FEATURES; k++)
                trial[k] = weights[k] + scale * grad[k];
            double value = objective(samples, part, trial);
            if (value < current)
                continue;
            memcpy(weights, trial, sizeof(trial));
            break;
        }
        double previous = current;
        current = objective(samples, part, weights);
        fprintf(stderr, "fit round %d: objective %.6f\n", round, current);
        if (current - previous < 1e-9 * fabs(current))
            break;
    }
}

static const char *const TERM_NAMES[TERMS] = {
    "size",
    "attach gain",
    "blocked",
    "opening centre",
    "own attach cover",
    "opponent free",
    "centre",
    "contested",
    "contact",
    "new attach, no open side",
    "new attach, 1 open side",
    "new attach, 2 open sides",
    "near opponent attach",
    "sides given up",
};

/* Fits one board's weights and writes them with their figures. */
static void write_weights(const char *name, const char *variable, const struct samples *samples,
                          int games)
{
    double weights[FEATURES];
    fit(samples, 0, weights);
    struct fit_report learned = report(samples, weights, 1);
    struct fit_report heuristic = report(samples, NULL, 1);
    fit(samples, -1, weights);
    printf("\n/* %s: %d positions of %d games.\n"
           " * Held out (the %d positions of the odd games, weights fitted on the\n"
           " * even ones): log-likelihood %.3f (the heuristic: %.3f); the long\n"
           " * search's choice first %.1f%% (%.1f%%), among the first 8 %.1f%% (%.1f%%).\n"
           " * Below: fitted on all games. */\n",
           name, samples->count, games, learned.positions, learned.log_likelihood,
           heuristic.log_likelihood, 100.0 * learned.top1, 100.0 * heuristic.top1,
           100.0 * learned.top8, 100.0 * heuristic.top8);
    printf("static const blokus_prior_weights %s = {{\n", variable);
    for (int k = 0; k < FEATURES; k++)
        printf("    %+.4f, /* %s */\n", weights[k],
               k < TERMS ? TERM_NAMES[k] : BLOKUS_PIECES[k - TERMS].name);
    printf("}};\n");
}

static void free_samples(struct samples *samples)
{
    for (int s = 0; s < samples->count; s++) {
        free(samples->items[s].terms);
        free(samples->items[s].pieces);
        free(samples->items[s].heuristic);
    }
    free(samples->items);
}

int main(int argc, char **argv)
{
    int duo_games = DUO_GAMES, classic_games = CLASSIC_GAMES;
    if (argc == 3) {
        duo_games = atoi(argv[1]);
        classic_games = atoi(argv[2]);
    }
    if (argc != 1 && (argc != 3 || duo_games < 2 || classic_games < 2)) {
        fprintf(stderr, "usage: gen_blokus_prior [DUO_GAMES CLASSIC_GAMES] (each at least 2)\n");
        return 2;
    }
    struct board_run *duo = checked(calloc(1, sizeof(*duo)));
    struct board_run *classic = checked(calloc(1, sizeof(*classic)));
    *duo = (struct board_run){.mode = BLOKUS_MODE_DUO,
                              .games = duo_games,
                              .first_ply = DUO_BOOK_PLIES,
                              .stride = 1,
                              .seed = 1};
    *classic = (struct board_run){.mode = BLOKUS_MODE_4P,
                                  .games = classic_games,
                                  .first_ply = 0,
                                  .stride = CLASSIC_STRIDE,
                                  .seed = 2};
    pthread_t thread;
    if (pthread_create(&thread, NULL, play_games, classic) != 0) {
        fprintf(stderr, "gen_blokus_prior: cannot start a thread\n");
        return 1;
    }
    play_games(duo);
    pthread_join(thread, NULL);
    printf("/* blokus_prior_weights.h -- mcts-v2's learned prior (blokus_prior.h),\n"
           " * written by gen_blokus_prior %d %d (engine/gen_blokus_prior.c: self-play\n"
           " * at %d playouts a move, the choices of searches of %d). Do not edit. */\n"
           "#ifndef TESSERA_BLOKUS_PRIOR_WEIGHTS_H\n"
           "#define TESSERA_BLOKUS_PRIOR_WEIGHTS_H\n\n"
           "#include \"engine/blokus_prior.h\"\n",
           duo_games, classic_games, PLAY_PLAYOUTS, LONG_PLAYOUTS);
    write_weights("Duo", "BLOKUS_PRIOR_DUO", &duo->samples, duo_games);
    write_weights("The 20x20 board, from 4p games", "BLOKUS_PRIOR_CLASSIC", &classic->samples,
                  classic_games);
    printf("\n#endif\n");
    free_samples(&duo->samples);
    free_samples(&classic->samples);
    free(duo);
    free(classic);
    return 0;
}

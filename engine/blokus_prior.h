/* blokus_prior.h -- mcts-v2's learned move prior.
 *
 * The prior says how likely a long search is to choose each legal move of
 * a position, before the search has looked at any of them. It is a
 * conditional logit over a few features of each move (what the greedy
 * heuristic of blokus_bot.c looks at, and more: the opponents' space the
 * piece takes, the corners it opens where an opponent can also go, the
 * piece itself), with weights fitted by gen_blokus_prior.c to the choices
 * of long mcts-v2 searches and kept in blokus_prior_weights.h, one set for
 * Duo and one for the 20x20 board. Nothing is learned at run time: the
 * weights are constant tables, and a move is scored in one pass over the
 * rows its footprint touches, as the heuristic is (a little slower: it
 * counts more; docs/BOTS.md gives the cost). */
#ifndef TESSERA_BLOKUS_PRIOR_H
#define TESSERA_BLOKUS_PRIOR_H

#include "engine/blokus.h"

/* The features of a move besides its piece, in the order of the weights. */
typedef enum blokus_prior_term {
    BLOKUS_PRIOR_SIZE,             /* squares of the piece */
    BLOKUS_PRIOR_ATTACH_GAIN,      /* attach cells the color gains, net */
    BLOKUS_PRIOR_BLOCKED,          /* opponents' attach cells covered, net of partners' */
    BLOKUS_PRIOR_OPENING_CENTRE,   /* closeness to the centre, first four pieces only */
    BLOKUS_PRIOR_OWN_ATTACH_COVER, /* the color's own attach cells covered */
    BLOKUS_PRIOR_OPPONENT_FREE,    /* cells covered that an opponent could still use */
    BLOKUS_PRIOR_CENTRE,           /* closeness to the centre, every move */
    BLOKUS_PRIOR_CONTESTED,        /* new attach cells an opponent could also use */
    BLOKUS_PRIOR_CONTACT,          /* sides touching an opponent's pieces */
    /* New attach cells by how many of their sides the color may still
     * use after the move (two at most: the other two touch the piece). One
     * with none takes only the monomino. */
    BLOKUS_PRIOR_NEW_ATTACH_OPEN_0,
    BLOKUS_PRIOR_NEW_ATTACH_OPEN_1,
    BLOKUS_PRIOR_NEW_ATTACH_OPEN_2,
    BLOKUS_PRIOR_NEAR_OPPONENT_ATTACH, /* cells covered beside an opponent's attach cell */
    BLOKUS_PRIOR_SIDES_GIVEN_UP,       /* free cells of the color's own the sides close */
    BLOKUS_PRIOR_TERM_COUNT
} blokus_prior_term;

/* Every feature: the terms above, then one indicator per piece. */
#define BLOKUS_PRIOR_FEATURES (BLOKUS_PRIOR_TERM_COUNT + BLOKUS_PIECE_COUNT)

/* Prior scores are logits in fixed point: BLOKUS_PRIOR_UNIT is one unit,
 * so a move scoring BLOKUS_PRIOR_UNIT more is e times as likely. */
#define BLOKUS_PRIOR_UNIT 64

/* One weight per feature. */
typedef struct blokus_prior_weights {
    double weights[BLOKUS_PRIOR_FEATURES];
} blokus_prior_weights;

/* The fitted weights for `state`'s board (Duo's, or the 20x20 board's). */
const blokus_prior_weights *blokus_prior_weights_for(const blokus_state *state);

/* The terms of `count` legal placements of the color to move, into
 * terms[i * BLOKUS_PRIOR_TERM_COUNT + term] (all 0 for a pass): with each
 * move's piece, the features gen_blokus_prior fits. */
void blokus_prior_terms(const blokus_state *state, const blokus_move *moves, int count, int *terms);

/* Scores `count` legal placements of the color to move with `weights`
 * (NULL: blokus_prior_weights_for(state)) into scores[0 .. count-1], in
 * units of BLOKUS_PRIOR_UNIT; higher is likelier. A pass scores 0. */
void blokus_prior_score_moves(const blokus_state *state, const blokus_prior_weights *weights,
                              const blokus_move *moves, int count, int *scores);

#endif

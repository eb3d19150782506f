/* blokus_prior_weights.h -- mcts-v2's learned prior (blokus_prior.h),
 * written by gen_blokus_prior 120 32 (engine/gen_blokus_prior.c: self-play
 * at 2000 playouts a move, the choices of searches of 30000). Do not edit. */
#ifndef TESSERA_BLOKUS_PRIOR_WEIGHTS_H
#define TESSERA_BLOKUS_PRIOR_WEIGHTS_H

#include "engine/blokus_prior.h"

/* Duo: 3424 positions of 120 games.
 * Held out (the 1701 positions of the odd games, weights fitted on the
 * even ones): log-likelihood -3.032 (the heuristic: -3.928); the long
 * search's choice first 25.9% (27.4%), among the first 8 64.1% (50.4%).
 * Below: fitted on all games. */
static const blokus_prior_weights BLOKUS_PRIOR_DUO = {{
    +0.9681, /* size */
    +0.9346, /* attach gain */
    +1.5238, /* blocked */
    +0.2910, /* opening centre */
    +1.7396, /* own attach cover */
    +0.3840, /* opponent free */
    +0.0581, /* centre */
    -1.1634, /* contested */
    +0.1222, /* contact */
    -0.5032, /* new attach, no open side */
    +0.5251, /* new attach, 1 open side */
    +0.6963, /* new attach, 2 open sides */
    +0.7579, /* near opponent attach */
    -0.5023, /* sides given up */
    +0.9261, /* I1 */
    +0.0953, /* I2 */
    -0.3159, /* I3 */
    -0.8896, /* V3 */
    +0.2430, /* I4 */
    -0.9723, /* L4 */
    -0.9262, /* T4 */
    -0.0952, /* O4 */
    -0.7966, /* Z4 */
    -0.4292, /* F */
    +1.1452, /* I5 */
    +0.3086, /* L5 */
    +0.3821, /* N */
    -1.0130, /* P */
    +0.5702, /* T5 */
    -0.2968, /* U */
    +0.5539, /* V5 */
    +0.5135, /* W */
    +0.1297, /* X */
    -0.0749, /* Y */
    +0.9422, /* Z5 */
}};

/* The 20x20 board, from 4p games: 1119 positions of 32 games.
 * Held out (the 562 positions of the odd games, weights fitted on the
 * even ones): log-likelihood -2.991 (the heuristic: -3.734); the long
 * search's choice first 32.6% (25.4%), among the first 8 66.9% (52.3%).
 * Below: fitted on all games. */
static const blokus_prior_weights BLOKUS_PRIOR_CLASSIC = {{
    +0.9320, /* size */
    +1.0888, /* attach gain */
    +1.0923, /* blocked */
    +0.7988, /* opening centre */
    +1.5556, /* own attach cover */
    +0.7810, /* opponent free */
    +0.0327, /* centre */
    -0.6176, /* contested */
    +0.0127, /* contact */
    -0.5972, /* new attach, no open side */
    +0.0724, /* new attach, 1 open side */
    +0.1956, /* new attach, 2 open sides */
    +0.2529, /* near opponent attach */
    -0.5518, /* sides given up */
    +0.9848, /* I1 */
    +0.5085, /* I2 */
    -0.1922, /* I3 */
    -1.3421, /* V3 */
    -0.0649, /* I4 */
    -1.1479, /* L4 */
    -0.7777, /* T4 */
    -0.2599, /* O4 */
    -1.0780, /* Z4 */
    -1.2989, /* F */
    +4.2100, /* I5 */
    +1.0849, /* L5 */
    +0.4146, /* N */
    -1.2230, /* P */
    +0.1137, /* T5 */
    -0.1048, /* U */
    +1.1677, /* V5 */
    -0.6013, /* W */
    -0.3107, /* X */
    -0.1231, /* Y */
    +0.0403, /* Z5 */
}};

#endif

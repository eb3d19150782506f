/* blokus_prior_weights.h -- mcts-v2's learned prior (blokus_prior.h): the
 * first fit, on 1,706 Duo positions, for both boards until
 * gen_blokus_prior (engine/gen_blokus_prior.c) has written this file. */
#ifndef TESSERA_BLOKUS_PRIOR_WEIGHTS_H
#define TESSERA_BLOKUS_PRIOR_WEIGHTS_H

#include "engine/blokus_prior.h"

static const blokus_prior_weights BLOKUS_PRIOR_DUO = {{
    0.9764, 0.7489, 1.4696, 0.3634, 1.3021, 0.3363, -0.0024, -0.6402, 0.1711,
    0, 0, 0, 0, 0,
    0.6795, 0.0159, -0.0007, -0.6006, -0.1867, -0.8952, -0.2269, 0.0108, -0.2414, 0.1588, 0.5441,
    -0.2105, 0.1499, -0.8149, 0.2034, -0.3185, -0.1045, 0.2685, 1.1013, 0.0671, 0.4007}};
static const blokus_prior_weights BLOKUS_PRIOR_CLASSIC = {{
    0.9764, 0.7489, 1.4696, 0.3634, 1.3021, 0.3363, -0.0024, -0.6402, 0.1711,
    0, 0, 0, 0, 0,
    0.6795, 0.0159, -0.0007, -0.6006, -0.1867, -0.8952, -0.2269, 0.0108, -0.2414, 0.1588, 0.5441,
    -0.2105, 0.1499, -0.8149, 0.2034, -0.3185, -0.1045, 0.2685, 1.1013, 0.0671, 0.4007}};

#endif

/* blokus_games.c -- seeded Blokus games for the generator tests (see
 * blokus_games.h). The move buffer is static: the tests run one game at a
 * time on one thread. */
#include "blokus_games.h"

static blokus_move moves[BLOKUS_MAX_MOVES];

blokus_move blokus_games_random(const blokus_state *s, rng *r)
{
    int count = blokus_generate(s, moves);
    return moves[rng_below(r, (uint32_t)count)];
}

blokus_move blokus_games_largest(const blokus_state *s, rng *r)
{
    int count = blokus_generate(s, moves);
    int best = (int)rng_below(r, (uint32_t)count);
    for (int i = 0; i < count; i++)
        if (BLOKUS_PIECES[moves[i].piece].size > BLOKUS_PIECES[moves[best].piece].size)
            best = i;
    return moves[best];
}

void blokus_games_random_in_every_mode(blokus_games_check check, uint64_t first_seed, int count)
{
    static const blokus_mode modes[] = {BLOKUS_MODE_4P, BLOKUS_MODE_3P, BLOKUS_MODE_2P,
                                        BLOKUS_MODE_DUO};
    for (int m = 0; m < 4; m++)
        for (uint64_t seed = first_seed; seed < first_seed + (uint64_t)count; seed++)
            check(modes[m], seed, blokus_games_random);
}

void blokus_games_largest_in_4p_and_duo(blokus_games_check check, uint64_t first_seed, int count)
{
    for (uint64_t seed = first_seed; seed < first_seed + (uint64_t)count; seed++) {
        check(BLOKUS_MODE_4P, seed, blokus_games_largest);
        check(BLOKUS_MODE_DUO, seed, blokus_games_largest);
    }
}

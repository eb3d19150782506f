/* history_names.c -- the history benchmark's shared conventions (see
 * history_names.h). */
#include <stdio.h>

#include "bench/history_names.h"

bool history_is_bot(int index)
{
    return index % HISTORY_BOT_EVERY == 0;
}

void history_player_name(int index, char name[HISTORY_NAME_SIZE])
{
    snprintf(name, HISTORY_NAME_SIZE, "%s%05d", history_is_bot(index) ? "robot" : "player", index);
}

int history_draw_player(rng *generator, int count)
{
    double uniform = (double)(rng_next(generator) >> 11) / 9007199254740992.0; /* [0, 1) */
    int index = (int)(uniform * uniform * count);
    return index < count ? index : count - 1;
}

int history_tournament_count(int64_t games)
{
    return (int)(games / HISTORY_GAMES_PER_TOURNAMENT);
}

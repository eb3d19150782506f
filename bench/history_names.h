/* history_names.h -- what the history benchmark's database is made of.
 *
 * bench/gen_history_db writes a database and tessera-load --history
 * queries it; neither reads the other's output, so the facts they share
 * live here: how player number i is named (player names are what the
 * profile, games-by-player and leaderboard-around routes take), which
 * players are bot accounts, how players are drawn (a few play a lot, as on
 * a real server, and are looked up more), how many tournaments a number of
 * games has, and which Reef seeds the seeded boards use. */
#ifndef TESSERA_BENCH_HISTORY_NAMES_H
#define TESSERA_BENCH_HISTORY_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/rng.h"

/* Room for a generated name and its NUL. */
#define HISTORY_NAME_SIZE 16
/* Every HISTORY_BOT_EVERY-th player (0, 10, 20, ...) is a bot account. */
#define HISTORY_BOT_EVERY 10
/* One tournament per this many games. */
#define HISTORY_GAMES_PER_TOURNAMENT 1000
/* Reef games are played on seeds 1 .. HISTORY_REEF_SEEDS. */
#define HISTORY_REEF_SEEDS 500

/* Whether player number `index` is a bot account. */
bool history_is_bot(int index);

/* The name of player number `index` (0-based): "player00042", or
 * "robot00040" for a bot account. */
void history_player_name(int index, char name[HISTORY_NAME_SIZE]);

/* A player number below `count`, drawn so that low numbers come up far
 * more often: number k is drawn with probability about
 * 1 / (2 sqrt(k count)), so player 0 is in about 1% of draws and half
 * of the draws go to the first quarter. */
int history_draw_player(rng *generator, int count);

/* The number of tournaments among `games` games. */
int history_tournament_count(int64_t games);

#endif

/* gen_history_plan.h -- which games gen_history_db plays, and its
 * tournaments.
 *
 * Game number i gets a mode from the mix (gen_history_main.c lists it),
 * distinct players drawn by history_draw_player (a few play a lot), each
 * with a fixed skill of its own, built-in bots in some Blokus seats, a
 * seed, and sometimes a resignation. Every HISTORY_GAMES_PER_TOURNAMENT
 * games one 4p tournament starts: eight entries, TOURNAMENT_GAMES games
 * scheduled at its start and played as the next games, standings updated
 * after each, finished after the last -- the rows a tournament leaves,
 * so that /api/games?tournament= has games to list.
 *
 * Everything is drawn from the seed, in game order. */
#ifndef TESSERA_BENCH_GEN_HISTORY_PLAN_H
#define TESSERA_BENCH_GEN_HISTORY_PLAN_H

#include "bench/gen_history_game.h"
#include "storage/store.h"

typedef struct history_plan history_plan;

/* A plan over `players` players whose stored ids are player_ids[0 ..
 * players - 1] (borrowed: it must outlive the plan). 0 or STORE_E_NOMEM. */
int history_plan_new(uint64_t seed, int players, const int64_t *player_ids, history_plan **out);

/* The plan of game `index`, created at `created_at_ms`; the tournament
 * the game opens is created in `storage`. 0 or a store error. */
int history_plan_game(history_plan *plan, store *storage, long index, int64_t created_at_ms,
                      history_game_plan *out);

/* Books the outcome of game `planned`: a tournament game's standings, and the
 * tournament's end after its last game. 0 or a store error. */
int history_plan_finished(history_plan *plan, store *storage, const history_game_plan *planned,
                          const history_game_outcome *outcome);

/* Frees the plan. NULL is allowed. */
void history_plan_free(history_plan *plan);

#endif

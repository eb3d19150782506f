/* room_results.h -- what a finished game leaves behind besides its result:
 * ratings and Reef runs.
 *
 * Called by match_store inside the transaction that stores the result, so a
 * result, the ratings it moves and the runs it adds are stored together or
 * not at all, and nobody hears of the result before all of it is stored.
 *
 * Ratings (lobby/rating.h), one pool per game kind: blokus-4p, blokus-3p,
 * blokus-2p, blokus-duo and reef-race (a solo Reef game rates nobody).
 * Every seat is a participant, ranked by the game's ranks (ties share):
 *   - a player's seat rates the player -- also when a stand-in bot finished
 *     it after they left or stayed away: the result is theirs;
 *   - a built-in bot's seat rates the bot's own entry, a player row named
 *     "bot:KIND" ("bot:mcts@300ms" for the search bot, with its time), so
 *     people see where they stand against each bot;
 *   - in 3-player Blokus the shared fourth color scores for nobody and is
 *     not a participant: the three seats are ranked by their own colors;
 *   - a player holds at most one seat, but one built-in bot may hold
 *     several: all of them count as opponents for everyone else, and the
 *     bot itself is rated once, by its best-placed seat (its score and win
 *     are that seat's).
 *
 * Reef runs: each player seat of a finished Reef game (solo or race) on the
 * standard turn limit is a run of its seed, for the Reef leaderboards.
 *
 * A tournament game's result also moves its tournament's standings
 * (tournament.h), in the same transaction. */
#ifndef TESSERA_ROOM_RESULTS_H
#define TESSERA_ROOM_RESULTS_H

#include <stdint.h>

#include "lobby/match.h"
#include "storage/store_api.h"

/* The rating pool of a game's options ("blokus-4p", ...), or NULL when the
 * game is not rated (solo Reef). */
const char *room_results_pool(const game_options *options);

/* The player row of built-in bot `bot`'s rating entry ("bot:greedy",
 * "bot:mcts@300ms" with `think_ms`), created on first use through `api`:
 * 0 and *id, or a store error. */
int room_results_bot_entry(const store_api *api, const char *bot, uint32_t think_ms, int64_t *id);

/* Stores through `api` the ratings and Reef runs of stored game
 * `game_id`, which `finished` ends with `result`, as of `at_ms`: 0 or a
 * store_error (the caller rolls the transaction back). */
int room_results_store(const store_api *api, int64_t game_id, const match *finished,
                       const match_result *result, int64_t at_ms);

#endif

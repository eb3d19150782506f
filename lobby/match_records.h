/* match_records.h -- a room event's records, as the store port takes them.
 *
 * match_apply says what an event leaves to store (match.h: the seats at
 * the start, the start, each action of the log, the result or the abort);
 * this module turns that into typed store records (storage/store_port.h),
 * and nothing else: it stores nothing and reads nothing. The runner
 * (lobby/room_run.c) submits them as one batch; bench/gen_history_db uses
 * it to write games exactly as the server does.
 *
 * What a result carries, for the store to keep with it in its transaction:
 *   - its rating pool, one per game kind: blokus-4p, blokus-3p, blokus-2p,
 *     blokus-duo and reef-race (a solo Reef game rates nobody). A player's
 *     seat is rated as the player -- also when a stand-in bot finished it:
 *     the result is theirs; a built-in bot's seat as the bot's own entry, a
 *     player row named "bot:KIND" ("bot:mcts@300ms" for a search bot,
 *     with its time); in 3-player Blokus the shared fourth color scores for
 *     nobody and is no participant (storage/store_records.c rates);
 *   - the Reef runs: each player seat of a finished Reef game (solo or
 *     race) on the standard turn limit is a run of its seed;
 *   - a tournament game's share of its tournament's standings, when the
 *     caller gives the tournament's entries for the seats. */
#ifndef TESSERA_MATCH_RECORDS_H
#define TESSERA_MATCH_RECORDS_H

#include <stdint.h>

#include "lobby/match.h"
#include "storage/store_port.h"

/* Records one event can make: its own and a tournament's standings. */
#define MATCH_RECORDS_MAX (MATCH_MAX_RECORDS + 1)

/* The tournament a room's game counts for: which entry each seat is. */
typedef struct match_records_tournament {
    int64_t id; /* 0: none */
    int seat_count;
    int entries[GAME_MAX_SEATS];
} match_records_tournament;

/* Fills out[0 .. *count - 1] with the records of `effects` for stored game
 * `game_id`, which `next` (the state the event leads to) describes, and
 * `tournament`'s standings change at a result (NULL: none). 0, or
 * STORE_E_NOMEM, or STORE_E_INVALID for a result whose text does not fit. */
int match_records_of(int64_t game_id, const match *next, const match_effects *effects,
                     const match_records_tournament *tournament, store_record *out, int *count);

/* The rating pool of a game's options ("blokus-4p", ...), or NULL when the
 * game is not rated (solo Reef). */
const char *match_records_pool(const game_options *options);

/* The name of built-in bot `bot`'s rating entry into `out`
 * (STORE_NAME_SIZE bytes): "bot:greedy", or for a search bot its think
 * time too, "bot:mcts@300ms" or "bot:mcts-v2@300ms". */
void match_records_bot_entry(const char *bot, uint32_t think_ms, char *out);

/* A finished match's result as stored and sent in game.over:
 * {"ranks","reason","scores","winners"} (malloc'd; NULL when out of
 * memory). */
char *match_records_result_text(const match *state);

#endif

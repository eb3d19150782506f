/* gen_history_game.h -- one finished game, played and stored as the
 * server would.
 *
 * The game goes through the lobby's own rules and storage code: a room's
 * pure state machine (lobby/match.h) is fed the events a live room gets
 * -- the players join, the built-in bots are added, the owner starts, each
 * seat moves in turn -- and every event's records are made by
 * match_records_of and applied by store_record_apply, as the live lobby's
 * runner and the SQLite store do. So the seats,
 * the move log (each action as lobby/action_record.c writes it), the
 * result, the ratings with their history rows and the Reef runs are
 * exactly what a server would have stored, and /replay and .blksgf replay
 * them through the rules.
 *
 * A player's moves come from the engine's fast bots, the way a bot
 * account's client would choose them: Blokus players play the random or
 * the greedy bot's move; a Reef player plays the greedy bot's placement
 * with some probability and a random legal placement otherwise, so runs
 * end after tens of turns (a greedy run never ends) and scores differ.
 * Built-in bot seats are played by match's own bot requests. Times are
 * made up: each event is a few seconds after the one before. */
#ifndef TESSERA_BENCH_GEN_HISTORY_GAME_H
#define TESSERA_BENCH_GEN_HISTORY_GAME_H

#include <stdint.h>

#include "lobby/match.h"
#include "storage/store.h"

/* How a seat is played. */
typedef struct history_seat_plan {
    int64_t player_id; /* the stored player; 0 for a built-in bot seat */
    const char *bot;   /* a built-in bot seat's kind ("greedy", "random") */
    /* A player's skill: Blokus plays the greedy move with this chance (else
     * a random one), Reef the greedy placement. */
    double greedy_chance;
} history_seat_plan;

/* One game to play. */
typedef struct history_game_plan {
    game_options options; /* seat_count: how many seats are filled */
    history_seat_plan seats[GAME_MAX_SEATS];
    int64_t created_at_ms;
    int64_t tournament_id; /* 0: none */
    int tournament_game;
    uint64_t seed; /* the players' choices and the room code */
    /* A seat that resigns after this many of the game's moves; -1: none. */
    int resign_seat;
    int resign_after;
} history_game_plan;

/* What the game came to. */
typedef struct history_game_outcome {
    int64_t game_id;
    int moves; /* entries of the move log */
    match_result result;
    int64_t finished_at_ms;
} history_game_outcome;

/* history_game_play's answer when the rules refused an event: a bug of
 * the generator's (the reason was printed to stderr). */
#define HISTORY_GAME_REFUSED 1

/* Plays `plan` to its end and stores it in `storage`, inside the
 * caller's open transaction: 0 and *outcome, a store error, or
 * HISTORY_GAME_REFUSED. */
int history_game_play(store *storage, const history_game_plan *plan, history_game_outcome *outcome);

#endif

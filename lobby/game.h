/* game.h -- one interface over the games a room can host.
 *
 * A room does not care whether it hosts Blokus or a Reef race: it asks
 * whether a seat may move, which ply a move must name, whether an action is
 * legal. Each game answers through a `game_rules` table (game_blokus.c,
 * game_reef.c). A `game` is a plain value, so a bot job copies it to a
 * worker thread and the room keeps playing (or not) while the bot thinks.
 * No JSON here: moves come in typed (engine/game_move.h), and the games'
 * wire views -- options, state, legal moves, a move's outcome -- are
 * lobby/game_wire.h's.
 *
 * Seats: Blokus seats are its players (2p: seat 0 plays colors 0 and 2).
 * A Reef room has one board per seat, all from the same seed; seats move
 * independently and each board has its own ply. */
#ifndef TESSERA_GAME_H
#define TESSERA_GAME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/blokus.h"
#include "engine/game_move.h"
#include "engine/reef.h"
#include "protocol/protocol_error.h"

#define GAME_MAX_SEATS 4

typedef enum game_kind { GAME_BLOKUS, GAME_REEF } game_kind;

/* What a player whose clock runs out gets played for them. */
typedef enum game_timeout_policy {
    GAME_TIMEOUT_BOT, /* the greedy bot plays a move */
    GAME_TIMEOUT_PASS /* Blokus: the color passes; Reef: a skip while skips last, then the bot */
} game_timeout_policy;

typedef struct game_options {
    game_kind kind;
    int seat_count;
    blokus_mode blokus_mode; /* Blokus */
    blokus_scoring scoring;  /* Blokus */
    bool is_race;            /* Reef: "race" rather than "solo" */
    uint64_t seed;           /* Reef boards' seed; Blokus bots' seed */
    int64_t max_turns;       /* Reef: a board ends after this many actions */
    bool has_clock;
    int64_t clock_initial_ms;
    int64_t clock_increment_ms;
    game_timeout_policy timeout;
} game_options;

/* What a move did, beyond the new position: the Blokus color that moved,
 * or the Reef placement's points and blooms. */
typedef struct game_outcome {
    int color;        /* Blokus */
    reef_result reef; /* Reef */
} game_outcome;

typedef struct game {
    game_options options;
    bool has_resigned[GAME_MAX_SEATS];
    union {
        blokus_state blokus;
        reef_state reef[GAME_MAX_SEATS];
    } state;
} game;

/* "blokus" / "reef-builder", and the mode name ("4p", ..., "solo", "race"). */
const char *game_kind_name(const game_options *options);
const char *game_mode_name(const game_options *options);

/* Whether `bot` names a built-in bot for this game. */
bool game_is_bot_name(const game_options *options, const char *bot);

/* The starting position. */
void game_start(game *position, const game_options *options);

bool game_is_over(const game *position);

/* Whether `seat` is the one (Blokus) or one of those (Reef) to move. */
bool game_seat_may_move(const game *position, int seat);

/* The ply a move by `seat` must name (Blokus: the game's; Reef: the
 * board's own). */
int64_t game_ply(const game *position, int seat);

/* Checks a player's move for `seat`: 0, or a failure -- bad_message when
 * it is the other game's action (saying what this game's look like),
 * illegal_move with the engine's reason. Turn and ply are the caller's to
 * check. */
int game_check_action(const game *position, int seat, game_move move, protocol_failure *failure);

/* Checks a move (from a bot or the log) against the rules: 0, or the
 * engine's error (ENGINE_E_BAD_ARGUMENT for the other game's move). A
 * Blokus pass is always accepted: only the server plays one. */
int game_check_move(const game *position, int seat, game_move move);

/* Applies a move game_check_action or game_check_move accepted; *outcome
 * says what it did (for game.moved). */
void game_apply(game *position, int seat, game_move move, game_outcome *outcome);

/* The pass a Blokus seat plays when its turn cannot be used (resigned or
 * timed out under the pass policy). */
game_move game_pass(void);

/* `seat` stops playing: Blokus retires its colors, Reef ends its board. */
void game_resign(game *position, int seat);

/* Whether `seat` has resigned. */
bool game_has_resigned(const game *position, int seat);

/* Why a game that is over ended. */
typedef enum game_end {
    GAME_END_NO_MOVES,     /* Blokus: no color can move */
    GAME_END_RESIGNATIONS, /* Blokus: fewer than two seats still in play */
    GAME_END_BOARDS_ENDED  /* Reef: every board ended */
} game_end;

game_end game_end_reason(const game *position);

/* The seats still in play (not resigned); used to end a game early. */
int game_active_seats(const game *position);

/* Each seat's score under the game's rules. */
void game_scores(const game *position, int64_t scores[GAME_MAX_SEATS]);

/* Chooses a move for `seat` with built-in bot `bot` (pure; safe on a
 * worker thread), thinking at most `think_ms` -- 0 plays the greedy move at
 * once -- and stopping early when *cancel is set (NULL: no flag). 0, or an
 * engine error. */
int game_bot_move(const game *position, int seat, const char *bot, uint32_t think_ms, uint64_t seed,
                  const atomic_bool *cancel, game_move *out);

/* The move the timeout policy plays for `seat`. */
int game_timeout_move(const game *position, int seat, game_move *out);

#endif

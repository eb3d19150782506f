/* game_move.h -- a move of either game, tagged with its game.
 *
 * The protocol decodes a client's action into one (protocol/game_json.h),
 * the lobby checks and plays it (lobby/game.h), and the move log stores it
 * (lobby/action_record.h): a typed value from the wire to the disk, decoded
 * once. The tag is the game the move belongs to, read from the move's own
 * shape where it was decoded; whether that is the room's game is the
 * lobby's to check. The union is anonymous, so `move.blokus` and
 * `move.reef` read the move of each game. */
#ifndef TESSERA_GAME_MOVE_H
#define TESSERA_GAME_MOVE_H

#include "engine/blokus.h"
#include "engine/reef.h"

typedef enum game_move_kind { GAME_MOVE_BLOKUS, GAME_MOVE_REEF } game_move_kind;

typedef struct game_move {
    game_move_kind kind;
    union {
        blokus_move blokus; /* GAME_MOVE_BLOKUS: a placement or a pass */
        reef_action reef;   /* GAME_MOVE_REEF */
    };
} game_move;

/* A Blokus move as a game_move. */
static inline game_move game_move_of_blokus(blokus_move move)
{
    game_move out = {.kind = GAME_MOVE_BLOKUS};
    out.blokus = move;
    return out;
}

/* A Reef action as a game_move. */
static inline game_move game_move_of_reef(reef_action action)
{
    game_move out = {.kind = GAME_MOVE_REEF};
    out.reef = action;
    return out;
}

#endif

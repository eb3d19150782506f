/* engine_error.h -- the engine layer's error codes.
 *
 * Every engine function that can refuse something returns 0 or one of these
 * negative codes. The messages are "teaching errors": they tell a player or a
 * bot author what rule the action broke, so the protocol layer forwards them
 * verbatim. Codes are stable; new ones are only ever appended. */
#ifndef TESSERA_ENGINE_ERROR_H
#define TESSERA_ENGINE_ERROR_H

typedef enum engine_error {
    ENGINE_OK = 0,
    ENGINE_E_GAME_OVER = -1,        /* the game has ended; nothing more can be played */
    ENGINE_E_NOT_YOUR_TURN = -2,    /* another player is to move */
    ENGINE_E_BAD_PIECE = -3,        /* no such piece or orientation */
    ENGINE_E_PIECE_USED = -4,       /* the piece was already placed by this color */
    ENGINE_E_OUT_OF_BOUNDS = -5,    /* a cell falls outside the board */
    ENGINE_E_OCCUPIED = -6,         /* a cell is already covered */
    ENGINE_E_EDGE_CONTACT = -7,     /* Blokus: touches its own color along an edge */
    ENGINE_E_NO_CORNER = -8,        /* Blokus: does not touch its own color at a corner */
    ENGINE_E_NOT_ON_START = -9,     /* Blokus: first piece must cover the start cell */
    ENGINE_E_NOT_A_PIECE = -10,     /* Blokus: the cells form no piece shape */
    ENGINE_E_NO_SKIPS = -11,        /* Reef: all skips are used */
    ENGINE_E_BAD_ORIENTATION = -12, /* Reef: orientation is not 0, 90, 180 or 270 */
    ENGINE_E_BAD_ARGUMENT = -13,    /* unknown action type, invalid position or name */
    ENGINE_E_NO_MEMORY = -14        /* a bot could not allocate its search memory */
} engine_error;

/* A stable machine-readable name for the code, e.g. "occupied". Never NULL. */
const char *engine_error_name(int code);

/* A one-sentence human explanation of the code. Never NULL. */
const char *engine_error_message(int code);

#endif

/* protocol_error.h -- the protocol's error vocabulary, without JSON.
 *
 * The stable codes every error reply carries, and the failure value a
 * refusal fills in: a code, a sentence for humans and (illegal_move) the
 * engine's reason. The lobby's pure core (lobby/match.h, lobby/game.h)
 * refuses events with these, so they live apart from the message decoder
 * and its jansson types (protocol.h, which includes this header). */
#ifndef TESSERA_PROTOCOL_ERROR_H
#define TESSERA_PROTOCOL_ERROR_H

/* Stable error codes; protocol_error_name() gives the wire name. */
typedef enum protocol_error {
    PROTOCOL_OK = 0,
    PROTOCOL_E_BAD_JSON = -1,         /* not JSON, or not an object */
    PROTOCOL_E_BAD_MESSAGE = -2,      /* a field missing, mistyped, unknown or out of range */
    PROTOCOL_E_UNKNOWN_TYPE = -3,     /* no such message type */
    PROTOCOL_E_UNAUTHORIZED = -4,     /* hello first, or bad token/key/password */
    PROTOCOL_E_NO_SUCH_ROOM = -5,     /* no room with that id */
    PROTOCOL_E_NOT_IN_ROOM = -6,      /* the sender has no seat/place in the room */
    PROTOCOL_E_ROOM_FULL = -7,        /* no free seat */
    PROTOCOL_E_SEAT_TAKEN = -8,       /* the asked-for seat is occupied */
    PROTOCOL_E_NOT_YOUR_TURN = -9,    /* another seat is to move */
    PROTOCOL_E_STALE_PLY = -10,       /* the move was made against another ply */
    PROTOCOL_E_ILLEGAL_MOVE = -11,    /* the engine refused it; message says why */
    PROTOCOL_E_NOT_STARTED = -12,     /* the game has not started */
    PROTOCOL_E_ALREADY_STARTED = -13, /* the room's game is under way or over */
    PROTOCOL_E_GAME_OVER = -14,       /* the game has ended */
    PROTOCOL_E_NOT_OWNER = -15,       /* only the room's creator may do that */
    PROTOCOL_E_SEATS_EMPTY = -16,     /* start needs every seat filled */
    PROTOCOL_E_RATE_LIMITED = -17,    /* too many messages, failed sign-ins or sign-ins at once */
    PROTOCOL_E_INTERNAL = -18,        /* the server failed (e.g. storage); nothing changed */
    PROTOCOL_E_SHUTTING_DOWN = -19,   /* the server is stopping */
    PROTOCOL_E_TOO_MANY_ROOMS = -20,  /* the room limit is reached */
    PROTOCOL_E_STORAGE = -21,         /* the change could not be stored; nothing changed */
    PROTOCOL_E_NOT_QUEUED = -22,      /* queue.leave without a queue.join */
    PROTOCOL_E_NAME_TAKEN = -23,      /* an account, a bot account or a built-in bot has it */
    PROTOCOL_E_NO_SUCH_TOURNAMENT = -24,   /* no running tournament with that id */
    PROTOCOL_E_CONSENT_REQUIRED = -25,     /* an entry did not agree to be entered */
    PROTOCOL_E_TOO_MANY_TOURNAMENTS = -26, /* the account's tournament caps are reached */
    PROTOCOL_E_NO_SUCH_INVITATION = -27,   /* tournament.accept without an invitation */
    PROTOCOL_E_OUT_OF_TIME = -28,          /* the mover's clock ran out before its move was read */
    PROTOCOL_E_NOT_FINISHED = -29          /* room.rematch of a game that has not ended */
} protocol_error;

/* How many codes there are: 0 .. -(PROTOCOL_ERROR_COUNT - 1). */
#define PROTOCOL_ERROR_COUNT 30

const char *protocol_error_name(int code);

/* Why a message was refused: a code, one sentence for humans, and for
 * illegal_move the engine's reason (e.g. "edge_contact"), "" otherwise. */
typedef struct protocol_failure {
    int code;
    char reason[32];
    char message[160];
} protocol_failure;

/* Records a failure (printf-style sentence); returns the code. */
int protocol_fail(protocol_failure *failure, int code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Records the engine's refusal `engine_code` as illegal_move with its
 * reason and teaching message; returns PROTOCOL_E_ILLEGAL_MOVE. */
int protocol_fail_engine(protocol_failure *failure, int engine_code);

#endif

/* protocol.h -- client messages: strict decoding into typed structs, and the
 * stable error codes every reply uses.
 *
 * Decoding is strict on purpose: a field of the wrong type, an unknown
 * field, a number out of range or a missing required field is refused as a
 * whole with `bad_message` and a sentence naming the field, so nothing
 * malformed ever reaches the lobby. The one part decoded later is a move's
 * `action`: its shape depends on the room's game, which only the lobby
 * knows (see game_json.h). The message `id`, when present, is kept as
 * given (string or integer) so the reply can echo it, even when the rest
 * of the message is refused. docs/PROTOCOL.md documents every message. */
#ifndef TESSERA_PROTOCOL_H
#define TESSERA_PROTOCOL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    PROTOCOL_E_OUT_OF_TIME = -28           /* the mover's clock ran out before its move was read */
} protocol_error;

/* How many codes there are: 0 .. -(PROTOCOL_ERROR_COUNT - 1). */
#define PROTOCOL_ERROR_COUNT 29

const char *protocol_error_name(int code);

/* Message types a client may send. */
typedef enum protocol_type {
    PROTOCOL_HELLO,
    PROTOCOL_ACCOUNT_REGISTER,
    PROTOCOL_PING,
    PROTOCOL_ROOMS_LIST,
    PROTOCOL_ROOM_CREATE,
    PROTOCOL_ROOM_JOIN,
    PROTOCOL_ROOM_LEAVE,
    PROTOCOL_ROOM_ADD_BOT,
    PROTOCOL_ROOM_START,
    PROTOCOL_GAME_MOVE,
    PROTOCOL_GAME_MOVES,
    PROTOCOL_GAME_RESIGN,
    PROTOCOL_QUEUE_JOIN,
    PROTOCOL_QUEUE_LEAVE,
    PROTOCOL_TOURNAMENT_CREATE,
    PROTOCOL_TOURNAMENT_WATCH,
    PROTOCOL_TOURNAMENT_CANCEL,
    PROTOCOL_TOURNAMENT_INVITE,
    PROTOCOL_TOURNAMENT_ACCEPT
} protocol_type;

#define PROTOCOL_TYPE_COUNT (PROTOCOL_TOURNAMENT_ACCEPT + 1)

/* The wire name of a message type ("game.move"). */
const char *protocol_type_name(protocol_type type);

#define PROTOCOL_NAME_MAX           32 /* player and bot names, in bytes */
#define PROTOCOL_TOKEN_MAX          64 /* session tokens and bot keys */
#define PROTOCOL_PASSWORD_MIN       8  /* account passwords, in bytes */
#define PROTOCOL_PASSWORD_MAX       128
#define PROTOCOL_ROOM_ID_MAX        16
#define PROTOCOL_WORD_MAX           16 /* game, mode, scoring, bot kind, ... */
#define PROTOCOL_MAX_CLOCK_MS       (24 * 3600 * 1000)
#define PROTOCOL_CURSOR_MAX         24 /* rooms.list cursors */
#define PROTOCOL_LIST_LIMIT_MAX     100
#define PROTOCOL_LIST_LIMIT_DEFAULT 50

typedef struct protocol_hello {
    char name[PROTOCOL_NAME_MAX + 1];
    char token[PROTOCOL_TOKEN_MAX + 1];       /* "" if absent */
    char key[PROTOCOL_TOKEN_MAX + 1];         /* "" if absent */
    char password[PROTOCOL_PASSWORD_MAX + 1]; /* "" if absent */
    bool is_bot;
} protocol_hello;

/* account.register: a new named account (or a guest's claim of one). */
typedef struct protocol_account {
    char name[PROTOCOL_NAME_MAX + 1];
    char password[PROTOCOL_PASSWORD_MAX + 1];
} protocol_account;

typedef struct protocol_room_create {
    char game[PROTOCOL_WORD_MAX + 1];    /* "blokus" or "reef-builder" */
    char mode[PROTOCOL_WORD_MAX + 1];    /* "4p" "3p" "2p" "duo" / "solo" "race" */
    char scoring[PROTOCOL_WORD_MAX + 1]; /* "" = the game's default */
    char timeout[PROTOCOL_WORD_MAX + 1]; /* clock timeout policy: "" "bot" "pass" */
    bool has_clock;
    int64_t clock_initial_ms;
    int64_t clock_increment_ms;
    bool has_seed;
    uint64_t seed;
    bool is_private;
    int64_t max_turns; /* Reef: actions per board before it ends; 0 = default */
} protocol_room_create;

typedef struct protocol_room_ref {
    char room[PROTOCOL_ROOM_ID_MAX + 1];
    bool as_spectator;               /* room.join only */
    int seat;                        /* room.join (-1 = any) and room.add_bot */
    char bot[PROTOCOL_WORD_MAX + 1]; /* room.add_bot */
} protocol_room_ref;

typedef struct protocol_rooms_list {
    char cursor[PROTOCOL_CURSOR_MAX + 1]; /* "" = from the start */
    int limit;                            /* 1..PROTOCOL_LIST_LIMIT_MAX; 0 = the default */
    char game[PROTOCOL_WORD_MAX + 1];     /* filters; "" = any */
    char mode[PROTOCOL_WORD_MAX + 1];
    char status[PROTOCOL_WORD_MAX + 1];
} protocol_rooms_list;

typedef struct protocol_move {
    char room[PROTOCOL_ROOM_ID_MAX + 1];
    int64_t ply;
    json_t *action; /* owned; decoded by the game's codec */
} protocol_move;

typedef struct protocol_queue {
    char game[PROTOCOL_WORD_MAX + 1]; /* queue.join: "blokus" or "reef-builder" */
    char mode[PROTOCOL_WORD_MAX + 1]; /* queue.join: "4p" "3p" "2p" "duo" / "race" */
} protocol_queue;

#define PROTOCOL_TOURNAMENT_NAME_MAX 64

/* tournament.create: the games' settings are room.create's fields, decoded
 * into `room` (first, so they land where room.create's do). */
typedef struct protocol_tournament_create {
    protocol_room_create room;
    char name[PROTOCOL_TOURNAMENT_NAME_MAX + 1];
    char format[PROTOCOL_WORD_MAX + 1]; /* "round-robin", "fixed", "swiss" */
    json_t *participants;               /* owned: [{"player": NAME} or {"bot": KIND}, ...] */
    int games;                          /* fixed: games per group; 0 = 1 */
    int rounds;                         /* swiss: rounds; 0 = as many as entries - 1 */
    int parallel;                       /* games at once; 0 = the default */
} protocol_tournament_create;

typedef struct protocol_ping {
    json_t *data; /* owned; NULL if absent; echoed by the pong */
} protocol_ping;

typedef struct protocol_message {
    protocol_type type;
    json_t *id; /* owned; NULL if absent */
    union {
        protocol_ping ping;
        protocol_hello hello;
        protocol_account account;
        protocol_room_create create;
        protocol_room_ref room;
        protocol_queue queue;
        protocol_tournament_create tournament;
        int64_t tournament_id; /* tournament.watch, tournament.cancel */
        /* tournament.invite: the invitee; tournament.accept: the inviter */
        char player_name[PROTOCOL_NAME_MAX + 1];
        protocol_move move;
        protocol_rooms_list list;
    } body;
} protocol_message;

/* Why a message was refused: a code, one sentence for humans, and for
 * illegal_move the engine's reason (e.g. "edge_contact"), "" otherwise. */
typedef struct protocol_failure {
    int code;
    char reason[32];
    char message[160];
} protocol_failure;

/* Decodes one client text message. On success 0 and *out (release with
 * protocol_message_clear). On failure the code, *failure filled in, and
 * out->id still set when the message had a usable id. */
int protocol_decode(const char *text, size_t length, protocol_message *out,
                    protocol_failure *failure);

/* The room code a message names ("" for messages without one). */
const char *protocol_message_room(const protocol_message *message);

/* Frees what a decoded message owns; safe on a zeroed message. */
void protocol_message_clear(protocol_message *message);

/* Records a failure (printf-style sentence); returns the code. */
int protocol_fail(protocol_failure *failure, int code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Records the engine's refusal `engine_code` as illegal_move with its
 * reason and teaching message; returns PROTOCOL_E_ILLEGAL_MOVE. */
int protocol_fail_engine(protocol_failure *failure, int engine_code);

/* {"type":"error","id":…,"code":…,"reason":…,"message":…} as a new JSON
 * text the caller frees; id may be NULL, reason appears when set. */
char *protocol_error_text(const json_t *id, const protocol_failure *failure);

/* Serialises `message` (stealing the reference) with the reply `id`
 * added when not NULL. Returns a malloc'd text or NULL on out of memory. */
char *protocol_finish(json_t *message, const json_t *id);

/* As protocol_finish, with one more member `key` whose value is the JSON
 * text `value` (already encoded; taken and freed). For values too large
 * to build as jansson objects cheaply. */
char *protocol_finish_with_text(json_t *message, const char *key, char *value, const json_t *id);

#endif

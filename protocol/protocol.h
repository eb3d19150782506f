/* protocol.h -- client messages: strict decoding into typed structs, and the
 * stable error codes every reply uses (protocol_error.h).
 *
 * Decoding is strict on purpose: a field of the wrong type, an unknown
 * field, a number out of range or a missing required field is refused as a
 * whole with `bad_message` and a sentence naming the field, so nothing
 * malformed ever reaches the lobby. A move's `action` is decoded here too,
 * into a typed game_move: the decoder does not know the room's game, so the
 * action's shape names it (game_json_action), and whether that is the
 * room's game is the lobby's check. The message `id`, when present, is kept
 * as given (string or integer) so the reply can echo it, even when the rest
 * of the message is refused. docs/PROTOCOL.md documents every message. */
#ifndef TESSERA_PROTOCOL_H
#define TESSERA_PROTOCOL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/game_move.h"
#include "protocol/protocol_error.h"
#include "protocol/protocol_limits.h"

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
    PROTOCOL_TOURNAMENT_ACCEPT,
    PROTOCOL_ROOM_REMATCH
} protocol_type;

#define PROTOCOL_TYPE_COUNT (PROTOCOL_ROOM_REMATCH + 1)

/* The wire name of a message type ("game.move"). */
const char *protocol_type_name(protocol_type type);

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
    bool as_spectator;                      /* room.join only */
    int seat;                               /* room.join (-1 = any) and room.add_bot */
    char bot[PROTOCOL_WORD_MAX + 1];        /* room.add_bot */
    char rematch[PROTOCOL_ROOM_ID_MAX + 1]; /* room.rematch: the new room offered */
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
    game_move action; /* either game's, told by its shape (game_json_action) */
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

/* Decodes one client text message. On success 0 and *out (release with
 * protocol_message_clear). On failure the code, *failure filled in, and
 * out->id still set when the message had a usable id. */
int protocol_decode(const char *text, size_t length, protocol_message *out,
                    protocol_failure *failure);

/* The room code a message names ("" for messages without one). */
const char *protocol_message_room(const protocol_message *message);

/* Frees what a decoded message owns; safe on a zeroed message. */
void protocol_message_clear(protocol_message *message);

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

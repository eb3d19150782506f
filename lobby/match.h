/* match.h -- one room's rules as a pure state machine.
 *
 * A room's game life (seats, start, moves, clocks, stand-ins, the end) is
 * decided here and nowhere else:
 *
 *     match_apply(state, event) -> next state + effects
 *
 * Events are what can happen to a room: a player joins, leaves, starts,
 * moves, resigns; a bot's move is ready; time passes (clocks run out,
 * reconnect graces expire, a finished room's visibility ends); a player
 * disconnects or comes back; a stored record is replayed after a restart.
 * The time is part of the event: nothing here reads a clock, touches a
 * socket, a thread or a database, or allocates. A `match` is a plain value
 * (a few KB), so the caller keeps the current state until the effects are
 * carried out and only then adopts the next one.
 *
 * Effects come in the order the lobby runs them (lobby/room_run.c):
 *   records    what to store, all in one transaction;
 *   publishes  what to tell the room's members or the sender;
 *   schedule   the bot move the room now waits for (at most one), the time
 *              it wants to be woken up, and whether it is closed.
 * If the records cannot be stored, the caller drops the next state and
 * every effect: nothing unstored is ever published.
 *
 * Restart: the stored records of a game are fed back as events (join,
 * add_bot, start, then one MATCH_EVENT_RECORD per stored action), so a
 * rebuilt room went through exactly the code a live one did. */
#ifndef TESSERA_MATCH_H
#define TESSERA_MATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "lobby/game.h"
#include "protocol/protocol_error.h"
#include "protocol/protocol_limits.h"

#define MATCH_BOT_NAME_SIZE (PROTOCOL_WORD_MAX + 1)
#define MATCH_MAX_RECORDS   16
#define MATCH_MAX_PUBLISHES 12

typedef enum match_status { MATCH_WAITING, MATCH_PLAYING, MATCH_FINISHED } match_status;

typedef enum match_seat_kind {
    MATCH_SEAT_EMPTY,
    MATCH_SEAT_PLAYER,
    MATCH_SEAT_BOT /* a built-in bot chosen by the room's owner */
} match_seat_kind;

typedef struct match_seat {
    match_seat_kind kind;
    int64_t player_id;             /* MATCH_SEAT_PLAYER: the stored player */
    char bot[MATCH_BOT_NAME_SIZE]; /* MATCH_SEAT_BOT: the bot's kind */
    bool has_left;                 /* left mid-game: a stand-in plays for good */
    bool is_away;                  /* disconnected, its seat kept for the grace */
    int64_t away_since_ms;
    bool is_on_turn; /* may move now; its clock runs */
    int64_t turn_started_ms;
    int64_t clock_ms;    /* time bank, when the room has a clock */
    int timeouts_in_row; /* its turns the timeout policy played since a move of its own */
} match_seat;

/* A seat whose turn times out this many times in a row resigns instead of
 * getting the policy's move: a game ends in a bounded number of plies even
 * when a player stays and never moves (an empty bank, no increment). */
#define MATCH_TIMEOUTS_TO_RESIGN 3

/* The settings a room's rules read. */
typedef struct match_config {
    int64_t reconnect_grace_ms;   /* away this long: a stand-in bot plays */
    int64_t finished_room_ttl_ms; /* a finished room stays this long */
    uint32_t bot_think_ms;        /* a bot's time, counted from its turn's start */
} match_config;

typedef struct match {
    match_config config;
    game_options options;
    match_status status;
    uint64_t owner; /* the member who may add bots and start; 0 = nobody */
    /* Waiting: when the owner's connection dropped while it watched (a
     * reload), 0 if it did not; the room waits for it for the grace. */
    int64_t owner_away_since_ms;
    match_seat seats[GAME_MAX_SEATS];
    game game;
    int seq; /* actions stored so far: the next one's number */
    int64_t finished_at_ms;
    int last_bot_seat; /* Reef: bots of a race take turns fairly */
} match;

/* What a seat did, as stored in the move log (lobby/action_record.h has
 * its text form). */
typedef enum match_action_kind {
    MATCH_ACTION_MOVE,   /* a placement, a Reef action, or a Blokus pass */
    MATCH_ACTION_RESIGN, /* the seat gives up (a turn is not needed) */
    MATCH_ACTION_LEAVE   /* the player leaves mid-game; a stand-in plays on */
} match_action_kind;

typedef struct match_action {
    match_action_kind kind;
    game_move move; /* MATCH_ACTION_MOVE */
} match_action;

typedef enum match_event_kind {
    MATCH_EVENT_JOIN,       /* `player_id` takes `seat` (-1: the first free one) */
    MATCH_EVENT_LEAVE,      /* `player_id` gives up its seat */
    MATCH_EVENT_ADD_BOT,    /* `member` puts bot `bot` in `seat` */
    MATCH_EVENT_START,      /* `member` starts the game */
    MATCH_EVENT_MOVE,       /* `player_id` plays `move` (as decoded) against `ply` */
    MATCH_EVENT_RESIGN,     /* `player_id` resigns */
    MATCH_EVENT_BOT_MOVE,   /* a bot chose `move` for `seat` at `ply` */
    MATCH_EVENT_RECONNECT,  /* `player_id` is connected again */
    MATCH_EVENT_DISCONNECT, /* `player_id` lost its connection */
    MATCH_EVENT_TIMER,      /* the room's wake-up time: clocks, graces, expiry */
    MATCH_EVENT_OWNER_AWAY, /* the owner lost its connection while watching a waiting room */
    MATCH_EVENT_ABANDON,    /* a waiting room nobody is in any more */
    MATCH_EVENT_RECORD,     /* restart: the stored action `record` of `seat` at `ply` */
    MATCH_EVENT_RESUME,     /* restart: every record replayed; play on from now */
    MATCH_EVENT_CANCEL      /* the server ends a game not over without a result */
} match_event_kind;

typedef struct match_event {
    match_event_kind kind;
    int64_t now_ms;
    uint64_t member;     /* ADD_BOT, START: who asks (compared with the owner) */
    int64_t player_id;   /* JOIN, LEAVE, MOVE, RESIGN, RECONNECT, DISCONNECT */
    int seat;            /* JOIN, ADD_BOT, BOT_MOVE, RECORD */
    int64_t ply;         /* MOVE, BOT_MOVE, RECORD */
    game_move move;      /* MOVE (checked here: its game, its legality), BOT_MOVE */
    match_action record; /* RECORD */
    const char *bot;     /* ADD_BOT */
} match_event;

typedef enum match_record_kind {
    MATCH_RECORD_SEAT,   /* `seat`'s occupant, at the start */
    MATCH_RECORD_START,  /* the game begins */
    MATCH_RECORD_ACTION, /* one entry of the move log */
    MATCH_RECORD_FINISH, /* the result */
    MATCH_RECORD_ABORT   /* the game ends without a result */
} match_record_kind;

typedef struct match_record {
    match_record_kind kind;
    int seat;    /* SEAT, ACTION */
    int seq;     /* ACTION: its number in the log */
    int64_t ply; /* ACTION: the ply it was played against */
    match_action action;
    int64_t elapsed_ms; /* ACTION: time the seat's turn took */
    int64_t clock_ms;   /* ACTION: the bank after it; -1 without a clock */
    int64_t at_ms;
} match_record;

/* Who hears a publish. A reply's copy for the sender carries the sender's
 * request id, and reaches the sender even when it is not a member. */
typedef enum match_audience {
    MATCH_TO_MEMBERS,       /* every member */
    MATCH_TO_OTHER_MEMBERS, /* every member but the sender */
    MATCH_TO_SENDER         /* the sender alone */
} match_audience;

typedef enum match_publish_kind {
    MATCH_PUBLISH_ROOM,     /* the `room` event */
    MATCH_PUBLISH_STARTED,  /* room.started */
    MATCH_PUBLISH_LEFT,     /* room.left */
    MATCH_PUBLISH_MOVED,    /* game.moved: seat, ply, action, outcome, cause */
    MATCH_PUBLISH_RESIGNED, /* game.resigned: seat */
    MATCH_PUBLISH_STATE,    /* game.state, each member its own view */
    MATCH_PUBLISH_OVER,     /* game.over with the result */
    MATCH_PUBLISH_VIEW      /* the room and (once started) game.state */
} match_publish_kind;

/* Why a move was played for a seat by someone other than its player. */
typedef enum match_cause {
    MATCH_CAUSE_NONE,
    MATCH_CAUSE_TIMEOUT,  /* the clock ran out */
    MATCH_CAUSE_STAND_IN, /* the player left or is away past the grace */
    MATCH_CAUSE_RESIGNED  /* 3p: the shared color's turn of a resigned seat */
} match_cause;

typedef struct match_publish {
    match_publish_kind kind;
    match_audience audience;
    bool is_reply;                  /* the sender's copy answers its request */
    int seat;                       /* MOVED, RESIGNED */
    int64_t ply;                    /* MOVED */
    game_move move;                 /* MOVED */
    game_outcome outcome;           /* MOVED */
    match_cause cause;              /* MOVED, RESIGNED (timeout: the clock resigned it) */
    int64_t scores[GAME_MAX_SEATS]; /* MOVED: every seat's score after it */
} match_publish;

/* A bot move the room waits for: `bot` plays `seat` at `ply`, and should
 * answer by `deadline_ms` (its turn's start plus the think time). */
typedef struct match_bot_request {
    int seat;
    int64_t ply;
    char bot[MATCH_BOT_NAME_SIZE];
    int64_t deadline_ms;
    uint64_t seed;
} match_bot_request;

typedef struct match_effects {
    match_record records[MATCH_MAX_RECORDS];
    int record_count;
    match_publish publishes[MATCH_MAX_PUBLISHES];
    int publish_count;
    bool wants_bot;
    match_bot_request bot;
    int64_t wake_at_ms; /* 0: nothing to wake up for */
    bool is_closed;     /* the room is gone (expired or abandoned) */
} match_effects;

/* A waiting room for `options`, owned by `owner` (0 for none). */
void match_init(match *room, const match_config *config, const game_options *options,
                uint64_t owner);

/* Runs `event` on `state`: 0 with *next and *effects filled, or a protocol
 * error code with *failure (and *next, *effects unspecified). `next` must
 * not alias `state`. */
int match_apply(const match *state, const match_event *event, match *next, match_effects *effects,
                protocol_failure *failure);

/* The seat `player_id` holds (left or not), or -1. */
int match_seat_of(const match *room, int64_t player_id);

/* Whether a bot (built-in, stand-in) plays `seat` at `now_ms`. */
bool match_seat_is_automatic(const match *room, int seat, int64_t now_ms);

/* Whether a waiting room still waits for its owner at `now_ms`: its
 * connection dropped while it watched, within the reconnect grace. */
bool match_awaits_owner(const match *room, int64_t now_ms);

/* "waiting", "playing", "finished". */
const char *match_status_name(match_status status);

/* "timeout", "stand_in", "resigned"; NULL for MATCH_CAUSE_NONE. */
const char *match_cause_name(match_cause cause);

/* "no_moves", "resignations", "boards_ended". */
const char *match_end_reason_name(game_end reason);

/* The result of a finished match: each seat's score and rank (1 best, ties
 * share), the winners, and why it ended. */
typedef struct match_result {
    int seat_count;
    int64_t scores[GAME_MAX_SEATS];
    int ranks[GAME_MAX_SEATS];
    bool is_winner[GAME_MAX_SEATS];
    game_end reason;
} match_result;

void match_result_of(const match *room, match_result *out);

#endif

/* lobby_internal.h -- the structures shared by the lobby's files.
 *
 *   lobby.c    connections, sessions (hello), message dispatch, tick
 *   room.c     rooms and their members: create, join, leave, bots, start,
 *              and the room/state views sent to members
 *   play.c     moves, clocks, bot jobs, resignations, the end of a game
 *   restore.c  rebuilding unfinished games from the store at start-up
 *
 * A session is a player known to this process, found by player id; it
 * lives while it has a connection or any room refers to it (room_refs).
 * A room refers to a session from a seat or from its spectator list. */
#ifndef TESSERA_LOBBY_INTERNAL_H
#define TESSERA_LOBBY_INTERNAL_H

#include <stdbool.h>

#include "lobby/game.h"
#include "util/id_table.h"
#include "lobby/lobby.h"
#include "protocol/protocol.h"

struct session {
    int64_t player_id;
    char name[STORE_NAME_SIZE];
    bool is_bot;
    uint64_t connection; /* 0 while disconnected */
    int room_refs;       /* seats and spectator places that name this session */
};

enum seat_kind { SEAT_EMPTY, SEAT_PLAYER, SEAT_BOT };

struct seat {
    enum seat_kind kind;
    struct session *player;          /* SEAT_PLAYER */
    char bot[PROTOCOL_WORD_MAX + 1]; /* SEAT_BOT: the built-in bot */
    bool has_left;                   /* left mid-game: a bot plays for good */
    bool is_away;                    /* disconnected mid-game */
    int64_t away_since_ms;
    bool is_on_turn; /* its clock runs */
    int64_t turn_started_ms;
    int64_t clock_ms;    /* time bank, when the room has a clock */
    bool is_job_pending; /* a bot is thinking for this seat */
};

enum room_status { ROOM_WAITING, ROOM_PLAYING, ROOM_FINISHED };

struct room {
    struct lobby *lobby;
    uint64_t key; /* the code as a number: the rooms table key */
    char code[PROTOCOL_ROOM_ID_MAX + 1];
    game_options options;
    bool is_private;
    enum room_status status;
    struct session *owner;
    struct seat seats[GAME_MAX_SEATS];
    struct session **spectators;
    int spectator_count;
    int spectator_capacity;
    game game;
    int64_t game_id; /* the store's */
    int seq;         /* moves stored so far */
    int64_t finished_at_ms;
    char end_reason[24];
};

struct lobby {
    lobby_host host;
    store *db;
    lobby_config config;
    id_table connections; /* connection id -> struct connection */
    id_table sessions;    /* player id -> struct session */
    id_table rooms;       /* room key -> struct room */
    int jobs_in_flight;
    bool is_shutting_down;
};

struct connection {
    uint64_t id;
    struct session *session; /* NULL until hello */
};

/* lobby.c */
int64_t lobby_now(const struct lobby *l);
void lobby_log(struct lobby *l, const char *format, ...) __attribute__((format(printf, 2, 3)));
void lobby_send(struct lobby *l, const struct session *to, char *text); /* frees text */
void lobby_reply(struct lobby *l, uint64_t connection, json_t *message, const json_t *id);
void lobby_send_text(struct lobby *l, uint64_t connection, char *text); /* frees text */
struct session *session_find_or_add(struct lobby *l, int64_t player_id, const char *name,
                                    bool is_bot);
void session_unref(struct lobby *l, struct session *s);

/* room.c */
typedef struct protocol_request {
    uint64_t connection;
    struct session *session;
    const protocol_message *message;
    protocol_failure *failure;
} protocol_request;

int room_create(struct lobby *l, const protocol_request *request);
int room_join(struct lobby *l, const protocol_request *request);
int room_leave(struct lobby *l, const protocol_request *request);
int room_add_bot(struct lobby *l, const protocol_request *request);
int room_start(struct lobby *l, const protocol_request *request);
json_t *room_list_json(struct lobby *l);
struct room *room_find(struct lobby *l, const char *code);
struct room *room_of_request(struct lobby *l, const protocol_request *request); /* or a failure */
json_t *room_event_json(const struct room *r); /* {"type":"room","room":...} */
struct room *room_new(struct lobby *l, const game_options *options, const char *code);
void room_free(struct room *r);
int room_seat_of(const struct room *r, const struct session *s);
json_t *room_json(const struct room *r);
json_t *room_state_json(const struct room *r, int viewer_seat);
void room_broadcast_room(struct room *r);
void room_broadcast_state(struct room *r);
void room_broadcast(struct room *r, json_t *event, const struct session *except);
void room_send_full_view(struct room *r, struct session *s, const json_t *id);
void room_member_reconnected(struct room *r, struct session *s);
void room_member_disconnected(struct room *r, struct session *s);
bool room_is_member(const struct room *r, const struct session *s);

/* play.c */
int play_move(struct lobby *l, const protocol_request *request);
int play_moves_list(struct lobby *l, const protocol_request *request);
int play_resign(struct lobby *l, const protocol_request *request);
/* `seat`'s player leaves a game under way for good (stored: it survives a
 * restart); a stand-in bot plays the seat from now on. */
int play_leave(struct room *r, int seat, protocol_failure *failure);
void play_begin(struct room *r);
void play_resume(struct room *r); /* a restored game: clocks run, bots move */
void play_schedule(struct room *r);
void play_tick(struct room *r);

#endif

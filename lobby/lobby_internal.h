/* lobby_internal.h -- the structures shared by the lobby's files.
 *
 *   lobby.c       clients, players (hello), message dispatch, tick, shutdown
 *   room.c        rooms and their members; each request turned into an event
 *   room_run.c    one event of a room: match -> store -> adopt -> publish ->
 *                 schedule, the one place where effects are carried out
 *   room_view.c   the JSON texts members are sent, each encoded once
 *   room_list.c   the index behind rooms.list: paged, filtered, O(page)
 *   room_wake.c   when each room next wants the time (a heap of rooms)
 *   bots.c        bot jobs: one per room, fair across rooms, deadlines
 *   account.c     named accounts: sign-up, sign-in with a password, a
 *                 guest's claim; password jobs; the shell of
 *                 account_limits.c, failed sign-in and sign-up limits (pure)
 *   restore.c     rebuilding unfinished games from the store at start-up
 *   leases.c      several instances: this one's room leases, takeovers, `moved`
 *   rebuild.c     a stored game replayed through the rules (restore, verify)
 *   queue.c       quick play: the shell of matchmaking.c, its rules (pure)
 *   arena.c       arenas: the shell of arena_schedule.c, their timing (pure)
 *   match.c       the rules (pure); action_record.c the move log's format;
 *                 game*.c the games behind one interface, game_wire.c
 *                 their JSON views
 *
 * A client is a connection as the lobby sees it. A player is someone
 * signed in, known to this process: it lives while it has a client or any
 * room names it (as a seat's player, a spectator or the owner). It keeps
 * the list of those rooms, so signing in and dropping a connection visit
 * the player's own rooms, never every room. A guest is a player not stored
 * yet: it gets its database row when it first takes a seat. */
#ifndef TESSERA_LOBBY_INTERNAL_H
#define TESSERA_LOBBY_INTERNAL_H

#include <stdbool.h>
#include <stdatomic.h>

#include "lobby/account_limits.h"
#include "lobby/arena_schedule.h"
#include "lobby/game.h"
#include "lobby/lobby.h"
#include "lobby/lobby_stats.h"
#include "lobby/match.h"
#include "lobby/matchmaking.h"
#include "protocol/json_out.h"
#include "protocol/protocol.h"
#include "storage/store_port.h"
#include "util/fifo.h"
#include "util/id_table.h"
#include "util/rate_limit.h"

/* The messages a seat answers its turn with: game.moves, then game.move.
 * They pass the rate limit free, so a bot that answers at once is never
 * limited for playing as fast as the game goes. */
#define LOBBY_TURN_MESSAGES 2

/* After a store or a worker failed, a room tries again this much later. */
#define LOBBY_RETRY_MS 1000

#define LOBBY_TOKEN_BYTES 24
#define LOBBY_TOKEN_SIZE  (2 * LOBBY_TOKEN_BYTES + 1)
/* A connection's peer address, as the host gives it (an IP literal). */
#define LOBBY_ADDRESS_SIZE 64

struct player {
    uint64_t key;      /* process-unique: what a room's owner is compared by */
    int64_t player_id; /* the stored player; 0 for a guest not stored yet */
    char name[STORE_NAME_SIZE];
    bool is_bot;
    bool is_account;              /* a named account (it signed up or in with a password) */
    bool is_bot_account;          /* a bot account: it signed in with its key */
    char token[LOBBY_TOKEN_SIZE]; /* a guest's token, until it is stored */
    uint64_t connection;          /* 0 while disconnected */
    struct room **rooms;          /* the rooms that name it, once per mention */
    int room_count, room_capacity;
    int pins;       /* held by a walk over its rooms */
    int open_rooms; /* rooms it owns that are not finished */
};

struct client {
    uint64_t connection;
    struct player *player; /* NULL until hello */
    char address[LOBBY_ADDRESS_SIZE];
    bool is_signing_in; /* a password job of its own is queued or running */
    /* player_row.c: its messages wait while its player's row is stored */
    fifo parked;
    int parked_count; /* at most PLAYER_ROW_MAX_PARKED */
    bool is_storing_row;
    bool is_looking_up;  /* client_lookup.c: a lookup for one of its messages is out */
    int events_out;      /* its messages that are room events not yet answered */
    fifo_link resumable; /* in lobby->resumable while is_resumable */
    bool is_resumable;
};

/* The scheduled tournament game a room plays: id 0 for none. */
typedef struct room_tournament {
    int64_t id;
    int game; /* its number in the tournament's schedule */
} room_tournament;

/* Where a room stands in the lists behind rooms.list (room_list.c). */
struct list_place {
    int index; /* which list, -1 when not listed */
    size_t position;
};

/* A room: the rules' state (match) and everything around it that the rules
 * need not know: its code, members' connections, spectators, scheduling. */
struct room {
    struct lobby *lobby;
    uint64_t key; /* the code as a number: the rooms table key */
    char code[PROTOCOL_ROOM_ID_MAX + 1];
    bool is_private;
    int64_t game_id; /* the store's */
    room_tournament tournament;
    match match;
    struct player *owner;                  /* NULL once restored */
    struct player *seated[GAME_MAX_SEATS]; /* the players of player seats */
    struct player **spectators;
    int spectator_count;
    int spectator_capacity;
    /* room_wake.c */
    int64_t wake_at_ms; /* 0: none */
    size_t wake_index;  /* its place in the heap while wake_at_ms != 0 */
    /* bots.c */
    bool wants_bot;
    match_bot_request bot;
    bool is_bot_queued;  /* in the fair queue (lobby->bot_queue) */
    bool is_bot_running; /* its job is on a worker */
    fifo_link bot_waiting;
    struct list_place listed; /* room_list.c */
    bool is_listing_changed;  /* listings.c: to be told to the other instances */
    /* room_run.c: events wait here while an earlier one is being stored */
    fifo events;                  /* of struct room_event */
    struct runner_commit *commit; /* its creation or an event being stored, or NULL */
    bool is_ready;                /* on the runner's list of rooms with events to run */
    fifo_link ready;
    bool is_arranged;     /* filled by the server and not yet started: a failure discards it */
    int64_t leased_at_ms; /* leases.c: when its lease was stored (created, rebuilt); 0: none */
    /* room_rematch.c: the finished game's rematch offered, "" = none */
    char rematch[PROTOCOL_ROOM_ID_MAX + 1];
};

/* A bot job on a worker thread: a copy of the game and a cancel flag. */
struct bot_job {
    lobby_job base; /* first, so the host's lobby_job * is this job */
    struct lobby *lobby;
    uint64_t room_key;
    match_bot_request request;
    uint32_t think_ms;
    int64_t started_ms; /* when the job was handed to a worker */
    atomic_bool is_cancelled;
    game game;
    game_move move;
    int result;
    struct bot_job *next_running;
};

/* A public room another instance serves (listings.c): its room object as
 * that instance last told it. */
struct remote_room {
    uint64_t key; /* as a room's */
    char instance;
    json_t *room;
    struct list_place listed;
};

struct room_listing {
    uint64_t seq;
    struct room *room;          /* a room here, */
    struct remote_room *remote; /* or one served elsewhere; neither: a hole left by one gone */
};

struct room_list {
    struct room_listing *items;
    size_t count, capacity, live;
};

/* One list per (game mode, status): modes 0-3 Blokus, 4-5 Reef. */
#define ROOM_LIST_MODES LOBBY_KIND_COUNT
#define ROOM_LIST_COUNT (ROOM_LIST_MODES * 3)

struct lobby {
    lobby_host host;
    store_port store_port; /* everything stored and read */
    lobby_config config;
    id_table clients;     /* connection id -> struct client */
    id_table players;     /* stored player id -> struct player */
    id_table guests;      /* hash of a guest's token -> struct player */
    id_table rooms;       /* room key -> struct room */
    id_table tournaments; /* running tournament id -> struct tournament */
    uint64_t last_player_key;
    int open_room_count; /* rooms not finished: what max_rooms caps */
    /* room_wake.c: a binary min-heap of rooms by wake_at_ms */
    struct room **wake_heap;
    size_t wake_count, wake_capacity;
    int64_t tick_ms; /* the time of the last tick: no room wakes at or before it again */
    /* bots.c */
    fifo bot_queue; /* rooms waiting for a bot job, fairly */
    struct bot_job *running_jobs;
    int jobs_in_flight;
    /* account.c */
    fifo account_queue;            /* password jobs waiting for a worker */
    int account_queued;            /* waiting for a worker */
    int account_running;           /* on a worker */
    account_limits account_limits; /* failed sign-ins and sign-ups counted (the machine's state) */
    /* room_list.c */
    struct room_list lists[ROOM_LIST_COUNT];
    uint64_t last_list_seq;
    /* listings.c: the public rooms of the other instances, and this one's
     * told to them (with config.shares_lobby) */
    id_table remote_rooms;                           /* room key -> struct remote_room */
    int64_t instance_until_ms[128];                  /* by instance id: heard of until then */
    char (*changed_rooms)[PROTOCOL_ROOM_ID_MAX + 1]; /* codes of rooms here to tell of */
    int changed_count, changed_capacity;
    bool wants_hello;        /* the next notice asks the others to tell everything */
    bool is_telling;         /* a notice is out */
    int64_t tell_at_ms;      /* when changes are next told */
    int64_t heartbeat_at_ms; /* when a notice is due even without changes */
    /* room_view.c: buffers reused for every game.state and game.moves */
    json_out state_plain, state_hinted, state_message;
    json_out event_message; /* the game.moved or room event being delivered */
    json_out reply;         /* lobby_send_reply's copy of a text, to add an id to */
    json_out moves_message; /* the last game.moves sent, for... */
    uint64_t moves_room;    /* ...this room, */
    int moves_seq;          /* ...at this point of its log, */
    int moves_seat;         /* ...and this seat */
    /* arena.c: each arena's schedule (the machine's state) */
    arena_schedule arenas[ARENA_MAX];
    /* queue.c: players waiting for quick play (the machine's state) */
    matchmaking queue;
    /* lobby.c: new guests per address; guest_sweep.c: the guest expiry sweep */
    rate_limit *address_guests;
    store_guest_cursor guest_cursor; /* where the sweep goes on from */
    int64_t guest_sweep_at_ms;       /* when it next runs */
    bool is_sweeping_guests;         /* a batch is out */
    /* leases.c: this instance's leases (with an instance id) */
    int64_t renew_leases_at_ms;    /* when they are next renewed */
    int64_t take_rooms_at_ms;      /* when run-out rooms are next looked for */
    bool is_renewing_leases;       /* a renewal is out */
    bool is_taking_rooms;          /* a takeover is out */
    bool is_restored;              /* lobby_restore has ended: takeovers may run */
    bool holds_queue;              /* quick play's lease: its queue is here */
    int64_t leases_valid_until_ms; /* the leases' end as last stored */
    bool has_let_go;               /* a clean stop gave the leases up: nothing more is stored */
    bool is_shutting_down;
    lobby_counters counters; /* lobby_stats.h: what /metrics shows */
    /* room_run.c: the runner -- stored events to carry out, rooms with
     * events to run, tournaments whose game ended, in that order */
    fifo answered;  /* struct runner_commit */
    fifo ready;     /* struct room */
    fifo posts;     /* struct tournament (tournament.c): a game of it ended */
    fifo resumable; /* struct client (player_row.c): its waiting messages may go on */
    fifo creating;  /* tournament.c: tournaments on their way to the store (the caps count them) */
    bool is_draining;
    struct room_commit *spare_commits; /* room_run.c: finished commits kept for the next */
    int spare_commit_count;
    struct room *arranging;           /* room_arrange.c: the room it is filling, if any */
    protocol_failure arrange_failure; /* why the runner discarded it */
};

/* Who sent the request an event comes from (NULL for background events). */
typedef struct room_sender {
    struct player *player;
    uint64_t connection;
    const json_t *id;
} room_sender;

/* lobby.c */
int64_t lobby_now(const struct lobby *lobby);
void lobby_log(struct lobby *lobby, const char *format, ...) __attribute__((format(printf, 2, 3)));
void lobby_send_text(struct lobby *lobby, uint64_t connection, const char *text, size_t length);
/* Sends `message` (consumed) with the request id, if any, added. */
void lobby_send_json(struct lobby *lobby, uint64_t connection, json_t *message, const json_t *id);
/* As lobby_send_text for an event a spectator gets: it may be held a few
 * tens of milliseconds and leave with the next ones (see lobby_host.send). */
void lobby_send_soon(struct lobby *lobby, uint64_t connection, const char *text, size_t length);
void lobby_send_reply(struct lobby *lobby, uint64_t connection, const char *text, size_t length,
                      const json_t *id);
void lobby_send_reply_out(struct lobby *lobby, uint64_t connection, json_out *message,
                          const json_t *id);
/* The settings a room's rules take from the lobby's. */
match_config lobby_match_config(const lobby_config *config);
struct player *lobby_player_by_id(struct lobby *lobby, int64_t player_id, const char *name,
                                  bool is_bot);
/* A guest not stored yet, found by its token; a guest whose token collides
 * in the table with another's is not found (the other one is, or nobody). */
struct player *lobby_guest_by_token(struct lobby *lobby, const char *token);
/* The guest `player` now has the stored row `id`: it is found by id from
 * now on, no longer by its guest token. 0, or STORE_E_NOMEM. */
int lobby_player_stored(struct lobby *lobby, struct player *player, int64_t id);
/* A new session token from the host's random source. */
void lobby_new_token(struct lobby *lobby, char token[LOBBY_TOKEN_SIZE]);
/* Sends `failure` as an error echoing `id` (NULL: none). */
void lobby_send_failure(struct lobby *lobby, uint64_t connection, const json_t *id,
                        const protocol_failure *failure);
/* Sends `welcome` for `player`, with `token` unless it is "". */
void lobby_send_welcome(struct lobby *lobby, uint64_t connection, const struct player *player,
                        const char *token, const json_t *id);
/* Signs `client` in as `player`: the player's older connection is closed,
 * the client gets welcome (with `token` unless ""), the log a line ending
 * in `how`, and the player's rooms learn it is back. */
void lobby_sign_in(struct lobby *lobby, struct client *client, struct player *player,
                   const char *token, const json_t *id, const char *how);
/* Records that `room` names `player` (once more): 0, or
 * PROTOCOL_E_INTERNAL out of memory.
 * lobby_player_reserve(player, n) first makes the next n records certain. */
int lobby_player_reserve(struct player *player, int more);
int lobby_player_attach(struct player *player, struct room *room);
/* Lets go of a pin (player->pins++) on `player`, freeing it if nothing else
 * holds it. */
void lobby_player_unpin(struct lobby *lobby, struct player *player);
/* Drops one record of `room` naming `player`; a player nothing names and
 * nobody is connected as is freed. */
void lobby_player_detach(struct lobby *lobby, struct player *player, struct room *room);

/* Carries out one decoded message of `client`: its handler, or the
 * refusal sent back. */
void lobby_dispatch(struct lobby *lobby, struct client *client, const protocol_message *message);

/* guest_sweep.c: runs a batch of the guest expiry sweep when one is due
 * and none is out (the tick's last step). */
void guest_sweep_tick(struct lobby *lobby, int64_t now);

/* player_row.c: a guest's row, stored at its first seat. Whether
 * `message` must wait for the client's player row (it needs one the
 * player lacks, or earlier messages already wait). */
bool player_row_awaits(struct lobby *lobby, const struct client *client,
                       const protocol_message *message);
/* Takes `message` (the caller no longer clears it) to wait for the row,
 * storing the row unless it is already on its way; the message is
 * handled once the row is stored, or refused if it cannot be. */
void player_row_park(struct lobby *lobby, struct client *client, protocol_message *message);
/* Drops the messages waiting on `client` (it is going away); `lobby` is
 * NULL when the lobby itself is being freed. */
void player_row_forget(struct lobby *lobby, struct client *client);
/* A message of `connection`'s became a room event (room_run.c): until it
 * is answered, the client's next messages wait behind it, so replies
 * come back in the order their messages came. */
void player_row_event_out(struct lobby *lobby, uint64_t connection);
/* That room event is answered (or dropped): once none is out, the
 * client's waiting messages go on -- from the runner's loop
 * (player_row_resume_next), never from inside whatever dropped the event
 * (a room being freed in the middle of a disconnection, say). */
void player_row_event_answered(struct lobby *lobby, uint64_t connection);
/* Lets the waiting messages of the next resumable client go on: false
 * when there is none. runner_drain calls it. */
bool player_row_resume_next(struct lobby *lobby);
/* The PLAYER_CREATE record of `guest`'s row (a guest's first seat, or its
 * first Reef run). */
store_record player_row_record(const struct player *guest, int64_t now);
/* Handles `client`'s waiting messages in order, now that what they waited
 * for is answered; with `rc` a store error, those that needed a row are
 * refused with it. */
void player_row_resume(struct lobby *lobby, struct client *client, int rc);

/* room.c */
struct room *room_new(struct lobby *lobby, const game_options *options, const char *code,
                      struct player *owner);
void room_free(struct room *room);
struct room *room_find(struct lobby *lobby, const char *code);
/* A room code as a number, the rooms table's key; 0 for no code. */
uint64_t room_code_key(const char *code);
/* A new waiting room with a fresh code, a game of `tournament` (or of
 * none), not stored yet: unlisted, with no game id. `owner` (NULL
 * allowed) becomes its first spectator. NULL and a failure when out of
 * memory. */
struct room *room_open(struct lobby *lobby, const game_options *options, bool is_private,
                       struct player *owner, room_tournament tournament, protocol_failure *failure);
/* Stores the game of a room room_open made, as the room's first commit:
 * its events wait behind it. Once stored, the room has its game id, is
 * listed, and `requester` (NULL for the server) gets the room as its
 * reply. If it cannot be stored, the requester and the senders of the
 * waiting events hear why and the room goes (an arranged one is
 * discarded). Returns 0 while the room exists (stored, or being stored),
 * else the failure, which the requester has heard. */
int room_submit_creation(struct room *room, const room_sender *requester,
                         protocol_failure *failure);
bool room_is_member(const struct room *room, const struct player *player);
void room_sync_seats(struct room *room);
int room_handle(struct lobby *lobby, struct client *client, const protocol_message *message,
                protocol_failure *failure);
void room_player_reconnected(struct room *room, struct player *player);
/* Closes a waiting room once nobody is in it (its game is stored as
 * aborted). If that cannot be stored the room stays, empty, until a later
 * event or restart tries again. */
void room_close_if_abandoned(struct room *room);
void room_player_disconnected(struct room *room, struct player *player);

/* room_rematch.c */
/* room.rematch: names the new room offered as this finished game's
 * rematch (checked against its game, mode and seats) and tells the members. */
int room_rematch(struct lobby *lobby, struct client *client, const protocol_message *message,
                 protocol_failure *failure);

/* runner.c: the lobby's writes. A commit is one event's records on their
 * way to the store and what follows the answer: `finish` carries it out
 * when `is_live` (the answer in commit->rc) and frees the commit either
 * way; it is not live when what it was for went away (`is_orphaned`) or
 * the lobby is being freed. */
struct runner_commit;
typedef void runner_finish(struct runner_commit *commit, bool is_live);
struct runner_commit {
    struct lobby *lobby;
    store_batch batch;
    runner_finish *finish;
    int rc; /* the store's answer; set before submitting: finished with it unstored */
    bool is_answered;
    bool is_orphaned;
    fifo_link answered; /* in lobby->answered, until runner_drain takes it */
};
/* Submits `commit` (its records all stored, or none). When the store
 * answers before submit returns, finishes it at once and returns the
 * answer (0 or a store error); else returns RUNNER_PENDING and
 * runner_drain finishes it when the answer comes. */
#define RUNNER_PENDING 1
int runner_submit(struct runner_commit *commit);
/* Stores `record` in a commit of its own that nothing waits on (what it
 * was for is gone): a failure is only logged. */
void runner_store_alone(struct lobby *lobby, const store_record *record);
/* Carries out whatever the runner holds (answered commits, queued room
 * events, tournaments to carry on) until nothing is left; a no-op while
 * already doing so. Every entry point of the lobby ends with it. */
void runner_drain(struct lobby *lobby);
/* Frees what the runner still holds (the lobby is going away). */
void runner_free(struct lobby *lobby);

/* client_lookup.c: a lookup made for one client's message. Its record is
 * looked up (now or later) while the client's next messages wait; then
 * `answered` finishes the message (the answer in lookup->base.rc and the
 * record) -- a failure it returns is sent to the client -- and the waiting
 * messages are handled. `answered` is not called if the client has gone.
 * The lookup owns `context` (the rest of the request) and drops it with
 * `drop` after, unless `answered` took it (set it to NULL). */
struct client_lookup;
typedef int client_lookup_answered(struct lobby *lobby, struct client *client,
                                   struct client_lookup *lookup, protocol_failure *failure);
struct client_lookup {
    struct runner_commit base; /* first: the runner's commit is this one */
    uint64_t connection;       /* whose message: looked up again at the answer */
    json_t *id;                /* the message's request id (a reference) */
    client_lookup_answered *answered;
    int detail;    /* the handler's own (quick play: the queue) */
    void *context; /* the handler's own, owned; NULL for none */
    void (*drop)(void *context);
    store_record record;
};
/* Submits the lookup of `record` for the message `id`; it owns `context`
 * from now on, even when it fails. 0, or a failure when the lookup cannot
 * even be asked. */
int client_lookup_submit(struct lobby *lobby, struct client *client, const json_t *id,
                         const store_record *record, client_lookup_answered *answered, int detail,
                         void *context, void (*drop)(void *context), protocol_failure *failure);

/* room_run.c: room events. room_run hands `event` (from `sender`, NULL
 * for the server's own) to the room: it runs now when the room is idle
 * and nothing else is being carried out, else after what is ahead of it
 * (a room's creation is ahead of everything). A refusal is sent to the
 * sender by the runner itself. Returns 0 when the event was carried out,
 * ROOM_RUN_PENDING when it waits (queued, or its records being stored),
 * or the protocol error it was refused with. */
#define ROOM_RUN_PENDING RUNNER_PENDING
int room_run(struct room *room, const match_event *event, const room_sender *sender);
/* Runs the next event of the next room that has one: false when none has. */
bool room_run_next(struct lobby *lobby);
/* Runs a room's queued events once its commit in flight is finished. */
void room_run_resume(struct room *room);
/* Refuses a room's queued events with `failure` (the room cannot be):
 * their senders hear it, and so do the players an arranged room was
 * about to seat. */
void room_run_refuse_queued(struct room *room, const protocol_failure *failure);
/* Frees the commits kept for reuse (at the lobby's end). */
void room_run_free_spares(struct lobby *lobby);
/* Drops a room's queued events and detaches its commit in flight (the
 * room is going away). */
void runner_forget_room(struct room *room);
/* A room the server was filling (room_arrange.h) that cannot be filled or
 * started goes away: its game is stored as aborted (if even that fails,
 * the restart finds it waiting and aborts it), its seated players hear
 * why -- unless room_arrange is still at it, which returns the failure
 * instead -- and a tournament tries the game again at its next tick. */
void room_discard_arranged(struct room *room, const protocol_failure *failure);

/* room_view.c. room_view_write_room appends the room object rooms show
 * (in room events, listings and rooms.list); room_view_room_json is the
 * same object as a tree, NULL out of memory. */
void room_view_write_room(const struct room *room, json_out *out);
json_t *room_view_room_json(const struct room *room);
void room_view_publish(struct room *room, const match_publish *player, const room_sender *sender,
                       int64_t now);
void room_view_send_full(struct room *room, struct player *player, const json_t *id, int64_t now);
void room_view_send_moves(struct room *room, int seat, const room_sender *sender);

/* room_list.c */
void room_list_update(struct room *room);
void room_list_remove(struct room *room);
/* Files a room of another instance in list `wanted` (-1: none). */
void room_list_place_remote(struct lobby *lobby, struct remote_room *remote, int wanted);
/* The list a room of `mode` (LOBBY_KIND_MODES) in `status`
 * (LOBBY_STATUS_NAMES) goes in, or -1 when there is none. */
int room_list_of_names(const char *mode, const char *status);
json_t *room_list_page(struct lobby *lobby, const protocol_rooms_list *query,
                       protocol_failure *failure);
void room_list_free(struct lobby *lobby);

/* listings.c: rooms.list across instances (with config.shares_lobby) */
/* A listed room here changed, or is no longer listed: the other instances
 * are told soon. */
void listings_changed(struct room *room);
/* A room of `key` is now here: what another instance said of it goes. */
void listings_forget_remote(struct lobby *lobby, uint64_t key);
void listings_tick(struct lobby *lobby, int64_t now);
/* The last notice of an instance stopping cleanly at `now`: good until
 * now, so the others drop its rooms at once (malloc'd; NULL without a
 * shared lobby, or out of memory). */
char *listings_farewell(struct lobby *lobby, int64_t now);
void listings_free(struct lobby *lobby);

/* room_wake.c */
/* Sets (0: clears) the moment `room` wants to be woken, at the earliest
 * just after the last tick (see room_wake_due). */
void room_wake_set(struct room *room, int64_t at_ms);
/* Wakes `room` LOBBY_RETRY_MS from `now` at the latest: what failed (a
 * store, a worker) is tried again then. */
void room_wake_retry(struct room *room, int64_t now);
/* The next room due at the tick of time `now` (taken off the heap), or
 * NULL. Each room is due at most once per tick. */
struct room *room_wake_due(struct lobby *lobby, int64_t now);
void room_wake_free(struct lobby *lobby);

/* bots.c */
void bots_want(struct room *room, const match_effects *effects);
void bots_forget(struct room *room);
/* The room still waits for a bot move after a stale answer: asks again. */
void bots_requeue(struct room *room);
void bots_cancel_all(struct lobby *lobby);

/* account.c: hello with a password, account.register; each answers
 * later (a failure now means nothing was queued). */
int account_init(struct lobby *lobby);
int account_sign_in(struct lobby *lobby, struct client *client, const protocol_message *message,
                    protocol_failure *failure);
int account_register(struct lobby *lobby, struct client *client, const protocol_message *message,
                     protocol_failure *failure);
/* The lookup of the account whose name key is `name_key`. */
store_record account_find(struct lobby *lobby, const char *name_key);
/* A FIND_ACCOUNT lookup's answer as the check that `name` is free for a
 * new guest or account: 0, or name_taken or storage_error. */
int account_name_free(const struct client_lookup *lookup, const char *name,
                      protocol_failure *failure);
int account_jobs_running(const struct lobby *lobby);
void account_drop_queued(struct lobby *lobby);
void account_free(struct lobby *lobby);

/* restore.c (lobby_restore is public). The rooms a restart or a takeover
 * rebuilt, not carried on yet: their games go on (MATCH_EVENT_RESUME) only
 * once the tournaments taken with them are loaded, so a tournament game's
 * end finds its tournament here. */
struct rebuilt_rooms {
    int count;
    char (*codes)[STORE_CODE_SIZE];
};
/* Rebuilds the rooms of the games a takeover found (leases.c), as a
 * restart does, and stores the aborts of those that do not replay: the
 * rooms rebuilt, to carry on with restore_resume. */
struct rebuilt_rooms restore_taken_games(struct lobby *lobby, const store_record_find_games *found);
/* Carries on each room of `rooms` still here, and empties it: 0, or
 * STORE_E_IO when one could not be stored. */
int restore_resume(struct lobby *lobby, struct rebuilt_rooms *rooms);

/* leases.c: this instance's leases when it has an instance id. The tick
 * renews them and takes run-out rooms over when due; leases_take_now
 * looks for run-out rooms at once (one look is out at a time). */
void leases_tick(struct lobby *lobby, int64_t now);
void leases_take_now(struct lobby *lobby);
/* Whether this instance has gone too long without renewing its leases to
 * be sure it still holds them (another may take a room once its lease runs
 * out): then no room event is stored until a renewal says which rooms are
 * still its own (room_run.c). */
bool leases_have_lapsed(const struct lobby *lobby, int64_t now);
/* A clean stop (lobby_shutdown): from now on no room event is stored, and
 * every lease of this instance runs out at once, in the same commit as a
 * notice telling the others its rooms are gone (listings_farewell), so
 * another instance takes its rooms, tournaments and quick play over at its
 * next look instead of a lease later. */
void leases_let_go(struct lobby *lobby);
/* A room.join naming a room that is not here: looks its lease up and
 * answers `moved` (or no_such_room when nobody serves it). 0, or a
 * failure when the lookup cannot be asked. */
int leases_find_room(struct lobby *lobby, struct client *client, const protocol_message *message,
                     protocol_failure *failure);
/* A queue.join where quick play is not served (lobby->holds_queue): looks
 * its lease up and answers `moved` to its holder, as leases_find_room. */
int leases_find_queue(struct lobby *lobby, struct client *client, const protocol_message *message,
                      protocol_failure *failure);
/* tournament.watch or .cancel of a tournament not running here: looks
 * its lease up and answers `moved` to its holder, as leases_find_room
 * (no_such_tournament when it has none: it is over). */
int leases_find_tournament(struct lobby *lobby, struct client *client,
                           const protocol_message *message, protocol_failure *failure);
/* Sends `connection` on to this instance again after a moment, where its
 * next queue.join is sent to quick play's new holder. */
void leases_send_queue_away(struct lobby *lobby, uint64_t connection);

#endif

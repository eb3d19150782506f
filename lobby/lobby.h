/* lobby.h -- players, rooms, seats, turns, clocks and bots.
 *
 * The lobby is the server's game logic with every outside thing behind a
 * small host interface: it never sees a socket, a timer handle or a
 * thread. The host (server/app.c) hands it connections and complete text
 * messages, calls lobby_tick a few times a second for clocks and grace
 * periods, runs its bot jobs on a worker thread, and sends what it is told
 * to send. Unit tests drive it with a fake host and a fake clock.
 *
 * All calls happen on one thread (the loop); a bot job's `work` runs
 * elsewhere on a copy of the game and touches nothing shared, and its
 * `done` runs back on the loop, where the lobby checks the room is still
 * waiting for that very move before playing it.
 *
 * Durability: every change to a room is stored (one transaction per event)
 * before anyone is told of it; if that fails the sender gets
 * `storage_error`, nothing is published, and the room stays as it was.
 * The lobby reaches storage only through its store port (store_port.h):
 * every write and every read is a record in a batch answered later. */
#ifndef TESSERA_LOBBY_H
#define TESSERA_LOBBY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lobby/arena.h"
#include "protocol/protocol.h"
#include "storage/secret.h"
#include "storage/store_port.h"

/* A piece of work for a worker thread: the host calls work() off the loop,
 * then done() on the loop. The lobby owns the job's memory. */
/* The lobby; its fields are the lobby's own (opaque). */
struct lobby;

typedef struct lobby_job {
    void (*work)(struct lobby_job *job);
    void (*done)(struct lobby_job *job);
} lobby_job;

typedef struct lobby_host {
    void *context;
    /* Queues `text` (a complete JSON message of `length` bytes) for a
     * connection; copies it. `can_wait`: nobody waits on this message (a
     * spectator's event), so the host may hold it a few tens of
     * milliseconds to send it together with what follows. */
    void (*send)(void *context, uint64_t connection, const char *text, size_t length,
                 bool can_wait);
    /* Closes a connection (e.g. its session moved to a newer connection). */
    void (*close)(void *context, uint64_t connection, const char *reason);
    /* Milliseconds since the Unix epoch. */
    int64_t (*now_ms)(void *context);
    /* Runs job->work on a worker thread, then job->done on the loop.
     * Returns 0, or a negative errno when the job could not be queued
     * (done never runs). */
    int (*queue_work)(void *context, lobby_job *job);
    /* Fills `buffer` with cryptographically random bytes. */
    void (*random_bytes)(void *context, void *buffer, size_t length);
    /* Lets a connection send `messages` more without spending its rate
     * credits: the lobby asked for them (its seat's turn began). */
    void (*grant)(void *context, uint64_t connection, int messages);
    /* Records one event of the lobby's (a room created, a game started or
     * over, a player signed in) as a line of the server's log. */
    void (*log)(void *context, const char *line);
} lobby_host;

typedef struct lobby_config {
    int64_t reconnect_grace_ms;         /* a dropped player keeps the seat this long */
    int64_t finished_room_ttl_ms;       /* a finished room stays visible this long */
    uint32_t bot_think_ms;              /* MCTS time per move, counted from the turn's start */
    int max_rooms;                      /* rooms not finished, at most */
    int max_rooms_per_player;           /* rooms one player may own that are not finished */
    int bot_jobs;                       /* bot searches running at once, at most */
    int password_jobs;                  /* password hashes running at once, at most */
    int password_queue;                 /* sign-ins waiting for a hash; more: rate_limited */
    int failures_per_name;              /* failed sign-ins a name may have a minute */
    int failures_per_address;           /* failed sign-ins an address may have a minute */
    int registrations_per_address;      /* accounts an address may register an hour */
    int guests_per_address;             /* new guests an address may make a minute */
    secret_password_cost password_cost; /* of the hash of a new password */
    /* A stored guest that nothing stored names (no seat, Reef run or
     * rating) and nobody claimed is deleted this long after it was stored;
     * 0: never. */
    int64_t guest_ttl_ms;
    /* Quick play (lobby/queue.h): players whose conservative ratings are
     * within queue_window are matched; the window grows by that much again
     * for every queue_widen_ms a player has waited; after queue_fill_ms a
     * waiting player is matched with whoever fits and built-in bots. */
    double queue_window;
    int64_t queue_widen_ms;
    int64_t queue_fill_ms;
    /* Tournament caps (lobby/tournament.h): running tournaments at most, of
     * which `tournament_reserve` only the admin and arenas may fill; an
     * account's running tournaments, and the games they may play at once,
     * each capped and also kept within `tournament_share` percent of
     * max_tournaments and max_rooms. */
    int max_tournaments;
    int tournament_reserve;
    int tournaments_per_account;
    int tournament_rooms_per_account;
    int tournament_share;
    /* Scheduled arenas (lobby/arena.h), as the `arenas` setting lists them. */
    arena_spec arenas[ARENA_MAX];
    int arena_count;
    /* Several instances on one database (lobby/leases.c): this one's id, a
     * character of the room codes' alphabet (lobby_instance_is_valid), the
     * first of every room code it makes; '\0' for a lone server. A room's
     * lease runs lease_ms after its last renewal. */
    char instance;
    int64_t lease_ms;
    /* The instances share one PostgreSQL database and hear each other's
     * notices (lobby/listings.c): rooms.list shows the rooms of all. */
    bool shares_lobby;
} lobby_config;

/* Whether `id` may be an instance's id: a character of the room codes'
 * alphabet (Crockford base32 in lower case: digits and letters but i, l,
 * o, u). */
bool lobby_instance_is_valid(char id);

/* A notice another instance sent (store_notify, heard by the server's
 * listener on STORE_LOBBY_CHANNEL): what it tells of its rooms goes into
 * rooms.list (lobby/listings.c), a tournament's event to its entries
 * connected here (lobby/tournament_notices.c). One not understood is
 * logged. */
void lobby_listings_heard(struct lobby *lobby, const char *notice);
/* The server's listener is (again) connected: it may have missed notices,
 * so the others are asked to tell everything again. */
void lobby_listings_connected(struct lobby *lobby);

/* Defaults: 60 s grace, 10 min finished rooms, 300 ms bots, 10,000 rooms,
 * 10 open rooms per player, 3 bot searches at once; 100 tournaments, 10
 * kept for the admin and arenas, 2 per account playing 8 games at once
 * within 10 % of the server's caps; 2 password hashes at
 * once and 32 waiting, 5 failed sign-ins a minute per name and 20 per
 * address, 10 sign-ups an hour per address, 60 new guests a minute per
 * address, unclaimed guests nothing names expired after 30 days,
 * libsodium's interactive Argon2id cost; quick play within 5 rating
 * points, widened every 10 s, bots after 30 s; no instance id, leases
 * of 3 s. */
lobby_config lobby_default_config(void);

/* A lobby on a store port, which everything it stores and reads goes
 * through (copied; its context must outlive the lobby). */
int lobby_new(const lobby_host *host, const store_port *port, const lobby_config *config,
              struct lobby **out);

/* Replays a stored game through the rules: 0 when it re-validates (and,
 * finished, gives the stored result), 1 with `problem` saying what is
 * wrong. Waiting and aborted games have nothing to check. */
int lobby_verify_game(const store_game_record *record, char *problem, size_t size);

/* A Reef run played on the stateless API, verified by replaying it. */
typedef struct lobby_reef_run {
    uint64_t seed;
    int64_t score;
    const char *history_json; /* the run's history, a JSON string */
    int64_t at_ms;
} lobby_reef_run;

/* Where a submitted Reef run landed. */
typedef struct lobby_reef_stored {
    int64_t run_id;
    bool is_repeat; /* that player had submitted it before: run_id is the stored one */
    char player_name[STORE_NAME_SIZE];
} lobby_reef_stored;

/* The answer to lobby_reef_run_submit: `stored`, or `failure` (the other
 * is NULL). Called once, on the loop. */
typedef void lobby_reef_done(void *context, const lobby_reef_stored *stored,
                             const protocol_failure *failure);

/* Stores `run` (copied) for the Reef leaderboards as the run of the player
 * whose session token or bot key is `secret` (a guest not stored yet is
 * stored with it, in the same commit), and calls `done` once the store
 * has answered -- before it returns or later. A failure is unauthorized
 * (no such token or key) or storage_error (nothing was stored). A run that
 * player already submitted (same seed and actions) is not stored again:
 * the answer names the stored one, with is_repeat set. */
void lobby_reef_run_submit(struct lobby *lobby, const char *secret, const lobby_reef_run *run,
                           lobby_reef_done *done, void *context);

/* The answer to a tournament's creation or cancellation, once its
 * records are stored or not: rc 0 and the tournament's id, or rc the
 * failure's code and `failure` saying why (NULL when rc is 0). Called once,
 * on the loop; a request still waiting when the lobby is freed is answered
 * shutting_down. */
typedef void lobby_tournament_answer(void *context, int rc, int64_t id,
                                     const protocol_failure *failure);

/* Creates and starts a tournament (tournament.create, or the REST API's
 * POST /api/tournaments) for account `creator` (0: the admin, who may
 * enter anyone and is held by no account cap). Returns 0 when the
 * creation is on its way to the store: `answer` then says how it ended,
 * maybe before this returns (0 and the id; or bad_message naming an entry
 * no account is called, consent_required naming the entry, or
 * storage_error: nothing was stored). Else returns the failure at once,
 * and `answer` is not called (bad_message naming the field,
 * too_many_tournaments, too_many_rooms). */
int lobby_tournament_create(struct lobby *lobby, const protocol_tournament_create *request,
                            int64_t creator, lobby_tournament_answer *answer, void *context,
                            protocol_failure *failure);

/* Cancels running tournament `id` for account `actor` (0: the admin): its
 * games under way end without a result (stored as aborted, unrated), no
 * further game starts, finished games keep their results and ratings.
 * Returns 0 when the cancellation is on its way to the store, then
 * answered as a creation is (0, or storage_error and nothing changed, or
 * no_such_tournament when it ended meanwhile); else the failure at once:
 * no_such_tournament, not_owner (an account that did not create it).
 * With a shared lobby, a tournament another instance runs is read from the
 * store and the answer is one of those failures, or
 * LOBBY_TOURNAMENT_SENT_ON: the cancellation was sent on to it. */
#define LOBBY_TOURNAMENT_SENT_ON 1 /* not a protocol code: those are negative */
int lobby_tournament_cancel(struct lobby *lobby, int64_t id, int64_t actor,
                            lobby_tournament_answer *answer, void *context,
                            protocol_failure *failure);

/* The view of a tournament record, as tournament.* events and the REST
 * API show it: standings, games counts, and the whole schedule when
 * `with_games`. New reference, or NULL (out of memory). */
json_t *tournament_view_json(const store_tournament_record *record, bool with_games);

/* The end of lobby_restore: the number of games restored, or a negative
 * store error (the lobby is then not fit to serve). */
typedef void lobby_restored(void *context, int rc);

/* Rebuilds the games a previous run left unfinished by replaying their
 * stored moves (players get their seats back with `hello` and their
 * token), and runs the tournaments that were running. Everything is read
 * through the store port, so `done` is called once the store has answered,
 * maybe before this returns; the caller serves nobody until then. */
void lobby_restore(struct lobby *lobby, lobby_restored *done, void *context);

/* A new connection from the peer `address` (an IP literal, which failed
 * sign-ins are counted by); it may only say hello, account.register or
 * ping until it is signed in. 0, or PROTOCOL_E_INTERNAL when out of
 * memory or the id is already known (the host closes it). */
int lobby_connect(struct lobby *lobby, uint64_t connection, const char *address);

/* One complete text message from a connection: decoded, then handled; the
 * sender gets the reply (or an error echoing its id). The host calls it as
 * it reads the frame, so the host's now_ms at this call is the time the
 * message was read: a move is judged against its clock by it. Returns the
 * message's type (protocol_type, for the host's figures), or -1 when the
 * message was not decoded or the connection is unknown. */
int lobby_message(struct lobby *lobby, uint64_t connection, const char *text, size_t length);

/* The connection is gone: its player becomes away in started games, gives
 * up seats in waiting rooms, and stops spectating. */
void lobby_disconnect(struct lobby *lobby, uint64_t connection);

/* Wakes the rooms whose time has come: clocks that ran out, reconnect
 * graces that ended, finished rooms to close. Each room at most once, so
 * a tick costs O(rooms due) whatever the rooms' clocks say, plus, once a
 * minute (or at once while there is a backlog), one bounded batch of the
 * guest expiry sweep. */
void lobby_tick(struct lobby *lobby);

/* Tells every connection the server is stopping, refuses new work, drops
 * queued bot and password jobs and asks running bot searches to stop at
 * once. */
void lobby_shutdown(struct lobby *lobby);

/* Jobs (bot searches, password hashes) handed to the host and not yet done. */
int lobby_jobs_in_flight(const struct lobby *lobby);

/* Rooms hosted now, whatever their status. */
int lobby_room_count(const struct lobby *lobby);

/* Players known to this process (signed in, or named by a room). */
int lobby_player_count(const struct lobby *lobby);

/* Frees everything; no job may be in flight, and no batch of the store port
 * unanswered (the SQLite port answers before submit returns). */
void lobby_free(struct lobby *lobby);

#endif

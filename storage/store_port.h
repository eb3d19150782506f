/* store_port.h -- what the lobby asks of a database, as typed records in
 * batches that are answered later.
 *
 * A record says what happened (a seat was taken, a move was played, a game
 * ended with this result); the backend decides how that is stored. A batch
 * holds one event's records: submit stores all of them in one transaction
 * or none, and calls `done` exactly once with the outcome, on the loop --
 * either before submit returns (a backend that commits on the caller's
 * thread, as the tests' fault store does) or later (the server's writer
 * thread, server/store_writer.c; a backend across the network). A caller must take
 * both: the lobby's runner only queues the completion and carries it out
 * from its own loop (lobby/runner.c), so nothing runs nested.
 *
 * A lookup record (FIND_*) asks instead of telling: the backend writes
 * what it found into the record, and a batch of lookups only needs no
 * write transaction.
 *
 * The batch and its records belong to the caller and must stay untouched
 * until `done`; a record that creates a row gets its id back in it.
 *
 * A new kind of record touches its struct and enum value here, the
 * backends' apply (store_records.c for SQLite), and its tests; the fault
 * store (tests/unit/fault_store.c) fails any record by kind with no change. */
#ifndef TESSERA_STORE_PORT_H
#define TESSERA_STORE_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "storage/store.h"

/* Room for a stored action's text (lobby/action_record.h writes it, in
 * at most 39 bytes and the NUL). */
#define STORE_ACTION_SIZE 40
/* Room for a finished game's result JSON (scores, ranks, winners, reason). */
#define STORE_RESULT_SIZE 256
/* Room for a rating pool's name ("blokus-duo", "reef-race"). */
#define STORE_POOL_SIZE 16
/* Room for a session token or a bot key (up to 64 characters) and its NUL. */
#define STORE_TOKEN_SIZE 65
/* Room for a game's options JSON (lobby/game_wire.c writes under 200 bytes). */
#define STORE_OPTIONS_SIZE 512

typedef enum store_record_kind {
    STORE_RECORD_PLAYER_CREATE,     /* a guest's player row, at its first seat: its id comes back */
    STORE_RECORD_ACCOUNT_CREATE,    /* a named account, a new row: its id comes back */
    STORE_RECORD_ACCOUNT_CLAIM,     /* a named account, a guest's row claimed */
    STORE_RECORD_TOKEN_SET,         /* a player's new session token */
    STORE_RECORD_GAME_CREATE,       /* a room's game, created with the room: its id comes back */
    STORE_RECORD_SEAT,              /* who sits in a seat at the start */
    STORE_RECORD_GAME_START,        /* the game begins */
    STORE_RECORD_MOVE,              /* one entry of the move log */
    STORE_RECORD_GAME_RESULT,       /* the game ends with a result: ratings and runs with it */
    STORE_RECORD_GAME_ABORT,        /* the game ends without a result */
    STORE_RECORD_TOURNAMENT_RESULT, /* a tournament game's share of the standings */
    STORE_RECORD_TOURNAMENT_SCHEDULE, /* a game added to a tournament's schedule */
    STORE_RECORD_TOURNAMENT_FINISH,   /* a tournament ends */
    STORE_RECORD_REEF_RUN,            /* a Reef run from the stateless API: its id comes back */
    STORE_RECORD_BOT_ACCOUNT_CREATE,  /* a bot account, a new row: its id comes back */
    STORE_RECORD_BOT_KEY_SET,         /* a bot account's new key, or none (revoked) */
    STORE_RECORD_BOT_OPEN_SET,        /* whether any account may enter a bot in tournaments */
    STORE_RECORD_GUESTS_EXPIRE,       /* a batch of the guest sweep: its counts come back */
    STORE_RECORD_TOURNAMENT_CREATE,   /* a tournament and its entries: its id comes back */
    STORE_RECORD_TOURNAMENT_CANCEL,   /* a running tournament is cancelled */
    STORE_RECORD_INVITATION_SEND,     /* an account invites another to its tournaments */
    STORE_RECORD_INVITATION_ACCEPT,   /* the invitee accepts */
    STORE_RECORD_INVITATION_USE,      /* a new tournament uses an accepted invitation up */
    STORE_RECORD_LEASES_RENEW,        /* an instance renews the leases of all its rooms */
    STORE_RECORD_ROOMS_TAKE,          /* an instance takes rooms over: their games, loaded */
    STORE_RECORD_NOTIFY,              /* a message to every instance sharing the database */
    /* Lookups: the store writes what it finds into the record. */
    STORE_RECORD_FIND_PLAYER,      /* the player a session token, a bot key or an id names */
    STORE_RECORD_FIND_RATING,      /* a player's rating in a pool */
    STORE_RECORD_FIND_ARENA_START, /* when an arena last started a tournament */
    STORE_RECORD_FIND_ACCOUNT,     /* the account or bot account a name key names */
    STORE_RECORD_FIND_UNFINISHED,  /* the games a restart carries on, loaded */
    STORE_RECORD_FIND_TOURNAMENTS, /* the tournaments running, loaded */
    STORE_RECORD_FIND_LEASE        /* which instance serves a room */
} store_record_kind;

#define STORE_RECORD_KIND_COUNT (STORE_RECORD_FIND_LEASE + 1)

/* A guest's player row (store_player_create); the backend writes its id
 * into `id`. */
typedef struct store_record_player {
    char name[STORE_NAME_SIZE];
    bool is_bot;
    char token[STORE_TOKEN_SIZE]; /* its session token: the store keeps a digest */
    int64_t id;                   /* out */
} store_record_player;

/* A named account (store_account_create, store_account_claim): a new
 * row, whose id the backend writes into `player_id`, or the guest row
 * `player_id` claimed. */
typedef struct store_record_account {
    int64_t player_id;
    char name[STORE_NAME_SIZE];
    char name_key[STORE_NAME_SIZE];
    char password_hash[STORE_PASSWORD_HASH_SIZE];
    char token[STORE_TOKEN_SIZE]; /* its session token: the store keeps a digest */
} store_record_account;

/* A player's new session token (store_player_token_set), or a bot
 * account's new API key (store_bot_key_set; "" revokes it). */
typedef struct store_record_token {
    int64_t player_id;
    char token[STORE_TOKEN_SIZE];
} store_record_token;

/* A room's game as it is created (store_game_info, its strings held
 * here); the backend writes the new game's id into `id`. */
typedef struct store_record_game {
    char room[STORE_CODE_SIZE];
    char game[STORE_CODE_SIZE];
    char mode[STORE_CODE_SIZE];
    char options[STORE_OPTIONS_SIZE];
    uint64_t seed;
    int64_t tournament_id; /* 0 for none */
    int tournament_game;
    char lease_instance;    /* the instance that serves the room; '\0': no lease */
    int64_t lease_until_ms; /* until when */
    int64_t id;             /* out */
} store_record_game;

/* A seat at the start: a player, a built-in bot, or nobody. */
typedef struct store_record_seat {
    int64_t game_id;
    int seat;
    int64_t player_id;               /* the seated player; 0 for a bot or nobody */
    char bot[STORE_BOT_SIZE];        /* the built-in bot's kind; "" for none */
    char bot_entry[STORE_NAME_SIZE]; /* its rating entry ("bot:greedy"), found or created */
} store_record_seat;

/* A seat's part in a finished game. */
typedef struct store_result_seat {
    int64_t player_id;               /* the seated player; 0 for a bot or nobody */
    char bot_entry[STORE_NAME_SIZE]; /* a built-in bot's rating entry; "" otherwise */
    int64_t score;
    int rank; /* 1 = best; tied seats share a rank */
    bool is_winner;
} store_result_seat;

/* A game's end with its result. The backend stores the result and the
 * seats' outcomes and counters, then, in the same transaction: rates the
 * game in `pool` (when it names one and every seat has a player or a bot
 * entry; a participant in several seats counts once, by its best), and
 * adds each player seat's score as a Reef run of `reef_seed` (when
 * `has_reef_runs`). */
typedef struct store_record_result {
    int64_t game_id;
    char result_json[STORE_RESULT_SIZE];
    int seat_count;
    store_result_seat seats[STORE_MAX_SEATS];
    char pool[STORE_POOL_SIZE]; /* "" for an unrated game */
    bool has_reef_runs;
    uint64_t reef_seed;
} store_record_result;

/* A tournament game's standings change (store_tournament_result). */
typedef struct store_record_standings {
    int64_t tournament_id;
    int count;
    store_standing_change changes[STORE_MAX_SEATS];
} store_record_standings;

/* A game added to a tournament's schedule (store_tournament_schedule). */
typedef struct store_record_scheduled {
    int64_t tournament_id;
    int number;
    int round;
    int seat_count; /* 1: a Swiss bye */
    int seats[STORE_MAX_SEATS];
} store_record_scheduled;

/* A Reef run from the stateless API and its player's new bests
 * (store_reef_run_add). Its player is `player_id`, or, when `new_player`
 * is set, the guest row that record of the same batch (a PLAYER_CREATE
 * applied before this one) creates. `actions`, the run's history as JSON
 * text, is the caller's and stays untouched until done. The backend
 * writes the run's id into `id`, and sets `is_repeat` when that player had
 * stored the same run before (`id` is then the first one's). */
typedef struct store_record_reef_run {
    int64_t player_id;
    const store_record_player *new_player;
    uint64_t seed;
    int64_t score;
    const char *actions;
    int64_t id;     /* out */
    bool is_repeat; /* out */
} store_record_reef_run;

/* A bot account (store_bot_account_create); the backend writes its id
 * into `id`. A name key already taken fails it with STORE_E_CONSTRAINT. */
typedef struct store_record_bot {
    char name[STORE_NAME_SIZE];
    char name_key[STORE_NAME_SIZE];
    char key[STORE_TOKEN_SIZE]; /* its API key: the store keeps a digest */
    int64_t owner_id;           /* the owning account; 0 for none */
    int64_t id;                 /* out */
} store_record_bot;

/* Whether any account may enter a bot account in its tournaments
 * (store_bot_open_set). */
typedef struct store_record_bot_open {
    int64_t bot_id;
    bool is_open;
} store_record_bot_open;

/* One batch of the guest expiry sweep (store_guests_expire): it carries
 * all it needs, so no lobby code runs where it is stored. `held` is a
 * sorted snapshot of the player ids the lobby held when it was made, the
 * caller's until done. The backend moves `cursor` past the guests it
 * looked at and writes the counts; the caller takes them only from a
 * batch that was stored. */
typedef struct store_record_guest_sweep {
    int64_t before_ms; /* only guests created before it */
    int limit;         /* 1 .. STORE_GUESTS_EXPIRE_MAX */
    store_guest_cursor cursor;
    const int64_t *held;
    int held_count;
    int looked_at; /* out */
    int deleted;   /* out */
} store_record_guest_sweep;

/* The player a session token or a bot key names (the token is tried
 * first; either may be ""), or, when neither is set, the player `id`.
 * `is_found` false is an answer, not an error. */
typedef struct store_record_find_player {
    char token[STORE_TOKEN_SIZE];
    char bot_key[STORE_TOKEN_SIZE];
    int64_t id;
    bool is_found;       /* out */
    store_player player; /* out, when found */
} store_record_find_player;

/* A player's rating in `pool`; a player with none has `is_found` false. */
typedef struct store_record_find_rating {
    int64_t player_id;
    char pool[STORE_POOL_SIZE];
    bool is_found;       /* out */
    store_rating rating; /* out, when found */
} store_record_find_rating;

/* When the arena `arena` last started a tournament; one that never did
 * has `is_found` false. */
typedef struct store_record_find_arena {
    char arena[STORE_NAME_SIZE];
    bool is_found;         /* out */
    int64_t last_start_ms; /* out, when found */
} store_record_find_arena;

/* The named account or bot account whose name key is `name_key`
 * (store_account_by_name); a free name has `is_found` false. */
typedef struct store_record_find_account {
    char name_key[STORE_NAME_SIZE];
    bool is_found;         /* out */
    store_account account; /* out, when found */
} store_record_find_account;

/* Every game waiting or playing, in id order, each with its seats and
 * moves (store_unfinished_games, store_game_load). What was found is the
 * caller's once the batch is answered, whatever the answer:
 * store_found_games_free. */
typedef struct store_record_find_games {
    int count;                 /* out */
    store_game_record **games; /* out */
} store_record_find_games;

/* Every running tournament (or those `instance` holds, or tournament
 * `id` alone, running or not), in id order, each loaded
 * (store_tournament_load), or NULL where it could not be; the caller's as
 * find_games's are: store_found_tournaments_free. */
typedef struct store_record_find_tournaments {
    char instance; /* '\0': every running tournament; else those it holds the leases of */
    int64_t id;    /* > 0: this tournament only (instance unused) */
    int count;     /* out */
    int64_t *ids;  /* out */
    store_tournament_record **tournaments; /* out */
} store_record_find_tournaments;

/* An instance's leases renewed (store_leases_renew): the rooms it still
 * holds come back in `held` (the caller's once answered: store_rooms_free). */
typedef struct store_record_renew {
    char instance;
    int64_t until_ms;
    store_rooms held; /* out */
} store_record_renew;

/* Rooms taken over by `instance` until `until_ms` (store_leases_take):
 * those whose lease ran out by the record's at_ms, and with `take_own`
 * its own too (a restart). Their unfinished games come back in `found`,
 * as FIND_UNFINISHED's do. */
typedef struct store_record_take {
    char instance;
    int64_t until_ms;
    bool take_own;
    store_record_find_games found; /* out */
    store_leases_taken taken_too;  /* out: tournaments, quick play */
} store_record_take;

/* The lease of `room` (store_lease_of_room); a room with none has
 * `is_found` false. */
typedef struct store_record_find_lease {
    char room[STORE_CODE_SIZE];
    bool is_found;     /* out */
    store_lease lease; /* out, when found */
} store_record_find_lease;

/* Frees what a FIND_UNFINISHED or FIND_TOURNAMENTS found, and empties it. */
void store_found_games_free(store_record_find_games *found);
void store_found_tournaments_free(store_record_find_tournaments *found);

/* A new tournament (store_tournament_create). `info` and `entries` (and
 * the strings they point to) are the caller's and stay untouched until
 * the batch is answered, but for a built-in bot's entry of player_id 0,
 * into which the backend writes its rating row's id (out). The
 * `schedule_count` records right after this one in the batch are its
 * TOURNAMENT_SCHEDULE records: the backend writes the new id into `id`
 * and into their tournament_id before it stores them, so a tournament and
 * its schedule are one batch although the id is the store's. */
typedef struct store_record_tournament {
    const store_tournament_info *info;
    int entry_count;
    store_tournament_entry *entries;
    int schedule_count;
    char lease_instance;    /* the instance that runs it (its lease); '\0': no lease */
    int64_t lease_until_ms; /* until when */
    int64_t id;             /* out */
} store_record_tournament;

/* An invitation between two accounts (store_tournament_invite,
 * _invitation_accept, _invitation_use). Accepting or using one that is
 * not there fails the batch with STORE_E_NOT_FOUND and sets `is_missing`
 * (out), so the caller knows which of a batch's invitations it was. */
typedef struct store_record_invite {
    int64_t inviter_id;
    int64_t invitee_id;
    bool is_missing; /* out */
} store_record_invite;

typedef struct store_record {
    store_record_kind kind;
    int64_t at_ms;
    union {
        store_record_player player;           /* PLAYER_CREATE */
        store_record_account account;         /* ACCOUNT_CREATE, ACCOUNT_CLAIM */
        store_record_token token;             /* TOKEN_SET, BOT_KEY_SET */
        store_record_game game;               /* GAME_CREATE (at_ms: its creation) */
        store_record_seat seat;               /* SEAT */
        int64_t game_id;                      /* GAME_START, GAME_ABORT */
        store_move move;                      /* MOVE: `action` points into action_text */
        store_record_result result;           /* GAME_RESULT */
        store_record_standings standings;     /* TOURNAMENT_RESULT */
        store_record_scheduled scheduled;     /* TOURNAMENT_SCHEDULE */
        int64_t tournament_id;                /* TOURNAMENT_FINISH, _CANCEL (at_ms: its end) */
        store_record_tournament created;      /* TOURNAMENT_CREATE (at_ms: unused, in info) */
        store_record_invite invitation;       /* INVITATION_SEND (at_ms: its time), _ACCEPT, _USE */
        store_record_reef_run reef_run;       /* REEF_RUN (at_ms: when it was submitted) */
        store_record_bot bot;                 /* BOT_ACCOUNT_CREATE */
        store_record_bot_open bot_open;       /* BOT_OPEN_SET */
        store_record_guest_sweep sweep;       /* GUESTS_EXPIRE */
        store_record_find_player find_player; /* FIND_PLAYER */
        store_record_find_rating find_rating; /* FIND_RATING */
        store_record_find_arena find_arena;   /* FIND_ARENA_START */
        store_record_find_account find_account;         /* FIND_ACCOUNT */
        store_record_find_games find_games;             /* FIND_UNFINISHED */
        store_record_find_tournaments find_tournaments; /* FIND_TOURNAMENTS */
        store_record_renew renew;                       /* LEASES_RENEW */
        store_record_take take;                         /* ROOMS_TAKE (at_ms: now) */
        const char *notice;                 /* NOTIFY: the caller's, until the batch is answered */
        store_record_find_lease find_lease; /* FIND_LEASE */
    };
    char action_text[STORE_ACTION_SIZE]; /* MOVE: the stored action */
} store_record;

/* What a batch must be stored after, where a backend stores batches on
 * several connections at once (server/store_writer.h): the batches of one
 * order are stored in the order submitted. */
typedef enum store_order {
    /* After every batch of this order submitted before it: the lobby's
     * own writes (accounts, tournaments, leases, notices), which may count
     * on an earlier one being stored. The default. */
    STORE_ORDER_SUBMITTED = 0,
    /* Whenever a connection is free: a room's event, whose room submits
     * its next one only once this one is answered (lobby/room_run.c), so
     * no other batch needs to come first and a slow one holds up no other
     * room. */
    STORE_ORDER_ROOM,
    /* After every batch submitted before it, of any order: the leases
     * given up at a clean stop, after every room event. The
     * STORE_ORDER_SUBMITTED batches after it wait for it. */
    STORE_ORDER_AFTER_ALL
} store_order;

/* One event's records: all stored, or none. */
typedef struct store_batch {
    store_record *records;
    int count;
    store_order order;
} store_batch;

/* The outcome of a batch: 0, or the store error that rolled it back. */
typedef void store_done(void *context, int rc, store_batch *batch);

typedef struct store_port {
    void *context;
    /* Stores `batch` in one transaction and calls done(done_context, rc,
     * batch) once, before or after it returns. Returns 0 when `done` will
     * be (or was) called, or a store error when it will not. */
    int (*submit)(void *context, store_batch *batch, store_done *done, void *done_context);
} store_port;

/* A port of the SQLite store `s` that commits on the calling thread and
 * calls `done` before submit returns: for the tools and tests that run no
 * loop (`tessera bot`, the REST fuzzer). The server's port is its writer
 * thread's (server/store_writer.h). */
store_port store_port_of(store *s);

/* Applies one record inside an open transaction of `s`: 0 or a store
 * error (the caller rolls back). `record` is in its batch's array, in
 * order: a TOURNAMENT_CREATE fills in the schedule records after it.
 * Backends and tests share it. */
int store_record_apply(store *s, store_record *record);

/* Stores `count` batches in one transaction of `s` (BEGIN IMMEDIATE,
 * every record, COMMIT): one commit for them all, each batch all or
 * nothing on its own (a savepoint each). rcs[i] is batch i's outcome: 0,
 * or the store error it was undone on. A failed commit fails every batch;
 * a failure SQLite answers by rolling the whole transaction back (a full
 * disk) fails the batches before it too, and the rest go on in a new one.
 * Lookups only are read without a write transaction. Every SQLite port
 * runs its batches through this, on whatever thread owns `s`. */
void store_batches_apply(store *s, store_batch *const *batches, int count, int *rcs);

/* store_batches_apply of one batch: its outcome. */
int store_batch_apply(store *s, store_batch *batch);

/* Whether records of `kind` only look something up. */
bool store_record_is_lookup(store_record_kind kind);

/* The name of a record kind ("seat", "move", ...), for logs and tests. */
const char *store_record_kind_name(store_record_kind kind);

#endif

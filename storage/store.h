/* store.h -- the storage layer: players, games, moves, ratings, Reef runs
 * and tournaments in SQLite (a file, the default) or PostgreSQL (a
 * postgresql:// URL; storage/store_pg.c).
 *
 * A store is one connection to one database, used by one thread at a
 * time. Every call is synchronous and short: a primary-key lookup or a
 * small write. The schema is versioned (SQLite's PRAGMA user_version,
 * PostgreSQL's tessera_schema table) and migrated at open; every statement
 * is prepared once at open, and user data only ever reaches SQL as bound
 * parameters.
 *
 * What is stored:
 *   players  human accounts (found by session token) and bot accounts
 *            (found by API key), with leaderboard counters (games played,
 *            wins) kept up to date by the transaction that finishes a game;
 *   games    one row per room's game: kind, mode, options, seed, status
 *            (waiting -> playing -> finished or aborted), result;
 *   seats    who sits where: a player, a built-in bot, or nobody, and the
 *            seat's score and rank once the game is over;
 *   moves    the game's gapless log, one row per turn, enough to rebuild
 *            any position by replaying it through the engine;
 *   ratings  each player's rating per pool (mu, sigma) with the pool's
 *            counters, and a history row per rated game;
 *   Reef runs every verified Reef run, and each player's best per board;
 *   tournaments their entries and standings, schedules, and the
 *            invitations that let an account enter another;
 *   secrets  the database's own keys (the history cursors' MAC key).
 * docs/ARCHITECTURE.md, "Tables" has a sentence on each table.
 *
 * Durability: a function that writes has committed when it returns 0 --
 * unless the caller opened a transaction (store_begin), in which case the
 * write is part of it and is committed by store_commit. With synchronous
 * NORMAL (the default) a commit survives a crash of the process; with
 * synchronous FULL it also survives a power cut. The lobby reaches these
 * functions only through the store port (store_port.h), one transaction
 * per event, and tells nobody of an event before its commit returned 0.
 *
 * Session tokens and bot keys are kept only as digests (secret.h): callers
 * pass the secret, the store digests it to insert or to look it up.
 * Passwords arrive already hashed (Argon2id strings, made off the loop).
 *
 * No SQLite type appears here: the layers above see store_* and plain
 * structs only. */
#ifndef TESSERA_STORE_H
#define TESSERA_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/histogram.h"

/* The schema version this code creates and understands. */
#define STORE_SCHEMA_VERSION 11
/* Seats per game; seat numbers are 0 .. STORE_MAX_SEATS - 1. */
#define STORE_MAX_SEATS 4
/* Room for a room's code, a game's name and a mode's name. */
#define STORE_CODE_SIZE 24
/* Room for a player name: at most 63 bytes of UTF-8 and the NUL. */
#define STORE_NAME_SIZE 64
/* Room for an Argon2id string and its NUL (SECRET_PASSWORD_HASH_SIZE). */
#define STORE_PASSWORD_HASH_SIZE 128
/* Room for a built-in bot kind such as "mcts": at most 31 bytes and the NUL. */
#define STORE_BOT_SIZE 32
/* How long a call waits for another connection's lock before STORE_E_BUSY. */
#define STORE_BUSY_TIMEOUT_MS 1000

typedef enum store_error {
    STORE_OK = 0,
    STORE_E_IO = -1,         /* the file cannot be opened, read or written (or disk full) */
    STORE_E_CORRUPT = -2,    /* the file is not a database, or is damaged */
    STORE_E_NOT_FOUND = -3,  /* no such player, game or seat */
    STORE_E_CONSTRAINT = -4, /* conflicts with what is stored: duplicate token, key or move
                              * number, a game that is over or not being played */
    STORE_E_NOMEM = -5,      /* out of memory */
    STORE_E_TOO_NEW = -6,    /* the database was written by a newer schema version */
    STORE_E_BUSY = -7,       /* another connection held a lock longer than the busy timeout */
    STORE_E_INVALID = -8,    /* an argument the schema refuses: too long, out of range, not JSON */
    STORE_E_INTERNAL = -9,   /* SQLite refused a statement of ours: a bug */
    STORE_E_READ_ONLY = -10  /* the server's database can only be read (file or file system) */
} store_error;

typedef struct store store;

/* What a connection counts of its write transactions, for /metrics. */
typedef struct store_figures {
    histogram commits;        /* write transactions, from BEGIN to the end of COMMIT */
    uint64_t commit_failures; /* COMMITs that failed (and were rolled back) */
} store_figures;

/* A copy of the connection's figures. */
void store_figures_read(const store *storage, store_figures *out);

/* Adds `more` (another connection's figures) to `into`. */
void store_figures_add(store_figures *into, const store_figures *more);

/* Leaves the WAL's checkpoints to another connection (store_checkpoint):
 * a commit on `storage` then never waits for a checkpoint's copying and
 * syncing. 0 or a store error. */
int store_checkpoint_elsewhere(store *storage);

/* Copies what the WAL holds into the database file and syncs it. PASSIVE
 * blocks no writer or reader of another connection (what they still need
 * stays for the next one) and leaves in *wal_frames how long the WAL is;
 * RESTART (`is_restart`) also waits for them so the next commit starts the
 * WAL over, which bounds its length under a steady stream of commits. 0
 * or a store error. */
int store_checkpoint(store *storage, bool is_restart, int *wal_frames);

typedef enum store_game_status {
    STORE_GAME_WAITING,  /* created, seats filling */
    STORE_GAME_PLAYING,  /* started; moves are being appended */
    STORE_GAME_FINISHED, /* played to its end; seats have results */
    STORE_GAME_ABORTED   /* ended without a result that counts */
} store_game_status;

typedef struct store_player {
    int64_t id;
    char name[STORE_NAME_SIZE];
    bool is_bot; /* a bot account (API key) or a bot playing under a token */
    int64_t games_played;
    int64_t wins;
    bool is_account; /* a named account with a password */
} store_player;

/* A player found by name: a named account or a bot account. */
typedef struct store_account {
    int64_t id;
    char name[STORE_NAME_SIZE];
    bool is_bot;                                  /* a bot account */
    int64_t owner_id;                             /* a bot account's owner; 0 when none */
    char password_hash[STORE_PASSWORD_HASH_SIZE]; /* an account's; "" for a bot account */
    bool is_open_to_tournaments; /* a bot account any account may enter in tournaments */
} store_account;

/* What a game is, as given to store_game_create. In a store_game_record the
 * strings are owned by the record. */
typedef struct store_game_info {
    const char *room;    /* room code */
    const char *game;    /* "blokus" or "reef-builder" */
    const char *mode;    /* the game's mode name, e.g. "4p", "duo", "race" */
    const char *options; /* JSON text made by the caller, stored verbatim */
    /* The engine seed. SQLite integers are signed 64-bit, so the column holds
     * the seed's two's-complement bits: seeds >= 2^63 read back exactly
     * through this struct but look negative to a raw SQL query. */
    uint64_t seed;
    int64_t created_at_ms; /* milliseconds since the Unix epoch */
    int64_t tournament_id; /* the tournament it is a game of; 0 for none */
    int tournament_game;   /* which of the tournament's scheduled games */
} store_game_info;

/* One turn of a game's log. In a store_game_record `action` is owned by the
 * record. */
typedef struct store_move {
    int64_t game_id;
    int seq;            /* 0-based number of the move in its game; gapless */
    int seat;           /* who moved */
    int ply;            /* the engine ply the move was played against */
    const char *action; /* JSON text, stored verbatim */
    int64_t elapsed_ms; /* think time */
    int64_t clock_ms;   /* time bank left after the move; -1 when untimed */
    int64_t at_ms;      /* when it was played, ms since the Unix epoch */
} store_move;

/* A seat's outcome, as given to store_game_finish. */
typedef struct store_seat_result {
    int seat;
    int64_t score;
    int rank; /* 1 = best; tied seats share a rank */
    bool is_winner;
} store_seat_result;

/* A seat as loaded with its game. */
typedef struct store_seat {
    int seat;
    int64_t player_id;                 /* 0 when no player sits here */
    char player_name[STORE_NAME_SIZE]; /* "" when no player sits here */
    bool is_guest;                     /* the player is a guest: no name key, no profile */
    bool is_bot_account;               /* the player is a bot account */
    char bot[STORE_BOT_SIZE];          /* built-in bot kind, "" when none */
    bool has_result;                   /* score, rank, is_winner are set */
    int64_t score;
    int rank;
    bool is_winner;
} store_seat;

/* A game with its seats and moves, owned by the caller until
 * store_game_record_free. */
typedef struct store_game_record {
    int64_t id;
    store_game_info info;
    store_game_status status;
    char *result;           /* result JSON, NULL until the game is over (or if none) */
    int64_t started_at_ms;  /* -1 if never started */
    int64_t finished_at_ms; /* -1 while not over */
    int seat_count;         /* seats[0 .. seat_count - 1], in seat order */
    store_seat seats[STORE_MAX_SEATS];
    int move_count; /* moves[0 .. move_count - 1]; moves[i].seq == i */
    store_move *moves;
} store_game_record;

/* A stable one-line description of a store_error code. Never NULL. */
const char *store_strerror(int code);

/* "waiting", "playing", "finished" or "aborted"; "unknown" for other values. */
const char *store_game_status_name(store_game_status status);

/* Opens (creating if missing) the database at `path` -- its directory must
 * exist; ":memory:" gives a private, non-durable database for tests. Sets WAL
 * mode, synchronous NORMAL (FULL if `is_synchronous_full`), foreign keys and
 * the busy timeout, migrates the schema, prepares every statement. */
int store_open(const char *path, bool is_synchronous_full, store **out);

/* Room for a session name and its NUL. */
#define STORE_SESSION_NAME_SIZE 32

/* Names the database sessions this process opens from now on (PostgreSQL's
 * application_name, shown in pg_stat_activity): "tessera", or for
 * `instance` (not '\0') "tessera:ID:PID". A restart of an instance finds
 * its earlier lives' sessions by that name and ends them before it takes
 * its rooms back (store_leases_take). Call it before opening any store;
 * the name wins over one the URL gives. */
void store_name_sessions(char instance);
/* The name store_name_sessions gave. */
const char *store_session_name(void);

/* Whether `path` names a PostgreSQL database (postgresql:// or postgres://). */
bool store_path_is_postgres(const char *path);

/* `path` as a log may show it: a URL's password (in its user part or its
 * password= argument) written as "***". */
void store_path_for_log(const char *path, char *out, size_t size);

/* Room for what the database said when an open failed. */
#define STORE_WHY_SIZE 256

/* store_open of `path`, which may also be a PostgreSQL URL
 * ("postgresql://user:password@host:port/database", libpq's form; every
 * part but the scheme may come from libpq's PG* environment instead):
 * then the database is migrated to this version's schema if it is new,
 * and `is_synchronous_full` is the server's business. On failure `why`
 * (STORE_WHY_SIZE bytes, or NULL) says what the database said. */
int store_open_why(const char *path, bool is_synchronous_full, store **out, char *why);

/* Closes the connection and frees the store. NULL is allowed. */
void store_close(store *storage);

/* A transaction around several writes: store_begin, the writes, then
 * store_commit (or store_rollback). Writes made inside one join it;
 * outside one, each write commits on its own. store_commit that fails has
 * rolled everything back. */
int store_begin(store *storage);
int store_commit(store *storage);
void store_rollback(store *storage);

/* A part of the open transaction that can be undone alone (a savepoint):
 * store_part_end(rc) keeps it when rc is 0 and undoes it otherwise, and
 * returns rc. A failure that SQLite answered by rolling the whole
 * transaction back leaves no transaction open (store_is_in_transaction). */
int store_part_begin(store *storage);
int store_part_end(store *storage, int rc);
bool store_is_in_transaction(const store *storage);

/* Asks the database for nothing: 0 when it answers (a dropped PostgreSQL
 * connection is made again first), STORE_E_IO when it cannot be reached. */
int store_ping(store *storage);

/* Creates a player; `token` (NULL allowed) must be unique. Names are 1 to 63
 * bytes. The creation time is the database clock's. Sets *id. */
int store_player_create(store *storage, const char *name, bool is_bot, const char *token,
                        int64_t *id);

/* Creates a named account: `name_key` is `name` in lower case (unique in
 * any case: a clash is STORE_E_CONSTRAINT), `password_hash` its Argon2id
 * string, `token` its session token. Sets *id. */
int store_account_create(store *storage, const char *name, const char *name_key,
                         const char *password_hash, const char *token, int64_t *id);

/* Turns the stored guest `player_id` into a named account, keeping its
 * games: it takes `name`, its key, the password hash and a new session
 * token (the guest's stops working). STORE_E_NOT_FOUND when no guest has
 * that id (an account already, a bot, or no such player);
 * STORE_E_CONSTRAINT when the name is taken. Its ratings are listed on
 * the leaderboards from then on. */
int store_account_claim(store *storage, int64_t player_id, const char *name, const char *name_key,
                        const char *password_hash, const char *token);

/* The account or bot account whose name key is `name_key`: 0 and *out,
 * or STORE_E_NOT_FOUND. */
int store_account_by_name(store *storage, const char *name_key, store_account *out);

/* Gives player `player_id` a new session token; the old one stops working.
 * STORE_E_NOT_FOUND when there is no such player. */
int store_player_token_set(store *storage, int64_t player_id, const char *token);

/* Creates a bot account named `name` (its key `name_key`, unique as an
 * account's), reached by the unique API key `key`, owned by the account
 * `owner_id` (0: nobody). Sets *id. */
int store_bot_account_create(store *storage, const char *name, const char *name_key,
                             const char *key, int64_t owner_id, int64_t *id);

/* Lets any account enter bot account `bot_id` in tournaments, or not.
 * STORE_E_NOT_FOUND when `bot_id` is no bot account. */
int store_bot_open_set(store *storage, int64_t bot_id, bool is_open);

/* How many bot accounts the account `owner_id` owns, revoked ones too
 * (they keep their names): 0 and *count. */
int store_bots_owned(store *storage, int64_t owner_id, int64_t *count);

/* Where a walk over the stored guests (oldest first) has got to: the last
 * guest looked at, by creation time then id; {0, 0} before the first. */
typedef struct store_guest_cursor {
    int64_t created_at_ms;
    int64_t id;
} store_guest_cursor;

/* The order of sorted id lists (qsort and bsearch comparator of int64_t):
 * ascending. */
int store_id_order(const void *a, const void *b);

/* The most guests one store_guests_expire call looks at. */
#define STORE_GUESTS_EXPIRE_MAX 1000

/* Expires unclaimed guests (rows without a name key): looks at the next
 * `limit` (1 .. STORE_GUESTS_EXPIRE_MAX) stored guests after *cursor that
 * were created before `before_ms`, oldest first through an index (no scan
 * of the players), and deletes each that is not among the `held_count`
 * ids of `held` (sorted by store_id_order) and that nothing stored names: no seat,
 * Reef run or rating. Moves *cursor past every guest looked at; sets
 * *looked_at and *deleted. One transaction (or the caller's). */
int store_guests_expire(store *storage, int64_t before_ms, int limit, store_guest_cursor *cursor,
                        const int64_t *held, int held_count, int *looked_at, int *deleted);

/* Gives bot account `bot_id` the key `key`, or none (NULL: revoked, the
 * bot can no longer sign in). STORE_E_NOT_FOUND when `bot_id` is no bot
 * account. */
int store_bot_key_set(store *storage, int64_t bot_id, const char *key);

/* Find a player by session token, by bot API key or by id: 0 and *out, or
 * STORE_E_NOT_FOUND. */
int store_player_by_token(store *storage, const char *token, store_player *out);
int store_player_by_bot_key(store *storage, const char *key, store_player *out);
int store_player_by_id(store *storage, int64_t id, store_player *out);

/* Creates a game in status "waiting". STORE_E_INVALID for an unknown game
 * kind or options that are not JSON. Sets *id. */
int store_game_create(store *storage, const store_game_info *info, int64_t *id);

/* Puts player `entry_id` (0 = none), or built-in bot `bot` (NULL = none)
 * whose rating entry (store_builtin_player) is `entry_id` (0 = none), in a
 * seat of a game that is not over, replacing whoever sat there. The entry
 * is who the seat counts for: its games list and counters. Neither leaves
 * the seat empty. STORE_E_CONSTRAINT if the game is over or the player
 * does not exist. */
int store_seat_set(store *storage, int64_t game_id, int seat, int64_t entry_id, const char *bot);

/* Moves a waiting game to "playing". STORE_E_CONSTRAINT unless it was waiting. */
int store_game_start(store *storage, int64_t game_id, int64_t at_ms);

/* Appends a move to a game being played, in the caller's transaction (or
 * committed at once outside one). The move's seq must be the game's next
 * (0, 1, 2 ...): a duplicate or a gap, or a game that is not playing, is
 * STORE_E_CONSTRAINT and changes nothing. */
int store_move_append(store *storage, const store_move *move);

/* Ends a waiting or playing game in one transaction: its status (finished or
 * aborted), result JSON (NULL allowed) and finish time; each listed seat's
 * score, rank and winner flag; and, for a finished game only, every seated
 * player's counters: games_played + 1, wins + 1 if one of their seats won.
 * A game already over is STORE_E_CONSTRAINT; a listed seat nobody set is
 * STORE_E_NOT_FOUND; on any error nothing changes. */
int store_game_finish(store *storage, int64_t game_id, store_game_status status,
                      const char *result_json, int seat_count, const store_seat_result *results,
                      int64_t at_ms);

/* A player's standing in one rating pool ("blokus-4p", ...). */
typedef struct store_rating {
    double mu;
    double sigma;
    int64_t games;
    int64_t wins;
    int64_t score_total;
} store_rating;

/* One player's part in one rated game, for store_rating_record. */
typedef struct store_rating_change {
    int64_t player_id;
    const char *pool;
    int64_t game_id;
    double mu_before;
    double sigma_before;
    double mu_after;
    double sigma_after;
    int64_t score;
    bool is_winner;
    int64_t at_ms;
} store_rating_change;

/* A verified Reef run: from a finished room's seat (game_id set, actions
 * NULL) or submitted through the stateless API (game_id 0, actions the
 * JSON array of the run's actions). */
typedef struct store_reef_run {
    int64_t player_id;
    uint64_t seed;
    int64_t score;
    int64_t game_id;
    const char *actions;
    int64_t at_ms;
} store_reef_run;

/* A run submitted through the stateless API, as stored. */
typedef struct store_submitted_run {
    int64_t id;
    uint64_t seed;
    int64_t score;
    char *history; /* the run's history string, malloc'd */
} store_submitted_run;

/* Up to `limit` submitted runs with ids above `after_id`, ascending, into
 * items[] (*count of them); free each history. */
int store_submitted_runs_after(store *storage, int64_t after_id, int limit,
                               store_submitted_run *items, int *count);

/* The player row that carries a built-in bot's ratings, named like
 * "bot:greedy" or "bot:mcts@300ms": found, or created on first use. */
int store_builtin_player(store *storage, const char *name, int64_t *id);

/* Inside a transaction, waits until no other transaction rates
 * `player_id`, and keeps others from doing so until this one ends
 * (PostgreSQL: an advisory transaction lock; several instances store
 * results at once, and a rating is read, then written). Take the locks of
 * one game in ascending id order, so two games never wait for each other.
 * A no-op on SQLite, which has one writer. 0 or a store error. */
int store_rating_lock(store *storage, int64_t player_id);

/* A player's rating in `pool`: 0 and *out, or STORE_E_NOT_FOUND before
 * their first rated game there. */
int store_rating_get(store *storage, int64_t player_id, const char *pool, store_rating *out);

/* Writes one player's rated game: the pool's rating becomes mu_after and
 * sigma_after, its counters count the game (and the win, and the score),
 * and a history row keeps before and after. A second record of the same
 * player, pool and game is STORE_E_CONSTRAINT. */
int store_rating_record(store *storage, const store_rating_change *change);

/* Stores a verified Reef run and lets it improve its player's best on the
 * boards it counts for (store_reef_runs.c: its seed, the day's and the
 * week's board when it is that period's seed, all time). A run that only
 * ties a best keeps the older one. Sets *id. A submitted run (`actions`)
 * is stored once: the same player, seed and actions again change nothing
 * and set *id to the stored run, with *is_repeat (which may be NULL). */
int store_reef_run_add(store *storage, const store_reef_run *run, int64_t *id, bool *is_repeat);

/* A tournament as created. */
typedef struct store_tournament_info {
    const char *name;
    const char *game;     /* "blokus" or "reef-builder" */
    const char *mode;     /* as for games */
    const char *format;   /* "round-robin", "fixed" or "swiss" */
    const char *settings; /* JSON made by the caller, stored verbatim */
    uint64_t seed;        /* every game's seed derives from it */
    const char *arena;    /* the scheduled arena that started it, or NULL */
    int64_t created_at_ms;
    int64_t created_by; /* the account that created it; 0: the admin or an arena */
} store_tournament_info;

/* A participant as created: a player row, or a built-in bot (`bot` its
 * kind; NULL for players) rated by its entry: `player_id` its rating
 * row, or 0 for the row of rating entry `bot_entry` ("bot:greedy"),
 * found or created as the tournament is (its id then written back). */
typedef struct store_tournament_entry {
    int64_t player_id;
    const char *bot;
    const char *bot_entry;
} store_tournament_entry;

/* One participant's share of one tournament game's result (a Swiss bye
 * is points without a game: games 0). */
typedef struct store_standing_change {
    int entry;
    double points;
    int games;
    bool is_winner;
    int64_t score;
} store_standing_change;

/* A participant with its standing, as loaded. */
typedef struct store_standing {
    int entry;
    int64_t player_id;
    char name[STORE_NAME_SIZE];
    bool is_bot;              /* a bot account or a built-in bot */
    char bot[STORE_BOT_SIZE]; /* a built-in bot's kind, "" for players */
    double points;
    int64_t games;
    int64_t wins;
    int64_t score_total;
} store_standing;

/* One scheduled game, as loaded, with the last game row that plays it. */
typedef struct store_scheduled_game {
    int number;
    int round;
    int seat_count; /* 1: a Swiss bye of seats[0] */
    int seats[STORE_MAX_SEATS];
    int64_t game_id; /* 0 until its room opened */
    store_game_status status;
    char room[24];
} store_scheduled_game;

/* A tournament with its standings and schedule, owned by the caller until
 * store_tournament_record_free. */
typedef struct store_tournament_record {
    int64_t id;
    store_tournament_info info; /* strings owned by the record */
    bool is_finished;
    bool is_cancelled;      /* finished by a cancellation */
    int64_t finished_at_ms; /* -1 while running */
    int entry_count;
    store_standing *entries; /* in entry order */
    int game_count;
    store_scheduled_game *games; /* in number order */
} store_tournament_record;

/* Creates a running tournament and its entries, in one transaction; a
 * built-in bot's entry of player_id 0 gets its rating row's id. */
int store_tournament_create(store *storage, const store_tournament_info *info, int entry_count,
                            store_tournament_entry *entries, int64_t *id);

/* Adds scheduled game `number` of round `round`: entries[seat] by seat. */
int store_tournament_schedule(store *storage, int64_t tournament_id, int number, int round,
                              int seat_count, const int *entries);

/* Adds one game's result to the standings. */
int store_tournament_result(store *storage, int64_t tournament_id, int count,
                            const store_standing_change *changes);

/* Marks a running tournament finished; STORE_E_CONSTRAINT if it was not
 * running. */
int store_tournament_finish(store *storage, int64_t tournament_id, int64_t at_ms);

/* Marks a running tournament finished by a cancellation at `at_ms`;
 * STORE_E_CONSTRAINT if it was not running. */
int store_tournament_cancel(store *storage, int64_t tournament_id, int64_t at_ms);

/* Account `inviter_id` invites player `invitee_id` to be entered in one of
 * its tournaments (again: the invitation stands as it was). */
int store_tournament_invite(store *storage, int64_t inviter_id, int64_t invitee_id, int64_t at_ms);

/* The invitee accepts `inviter_id`'s invitation: STORE_E_NOT_FOUND when
 * there is none. */
int store_tournament_invitation_accept(store *storage, int64_t inviter_id, int64_t invitee_id);

/* Uses up an accepted invitation (a tournament of the inviter enters the
 * invitee): STORE_E_NOT_FOUND when there is no accepted one. */
int store_tournament_invitation_use(store *storage, int64_t inviter_id, int64_t invitee_id);

/* The ids of running tournaments, ascending (*ids as store_unfinished_games). */
int store_tournaments_running(store *storage, int64_t **ids, int *count);

/* Loads a tournament, its standings and its schedule. */
int store_tournament_load(store *storage, int64_t id, store_tournament_record **out);
void store_tournament_record_free(store_tournament_record *record);

/* A tournament's status as views show it: "running", "finished" or
 * "cancelled". */
const char *store_tournament_status(bool is_finished, bool is_cancelled);

/* A tournament as lists show it. */
typedef struct store_tournament_summary {
    int64_t id;
    char name[72];
    char game[16];
    char mode[16];
    char format[16];
    bool is_finished;
    bool is_cancelled; /* finished by a cancellation */
    char arena[72];    /* "" when none */
    int64_t created_at_ms;
    int64_t finished_at_ms; /* -1 while running */
} store_tournament_summary;

/* Up to `limit` tournaments with ids below `before_id`, newest first. */
int store_read_tournaments(store *reader, int64_t before_id, int limit,
                           store_tournament_summary *items, int *count);

/* When the scheduled arena `arena` last started a tournament:
 * STORE_E_NOT_FOUND if never. */
int store_arena_last_start(store *storage, const char *arena, int64_t *at_ms);

/* A room's lease (store_leases.c): the instance serving it, until when. */
typedef struct store_lease {
    char instance;
    int64_t expires_at_ms;
} store_lease;

/* Makes `instance` (one character) the server of `room` until `until_ms`. */
int store_lease_set(store *storage, const char *room, char instance, int64_t until_ms);

/* Room codes, malloc'd (store_rooms_free). */
typedef struct store_rooms {
    char (*codes)[STORE_CODE_SIZE];
    int count;
    int capacity;
} store_rooms;

void store_rooms_free(store_rooms *rooms);

/* Whether `code` is among `rooms`. */
bool store_rooms_hold(const store_rooms *rooms, const char *code);

/* Every lease of `instance` now runs until `until_ms`; the rooms it holds
 * come back in *held (empty first; the caller's: store_rooms_free). */
int store_leases_renew(store *storage, char instance, int64_t until_ms, store_rooms *held);

/* A running tournament's lease is a row named STORE_TOURNAMENT_LEASE_PREFIX
 * and its id: that name. */
#define STORE_TOURNAMENT_LEASE_PREFIX "t:"
void store_tournament_lease(int64_t tournament_id, char room[STORE_CODE_SIZE]);

/* The tournament a lease's name names, or 0 (a room's, or quick play's). */
int64_t store_lease_tournament(const char *room);

/* Drops the lease of `room` (a room's code, or a tournament's lease name). */
int store_lease_drop(store *storage, const char *room);

/* The ids of the running tournaments `instance` holds the leases of,
 * ascending (*ids as store_unfinished_games). */
int store_tournaments_leased(store *storage, char instance, int64_t **ids, int *count);

/* Drops the lease of game `game_id`'s room (its game is over). */
int store_lease_drop_of_game(store *storage, int64_t game_id);

/* The lease of `room`: 0 and *out, or STORE_E_NOT_FOUND when it has none. */
int store_lease_of_room(store *storage, const char *room, store_lease *out);

/* Quick play's lease: its holder runs the one queue of every instance. */
#define STORE_QUEUE_LEASE "q:"

/* What a takeover took besides rooms. */
typedef struct store_leases_taken {
    int tournaments; /* how many tournaments (store_tournaments_leased names them) */
    bool has_queue;  /* quick play's lease */
} store_leases_taken;

/* Takes for `instance` until `until_ms` every lease run out by `now_ms`
 * -- and, when `take_own` (a restart), its own and those of unfinished
 * games and running tournaments that have none -- and answers the ids of
 * the unfinished games in the rooms taken, ascending (*ids the caller's:
 * free(); NULL when *count is 0), and in *taken_too what else it took
 * (quick play's lease is made first if there is none). A room taken
 * without an unfinished game loses its lease. A restart first ends the
 * sessions of the instance's earlier lives (store_name_sessions). */
int store_leases_take(store *storage, char instance, int64_t now_ms, int64_t until_ms,
                      bool take_own, int64_t **ids, int *count, store_leases_taken *taken_too);

/* The channel instances sharing a PostgreSQL database hear each other
 * on (LISTEN/NOTIFY), and the most a notice may hold: PostgreSQL's limit
 * is 8000 bytes. */
#define STORE_LOBBY_CHANNEL   "tessera_lobby"
#define STORE_NOTICE_SIZE_MAX 7900

/* Sends `notice` to every connection listening on STORE_LOBBY_CHANNEL when
 * the transaction it is part of commits (on SQLite, which has nobody to
 * tell, it does nothing). */
int store_notify(store *storage, const char *notice);

/* The ids of games waiting or playing, ascending, for crash recovery: *ids
 * is owned by the caller (free()), NULL when *count is 0. */
int store_unfinished_games(store *storage, int64_t **ids, int *count);

/* Up to `limit` game ids greater than `after_id`, ascending, into ids[]
 * (*count of them): a walk over every game, a page at a time. */
int store_game_ids_after(store *storage, int64_t after_id, int limit, int64_t *ids, int *count);

/* Loads a game with its seats and every move in seq order (recovery and
 * replays). *out is owned by the caller: store_game_record_free. */
int store_game_load(store *storage, int64_t id, store_game_record **out);

/* Frees a record from store_game_load and every string in it. NULL is allowed. */
void store_game_record_free(store_game_record *record);

#endif

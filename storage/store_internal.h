/* store_internal.h -- what the storage layer's C files share, and nothing
 * above the layer sees.
 *
 * Every SQL statement has an id below. Its text lives in the C file of the
 * table it is about (store_players.c, store_games.c, store_seats.c,
 * store_moves.c, store_ratings.c, store_reef_runs.c, store_tournaments.c) or of
 * the history reads (store_read_games.c, store_read_ranking.c), in a {id, sql}
 * list that store.c prepares once at open into store.statements[id]. So the
 * SQL of a table is in one place, any file can run any statement by id, and
 * nothing is ever prepared on the fly.
 *
 * Statement discipline: bind every parameter, step, read, and always
 * store_statement_reset at the end, which also clears the bindings so no
 * statement keeps a pointer to a caller's string. */
#ifndef TESSERA_STORE_INTERNAL_H
#define TESSERA_STORE_INTERNAL_H

#include <sqlite3.h>

#include "storage/store.h"
#include "storage/store_read.h"
#include "util/histogram.h"

typedef enum store_statement_id {
    /* store.c */
    STORE_SQL_BEGIN,
    STORE_SQL_COMMIT,
    STORE_SQL_ROLLBACK,
    STORE_SQL_PART_BEGIN,
    STORE_SQL_PART_KEEP,
    STORE_SQL_PART_UNDO,
    STORE_SQL_PING,
    STORE_SQL_LAST_ID,
    /* store_players.c */
    STORE_SQL_PLAYER_INSERT,
    STORE_SQL_PLAYER_BY_TOKEN,
    STORE_SQL_PLAYER_BY_BOT_KEY,
    STORE_SQL_PLAYER_BY_ID,
    STORE_SQL_ACCOUNT_CLAIM,
    STORE_SQL_ACCOUNT_BY_NAME,
    STORE_SQL_PLAYER_TOKEN_SET,
    STORE_SQL_BOT_KEY_SET,
    STORE_SQL_BOT_OPEN_SET,
    STORE_SQL_BOTS_OWNED,
    STORE_SQL_GUESTS_OLDEST,
    STORE_SQL_GUEST_DELETE,
    STORE_SQL_PLAYERS_COUNT_GAME,
    /* store_games.c */
    STORE_SQL_GAME_INSERT,
    STORE_SQL_GAME_STATUS,
    STORE_SQL_GAME_START,
    STORE_SQL_GAME_FINISH,
    STORE_SQL_GAME_BY_ID,
    STORE_SQL_GAMES_UNFINISHED,
    STORE_SQL_GAMES_AFTER,
    /* store_seats.c */
    STORE_SQL_SEAT_SET,
    STORE_SQL_SEAT_RESULT,
    STORE_SQL_SEATS_OF_GAME,
    STORE_SQL_SEATS_OF_GAMES,
    /* store_leases.c */
    STORE_SQL_LEASE_SET,
    STORE_SQL_LEASES_RENEW,
    STORE_SQL_LEASES_TAKE,
    STORE_SQL_END_EARLIER_LIVES,
    STORE_SQL_LEASES_ADOPT,
    STORE_SQL_LEASES_ADOPT_TOURNAMENTS,
    STORE_SQL_LEASES_ADOPT_QUEUE,
    STORE_SQL_TOURNAMENTS_LEASED,
    STORE_SQL_LEASE_DROP,
    STORE_SQL_LEASE_DROP_OF_GAME,
    STORE_SQL_LEASE_OF_ROOM,
    STORE_SQL_GAMES_UNFINISHED_OF_ROOM,
    STORE_SQL_NOTIFY,
    STORE_SQL_RATING_LOCK,
    /* store_moves.c */
    STORE_SQL_MOVE_INSERT,
    STORE_SQL_MOVES_OF_GAME,
    /* store_ratings.c */
    STORE_SQL_BUILTIN_INSERT,
    STORE_SQL_BUILTIN_BY_NAME,
    STORE_SQL_RATING_GET,
    STORE_SQL_RATING_RECORD,
    STORE_SQL_RATING_HISTORY_INSERT,
    STORE_SQL_RATINGS_LIST_PLAYER,
    /* store_reef_runs.c */
    STORE_SQL_REEF_RUN_INSERT,
    STORE_SQL_REEF_RUN_FIND,
    STORE_SQL_REEF_BEST_UPDATE,
    STORE_SQL_REEF_SUBMITTED_AFTER,
    /* store_tournaments.c */
    STORE_SQL_TOURNAMENT_INSERT,
    STORE_SQL_TOURNAMENT_ENTRY_INSERT,
    STORE_SQL_TOURNAMENT_GAME_INSERT,
    STORE_SQL_TOURNAMENT_STANDING_ADD,
    STORE_SQL_TOURNAMENT_FINISH,
    STORE_SQL_TOURNAMENT_CANCEL,
    STORE_SQL_TOURNAMENT_INVITE,
    STORE_SQL_TOURNAMENT_INVITATION_ACCEPT,
    STORE_SQL_TOURNAMENT_INVITATION_USE,
    STORE_SQL_TOURNAMENTS_RUNNING,
    STORE_SQL_TOURNAMENT_BY_ID,
    STORE_SQL_TOURNAMENT_ENTRIES,
    STORE_SQL_TOURNAMENT_SCHEDULE,
    STORE_SQL_ARENA_LAST_START,
    STORE_SQL_READ_TOURNAMENTS,
    /* store_read_games.c */
    STORE_SQL_READ_GAMES_ALL,
    STORE_SQL_READ_GAMES_OF_PLAYER,
    STORE_SQL_READ_GAMES_OF_KIND,
    STORE_SQL_READ_GAMES_OF_STATUS,
    STORE_SQL_READ_GAMES_OF_TOURNAMENT,
    STORE_SQL_READ_GAME_RATING_CHANGES,
    STORE_SQL_READ_CURSOR_KEY,
    /* store_read_ranking.c */
    STORE_SQL_READ_PLAYER_BY_KEY,
    STORE_SQL_READ_RATINGS_OF_PLAYER,
    STORE_SQL_READ_RATING_HISTORY,
    STORE_SQL_READ_REEF_BEST_OF_PLAYER,
    STORE_SQL_READ_BLOKUS_BOARD,
    STORE_SQL_READ_REEF_BOARD,
    STORE_SQL_READ_REEF_BOARD_BEFORE,
    STORE_SQL_READ_REEF_ENTRY,
    STORE_SQL_COUNT
} store_statement_id;

/* Milliseconds since the Unix epoch by this machine's clock: the time a
 * row is made at, bound like any value so no statement needs a database's
 * own clock function. */
int64_t store_now_ms(void);

/* Seconds on the monotonic clock, for durations. */
double store_monotonic_s(void);

/* One entry of a table file's statement list; lists end with sql == NULL. */
typedef struct store_statement_text {
    store_statement_id id;
    const char *sql;
} store_statement_text;

/* A prepared statement, SQLite's or PostgreSQL's (store_pg.c). The table
 * files reach its parameters and columns only through the calls below,
 * never through either database's own. */
typedef struct store_stmt {
    sqlite3_stmt *lite;
    struct store_pg_stmt *pg;
} store_stmt;

/* The most statements sent ahead in a pipeline before their results are
 * read. */
#define STORE_PG_PIPELINE_MAX 512

/* Room for what the database last said went wrong (store_error_detail). */
#define STORE_ERROR_DETAIL_SIZE 256

struct store {
    sqlite3 *db;        /* SQLite; NULL on PostgreSQL */
    struct pg_conn *pg; /* PostgreSQL (libpq's PGconn, store_pg.c); NULL on SQLite */
    int64_t pg_changes; /* rows the last statement on `pg` changed */
    /* A pipeline (store_pg_pipeline_begin): statements sent without
     * waiting, their results read when one is needed or at its end. */
    bool pg_is_pipelined;
    int pg_pipeline_rc;     /* the first failure in it, which spoils it */
    bool pg_is_commit_sent; /* its COMMIT is sent: a commit for the figures if it holds */
    int pg_pending;         /* results owed, for the statements in pg_owed */
    struct store_pg_stmt *pg_owed[STORE_PG_PIPELINE_MAX];
    /* Run after a reconnect, before the statement that found the connection
     * dropped: what the new session needs set (a reader's read-only mode). */
    int (*pg_after_reconnect)(store *storage);
    store_stmt statements[STORE_SQL_COUNT];
    double began_s;        /* monotonic time of the open transaction's BEGIN */
    store_figures figures; /* store_figures_read */
    char error_detail[STORE_ERROR_DETAIL_SIZE];
};

extern const store_statement_text STORE_PLAYER_STATEMENTS[];
extern const store_statement_text STORE_GAME_STATEMENTS[];
extern const store_statement_text STORE_SEAT_STATEMENTS[];
extern const store_statement_text STORE_LEASE_STATEMENTS[];
extern const store_statement_text STORE_MOVE_STATEMENTS[];
extern const store_statement_text STORE_RATING_STATEMENTS[];
extern const store_statement_text STORE_REEF_RUN_STATEMENTS[];
extern const store_statement_text STORE_TOURNAMENT_STATEMENTS[];
extern const store_statement_text STORE_READ_GAME_STATEMENTS[];
/* The seats' and the games lists' statements whose PostgreSQL text differs. */
extern const store_statement_text STORE_SEAT_POSTGRES_STATEMENTS[];
extern const store_statement_text STORE_READ_GAME_POSTGRES_STATEMENTS[];
extern const store_statement_text STORE_READ_RANKING_STATEMENTS[];

/* store_schema.c: brings the schema of `db` up to STORE_SCHEMA_VERSION in one
 * transaction; STORE_E_TOO_NEW if it is already newer. */
int store_schema_migrate(sqlite3 *db);

/* store_schema.c: brings the schema of `db` up to `version` (at most
 * STORE_SCHEMA_VERSION) as store_schema_migrate does: how the tests build a
 * database of an older version, to check the migrations after it. */
int store_schema_migrate_to(sqlite3 *db, int version);

/* The number in the first column of the first row `sql` (a statement
 * of ours, without parameters) answers on `db`: 0, or a store_error
 * (STORE_E_INTERNAL when there is no row). */
int store_sqlite_number(sqlite3 *db, const char *sql, int64_t *value);

/* A pipeline around a group of writes, where the database has one
 * (PostgreSQL: store_pg_pipeline_begin); 0, or STORE_E_INVALID on SQLite,
 * which runs every statement at once anyway. */
int store_pipeline_begin(store *storage);
/* Its end: 0, or the failure that spoiled it. */
int store_pipeline_end(store *storage);

/* The LIKE pattern of every session name `instance`'s lives give
 * (store_name_sessions): "tessera:ID:%". */
void store_session_pattern(char instance, char out[STORE_SESSION_NAME_SIZE]);

/* store_pg.c: PostgreSQL behind the statement calls above. */
int store_pg_connect(store *storage, const char *url);
void store_pg_disconnect(store *storage);
/* Prepares `sql` (?N parameters) as statement `id` into stmt->pg. */
int store_pg_prepare(store *storage, store_stmt *stmt, int id, const char *sql);
/* `sql` with each ?N outside a string literal written $N: malloc'ed, or NULL. */
char *store_pg_sql(const char *sql);
void store_pg_reset(struct store_pg_stmt *pg);
void store_pg_free(struct store_pg_stmt *pg);
int store_pg_bind(struct store_pg_stmt *pg, int index, const char *text, bool is_copy);
int store_pg_bind_int64(struct store_pg_stmt *pg, int index, int64_t value);
int store_pg_bind_double(struct store_pg_stmt *pg, int index, double value);
int store_pg_execute(struct store_pg_stmt *pg);
int store_pg_step_row(struct store_pg_stmt *pg);
bool store_pg_column_is_null(struct store_pg_stmt *pg, int column);
const char *store_pg_column_text(struct store_pg_stmt *pg, int column);
int64_t store_pg_column_int64(struct store_pg_stmt *pg, int column);
double store_pg_column_double(struct store_pg_stmt *pg, int column);
size_t store_pg_column_length(struct store_pg_stmt *pg, int column);
const void *store_pg_column_blob(struct store_pg_stmt *pg, int column, size_t *size);
/* Runs a script of statements without parameters: 0 or a store_error. */
int store_pg_exec_script(store *storage, const char *sql);
/* As store_sqlite_number, on PostgreSQL. */
int store_pg_number(store *storage, const char *sql, int64_t *value);
bool store_pg_is_in_transaction(const store *storage);
/* COPY ... FROM STDIN: begins it with `sql`, sends rows (COPY's text
 * format, whole lines or parts of them), ends it -- or gives it up,
 * which fails the transaction. 0 or a store_error each. */
int store_pg_copy_begin(store *storage, const char *sql);
int store_pg_copy_data(store *storage, const char *data, size_t length);
int store_pg_copy_end(store *storage, bool is_failed);
/* A pipeline: commands are sent without waiting for their results
 * (store_pg_execute answers 0 at once), a query or store_pg_pipeline_sync
 * reads every result owed, and store_pg_pipeline_end reads the rest and
 * leaves pipeline mode. Once a statement in it fails, everything after is
 * refused and _end answers the failure: the caller does its work again
 * without the pipeline to learn which part failed. 0 or a store_error. */
int store_pg_pipeline_begin(store *storage);
int store_pg_pipeline_sync(store *storage);
int store_pg_pipeline_end(store *storage);
/* Keeps `what` and libpq's message in storage->error_detail. */
void store_pg_note(store *storage, const char *what);

/* store_schema.c: brings a PostgreSQL database to STORE_SCHEMA_VERSION. */
int store_schema_migrate_pg(store *storage);

/* store_schema.c: the database's PRAGMA user_version. */
int store_schema_version(sqlite3 *db, int *version);

/* The store_error for a SQLite result code (extended codes are on). */
int store_error_from_sqlite(int sqlite_code);

/* Resets a statement after use and clears its bindings. */
void store_statement_reset(store_stmt *stmt);

/* Binding: each call does nothing if *bound already holds an error, else
 * binds and stores the result (0 or a store_error) in *bound, so a run of
 * binds is checked once, by passing *bound on to store_execute or
 * store_step_row. store_bind_text does not copy the text (NULL binds SQL
 * NULL): it must live until the statement is reset; store_bind_text_copy
 * does. A parameter left unbound is NULL. */
void store_bind_text(store_stmt *stmt, int index, const char *text, int *bound);
void store_bind_text_copy(store_stmt *stmt, int index, const char *text, int *bound);
void store_bind_int64(store_stmt *stmt, int index, int64_t value, int *bound);
void store_bind_double(store_stmt *stmt, int index, double value, int *bound);

/* Runs a statement that returns no rows, then resets it: 0 or a store_error
 * (the bind error if `bound` is not 0, without running). */
int store_execute(store_stmt *stmt, int bound);

/* Steps a query once: 0 with a row to read, STORE_E_NOT_FOUND when there is
 * none, or a store_error (the bind error if `bound` is not 0). The caller
 * resets the statement afterwards. */
int store_step_row(store_stmt *stmt, int bound);

/* The current row's columns, counted from 0. Text is NULL for SQL NULL and
 * lives until the next step or reset; a number column that is NULL reads
 * as 0. */
int64_t store_column_int64(store_stmt *stmt, int column);
int store_column_int(store_stmt *stmt, int column);
double store_column_double(store_stmt *stmt, int column);
const char *store_column_text(store_stmt *stmt, int column);
bool store_column_is_null(store_stmt *stmt, int column);
/* A blob column: its bytes (NULL for SQL NULL) and *size. */
const void *store_column_blob(store_stmt *stmt, int column, size_t *size);

/* Rows the last INSERT, UPDATE or DELETE of `storage` changed. */
int64_t store_changes(store *storage);

/* The id of the row the last INSERT of `storage` made. */
int64_t store_last_insert_id(store *storage);

/* Copies a text column into dst (size bytes, NUL-terminated, truncated if
 * longer; "" for NULL). */
void store_column_copy(store_stmt *stmt, int column, char *dst, size_t size);

/* A malloc'ed copy of a text column, or NULL for SQL NULL; *rc is set to
 * STORE_E_NOMEM if the copy failed. */
char *store_column_strdup(store_stmt *stmt, int column, int *rc);

/* BEGIN IMMEDIATE: the write lock is taken now, so a transaction never fails
 * half-way for want of it. */
int store_transaction_begin(store *storage);

/* COMMIT; on failure the transaction is rolled back and the error returned. */
int store_transaction_commit(store *storage);

/* ROLLBACK, if a transaction is still open (SQLite ends some on its own). */
void store_transaction_rollback(store *storage);

/* Whether a caller's transaction (store_begin) is open: a write that needs
 * several statements then joins it instead of opening its own. */

/* A write of several statements: store_join_begin opens a transaction
 * unless the caller's is open (*is_own says which); store_join_end(rc)
 * then commits its own if rc is 0 and rolls it back if not, and inside the
 * caller's transaction returns rc as it is (a failure is the caller's to
 * roll back). */
int store_join_begin(store *storage, bool *is_own);
int store_join_end(store *storage, bool is_own, int rc);

/* Runs a query of ids (no parameters) to its end: every first column, in
 * order, into a malloc'd *ids (NULL when *count is 0). */
int store_collect_ids(store_stmt *stmt, int64_t **ids, int *count);

/* A seed's bits as a column and back: SQLite integers are signed, seeds
 * are not, and converting a value above INT64_MAX is implementation-defined
 * in C, so the bits are copied. */
int64_t store_seed_to_column(uint64_t seed);
uint64_t store_seed_from_column(int64_t column);

/* store_ratings.c: a guest became an account: its ratings are listed on
 * the leaderboards from now on. */
int store_ratings_list_player(store *storage, int64_t player_id);

/* store_games.c: "waiting"... as a status: 0, or STORE_E_CORRUPT. */
int store_game_status_parse(const char *name, store_game_status *status);

/* store_games.c: why a write guarded by the game's status changed no row:
 * STORE_E_NOT_FOUND if the game does not exist, else STORE_E_CONSTRAINT. */
int store_game_refusal(store *storage, int64_t game_id);

/* store_players.c: counts a finished game for every player seated in it
 * and every built-in bot's entry (seats.entry_id). */
int store_players_count_game(store *storage, int64_t game_id);

/* store_seats.c: records one seat's result; STORE_E_NOT_FOUND if the seat
 * was never set. */
int store_seat_record_result(store *storage, int64_t game_id, const store_seat_result *result);

/* store_seats.c: the seats of a game, in seat order, into seats[] and
 * *count. */
int store_seats_read(store *storage, int64_t game_id, store_seat seats[STORE_MAX_SEATS],
                     int *count);

/* store_read_scan.c: a page read from candidate rows in chunks. `bind`
 * binds `stmt` to the rows after the last one examined (before the first,
 * after the page's cursor) and its LIMIT to `chunk`; `take` reads the
 * current row as examined and answers true once the page is full;
 * `context` is theirs. */
typedef struct store_scan {
    store_stmt *stmt;
    void (*bind)(struct store_scan *scan, int64_t chunk, int *bound);
    bool (*take)(struct store_scan *scan); /* keeps the row if it matches: whether it did */
    void *context;
    int first_chunk; /* candidates asked for first; 0: the page's size */
    int examined;    /* candidate rows read so far, at most STORE_READ_SCAN */
} store_scan;

/* Reads chunks until the page is full, the rows run out or STORE_READ_SCAN
 * rows were examined: 0 and *has_next (full, or cut at the cap), or a
 * store_error. */
int store_scan_run(store_scan *scan, int page_limit, bool *has_next);

/* store_seats.c: the seats of every game in items[] (a page of at most
 * STORE_READ_MAX_PAGE), in seat order, into each item's seats[]. */
int store_seats_read_page(store *storage, store_game_summary *items, int count);

/* store_read_games.c: reads a row of columns player_id, player name, pool,
 * game_id, mu_before, sigma_before, mu_after, sigma_after, at_ms. */
void store_read_rating_change(store_stmt *stmt, store_rating_delta *change);

/* store_seats.c: fills record->seats and seat_count. */
int store_seats_load(store *storage, store_game_record *record);

/* store_moves.c: fills record->moves and move_count. */
int store_moves_load(store *storage, store_game_record *record);

#endif

/* store_schema.c -- the schema, as an ordered list of migrations.
 *
 * MIGRATIONS[v] turns a version-v database into version v + 1; PRAGMA
 * user_version records how many have been applied. Migrations are only ever
 * appended, never edited once released: a database in the field was built
 * by exactly this sequence. All pending migrations run in one IMMEDIATE
 * transaction with the version bump, so a database is either fully migrated
 * or untouched, and two processes opening it at once do not both migrate.
 *
 * The constraints hold the invariants the code relies on, so a bug above
 * fails loudly instead of storing nonsense:
 *   - a game's status and its timestamps agree (a playing game has started,
 *     a game is over exactly when it has a finish time);
 *   - options, results and actions are valid JSON;
 *   - seat numbers are 0-3, and a seat holds a player or a bot, not both;
 *   - moves are appended only to a game being played, with the next seq
 *     (triggers), so the log replays without gaps;
 *   - moves are WITHOUT ROWID keyed by (game_id, seq): a game's log is one
 *     contiguous range of the b-tree, read in order without sorting. */
#include <stdio.h>

#include "storage/store_internal.h"

static const char *const MIGRATIONS[] = {
    /* 0 -> 1: players, games, seats, moves. */
    "CREATE TABLE players ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL CHECK (length(name) > 0),"
    "  is_bot INTEGER NOT NULL CHECK (is_bot IN (0, 1)),"
    "  token_digest TEXT UNIQUE,"
    "  bot_key_digest TEXT UNIQUE CHECK (bot_key_digest IS NULL OR is_bot = 1),"
    "  created_at INTEGER NOT NULL,"
    "  games_played INTEGER NOT NULL DEFAULT 0 CHECK (games_played >= 0),"
    "  wins INTEGER NOT NULL DEFAULT 0 CHECK (wins >= 0 AND wins <= games_played)"
    ");"
    "CREATE TABLE games ("
    "  id INTEGER PRIMARY KEY,"
    "  room TEXT NOT NULL,"
    "  game TEXT NOT NULL CHECK (game IN ('blokus', 'reef-builder')),"
    "  mode TEXT NOT NULL,"
    "  options TEXT NOT NULL CHECK (json_valid(options)),"
    "  seed INTEGER NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('waiting', 'playing', 'finished', 'aborted')),"
    "  result TEXT CHECK (result IS NULL OR json_valid(result)),"
    "  created_at INTEGER NOT NULL,"
    "  started_at INTEGER,"
    "  finished_at INTEGER,"
    "  CHECK (status <> 'playing' OR started_at IS NOT NULL),"
    "  CHECK ((finished_at IS NOT NULL) = (status IN ('finished', 'aborted')))"
    ");"
    "CREATE INDEX games_by_status ON games (status);"
    "CREATE TABLE seats ("
    "  game_id INTEGER NOT NULL REFERENCES games (id),"
    "  seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),"
    "  player_id INTEGER REFERENCES players (id),"
    "  bot TEXT CHECK (bot IS NULL OR length(bot) > 0),"
    "  score INTEGER,"
    "  rank INTEGER CHECK (rank IS NULL OR rank >= 1),"
    "  is_winner INTEGER CHECK (is_winner IS NULL OR is_winner IN (0, 1)),"
    "  PRIMARY KEY (game_id, seat),"
    "  CHECK (player_id IS NULL OR bot IS NULL)"
    ") WITHOUT ROWID;"
    "CREATE INDEX seats_by_player ON seats (player_id) WHERE player_id IS NOT NULL;"
    "CREATE TABLE moves ("
    "  game_id INTEGER NOT NULL REFERENCES games (id),"
    "  seq INTEGER NOT NULL CHECK (seq >= 0),"
    "  seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),"
    "  ply INTEGER NOT NULL CHECK (ply >= 0),"
    "  action TEXT NOT NULL CHECK (json_valid(action)),"
    "  elapsed_ms INTEGER NOT NULL CHECK (elapsed_ms >= 0),"
    "  clock_ms INTEGER NOT NULL CHECK (clock_ms >= -1),"
    "  at_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (game_id, seq)"
    ") WITHOUT ROWID;"
    "CREATE TRIGGER moves_only_while_playing BEFORE INSERT ON moves"
    "  WHEN NOT EXISTS (SELECT 1 FROM games WHERE id = NEW.game_id AND status = 'playing')"
    "  BEGIN SELECT RAISE(ABORT, 'moves are only added to a game being played'); END;"
    "CREATE TRIGGER moves_are_gapless BEFORE INSERT ON moves"
    "  WHEN NEW.seq <> coalesce((SELECT max(seq) + 1 FROM moves WHERE game_id = NEW.game_id), 0)"
    "  BEGIN SELECT RAISE(ABORT, 'a move must have its game''s next seq'); END;",
};

#define MIGRATION_COUNT ((int)(sizeof(MIGRATIONS) / sizeof(MIGRATIONS[0])))
_Static_assert(MIGRATION_COUNT == STORE_SCHEMA_VERSION, "one migration per schema version");

static int execute_sql(sqlite3 *db, const char *sql)
{
    return store_error_from_sqlite(sqlite3_exec(db, sql, NULL, NULL, NULL));
}

static int read_user_version(sqlite3 *db, int *version)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return store_error_from_sqlite(rc);
    rc = store_step_row(stmt, SQLITE_OK);
    if (rc == STORE_OK)
        *version = sqlite3_column_int(stmt, 0);
    sqlite3_finalize(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_E_INTERNAL : rc;
}

/* PRAGMA takes no bound parameters; the number is ours, never user data. */
static int write_user_version(sqlite3 *db, int version)
{
    char sql[64];
    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
    return execute_sql(db, sql);
}

static int apply_migrations(sqlite3 *db)
{
    int version = 0;
    int rc = read_user_version(db, &version);
    if (rc != STORE_OK)
        return rc;
    if (version > MIGRATION_COUNT)
        return STORE_E_TOO_NEW;
    if (version < 0)
        return STORE_E_CORRUPT;
    if (version == MIGRATION_COUNT)
        return STORE_OK;
    for (int v = version; v < MIGRATION_COUNT; v++) {
        rc = execute_sql(db, MIGRATIONS[v]);
        if (rc != STORE_OK)
            return rc;
    }
    return write_user_version(db, MIGRATION_COUNT);
}

int store_schema_migrate(sqlite3 *db)
{
    int rc = execute_sql(db, "BEGIN IMMEDIATE");
    if (rc != STORE_OK)
        return rc;
    rc = apply_migrations(db);
    if (rc == STORE_OK)
        rc = execute_sql(db, "COMMIT");
    if (rc != STORE_OK && !sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

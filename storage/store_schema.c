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
 *   - options and results are valid JSON, and a move's action is a short
 *     record text, not JSON (lobby/action_record.h has its format);
 *   - seat numbers are 0-3, and a seat holds a player or a bot, not both;
 *   - moves are appended only to a game being played, with the next seq
 *     (triggers), so the log replays without gaps;
 *   - moves are WITHOUT ROWID keyed by (game_id, seq): a game's log is one
 *     contiguous range of the b-tree, read in order without sorting. */
#include <stdio.h>

#include "storage/store_internal.h"

/* Milliseconds since the Unix epoch by SQLite's clock (julianday 2440587.5
 * is 1970-01-01; unixepoch('subsec') needs SQLite 3.42), for the rows a
 * migration makes. */
#define SQLITE_NOW_MS "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"

/* The move log's two guards, made with the table and again when version 7
 * rebuilt it: a move only joins a game being played, and only as its next. */
#define MOVES_TRIGGERS                                                                             \
    "CREATE TRIGGER moves_only_while_playing BEFORE INSERT ON moves"                               \
    "  WHEN NOT EXISTS (SELECT 1 FROM games WHERE id = NEW.game_id AND status = 'playing')"        \
    "  BEGIN SELECT RAISE(ABORT, 'moves are only added to a game being played'); END;"             \
    "CREATE TRIGGER moves_are_gapless BEFORE INSERT ON moves"                                      \
    "  WHEN NEW.seq <> coalesce((SELECT max(seq) + 1 FROM moves WHERE game_id = NEW.game_id), 0)"  \
    "  BEGIN SELECT RAISE(ABORT, 'a move must have its game''s next seq'); END;"

/* Which instance of several serves each room that has a game under way,
 * until when (store_leases.c); and the unfinished games of a room, which
 * an instance taking the room over loads. One text for both dialects but
 * its number type. */
#define LEASES_SCHEMA(integer)                                                                     \
    "CREATE TABLE room_leases ("                                                                   \
    "  room TEXT PRIMARY KEY,"                                                                     \
    "  instance TEXT NOT NULL CHECK (length(instance) = 1),"                                       \
    "  expires_at " integer " NOT NULL);"                                                          \
    "CREATE INDEX room_leases_by_instance ON room_leases (instance);"                              \
    "CREATE INDEX room_leases_by_expiry ON room_leases (expires_at);"                              \
    "CREATE INDEX games_unfinished_by_room ON games (room)"                                        \
    "  WHERE status IN ('waiting', 'playing');"

/* An arena's tournament is stored with its period's start as created_at:
 * instances sharing a database that start the same period both try, and
 * this index lets one have it. */
#define ARENA_PERIODS_SCHEMA                                                                       \
    "DROP INDEX tournaments_by_arena;"                                                             \
    "CREATE UNIQUE INDEX tournaments_by_arena ON tournaments (arena, created_at)"                  \
    "  WHERE arena IS NOT NULL;"

/* How many runs of each board have each score (issue 18): the rank of a
 * run deep in a board is the sum of the counts of the scores above it, a
 * walk of its distinct scores (hundreds: Reef scores are multiples of 25
 * and cluster) rather than of every run above it (tens of thousands).
 * Kept by reef_best's own triggers whatever writes it, and filled from it
 * when made. A score's count may fall to 0 and stay: a row more, never a
 * wrong sum. SQLite keeps it with three triggers, PostgreSQL with a trigger
 * function. */
#define REEF_SCORE_COUNTS_TABLE(integer, options)                                                  \
    "CREATE TABLE reef_score_counts ("                                                             \
    "  board TEXT NOT NULL,"                                                                       \
    "  score " integer " NOT NULL,"                                                                \
    "  runs " integer " NOT NULL CHECK (runs >= 0),"                                               \
    "  PRIMARY KEY (board, score))" options ";"
#define REEF_SCORE_COUNTS_FILL                                                                     \
    "INSERT INTO reef_score_counts (board, score, runs)"                                           \
    "  SELECT board, score, count(*) FROM reef_best GROUP BY board, score;"
#define REEF_SCORE_COUNTED(board, score)                                                           \
    "INSERT INTO reef_score_counts (board, score, runs) VALUES (" board ", " score ", 1)"          \
    "  ON CONFLICT (board, score) DO UPDATE SET runs = reef_score_counts.runs + 1;"
#define REEF_SCORE_UNCOUNTED(board, score)                                                         \
    "UPDATE reef_score_counts SET runs = runs - 1 WHERE board = " board " AND score = " score ";"
/* A trigger in SQLite's dialect: `when` it fires, and its body. */
#define SQLITE_TRIGGER(name, when, body) "CREATE TRIGGER " name " " when " BEGIN " body " END;"
/* A trigger on reef_best. */
#define REEF_BEST_TRIGGER(name, event, body)                                                       \
    SQLITE_TRIGGER(name, "AFTER " event " ON reef_best", body)
#define REEF_SCORE_COUNTS_SQLITE                                                                   \
    REEF_SCORE_COUNTS_TABLE("INTEGER", " WITHOUT ROWID")                                           \
    REEF_SCORE_COUNTS_FILL                                                                         \
    REEF_BEST_TRIGGER("reef_best_counted", "INSERT", REEF_SCORE_COUNTED("NEW.board", "NEW.score")) \
    REEF_BEST_TRIGGER("reef_best_uncounted", "DELETE",                                             \
                      REEF_SCORE_UNCOUNTED("OLD.board", "OLD.score"))                              \
    REEF_BEST_TRIGGER("reef_best_recounted", "UPDATE OF board, score",                             \
                      REEF_SCORE_UNCOUNTED("OLD.board", "OLD.score")                               \
                          REEF_SCORE_COUNTED("NEW.board", "NEW.score"))
/* The PostgreSQL dialect: one trigger function for the three events. */
#define REEF_SCORE_UNCOUNT_OLD                                                                     \
    "  IF TG_OP <> 'INSERT' THEN " REEF_SCORE_UNCOUNTED("OLD.board", "OLD.score") " END IF;"
#define REEF_SCORE_COUNT_NEW                                                                       \
    "  IF TG_OP <> 'DELETE' THEN " REEF_SCORE_COUNTED("NEW.board", "NEW.score") " END IF;"
#define REEF_SCORE_COUNTS_FUNCTION                                                                 \
    "CREATE FUNCTION reef_best_counted() RETURNS trigger LANGUAGE plpgsql AS $$ "                  \
    "BEGIN" REEF_SCORE_UNCOUNT_OLD REEF_SCORE_COUNT_NEW "  RETURN NULL; END $$;"
#define REEF_SCORE_COUNTS_POSTGRES                                                                 \
    REEF_SCORE_COUNTS_TABLE("BIGINT", "")                                                          \
    REEF_SCORE_COUNTS_FILL                                                                         \
    REEF_SCORE_COUNTS_FUNCTION                                                                     \
    "CREATE TRIGGER reef_best_counted AFTER INSERT OR DELETE OR UPDATE OF board, score"            \
    "  ON reef_best FOR EACH ROW EXECUTE FUNCTION reef_best_counted();"

/* Each seat's player as a games list shows it (issue 18): name, guest or
 * not, bot account or not, copied into the seat, so a page of games reads
 * its seats alone instead of looking up each seat's player (a hundred
 * four-seat games: 400 look-ups, most of a page's time on PostgreSQL).
 * The copies follow the player: set with the seat (store_seats.c), and
 * rewritten by a trigger on players when a name, a name key (a guest
 * claimed) or the bot mark changes; filled from the players when made. */
#define SEAT_PLAYER_COLUMNS(integer)                                                               \
    "ALTER TABLE seats ADD COLUMN player_name TEXT;"                                               \
    "ALTER TABLE seats ADD COLUMN player_is_guest " integer                                        \
    " CHECK (player_is_guest IS NULL OR player_is_guest IN (0, 1));"                               \
    "ALTER TABLE seats ADD COLUMN player_is_bot " integer                                          \
    " CHECK (player_is_bot IS NULL OR player_is_bot IN (0, 1));"
#define SEAT_PLAYER_SHOWN(player)                                                                  \
    "player_name = " player ".name,"                                                               \
    " player_is_guest = CASE WHEN " player ".name_key IS NULL THEN 1 ELSE 0 END,"                  \
    " player_is_bot = " player ".is_bot"
#define SEAT_PLAYER_OF_SEAT " FROM players WHERE players.id = seats.player_id;"
#define SEAT_PLAYER_FILL    "UPDATE seats SET " SEAT_PLAYER_SHOWN("players") SEAT_PLAYER_OF_SEAT
#define SEAT_PLAYER_FOLLOW  "UPDATE seats SET " SEAT_PLAYER_SHOWN("NEW") " WHERE player_id = NEW.id;"
#define SEAT_PLAYER_CHANGE  "AFTER UPDATE OF name, name_key, is_bot ON players"
#define SEAT_PLAYER_SQLITE                                                                         \
    SEAT_PLAYER_COLUMNS("INTEGER")                                                                 \
    SEAT_PLAYER_FILL                                                                               \
    SQLITE_TRIGGER("players_shown_in_seats", SEAT_PLAYER_CHANGE, SEAT_PLAYER_FOLLOW)
#define SEAT_PLAYER_POSTGRES                                                                       \
    SEAT_PLAYER_COLUMNS("BIGINT")                                                                  \
    SEAT_PLAYER_FILL                                                                               \
    "CREATE FUNCTION players_shown_in_seats() RETURNS trigger LANGUAGE plpgsql AS $$ "             \
    "BEGIN " SEAT_PLAYER_FOLLOW " RETURN NULL; END $$;"                                            \
    "CREATE TRIGGER players_shown_in_seats " SEAT_PLAYER_CHANGE                                    \
    "  FOR EACH ROW EXECUTE FUNCTION players_shown_in_seats();"

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
    ") WITHOUT ROWID;" MOVES_TRIGGERS,

    /* 1 -> 2: accounts, ratings, Reef leaderboards, history lookups.
     * - players.name_key: the lower-case name of a named account, a bot
     *   account or a built-in bot's rating entry ("bot:greedy"); unique, so
     *   nobody takes another's name in any case. NULL for guests. Existing
     *   bot accounts get theirs (the oldest wins a clash of case).
     * - players.password_hash: Argon2id string (libsodium) of an account.
     * - players.owner_id: the account that owns a bot account.
     * - ratings: one row per player per pool, with the pool's counters (games,
     *   wins, score total) so a profile or a leaderboard needs no scan.
     *   `listed` is set for accounts and bots (not guests): leaderboards read
     *   the partial index of listed rows by conservative rating.
     * - rating_history: mu/sigma before and after, per player per rated game.
     * - reef_runs: every verified Reef run (a finished room's seat, or a run
     *   submitted through the stateless API); reef_best keeps each player's
     *   best run per board, where a board is "seed:N", "day:YYYYMMDD",
     *   "week:YYYYMMDD" (the week's Monday) or "all".
     * - games.tournament_id: the tournament a game belongs to, if any. */
    "ALTER TABLE players ADD COLUMN name_key TEXT"
    "  CHECK (name_key IS NULL OR (length(name_key) > 0 AND name_key = lower(name_key)));"
    "ALTER TABLE players ADD COLUMN password_hash TEXT;"
    "ALTER TABLE players ADD COLUMN owner_id INTEGER REFERENCES players (id);"
    "CREATE UNIQUE INDEX players_by_name_key ON players (name_key) WHERE name_key IS NOT NULL;"
    "CREATE INDEX players_by_owner ON players (owner_id) WHERE owner_id IS NOT NULL;"
    "UPDATE players SET name_key = lower(name) WHERE bot_key_digest IS NOT NULL AND id ="
    "  (SELECT min(other.id) FROM players AS other WHERE other.bot_key_digest IS NOT NULL"
    "   AND lower(other.name) = lower(players.name));"
    "ALTER TABLE games ADD COLUMN tournament_id INTEGER;"
    "CREATE INDEX games_by_kind ON games (game, mode, id);"
    "CREATE INDEX games_by_tournament ON games (tournament_id, id) WHERE tournament_id IS NOT NULL;"
    "CREATE INDEX seats_by_player_game ON seats (player_id, game_id) WHERE player_id IS NOT NULL;"
    "CREATE TABLE ratings ("
    "  player_id INTEGER NOT NULL REFERENCES players (id),"
    "  pool TEXT NOT NULL CHECK (pool IN"
    "    ('blokus-4p', 'blokus-3p', 'blokus-2p', 'blokus-duo', 'reef-race')),"
    "  mu REAL NOT NULL,"
    "  sigma REAL NOT NULL CHECK (sigma > 0),"
    "  display REAL NOT NULL,"
    "  games INTEGER NOT NULL DEFAULT 0 CHECK (games >= 0),"
    "  wins INTEGER NOT NULL DEFAULT 0 CHECK (wins >= 0 AND wins <= games),"
    "  score_total INTEGER NOT NULL DEFAULT 0,"
    "  listed INTEGER NOT NULL DEFAULT 0 CHECK (listed IN (0, 1)),"
    "  updated_at INTEGER NOT NULL,"
    "  PRIMARY KEY (player_id, pool)"
    ") WITHOUT ROWID;"
    "CREATE INDEX ratings_leaderboard ON ratings (pool, display DESC, player_id) WHERE listed = 1;"
    "CREATE TABLE rating_history ("
    "  player_id INTEGER NOT NULL REFERENCES players (id),"
    "  pool TEXT NOT NULL,"
    "  game_id INTEGER NOT NULL REFERENCES games (id),"
    "  mu_before REAL NOT NULL,"
    "  sigma_before REAL NOT NULL,"
    "  mu_after REAL NOT NULL,"
    "  sigma_after REAL NOT NULL,"
    "  at_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (player_id, pool, game_id)"
    ") WITHOUT ROWID;"
    "CREATE INDEX rating_history_by_game ON rating_history (game_id);"
    "CREATE TABLE reef_runs ("
    "  id INTEGER PRIMARY KEY,"
    "  player_id INTEGER NOT NULL REFERENCES players (id),"
    "  seed INTEGER NOT NULL,"
    "  score INTEGER NOT NULL,"
    "  game_id INTEGER REFERENCES games (id),"
    "  actions TEXT CHECK (actions IS NULL OR json_valid(actions)),"
    "  at_ms INTEGER NOT NULL,"
    "  CHECK ((game_id IS NULL) <> (actions IS NULL))"
    ");"
    "CREATE INDEX reef_runs_by_player ON reef_runs (player_id, id);"
    "CREATE TABLE reef_best ("
    "  board TEXT NOT NULL,"
    "  player_id INTEGER NOT NULL REFERENCES players (id),"
    "  score INTEGER NOT NULL,"
    "  run_id INTEGER NOT NULL REFERENCES reef_runs (id),"
    "  at_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (board, player_id)"
    ") WITHOUT ROWID;"
    "CREATE INDEX reef_best_ranking ON reef_best (board, score DESC, at_ms, player_id);"
    "CREATE INDEX reef_best_by_player ON reef_best (player_id, score DESC);",

    /* 2 -> 3: tournaments.
     * - tournaments: what was asked for (settings JSON: the games' options,
     *   the format and its numbers), the seed every game's seed derives
     *   from, and whether it runs; `arena` names the scheduled arena that
     *   started it.
     * - tournament_entries: the participants in seeding order, each a
     *   player row (built-in bots by their rating rows, with `bot` their
     *   kind), with the standings kept by each game's result transaction.
     * - tournament_games: the schedule, one row per game (`seats` lists
     *   entry numbers by seat; one entry alone is a Swiss bye).
     * - games.tournament_game: which scheduled game a game row plays; a
     *   game that was aborted is played again under a new row. */
    "CREATE TABLE tournaments ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL CHECK (length(name) > 0),"
    "  game TEXT NOT NULL,"
    "  mode TEXT NOT NULL,"
    "  format TEXT NOT NULL CHECK (format IN ('round-robin', 'fixed', 'swiss')),"
    "  settings TEXT NOT NULL CHECK (json_valid(settings)),"
    "  seed INTEGER NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('running', 'finished')),"
    "  arena TEXT,"
    "  created_at INTEGER NOT NULL,"
    "  finished_at INTEGER,"
    "  CHECK ((finished_at IS NOT NULL) = (status = 'finished'))"
    ");"
    "CREATE INDEX tournaments_running ON tournaments (id) WHERE status = 'running';"
    "CREATE INDEX tournaments_by_arena ON tournaments (arena, created_at) WHERE arena IS NOT NULL;"
    "CREATE TABLE tournament_entries ("
    "  tournament_id INTEGER NOT NULL REFERENCES tournaments (id),"
    "  entry INTEGER NOT NULL CHECK (entry >= 0),"
    "  player_id INTEGER NOT NULL REFERENCES players (id),"
    "  bot TEXT,"
    "  points REAL NOT NULL DEFAULT 0,"
    "  games INTEGER NOT NULL DEFAULT 0,"
    "  wins INTEGER NOT NULL DEFAULT 0,"
    "  score_total INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (tournament_id, entry),"
    "  UNIQUE (tournament_id, player_id)"
    ") WITHOUT ROWID;"
    "CREATE TABLE tournament_games ("
    "  tournament_id INTEGER NOT NULL REFERENCES tournaments (id),"
    "  number INTEGER NOT NULL CHECK (number >= 0),"
    "  round INTEGER NOT NULL CHECK (round >= 0),"
    "  seats TEXT NOT NULL CHECK (json_valid(seats)),"
    "  PRIMARY KEY (tournament_id, number)"
    ") WITHOUT ROWID;"
    "ALTER TABLE games ADD COLUMN tournament_game INTEGER;"
    "CREATE INDEX games_of_tournament_game ON games (tournament_id, tournament_game)"
    "  WHERE tournament_id IS NOT NULL;",

    /* 3 -> 4: who may be entered in a tournament, and who may end one.
     * - players.open_to_tournaments: a bot account its owner lets any
     *   account enter in tournaments.
     * - tournament_invitations: an account's invitation to another account
     *   or bot account to be entered in one of its tournaments; `accepted`
     *   once the invitee said yes. An accepted invitation is used up (its
     *   row deleted) by the tournament that enters the invitee.
     * - tournaments.created_by: the account that created it (NULL: the
     *   admin or an arena), whose caps it counts against.
     * - tournaments.cancelled_at: set with status 'finished' when the
     *   creator or the admin cancelled it. */
    "ALTER TABLE players ADD COLUMN open_to_tournaments INTEGER NOT NULL DEFAULT 0"
    "  CHECK (open_to_tournaments IN (0, 1));"
    "CREATE TABLE tournament_invitations ("
    "  invitee_id INTEGER NOT NULL REFERENCES players (id),"
    "  inviter_id INTEGER NOT NULL REFERENCES players (id),"
    "  accepted INTEGER NOT NULL DEFAULT 0 CHECK (accepted IN (0, 1)),"
    "  created_at INTEGER NOT NULL,"
    "  PRIMARY KEY (invitee_id, inviter_id),"
    "  CHECK (invitee_id <> inviter_id)"
    ") WITHOUT ROWID;"
    "ALTER TABLE tournaments ADD COLUMN created_by INTEGER REFERENCES players (id);"
    "ALTER TABLE tournaments ADD COLUMN cancelled_at INTEGER"
    "  CHECK (cancelled_at IS NULL OR status = 'finished');",

    /* 4 -> 5: history hardening (issue 16).
     * - rating_history_by_time: a player's changes in a pool in the order
     *   their games finished (at_ms), the game id breaking ties: with games
     *   played in parallel, game ids are not that order.
     * - seats.entry_id: the players row a seat counts for -- the seated
     *   player, or the built-in bot's rating entry ("bot:greedy",
     *   "bot:mcts@300ms") -- so built-in bots have game lists and counters.
     *   Old bot seats get their entry by the bot's name; the search bot's
     *   name carries its think time, which only the game's rating changes
     *   tell. Then the entries' counters are counted from their seats.
     * - reef_runs.digest: the digest of a submitted run's actions
     *   (run_digest, store.c); a player's submitted runs of one seed with the
     *   same actions are one run. Old repeats fold into the first one, which
     *   is the one every board kept (a later equal score never replaces).
     * - reef_best day and week boards keep runs of the period's seed only
     *   (store_reef_runs.c): they are rebuilt from the runs under that rule.
     * - secrets: keys of this database; "cursor" signs the history API's page
     *   cursors (history/history_parse.c). */
    "CREATE INDEX rating_history_by_time ON rating_history (player_id, pool, at_ms, game_id);"
    "ALTER TABLE seats ADD COLUMN entry_id INTEGER REFERENCES players (id);"
    "UPDATE seats SET entry_id = player_id WHERE player_id IS NOT NULL;"
    "INSERT INTO players (name, is_bot, name_key, created_at)"
    "  SELECT DISTINCT 'bot:' || bot, 1, lower('bot:' || bot), " SQLITE_NOW_MS
    "  FROM seats WHERE bot IS NOT NULL AND bot <> 'mcts' ON CONFLICT DO NOTHING;"
    "UPDATE seats SET entry_id ="
    "  (SELECT id FROM players WHERE name_key = lower('bot:' || seats.bot))"
    "  WHERE bot IS NOT NULL AND bot <> 'mcts';"
    "UPDATE seats SET entry_id = (SELECT h.player_id FROM rating_history AS h"
    "  JOIN players AS p ON p.id = h.player_id"
    "  WHERE h.game_id = seats.game_id AND p.name_key LIKE 'bot:mcts@%')"
    "  WHERE bot = 'mcts';"
    "CREATE INDEX seats_by_entry ON seats (entry_id, game_id) WHERE entry_id IS NOT NULL;"
    "UPDATE players SET"
    "  games_played = (SELECT count(DISTINCT s.game_id) FROM seats AS s JOIN games AS g"
    "    ON g.id = s.game_id WHERE s.entry_id = players.id AND g.status = 'finished'),"
    "  wins = (SELECT count(DISTINCT s.game_id) FROM seats AS s JOIN games AS g"
    "    ON g.id = s.game_id WHERE s.entry_id = players.id AND g.status = 'finished'"
    "    AND s.is_winner = 1)"
    "  WHERE id IN (SELECT entry_id FROM seats WHERE bot IS NOT NULL);"
    "ALTER TABLE reef_runs ADD COLUMN digest TEXT;"
    "UPDATE reef_runs SET digest = run_digest(actions) WHERE actions IS NOT NULL;"
    "DELETE FROM reef_best WHERE board LIKE 'day:%' OR board LIKE 'week:%';"
    "DELETE FROM reef_runs WHERE digest IS NOT NULL AND id NOT IN"
    "  (SELECT min(id) FROM reef_runs WHERE digest IS NOT NULL GROUP BY player_id, seed, digest);"
    "CREATE UNIQUE INDEX reef_runs_once ON reef_runs (player_id, seed, digest)"
    "  WHERE digest IS NOT NULL;"
    "INSERT INTO reef_best (board, player_id, score, run_id, at_ms)"
    "  SELECT board, player_id, score, id, at_ms FROM ("
    "    SELECT board, player_id, score, id, at_ms, row_number() OVER"
    "      (PARTITION BY board, player_id ORDER BY score DESC, id) AS place FROM ("
    "      SELECT 'day:' || seed AS board, player_id, score, id, at_ms FROM reef_runs"
    "        WHERE seed = CAST(strftime('%Y%m%d', at_ms / 1000, 'unixepoch') AS INTEGER)"
    "      UNION ALL SELECT 'week:' || seed, player_id, score, id, at_ms FROM reef_runs"
    "        WHERE seed = CAST(strftime('%Y%m%d', at_ms / 1000, 'unixepoch', 'weekday 0',"
    "                                   '-6 days') AS INTEGER)))"
    "  WHERE place = 1;"
    "CREATE TABLE secrets ("
    "  name TEXT PRIMARY KEY,"
    "  value BLOB NOT NULL CHECK (length(value) >= 32)"
    ") WITHOUT ROWID;"
    "INSERT INTO secrets VALUES ('cursor', randomblob(32));",

    /* 5 -> 6: stored guests (players without a name key) by age, so the
     * sweep that expires unclaimed guests walks the oldest ones from where
     * it stopped instead of scanning the players (store_guests_expire). */
    "CREATE INDEX players_guests_by_age ON players (created_at, id) WHERE name_key IS NULL;",

    /* 6 -> 7: the move log in a text of its own (issue 17). Until now each
     * moves.action was the move's wire JSON; now it is the record text
     * lobby/action_record.h defines ("F 3 4 5", "pass", "4 3 90", "skip",
     * "resign", "leave"), so the wire can change without the log. A CHECK
     * cannot be dropped in place: the table is rebuilt under the same
     * name, its triggers with it, and every action converted, reading the
     * game's kind from its game row. The new CHECK keeps JSON (an old
     * writer's) out. A row that does not convert (it never replayed
     * either) becomes "unreadable", which no game reads back: `tessera
     * replay verify` names its game as before. */
    "CREATE TABLE moves_v7 ("
    "  game_id INTEGER NOT NULL REFERENCES games (id),"
    "  seq INTEGER NOT NULL CHECK (seq >= 0),"
    "  seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),"
    "  ply INTEGER NOT NULL CHECK (ply >= 0),"
    "  action TEXT NOT NULL CHECK (length(action) BETWEEN 1 AND 39"
    "    AND action NOT GLOB '*[^0-9A-Za-z -]*'),"
    "  elapsed_ms INTEGER NOT NULL CHECK (elapsed_ms >= 0),"
    "  clock_ms INTEGER NOT NULL CHECK (clock_ms >= -1),"
    "  at_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (game_id, seq)"
    ") WITHOUT ROWID;"
    "INSERT INTO moves_v7 SELECT game_id, seq, seat, ply, CASE"
    "    WHEN length(text) BETWEEN 1 AND 39 AND text NOT GLOB '*[^0-9A-Za-z -]*' THEN text"
    "    ELSE 'unreadable' END, elapsed_ms, clock_ms, at_ms"
    "  FROM (SELECT m.*, CASE"
    "    WHEN json_extract(m.action, '$.resign') THEN 'resign'"
    "    WHEN json_extract(m.action, '$.leave') THEN 'leave'"
    "    WHEN g.game = 'blokus' AND json_extract(m.action, '$.pass') THEN 'pass'"
    "    WHEN g.game = 'blokus' THEN json_extract(m.action, '$.piece') || ' ' ||"
    "      json_extract(m.action, '$.orientation') || ' ' || json_extract(m.action, '$.row') ||"
    "      ' ' || json_extract(m.action, '$.col')"
    "    WHEN json_extract(m.action, '$.type') = 'skip' THEN 'skip'"
    "    WHEN json_extract(m.action, '$.type') = 'place' THEN json_extract(m.action, '$.row') ||"
    "      ' ' || json_extract(m.action, '$.col') || ' ' ||"
    "      json_extract(m.action, '$.orientation')"
    "  END AS text FROM moves AS m JOIN games AS g ON g.id = m.game_id);"
    "DROP TABLE moves;"
    "ALTER TABLE moves_v7 RENAME TO moves;" MOVES_TRIGGERS,

    /* 7 -> 8: LEASES (issue 18). */
    LEASES_SCHEMA("INTEGER"),

    /* 8 -> 9: an arena's period starts once. */
    ARENA_PERIODS_SCHEMA,

    /* 9 -> 10: REEF_SCORE_COUNTS_TABLE. */
    REEF_SCORE_COUNTS_SQLITE,

    /* 10 -> 11: SEAT_PLAYER_COLUMNS. */
    SEAT_PLAYER_SQLITE,
};

#define MIGRATION_COUNT ((int)(sizeof(MIGRATIONS) / sizeof(MIGRATIONS[0])))
_Static_assert(MIGRATION_COUNT == STORE_SCHEMA_VERSION, "one migration per schema version");

static int execute_sql(sqlite3 *db, const char *sql)
{
    return store_error_from_sqlite(sqlite3_exec(db, sql, NULL, NULL, NULL));
}

int store_schema_version(sqlite3 *db, int *version)
{
    int64_t value = 0;
    int rc = store_sqlite_number(db, "PRAGMA user_version", &value);
    *version = (int)value;
    return rc;
}

/* PRAGMA takes no bound parameters; the number is ours, never user data. */
static int write_user_version(sqlite3 *db, int version)
{
    char sql[64];
    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
    return execute_sql(db, sql);
}

static int apply_migrations(sqlite3 *db, int target)
{
    int version = 0;
    int rc = store_schema_version(db, &version);
    if (rc != STORE_OK)
        return rc;
    if (version > MIGRATION_COUNT)
        return STORE_E_TOO_NEW;
    if (version < 0)
        return STORE_E_CORRUPT;
    if (version >= target)
        return STORE_OK;
    for (int v = version; v < target; v++) {
        rc = execute_sql(db, MIGRATIONS[v]);
        if (rc != STORE_OK)
            return rc;
    }
    return write_user_version(db, target);
}

int store_schema_migrate(sqlite3 *db)
{
    return store_schema_migrate_to(db, MIGRATION_COUNT);
}

int store_schema_migrate_to(sqlite3 *db, int version)
{
    if (version < 0 || version > MIGRATION_COUNT)
        return STORE_E_INVALID;
    int rc = execute_sql(db, "BEGIN IMMEDIATE");
    if (rc != STORE_OK)
        return rc;
    rc = apply_migrations(db, version);
    if (rc == STORE_OK)
        rc = execute_sql(db, "COMMIT");
    if (rc != STORE_OK && !sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* ---- PostgreSQL ------------------------------------------------------------ */

/* The schema of version PG_BASELINE in PostgreSQL's dialect: a new
 * PostgreSQL database starts here, whole (the SQLite migrations before it
 * are that dialect's history). The tables, columns, keys, checks, indexes
 * and guards are the ones the SQLite migrations build, which
 * test_store_schema_pg compares column by column: ids are identity
 * columns, numbers bigint, reals double precision, JSON is checked by a
 * cast, and the move guards are a trigger function. A migration after
 * this version carries its PostgreSQL text beside its SQLite text. */
static const char PG_SCHEMA[] =
    "CREATE TABLE players ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  name TEXT NOT NULL CHECK (length(name) > 0),"
    "  is_bot BIGINT NOT NULL CHECK (is_bot IN (0, 1)),"
    "  token_digest TEXT UNIQUE,"
    "  bot_key_digest TEXT UNIQUE CHECK (bot_key_digest IS NULL OR is_bot = 1),"
    "  created_at BIGINT NOT NULL,"
    "  games_played BIGINT NOT NULL DEFAULT 0 CHECK (games_played >= 0),"
    "  wins BIGINT NOT NULL DEFAULT 0 CHECK (wins >= 0 AND wins <= games_played),"
    "  name_key TEXT CHECK (name_key IS NULL OR (length(name_key) > 0"
    "    AND name_key = lower(name_key))),"
    "  password_hash TEXT,"
    "  owner_id BIGINT REFERENCES players (id),"
    "  open_to_tournaments BIGINT NOT NULL DEFAULT 0 CHECK (open_to_tournaments IN (0, 1)));"
    "CREATE UNIQUE INDEX players_by_name_key ON players (name_key) WHERE name_key IS NOT NULL;"
    "CREATE INDEX players_by_owner ON players (owner_id) WHERE owner_id IS NOT NULL;"
    "CREATE INDEX players_guests_by_age ON players (created_at, id) WHERE name_key IS NULL;"
    "CREATE TABLE games ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  room TEXT NOT NULL,"
    "  game TEXT NOT NULL CHECK (game IN ('blokus', 'reef-builder')),"
    "  mode TEXT NOT NULL,"
    "  options TEXT NOT NULL CHECK (options::json IS NOT NULL),"
    "  seed BIGINT NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('waiting', 'playing', 'finished', 'aborted')),"
    "  result TEXT CHECK (result IS NULL OR result::json IS NOT NULL),"
    "  created_at BIGINT NOT NULL,"
    "  started_at BIGINT,"
    "  finished_at BIGINT,"
    "  tournament_id BIGINT,"
    "  tournament_game BIGINT,"
    "  CHECK (status <> 'playing' OR started_at IS NOT NULL),"
    "  CHECK ((finished_at IS NOT NULL) = (status IN ('finished', 'aborted'))));"
    "CREATE INDEX games_by_status ON games (status);"
    "CREATE INDEX games_by_kind ON games (game, mode, id);"
    "CREATE INDEX games_by_tournament ON games (tournament_id, id)"
    "  WHERE tournament_id IS NOT NULL;"
    "CREATE INDEX games_of_tournament_game ON games (tournament_id, tournament_game)"
    "  WHERE tournament_id IS NOT NULL;"
    "CREATE TABLE seats ("
    "  game_id BIGINT NOT NULL REFERENCES games (id),"
    "  seat BIGINT NOT NULL CHECK (seat BETWEEN 0 AND 3),"
    "  player_id BIGINT REFERENCES players (id),"
    "  bot TEXT CHECK (bot IS NULL OR length(bot) > 0),"
    "  score BIGINT,"
    "  rank BIGINT CHECK (rank IS NULL OR rank >= 1),"
    "  is_winner BIGINT CHECK (is_winner IS NULL OR is_winner IN (0, 1)),"
    "  entry_id BIGINT REFERENCES players (id),"
    "  PRIMARY KEY (game_id, seat),"
    "  CHECK (player_id IS NULL OR bot IS NULL));"
    "CREATE INDEX seats_by_player ON seats (player_id) WHERE player_id IS NOT NULL;"
    "CREATE INDEX seats_by_player_game ON seats (player_id, game_id)"
    "  WHERE player_id IS NOT NULL;"
    "CREATE INDEX seats_by_entry ON seats (entry_id, game_id) WHERE entry_id IS NOT NULL;"
    "CREATE TABLE moves ("
    "  game_id BIGINT NOT NULL REFERENCES games (id),"
    "  seq BIGINT NOT NULL CHECK (seq >= 0),"
    "  seat BIGINT NOT NULL CHECK (seat BETWEEN 0 AND 3),"
    "  ply BIGINT NOT NULL CHECK (ply >= 0),"
    "  action TEXT NOT NULL CHECK (length(action) BETWEEN 1 AND 39"
    "    AND action !~ '[^0-9A-Za-z -]'),"
    "  elapsed_ms BIGINT NOT NULL CHECK (elapsed_ms >= 0),"
    "  clock_ms BIGINT NOT NULL CHECK (clock_ms >= -1),"
    "  at_ms BIGINT NOT NULL,"
    "  PRIMARY KEY (game_id, seq));"
    "CREATE FUNCTION moves_guard() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
    "  IF NOT EXISTS (SELECT 1 FROM games WHERE id = NEW.game_id AND status = 'playing') THEN"
    "    RAISE EXCEPTION 'moves are only added to a game being played';"
    "  END IF;"
    "  IF NEW.seq <> coalesce((SELECT max(seq) + 1 FROM moves WHERE game_id = NEW.game_id), 0)"
    "  THEN RAISE EXCEPTION 'a move must have its game''s next seq';"
    "  END IF;"
    "  RETURN NEW; END $$;"
    "CREATE TRIGGER moves_guard BEFORE INSERT ON moves FOR EACH ROW"
    "  EXECUTE FUNCTION moves_guard();"
    "CREATE TABLE ratings ("
    "  player_id BIGINT NOT NULL REFERENCES players (id),"
    "  pool TEXT NOT NULL CHECK (pool IN"
    "    ('blokus-4p', 'blokus-3p', 'blokus-2p', 'blokus-duo', 'reef-race')),"
    "  mu DOUBLE PRECISION NOT NULL,"
    "  sigma DOUBLE PRECISION NOT NULL CHECK (sigma > 0),"
    "  display DOUBLE PRECISION NOT NULL,"
    "  games BIGINT NOT NULL DEFAULT 0 CHECK (games >= 0),"
    "  wins BIGINT NOT NULL DEFAULT 0 CHECK (wins >= 0 AND wins <= games),"
    "  score_total BIGINT NOT NULL DEFAULT 0,"
    "  listed BIGINT NOT NULL DEFAULT 0 CHECK (listed IN (0, 1)),"
    "  updated_at BIGINT NOT NULL,"
    "  PRIMARY KEY (player_id, pool));"
    "CREATE INDEX ratings_leaderboard ON ratings (pool, display DESC, player_id)"
    "  WHERE listed = 1;"
    "CREATE TABLE rating_history ("
    "  player_id BIGINT NOT NULL REFERENCES players (id),"
    "  pool TEXT NOT NULL,"
    "  game_id BIGINT NOT NULL REFERENCES games (id),"
    "  mu_before DOUBLE PRECISION NOT NULL,"
    "  sigma_before DOUBLE PRECISION NOT NULL,"
    "  mu_after DOUBLE PRECISION NOT NULL,"
    "  sigma_after DOUBLE PRECISION NOT NULL,"
    "  at_ms BIGINT NOT NULL,"
    "  PRIMARY KEY (player_id, pool, game_id));"
    "CREATE INDEX rating_history_by_game ON rating_history (game_id);"
    "CREATE INDEX rating_history_by_time ON rating_history (player_id, pool, at_ms, game_id);"
    "CREATE TABLE reef_runs ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  player_id BIGINT NOT NULL REFERENCES players (id),"
    "  seed BIGINT NOT NULL,"
    "  score BIGINT NOT NULL,"
    "  game_id BIGINT REFERENCES games (id),"
    "  actions TEXT CHECK (actions IS NULL OR actions::json IS NOT NULL),"
    "  at_ms BIGINT NOT NULL,"
    "  digest TEXT,"
    "  CHECK ((game_id IS NULL) <> (actions IS NULL)));"
    "CREATE INDEX reef_runs_by_player ON reef_runs (player_id, id);"
    "CREATE UNIQUE INDEX reef_runs_once ON reef_runs (player_id, seed, digest)"
    "  WHERE digest IS NOT NULL;"
    "CREATE TABLE reef_best ("
    "  board TEXT NOT NULL,"
    "  player_id BIGINT NOT NULL REFERENCES players (id),"
    "  score BIGINT NOT NULL,"
    "  run_id BIGINT NOT NULL REFERENCES reef_runs (id),"
    "  at_ms BIGINT NOT NULL,"
    "  PRIMARY KEY (board, player_id));"
    "CREATE INDEX reef_best_ranking ON reef_best (board, score DESC, at_ms, player_id);"
    "CREATE INDEX reef_best_by_player ON reef_best (player_id, score DESC);"
    "CREATE TABLE tournaments ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  name TEXT NOT NULL CHECK (length(name) > 0),"
    "  game TEXT NOT NULL,"
    "  mode TEXT NOT NULL,"
    "  format TEXT NOT NULL CHECK (format IN ('round-robin', 'fixed', 'swiss')),"
    "  settings TEXT NOT NULL CHECK (settings::json IS NOT NULL),"
    "  seed BIGINT NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('running', 'finished')),"
    "  arena TEXT,"
    "  created_at BIGINT NOT NULL,"
    "  finished_at BIGINT,"
    "  created_by BIGINT REFERENCES players (id),"
    "  cancelled_at BIGINT CHECK (cancelled_at IS NULL OR status = 'finished'),"
    "  CHECK ((finished_at IS NOT NULL) = (status = 'finished')));"
    "CREATE INDEX tournaments_running ON tournaments (id) WHERE status = 'running';"
    "CREATE INDEX tournaments_by_arena ON tournaments (arena, created_at)"
    "  WHERE arena IS NOT NULL;"
    "CREATE TABLE tournament_entries ("
    "  tournament_id BIGINT NOT NULL REFERENCES tournaments (id),"
    "  entry BIGINT NOT NULL CHECK (entry >= 0),"
    "  player_id BIGINT NOT NULL REFERENCES players (id),"
    "  bot TEXT,"
    "  points DOUBLE PRECISION NOT NULL DEFAULT 0,"
    "  games BIGINT NOT NULL DEFAULT 0,"
    "  wins BIGINT NOT NULL DEFAULT 0,"
    "  score_total BIGINT NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (tournament_id, entry),"
    "  UNIQUE (tournament_id, player_id));"
    "CREATE TABLE tournament_games ("
    "  tournament_id BIGINT NOT NULL REFERENCES tournaments (id),"
    "  number BIGINT NOT NULL CHECK (number >= 0),"
    "  round BIGINT NOT NULL CHECK (round >= 0),"
    "  seats TEXT NOT NULL CHECK (seats::json IS NOT NULL),"
    "  PRIMARY KEY (tournament_id, number));"
    "CREATE TABLE tournament_invitations ("
    "  invitee_id BIGINT NOT NULL REFERENCES players (id),"
    "  inviter_id BIGINT NOT NULL REFERENCES players (id),"
    "  accepted BIGINT NOT NULL DEFAULT 0 CHECK (accepted IN (0, 1)),"
    "  created_at BIGINT NOT NULL,"
    "  PRIMARY KEY (invitee_id, inviter_id),"
    "  CHECK (invitee_id <> inviter_id));"
    "CREATE TABLE secrets ("
    "  name TEXT PRIMARY KEY,"
    "  value BYTEA NOT NULL CHECK (length(value) >= 32));"
    /* 32 bytes from two random UUIDs (gen_random_uuid: the server's strong random). */
    "INSERT INTO secrets VALUES ('cursor', decode(replace(gen_random_uuid()::text ||"
    "  gen_random_uuid()::text, '-', ''), 'hex'));";

/* The PostgreSQL baseline's version, and the migrations after it: PG_MIGRATIONS[i]
 * turns version PG_BASELINE + i into the next, as MIGRATIONS[PG_BASELINE + i] does in
 * SQLite. */
#define PG_BASELINE 7
static const char *const PG_MIGRATIONS[] = {
    /* 7 -> 8 */
    LEASES_SCHEMA("BIGINT"),
    /* 8 -> 9 */
    ARENA_PERIODS_SCHEMA,
    /* 9 -> 10 */
    REEF_SCORE_COUNTS_POSTGRES,
    /* 10 -> 11 */
    SEAT_PLAYER_POSTGRES,
};
_Static_assert(PG_BASELINE + (int)(sizeof(PG_MIGRATIONS) / sizeof(PG_MIGRATIONS[0])) ==
                   STORE_SCHEMA_VERSION,
               "one PostgreSQL migration per schema version after the baseline");

int store_schema_migrate_pg(store *storage)
{
    /* One migrator at a time: the advisory lock holds a second instance
     * starting on the same database until the first has committed. */
    int rc = store_pg_exec_script(
        storage, "BEGIN; SELECT pg_advisory_xact_lock(7365726100);"
                 "CREATE TABLE IF NOT EXISTS tessera_schema (version BIGINT NOT NULL);");
    int64_t version = 0;
    if (rc == STORE_OK)
        rc = store_pg_number(storage, "SELECT coalesce(max(version), 0) FROM tessera_schema",
                             &version);
    if (rc == STORE_OK && version > STORE_SCHEMA_VERSION)
        rc = STORE_E_TOO_NEW;
    else if (rc == STORE_OK && version > 0 && version < PG_BASELINE)
        rc = STORE_E_CORRUPT; /* no PostgreSQL database was ever made before the baseline */
    int64_t found = version;
    if (rc == STORE_OK && version == 0) {
        rc = store_pg_exec_script(storage, PG_SCHEMA);
        version = PG_BASELINE;
    }
    for (; rc == STORE_OK && version < STORE_SCHEMA_VERSION; version++)
        rc = store_pg_exec_script(storage, PG_MIGRATIONS[version - PG_BASELINE]);
    if (rc == STORE_OK && found != STORE_SCHEMA_VERSION) {
        char bump[96];
        snprintf(bump, sizeof(bump),
                 "DELETE FROM tessera_schema; INSERT INTO tessera_schema VALUES (%d);",
                 STORE_SCHEMA_VERSION);
        rc = store_pg_exec_script(storage, bump);
    }
    if (rc != STORE_OK) {
        store_pg_exec_script(storage, "ROLLBACK");
        return rc;
    }
    return store_pg_exec_script(storage, "COMMIT");
}

/* store_read.h -- the history reads: game lists, profiles, leaderboards.
 *
 * These run on a reader: a store opened read-only (store_open_reader), one
 * per worker thread of the server's history pool, used by one thread at a
 * time. Every read is an index range (the schema's indexes: games by id,
 * kind, status and tournament; seats by player; ratings by pool and
 * conservative rating; reef_best by board and score), never a scan of a
 * table and never an OFFSET, so a read costs the same however many games
 * are stored and however deep the page is.
 *
 * Lists are pages in keyset order. A page starts after a store_read_after
 * (the last row of the page before; `is_first` for the first page) and
 * hands back the one to continue from. A list with a filter that its index
 * does not answer (a games list by player and mode, a leaderboard with a
 * minimum of games) reads at most STORE_READ_SCAN candidate rows per page:
 * such a page may hold fewer rows than asked for, even none, while
 * `has_next` says more may follow -- the walk stays complete and each page
 * stays cheap.
 *
 * Strings in the structs below are copied into fixed buffers; nothing
 * returned here needs freeing, except the game record of store_game_load
 * (which works on a reader too). */
#ifndef TESSERA_STORE_READ_H
#define TESSERA_STORE_READ_H

#include "storage/store.h"

/* The most rows a page may hold. */
#define STORE_READ_MAX_PAGE 100
/* The most candidate rows one page examines when its index does not answer
 * every filter. */
#define STORE_READ_SCAN 1000
/* Room for a game kind, mode, status or pool name and its NUL. */
#define STORE_READ_WORD_SIZE 16
/* Room for a Reef board name such as "week:20260518" and its NUL. */
#define STORE_READ_BOARD_SIZE 32
/* Rating pools: blokus-4p, -3p, -2p, -duo, reef-race. */
#define STORE_READ_POOL_COUNT 5

/* The bytes of the key that signs the lists' cursors. */
#define STORE_CURSOR_KEY_BYTES 32

/* The database's cursor key (made at random when the schema was created,
 * so cursors outlive a restart and work for every process reading the
 * same file): 0 and key[], or a store_error. */
int store_read_cursor_key(store *reader, unsigned char key[STORE_CURSOR_KEY_BYTES]);

/* Opens the database at `path` read-only for history reads: 0 and *out (a
 * store; store_close frees it), STORE_E_IO when it cannot be opened, or
 * STORE_E_CORRUPT / STORE_E_TOO_NEW when its schema is not this code's. */
int store_open_reader(const char *path, store **out);

/* store_open_reader, with what the database said in `why`
 * (STORE_WHY_SIZE bytes, or NULL) when it fails. */
int store_open_reader_why(const char *path, store **out, char *why);

/* Where a page starts: after the row with sort value `key` and id `id`
 * (their meaning is the list's own), or at the top when `is_first`. */
typedef struct store_read_after {
    bool is_first;
    int64_t key;
    int64_t id;
} store_read_after;

/* What a page found and where the next one starts. */
typedef struct store_read_page {
    int count;              /* rows filled in */
    bool has_next;          /* another page may hold rows: continue from `next` */
    store_read_after next;  /* meaningful when has_next */
    int64_t first_position; /* leaderboards: the 1-based rank of the first row */
} store_read_page;

/* ---- games ------------------------------------------------------------------- */

/* Which games a list wants; a zero or NULL field matches every game. */
typedef struct store_game_filter {
    int64_t player_id;     /* a player sat in it */
    const char *game;      /* "blokus", "reef-builder" */
    const char *mode;      /* "4p", "duo", "solo", ... */
    const char *status;    /* "waiting", "playing", "finished", "aborted" */
    int64_t tournament_id; /* it belongs to this tournament */
} store_game_filter;

/* A game as lists show it. */
typedef struct store_game_summary {
    int64_t id;
    char game[STORE_READ_WORD_SIZE];
    char mode[STORE_READ_WORD_SIZE];
    char status[STORE_READ_WORD_SIZE];
    int64_t tournament_id; /* 0: none */
    int64_t created_at_ms;
    int64_t started_at_ms;  /* -1: never started */
    int64_t finished_at_ms; /* -1: not over */
    int seat_count;
    store_seat seats[STORE_MAX_SEATS];
} store_game_summary;

/* Games matching `filter`, newest first (by id; `after.key` is unused, and
 * `after.id` is the last game of the previous page): up to `limit` (1 to
 * STORE_READ_MAX_PAGE) into items[]. The index is the filter's most
 * selective: player, tournament, a status other than finished, game and
 * mode, status, or none. */
int store_read_games(store *reader, const store_game_filter *filter, store_read_after after,
                     int limit, store_game_summary *items, store_read_page *page);

/* One player's rating before and after a rated game. */
typedef struct store_rating_delta {
    int64_t player_id;
    char player_name[STORE_NAME_SIZE];
    char pool[STORE_READ_WORD_SIZE];
    int64_t game_id;
    double mu_before, sigma_before;
    double mu_after, sigma_after;
    int64_t at_ms;
} store_rating_delta;

/* The rating changes game `game_id` made (one per rated player, at most
 * STORE_MAX_SEATS), into changes[] and *count. */
int store_read_game_rating_changes(store *reader, int64_t game_id,
                                   store_rating_delta changes[STORE_MAX_SEATS], int *count);

/* ---- players ----------------------------------------------------------------- */

/* A named player: an account, a bot account or a built-in bot's entry. */
typedef struct store_profile {
    int64_t id;
    char name[STORE_NAME_SIZE];
    bool is_bot;
    int64_t created_at_ms;
    int64_t games_played;
    int64_t wins;
} store_profile;

/* The player whose name key (the name in lower case) is `name_key`: 0 and
 * *out, or STORE_E_NOT_FOUND (guests have no key and are never found). */
int store_read_player_by_key(store *reader, const char *name_key, store_profile *out);

/* A player's rating in one pool, with the pool's counters. */
typedef struct store_pool_rating {
    int64_t player_id;
    char player_name[STORE_NAME_SIZE];
    char pool[STORE_READ_WORD_SIZE];
    double mu, sigma;
    double display; /* mu - 3 sigma: what leaderboards rank by */
    int64_t games, wins, score_total;
    bool is_listed;
} store_pool_rating;

/* Every pool `player_id` has a rating in, in pool name order. */
int store_read_player_ratings(store *reader, int64_t player_id,
                              store_pool_rating ratings[STORE_READ_POOL_COUNT], int *count);

/* The player's last `limit` (1 to STORE_READ_MAX_PAGE) rating changes in
 * each pool, through rating_history_by_time, in one read: items[] has room
 * for STORE_READ_POOL_COUNT * limit; a pool's changes come together (the
 * pools in the database's order of their names), newest first by when
 * their games finished (at_ms). Changes of one millisecond (a player's
 * parallel games, a built-in bot's) are in the order they were rated,
 * which their ratings before and after say; the game id breaks a tie they
 * do not. */
int store_read_rating_histories(store *reader, int64_t player_id, int limit,
                                store_rating_delta *items, int *count);

/* A player's best Reef run on one board. */
typedef struct store_reef_entry {
    char board[STORE_READ_BOARD_SIZE];
    int64_t player_id;
    char player_name[STORE_NAME_SIZE];
    int64_t score;
    int64_t run_id;
    int64_t at_ms;
} store_reef_entry;

/* The player's `limit` best boards (1 to STORE_READ_MAX_PAGE), best
 * score first. */
int store_read_player_reef_best(store *reader, int64_t player_id, int limit,
                                store_reef_entry *items, int *count);

/* ---- leaderboards ------------------------------------------------------------ */

/* The listed ratings of `pool` with at least `min_games` games, by
 * conservative rating (display) then player id. `after` is the previous
 * page's next (the cursor carries the rank of its last row, so ranks run
 * on across pages). */
int store_read_blokus_board(store *reader, const char *pool, int64_t min_games,
                            store_read_after after, int limit, store_pool_rating *items,
                            store_read_page *page);

/* The best runs on Reef board `board` ("seed:N", "day:YYYYMMDD", ...), by
 * score, the earlier run first on a tie, then player id. */
int store_read_reef_board(store *reader, const char *board, store_read_after after, int limit,
                          store_reef_entry *items, store_read_page *page);

/* The page of board `board` around player `player_id`: up to limit / 2
 * runs above it, its own, then those below up to `limit`. STORE_E_NOT_FOUND
 * when the player has no run on that board. Finding the rank counts the
 * runs above it in the ranking index (no table read). */
int store_read_reef_board_around(store *reader, const char *board, int64_t player_id, int limit,
                                 store_reef_entry *items, store_read_page *page);

#endif

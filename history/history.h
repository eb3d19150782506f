/* history.h -- the history API's requests: parsed, run, rendered.
 *
 * One request is the same thing whether it comes over HTTP (GET
 * /api/games?mode=duo) or from the command line (tessera query games
 * --mode duo): a path and a query. history_parse checks it completely on
 * the caller's thread, without the database: the path's form, every
 * parameter's name and value, the page size and the cursor; what it keeps
 * is a plain value with copies of every string, so it can travel to a
 * worker thread. history_run then reads the database through a reader
 * (storage/store_read.h) and builds the answer; history_render turns it
 * into the bytes an HTTP answer carries. Errors travel the same way, as
 * the HTTP APIs' one error type (protocol/http_failure.h).
 *
 * Routes (docs/API.md has every parameter and answer):
 *   /api/games                      games, newest first, filtered
 *   /api/games/{id}                 one game: seats, options, clocks, result, rating changes
 *   /api/games/{id}/replay          every ply: seat, action, cells, scores, time
 *   /api/games/{id}.blksgf          a Blokus game as Pentobi's SGF
 *   /api/players/{name}             a named player's profile
 *   /api/leaderboards/blokus        ?kind=4p|3p|2p|duo, by conservative rating
 *   /api/leaderboards/reef          ?seed=N or ?period=day|week|all, ?around=NAME */
#ifndef TESSERA_HISTORY_H
#define TESSERA_HISTORY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "protocol/http_failure.h"
#include "protocol/page_cursor.h"
#include "protocol/url_query.h"
#include "storage/store_read.h"

/* A page's size when the request names none. */
#define HISTORY_DEFAULT_LIMIT 20
/* What a profile shows of each list: recent games, best Reef boards, and
 * rating changes per pool (the full lists page through /api/games and the
 * leaderboards). */
#define HISTORY_PROFILE_GAMES   10
#define HISTORY_PROFILE_BOARDS  10
#define HISTORY_PROFILE_HISTORY 100

typedef enum history_route {
    HISTORY_GAMES,
    HISTORY_GAME,
    HISTORY_REPLAY,
    HISTORY_SGF,
    HISTORY_PLAYER,
    HISTORY_BLOKUS_BOARD,
    HISTORY_REEF_BOARD,
    HISTORY_TOURNAMENTS,
    HISTORY_TOURNAMENT
} history_route;

/* What the caller knows that a request does not say. */
typedef struct history_settings {
    int64_t leaderboard_min_games;   /* Blokus leaderboards list players with this many games */
    int64_t now_ms;                  /* the time, for the day's and the week's Reef boards */
    const unsigned char *cursor_key; /* STORE_CURSOR_KEY_BYTES: signs cursors (store_read.h) */
} history_settings;

/* A checked request, a plain value ("" is an absent string). */
typedef struct history_request {
    history_route route;
    int limit;
    store_read_after after;
    int64_t game_id;                   /* GAME, REPLAY, SGF; TOURNAMENT: the tournament's */
    char player_key[STORE_NAME_SIZE];  /* GAMES ?player, PLAYER, REEF ?around: lower case */
    int64_t player_id;                 /* GAMES ?player_id (a guest's games too); 0: any */
    char game[STORE_READ_WORD_SIZE];   /* GAMES */
    char mode[STORE_READ_WORD_SIZE];   /* GAMES */
    char status[STORE_READ_WORD_SIZE]; /* GAMES */
    int64_t tournament_id;             /* GAMES; 0: any */
    char pool[STORE_READ_WORD_SIZE];   /* BLOKUS_BOARD */
    int64_t min_games;                 /* BLOKUS_BOARD */
    char board[STORE_READ_BOARD_SIZE]; /* REEF_BOARD: "seed:N", "day:YYYYMMDD", ... */
    bool has_seed;                     /* REEF_BOARD: the board is one seed's (or a period's) */
    uint64_t seed;
    unsigned char cursor_key[STORE_CURSOR_KEY_BYTES]; /* signs the answer's `next` */
} history_request;

/* An answer: 200 with its body in `text` (JSON, or SGF), or a failure. */
typedef struct history_result {
    int status; /* 200, or the failure's: 400, 404, 500 */
    char *text; /* owned, `length` bytes */
    size_t length;
    bool is_sgf;          /* else the text is JSON */
    http_failure failure; /* when status is not 200 */
} history_result;

/* Checks `path` and `query`: 0 and *out, or HTTP_FAILED with *error set
 * (400 for a bad parameter, 404 for a path of no history route). */
int history_parse(const char *path, const url_query *query, const history_settings *settings,
                  history_request *out, history_result *error);

/* Runs a parsed request on `reader` (any thread, one reader per thread at a
 * time) into *result, which history_result_clear frees. */
void history_run(store *reader, const history_request *request, history_result *result);

/* The HTTP answer of `result`: its status, content type (static) and body
 * (malloc'd, *length bytes), or NULL with status 500 when memory ran out.
 * The result is cleared. */
char *history_render(history_result *result, int *status, const char **content_type,
                     size_t *length);

/* Frees what a result owns; it is empty again. */
void history_result_clear(history_result *result);

/* The `next` cursor of a page of `request`'s list, after `after`: the
 * position and its tag (history_parse.c). */
void history_cursor_write(const history_request *request, store_read_after after,
                          char out[PAGE_CURSOR_SIZE]);

/* Sets *result to the failure `status`, `code` and a formatted message;
 * returns HTTP_FAILED. */
int history_fail(history_result *result, int status, const char *code, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

#endif

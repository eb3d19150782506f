/* history_parse.c -- a history request's path and query, checked.
 *
 * Everything a client can get wrong is found here, before any database
 * work: an unknown path form is 404; an unknown or repeated parameter, a
 * value out of its set or range, a limit outside 1-100 or a cursor this
 * server did not write is 400 with code `bad_parameter` and a message
 * naming the parameter. Only what needs the database (whether a player
 * name exists) is left to history_run.
 *
 * Player names are looked up by their key, the name in lower case, as the
 * accounts store them: /api/players/Alice and /api/players/alice are the
 * same player.
 *
 * A cursor is bound to the list that wrote it: its tag is a MAC, under
 * the database's cursor key (store_read_cursor_key), of the route, every
 * filter as parsed (player key, game, mode, status, tournament, pool,
 * board) and the position. A cursor is taken only with a tag that matches
 * the request it comes back on, so one made up, altered, or written for
 * another route or other filters is refused like any bad parameter. The
 * page size is not bound: a walk may change it. A Reef period's board is
 * named by its date, so a day's cursors end with the day. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/reef.h"
#include "protocol/page_cursor.h"
#include "history/history.h"
#include "storage/secret.h"

_Static_assert(STORE_CURSOR_KEY_BYTES == SECRET_MAC_KEY_BYTES, "the cursor key is a MAC key");
_Static_assert(PAGE_CURSOR_TAG_BYTES == SECRET_MAC_BYTES, "a cursor's tag is a MAC");

#define GAMES_PATH       "/api/games"
#define PLAYERS_PATH     "/api/players/"
#define TOURNAMENTS_PATH "/api/tournaments"
#define BLOKUS_PATH      "/api/leaderboards/blokus"
#define REEF_PATH        "/api/leaderboards/reef"
#define DAY_MS           86400000LL
#define MAX_SEED_DIGITS  20

/* The parameters each route accepts, NULL-terminated. */
static const char *const GAMES_PARAMETERS[] = {
    "player", "player_id", "game", "mode", "status", "tournament", "limit", "cursor", NULL};
static const char *const NO_PARAMETERS[] = {NULL};
static const char *const PAGE_PARAMETERS[] = {"limit", "cursor", NULL};
static const char *const BLOKUS_PARAMETERS[] = {"kind", "limit", "cursor", NULL};
static const char *const REEF_PARAMETERS[] = {"seed", "period", "around", "limit", "cursor", NULL};

static const char *const GAME_NAMES[] = {"blokus", "reef-builder", NULL};
static const char *const BLOKUS_MODES[] = {"4p", "3p", "2p", "duo", NULL};
static const char *const REEF_MODES[] = {"solo", "race", NULL};
static const char *const ALL_MODES[] = {"4p", "3p", "2p", "duo", "solo", "race", NULL};
static const char *const STATUSES[] = {"waiting", "playing", "finished", "aborted", NULL};
static const char *const PERIODS[] = {"day", "week", "all", NULL};

int history_fail(history_result *result, int status, const char *code, const char *format, ...)
{
    memset(result, 0, sizeof(*result));
    result->status = status;
    va_list arguments;
    va_start(arguments, format);
    http_failv(&result->failure, status, code, format, arguments);
    va_end(arguments);
    return HTTP_FAILED;
}

static bool is_one_of(const char *value, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(value, *set) == 0)
            return true;
    return false;
}

/* "a, b or c", for messages. */
static void list_words(const char *const *set, char *out, size_t size)
{
    size_t length = 0;
    out[0] = '\0';
    for (int i = 0; set[i] && length < size; i++) {
        const char *separator = i == 0 ? "" : set[i + 1] ? ", " : " or ";
        length += (size_t)snprintf(out + length, size - length, "%s%s", separator, set[i]);
    }
}

static const char *const *parameters_of(history_route route)
{
    switch (route) {
    case HISTORY_GAMES:
        return GAMES_PARAMETERS;
    case HISTORY_BLOKUS_BOARD:
        return BLOKUS_PARAMETERS;
    case HISTORY_REEF_BOARD:
        return REEF_PARAMETERS;
    case HISTORY_TOURNAMENTS:
        return PAGE_PARAMETERS;
    default:
        return NO_PARAMETERS;
    }
}

/* Every argument is one the route knows, given once. */
static int check_names(const url_query *query, history_route route, history_result *error)
{
    const char *const *known = parameters_of(route);
    for (size_t i = 0; i < query->count; i++) {
        const char *name = query->arguments[i].name;
        if (!is_one_of(name, known)) {
            char words[128];
            list_words(known, words, sizeof(words));
            return history_fail(error, 400, "bad_parameter", "unknown parameter '%s'%s%s", name,
                                known[0] ? "; this route takes " : "; this route takes none",
                                words);
        }
        if (url_query_count(query, name) > 1)
            return history_fail(error, 400, "bad_parameter", "parameter '%s' is given twice", name);
    }
    return 0;
}

/* A whole decimal number of at most `digits` digits, no sign, no junk. */
static int parse_decimal(const char *text, int digits, uint64_t *out)
{
    size_t length = strlen(text);
    if (length == 0 || length > (size_t)digits)
        return -1;
    uint64_t value = 0;
    for (size_t i = 0; i < length; i++) {
        if (!isdigit((unsigned char)text[i]))
            return -1;
        uint64_t digit = (uint64_t)(text[i] - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return -1;
        value = value * 10 + digit;
    }
    *out = value;
    return 0;
}

static int parse_word(const url_query *query, const char *name, const char *const *set, char *out,
                      size_t size, history_result *error)
{
    const char *value = url_query_get(query, name);
    if (!value)
        return 0;
    if (!is_one_of(value, set)) {
        char words[128];
        list_words(set, words, sizeof(words));
        return history_fail(error, 400, "bad_parameter", "%s must be %s, not '%s'", name, words,
                            value);
    }
    snprintf(out, size, "%s", value);
    return 0;
}

/* The name key of a player name: 1 to 63 bytes, no '/', in lower case. */
static int name_key(const char *name, const char *what, char key[STORE_NAME_SIZE],
                    history_result *error)
{
    size_t length = strlen(name);
    if (length == 0 || length >= STORE_NAME_SIZE || strchr(name, '/'))
        return history_fail(error, 400, "bad_parameter",
                            "%s must be a player name of 1 to %d bytes", what, STORE_NAME_SIZE - 1);
    for (size_t i = 0; i <= length; i++)
        key[i] = (char)tolower((unsigned char)name[i]);
    return 0;
}

static int parse_page(const url_query *query, history_request *out, history_result *error)
{
    out->limit = HISTORY_DEFAULT_LIMIT;
    out->after.is_first = true;
    const char *limit = url_query_get(query, "limit");
    uint64_t value = 0;
    if (limit && (parse_decimal(limit, 3, &value) != 0 || value < 1 || value > STORE_READ_MAX_PAGE))
        return history_fail(error, 400, "bad_parameter",
                            "limit must be a whole number from 1 to %d, not '%s'",
                            STORE_READ_MAX_PAGE, limit);
    if (limit)
        out->limit = (int)value;
    return 0;
}

/* The tag of position `after` in `request`'s list: the MAC of the route,
 * the filters (each NUL-terminated, so no two lists read alike) and the
 * position. A Reef board's `around` is no filter: its page's `next` goes
 * on without it. */
static void cursor_tag(const history_request *request, store_read_after after,
                       unsigned char tag[PAGE_CURSOR_TAG_BYTES])
{
    /* ?player_id is bound in the player's place as "#ID": no name has a '#'. */
    char player_id[24];
    snprintf(player_id, sizeof(player_id), "#%lld", (long long)request->player_id);
    const char *player = request->route != HISTORY_GAMES ? ""
                         : request->player_id            ? player_id
                                                         : request->player_key;
    char message[512];
    int length = snprintf(message, sizeof(message), "%d%c%s%c%s%c%s%c%s%c%lld%c%s%c%s%c%lld%c%lld",
                          (int)request->route, 0, player, 0, request->game, 0, request->mode, 0,
                          request->status, 0, (long long)request->tournament_id, 0, request->pool,
                          0, request->board, 0, (long long)after.key, 0, (long long)after.id);
    secret_mac(request->cursor_key, message, (size_t)length, tag);
}

void history_cursor_write(const history_request *request, store_read_after after,
                          char out[PAGE_CURSOR_SIZE])
{
    page_cursor cursor = {.key = after.key, .id = after.id};
    cursor_tag(request, after, cursor.tag);
    page_cursor_encode(&cursor, out);
}

/* The cursor, when given: one this list wrote. */
static int parse_cursor(const url_query *query, history_request *out, history_result *error)
{
    const char *cursor = url_query_get(query, "cursor");
    if (!cursor)
        return 0;
    page_cursor decoded;
    unsigned char expected[PAGE_CURSOR_TAG_BYTES];
    bool is_ours = page_cursor_decode(cursor, &decoded) == 0;
    store_read_after after = {false, decoded.key, decoded.id};
    if (is_ours)
        cursor_tag(out, after, expected);
    if (!is_ours || !secret_mac_equal(decoded.tag, expected))
        return history_fail(error, 400, "bad_parameter",
                            "cursor must be the 'next' of a previous page of this list (same "
                            "route and parameters), not '%s'",
                            cursor);
    out->after = after;
    return 0;
}

static int parse_games(const url_query *query, history_request *out, history_result *error)
{
    const char *player = url_query_get(query, "player");
    if (player && name_key(player, "player", out->player_key, error) != 0)
        return -1;
    const char *player_id = url_query_get(query, "player_id");
    uint64_t number = 0;
    if (player_id && (parse_decimal(player_id, 18, &number) != 0 || number == 0))
        return history_fail(error, 400, "bad_parameter",
                            "player_id must be a player id (a positive number), not '%s'",
                            player_id);
    if (player && player_id)
        return history_fail(error, 400, "bad_parameter", "give player or player_id, not both");
    out->player_id = (int64_t)number;
    if (parse_word(query, "game", GAME_NAMES, out->game, sizeof(out->game), error) != 0 ||
        parse_word(query, "status", STATUSES, out->status, sizeof(out->status), error) != 0)
        return -1;
    const char *const *modes = strcmp(out->game, "blokus") == 0         ? BLOKUS_MODES
                               : strcmp(out->game, "reef-builder") == 0 ? REEF_MODES
                                                                        : ALL_MODES;
    if (parse_word(query, "mode", modes, out->mode, sizeof(out->mode), error) != 0)
        return -1;
    /* The two games' modes differ, so a mode alone names its game too: the
     * list is then walked on the index of both (games_by_kind) instead of
     * testing every game for its mode. */
    if (!out->game[0] && out->mode[0])
        snprintf(out->game, sizeof(out->game), "%s",
                 is_one_of(out->mode, BLOKUS_MODES) ? "blokus" : "reef-builder");
    const char *tournament = url_query_get(query, "tournament");
    uint64_t id = 0;
    if (tournament && (parse_decimal(tournament, 18, &id) != 0 || id == 0))
        return history_fail(error, 400, "bad_parameter",
                            "tournament must be a tournament id (a positive number), not '%s'",
                            tournament);
    out->tournament_id = (int64_t)id;
    return 0;
}

static int parse_blokus_board(const url_query *query, const history_settings *settings,
                              history_request *out, history_result *error)
{
    char kind[STORE_READ_WORD_SIZE] = "4p";
    if (parse_word(query, "kind", BLOKUS_MODES, kind, sizeof(kind), error) != 0)
        return -1;
    snprintf(out->pool, sizeof(out->pool), "blokus-%s", kind);
    out->min_games = settings->leaderboard_min_games;
    return 0;
}

/* The board of a period that contains `now_ms`: the day's, or the week's
 * (named by its Monday, UTC), or "all". A day's and a week's board rank
 * runs of one seed, the period's (storage/store_reef_runs.c): the day's
 * daily seed, and for a week its Monday's. */
static void period_board(const char *period, int64_t now_ms, history_request *out)
{
    int64_t days = now_ms >= 0 ? now_ms / DAY_MS : 0;
    if (strcmp(period, "day") == 0) {
        out->has_seed = true;
        out->seed = reef_daily_seed(now_ms);
        snprintf(out->board, sizeof(out->board), "day:%llu", (unsigned long long)out->seed);
    } else if (strcmp(period, "week") == 0) {
        int64_t monday = days - (days + 3) % 7; /* 1970-01-01 was a Thursday */
        out->has_seed = true;
        out->seed = reef_daily_seed(monday * DAY_MS); /* the week's seed: its Monday's */
        snprintf(out->board, sizeof(out->board), "week:%llu", (unsigned long long)out->seed);
    } else {
        snprintf(out->board, sizeof(out->board), "all");
    }
}

static int parse_reef_board(const url_query *query, const history_settings *settings,
                            history_request *out, history_result *error)
{
    const char *seed = url_query_get(query, "seed");
    char period[8] = "day";
    if (parse_word(query, "period", PERIODS, period, sizeof(period), error) != 0)
        return -1;
    if (seed && url_query_get(query, "period"))
        return history_fail(error, 400, "bad_parameter", "give seed or period, not both");
    if (seed && parse_decimal(seed, MAX_SEED_DIGITS, &out->seed) != 0)
        return history_fail(error, 400, "bad_parameter",
                            "seed must be a whole number from 0 to 2^64-1, not '%s'", seed);
    if (seed) {
        out->has_seed = true;
        snprintf(out->board, sizeof(out->board), "seed:%llu", (unsigned long long)out->seed);
    } else {
        period_board(period, settings->now_ms, out);
    }
    const char *around = url_query_get(query, "around");
    if (around && url_query_get(query, "cursor"))
        return history_fail(error, 400, "bad_parameter",
                            "around starts a page of its own: give around or cursor, not both");
    return around ? name_key(around, "around", out->player_key, error) : 0;
}

/* A game id path segment: 1 to 18 digits, not starting with 0; *rest is
 * what follows it. */
static int parse_game_id(const char *text, int64_t *id, const char **rest)
{
    size_t digits = strspn(text, "0123456789");
    char number[20];
    if (digits == 0 || digits > 18 || text[0] == '0')
        return -1;
    memcpy(number, text, digits);
    number[digits] = '\0';
    *id = strtoll(number, NULL, 10);
    *rest = text + digits;
    return 0;
}

/* The route of `path`, and what the path itself carries. */
static int parse_path(const char *path, history_request *out, history_result *error)
{
    const char *rest = NULL;
    if (strcmp(path, GAMES_PATH) == 0)
        out->route = HISTORY_GAMES;
    else if (strcmp(path, BLOKUS_PATH) == 0)
        out->route = HISTORY_BLOKUS_BOARD;
    else if (strcmp(path, REEF_PATH) == 0)
        out->route = HISTORY_REEF_BOARD;
    else if (strcmp(path, TOURNAMENTS_PATH) == 0)
        out->route = HISTORY_TOURNAMENTS;
    else if (strncmp(path, TOURNAMENTS_PATH "/", strlen(TOURNAMENTS_PATH) + 1) == 0 &&
             parse_game_id(path + strlen(TOURNAMENTS_PATH) + 1, &out->game_id, &rest) == 0 &&
             !*rest)
        out->route = HISTORY_TOURNAMENT;
    else if (strncmp(path, PLAYERS_PATH, strlen(PLAYERS_PATH)) == 0 && path[strlen(PLAYERS_PATH)]) {
        out->route = HISTORY_PLAYER;
        return name_key(path + strlen(PLAYERS_PATH), "the player name", out->player_key, error);
    } else if (strncmp(path, GAMES_PATH "/", strlen(GAMES_PATH) + 1) == 0 &&
               parse_game_id(path + strlen(GAMES_PATH) + 1, &out->game_id, &rest) == 0 &&
               (!*rest || strcmp(rest, "/replay") == 0 || strcmp(rest, ".blksgf") == 0))
        out->route = !*rest ? HISTORY_GAME : rest[0] == '/' ? HISTORY_REPLAY : HISTORY_SGF;
    else
        return history_fail(error, 404, "not_found", "no route for GET %s", path);
    return 0;
}

/* The route's own parameters. */
static int parse_route_parameters(const url_query *query, const history_settings *settings,
                                  history_request *out, history_result *error)
{
    switch (out->route) {
    case HISTORY_GAMES:
        return parse_games(query, out, error);
    case HISTORY_BLOKUS_BOARD:
        return parse_blokus_board(query, settings, out, error);
    case HISTORY_REEF_BOARD:
        return parse_reef_board(query, settings, out, error);
    default:
        return 0;
    }
}

int history_parse(const char *path, const url_query *query, const history_settings *settings,
                  history_request *out, history_result *error)
{
    memset(out, 0, sizeof(*out));
    memset(error, 0, sizeof(*error));
    memcpy(out->cursor_key, settings->cursor_key, sizeof(out->cursor_key));
    if (parse_path(path, out, error) != 0 || check_names(query, out->route, error) != 0 ||
        parse_page(query, out, error) != 0 ||
        parse_route_parameters(query, settings, out, error) != 0)
        return -1;
    return parse_cursor(query, out, error);
}

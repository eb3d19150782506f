/* cmd_query.c -- `tessera query`: the history API from the command line.
 *
 * The options become the same path and query an HTTP client would send
 * (`query games --mode duo` is GET /api/games?mode=duo), so the command
 * checks its input and reads the database exactly as the server does
 * (history/history.h), on a read-only connection of its own. --json prints
 * the server's answer as it is; otherwise the answer is laid out as a
 * table, with the cursor of the next page, if any, on the last line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/open_database.h"
#include "history/history.h"

#define PATH_SIZE 256

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tessera query games [--player NAME] [--game G] [--mode M] [--status S]\n"
            "                           [--tournament ID] [--limit N] [--cursor C] --db FILE\n"
            "       tessera query player NAME --db FILE\n"
            "       tessera query leaderboard blokus [--kind 4p|3p|2p|duo] [--min-games N] ...\n"
            "       tessera query leaderboard reef [--seed N | --period day|week|all]\n"
            "                                      [--around NAME] [--limit N] [--cursor C] ...\n"
            "Add --json for the JSON the HTTP API answers (docs/API.md).\n");
}

struct options {
    char path[PATH_SIZE];
    url_query query;
    const char *db_path;
    bool is_json;
    long long min_games;
};

/* The route's path from the words after `query`; the number of words
 * used, or -1. */
static int parse_route(int argc, char **argv, char path[PATH_SIZE])
{
    if (argc >= 2 && strcmp(argv[1], "games") == 0) {
        snprintf(path, PATH_SIZE, "/api/games");
        return 2;
    }
    if (argc >= 3 && strcmp(argv[1], "player") == 0 && argv[2][0] != '-') {
        int length = snprintf(path, PATH_SIZE, "/api/players/%s", argv[2]);
        return length < PATH_SIZE ? 3 : -1;
    }
    if (argc >= 3 && strcmp(argv[1], "leaderboard") == 0 &&
        (strcmp(argv[2], "blokus") == 0 || strcmp(argv[2], "reef") == 0)) {
        snprintf(path, PATH_SIZE, "/api/leaderboards/%s", argv[2]);
        return 3;
    }
    return -1;
}

/* --db, --json and --min-games are the command's; any other --NAME VALUE
 * is the query's parameter NAME. */
static int parse_options(int argc, char **argv, struct options *options)
{
    int first = parse_route(argc, argv, options->path);
    for (int i = first; first > 0 && i < argc; i++) {
        const char *flag = argv[i];
        if (strcmp(flag, "--json") == 0) {
            options->is_json = true;
            continue;
        }
        if (strncmp(flag, "--", 2) != 0 || i + 1 >= argc)
            return -1;
        const char *value = argv[++i];
        if (strcmp(flag, "--db") == 0) {
            options->db_path = value;
        } else if (strcmp(flag, "--min-games") == 0) {
            char *end;
            options->min_games = strtoll(value, &end, 10);
            if (*end || options->min_games < 0)
                return -1;
        } else {
            char pair[PATH_SIZE];
            int length = snprintf(pair, sizeof(pair), "%s=%s", flag + 2, value);
            if (length >= (int)sizeof(pair) ||
                url_query_add(&options->query, pair, (size_t)length) != 0)
                return -1;
        }
    }
    return first > 0 && options->db_path ? 0 : -1;
}

static const char *text_of(const json_t *object, const char *key)
{
    const char *text = json_string_value(json_object_get(object, key));
    return text ? text : "-";
}

static long long number_of(const json_t *object, const char *key)
{
    return (long long)json_integer_value(json_object_get(object, key));
}

static void print_next(const json_t *answer)
{
    const char *next = json_string_value(json_object_get(answer, "next"));
    if (next)
        printf("next page: --cursor %s\n", next);
}

/* "alice 25 (1), greedy 76 (2)": each seat's name, score and rank. */
static void print_seats(const json_t *seats)
{
    size_t index;
    json_t *seat;
    json_array_foreach(seats, index, seat)
    {
        const json_t *player = json_object_get(seat, "player");
        const char *name = json_is_object(player) ? text_of(player, "name") : text_of(seat, "bot");
        printf("%s%s", index ? ", " : "", name);
        if (json_is_integer(json_object_get(seat, "score")))
            printf(" %lld (%lld)", number_of(seat, "score"), number_of(seat, "rank"));
    }
}

static void print_games(const json_t *games)
{
    printf("%-8s %-13s %-5s %-9s %s\n", "id", "game", "mode", "status", "seats: score (rank)");
    size_t index;
    json_t *game;
    json_array_foreach(games, index, game)
    {
        printf("%-8lld %-13s %-5s %-9s ", number_of(game, "id"), text_of(game, "game"),
               text_of(game, "mode"), text_of(game, "status"));
        print_seats(json_object_get(game, "seats"));
        printf("\n");
    }
}

static void print_blokus_board(const json_t *answer)
{
    printf("%s, at least %lld games\n", text_of(answer, "pool"), number_of(answer, "min_games"));
    printf("%5s %-24s %8s %8s %7s %6s %6s\n", "rank", "player", "rating", "mu", "sigma", "games",
           "wins");
    size_t index;
    json_t *entry;
    json_array_foreach(json_object_get(answer, "items"), index, entry)
    {
        printf("%5lld %-24s %8.2f %8.2f %7.2f %6lld %6lld\n", number_of(entry, "rank"),
               text_of(json_object_get(entry, "player"), "name"),
               json_real_value(json_object_get(entry, "rating")),
               json_real_value(json_object_get(entry, "mu")),
               json_real_value(json_object_get(entry, "sigma")), number_of(entry, "games"),
               number_of(entry, "wins"));
    }
}

static void print_reef_board(const json_t *answer)
{
    printf("board %s\n%5s %-24s %8s %8s\n", text_of(answer, "board"), "rank", "player", "score",
           "run");
    size_t index;
    json_t *entry;
    json_array_foreach(json_object_get(answer, "items"), index, entry)
    {
        printf("%5lld %-24s %8lld %8lld\n", number_of(entry, "rank"),
               text_of(json_object_get(entry, "player"), "name"), number_of(entry, "score"),
               number_of(entry, "run_id"));
    }
}

static void print_player(const json_t *answer)
{
    const json_t *player = json_object_get(answer, "player");
    printf("%s (id %lld%s): %lld games, %lld wins\n\n", text_of(player, "name"),
           number_of(player, "id"), json_is_true(json_object_get(answer, "bot")) ? ", bot" : "",
           number_of(answer, "games_played"), number_of(answer, "wins"));
    printf("%-11s %8s %8s %7s %6s %6s\n", "pool", "rating", "mu", "sigma", "games", "wins");
    size_t index;
    json_t *entry;
    json_array_foreach(json_object_get(answer, "ratings"), index, entry)
    {
        printf("%-11s %8.2f %8.2f %7.2f %6lld %6lld\n", text_of(entry, "pool"),
               json_real_value(json_object_get(entry, "rating")),
               json_real_value(json_object_get(entry, "mu")),
               json_real_value(json_object_get(entry, "sigma")), number_of(entry, "games"),
               number_of(entry, "wins"));
    }
    printf("\n%-24s %8s\n", "reef board", "best");
    json_array_foreach(json_object_get(answer, "reef_best"), index, entry)
    {
        printf("%-24s %8lld\n", text_of(entry, "board"), number_of(entry, "score"));
    }
    printf("\nrecent games\n");
    print_games(json_object_get(answer, "recent_games"));
}

static void print_table(history_route route, const json_t *answer)
{
    switch (route) {
    case HISTORY_GAMES:
        print_games(json_object_get(answer, "items"));
        break;
    case HISTORY_PLAYER:
        print_player(answer);
        return;
    case HISTORY_BLOKUS_BOARD:
        print_blokus_board(answer);
        break;
    default:
        print_reef_board(answer);
        break;
    }
    print_next(answer);
}

/* Opens a reader of the database and reads its cursor key: 0, or the
 * exit status. */
static int open_reader(const struct options *options, store **reader,
                       unsigned char cursor_key[STORE_CURSOR_KEY_BYTES])
{
    int status = cli_open_existing("query", options->db_path, true, reader);
    if (status != 0)
        return status;
    int rc = store_read_cursor_key(*reader, cursor_key);
    if (rc != STORE_OK) {
        fprintf(stderr, "query: cannot read the database's cursor key: %s\n", store_strerror(rc));
        return 1;
    }
    return 0;
}

/* Runs the request on `reader`: 0, or the exit status. */
static int run(store *reader, const struct options *options, const history_request *request)
{
    history_result result;
    history_run(reader, request, &result);
    int status = 0;
    json_t *answer = NULL;
    if (result.status != 200) {
        fprintf(stderr, "query: %s: %s\n", result.failure.code, result.failure.message);
        status = result.status == 500 ? 1 : 2;
    } else if (!(answer = json_loadb(result.text, result.length, 0, NULL))) {
        fprintf(stderr, "query: out of memory\n");
        status = 1;
    } else if (options->is_json) {
        char *text = json_dumps(answer, JSON_INDENT(2));
        if (text)
            puts(text);
        status = text ? 0 : 1;
        free(text);
    } else {
        print_table(request->route, answer);
    }
    json_decref(answer);
    history_result_clear(&result);
    return status;
}

int cmd_query(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    struct options options = {.min_games = 1};
    history_request request;
    history_result error;
    store *reader = NULL;
    unsigned char cursor_key[STORE_CURSOR_KEY_BYTES];
    int status = 2;
    if (parse_options(argc, argv, &options) != 0) {
        usage(stderr);
    } else if ((status = open_reader(&options, &reader, cursor_key)) == 0) {
        history_settings settings = {options.min_games, (int64_t)time(NULL) * 1000, cursor_key};
        if (history_parse(options.path, &options.query, &settings, &request, &error) != 0) {
            fprintf(stderr, "query: %s\n", error.failure.message);
            status = 2;
        } else {
            status = run(reader, &options, &request);
        }
    }
    store_close(reader);
    url_query_clear(&options.query);
    return status;
}

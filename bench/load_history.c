/* load_history.c -- the history queries' mix, schedule and figures (see
 * load_history.h).
 *
 * The mix, in percent of requests: games lists 14 (unfiltered, by game
 * and mode, by mode alone -- which the server reads as its game and mode
 * -- or by status), a player's games 10 (a third also by mode), a tournament's
 * games 4, game details 14, replays 12, SGF 6, profiles 12, Blokus
 * leaderboards 12, Reef boards 10 (a seed's, the day's, the week's, all
 * time) and Reef boards around a player 6. Lists ask for 10 to 100 rows.
 * The server takes back only the cursors it wrote, for the list it wrote
 * them for, so deep pages come from chains: the unfiltered games list, the
 * Blokus boards and the all-time Reef board continue from the `next` of
 * their previous page (a chain per list), so they walk down to the last
 * page and start again; the other lists ask for their first page. The
 * Blokus sample (for SGF requests) is each mode's newest page.
 *
 * Only the set-up answers are parsed with jansson; the measured answers
 * are only checked for their status, and a chain's `next` is found with
 * json_scan, so the load generator stays cheap per request. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/history_names.h"
#include "bench/http_client.h"
#include "bench/json_scan.h"
#include "bench/load_history.h"
#include "protocol/page_cursor.h"

#define TICK_MS            1
#define PATH_SIZE          256
#define SAMPLE_PAGE_SIZE   100 /* ids per sample page, one page per Blokus mode */
#define SAMPLE_MAX         (4 * SAMPLE_PAGE_SIZE)
#define MAX_PRINTED_ERRORS 5
#define BLOKUS_KINDS       4
#define CHAIN_REEF_ALL     BLOKUS_KINDS /* chains 0-3: the Blokus boards by kind */
#define CHAIN_GAMES        (BLOKUS_KINDS + 1)
#define CHAINS             (BLOKUS_KINDS + 2)

static const char *const ROUTE_NAMES[LOAD_HISTORY_ROUTES] = {
    "games",  "games?player", "games?tournament", "game",       "replay",
    "blksgf", "player",       "board/blokus",     "board/reef", "board/reef?around"};

/* Percent of requests per route, in route order. */
static const int ROUTE_WEIGHTS[LOAD_HISTORY_ROUTES] = {14, 10, 4, 14, 12, 6, 12, 12, 10, 6};

static const char *const BLOKUS_KINDS_NAMES[BLOKUS_KINDS] = {"4p", "3p", "2p", "duo"};
static const int PAGE_SIZES[] = {10, 20, 20, 50, 100};

/* One request in flight. */
struct query {
    struct load_history *history;
    load_history_route route;
    uint64_t due_ns, sent_ns;
    bool is_counted; /* due inside the measured window */
    int chain;       /* the board chain its `next` continues, or -1 */
    char path[PATH_SIZE];
    struct query *previous, *next;
};

struct load_history {
    load_history_config config;
    uv_loop_t *loop;
    const load_stats *window;
    load_history_stats *stats;
    http_client *client;
    uv_timer_t tick;
    rng choices;
    int64_t newest_id;
    int64_t blokus_ids[SAMPLE_MAX];
    int blokus_count;
    int setup_pending; /* set-up requests not answered yet */
    char chains[CHAINS][PAGE_CURSOR_SIZE];
    uint64_t next_due_ns, interval_ns;
    bool is_stopped, has_failed;
    int printed_errors;
    struct query *queries; /* in flight */
};

/* ---- choices --------------------------------------------------------------- */

static uint32_t draw(load_history *history, uint32_t below)
{
    return rng_below(&history->choices, below);
}

static int64_t random_game_id(load_history *history)
{
    return 1 + (int64_t)(rng_next(&history->choices) % (uint64_t)history->newest_id);
}

static void random_player(load_history *history, char name[HISTORY_NAME_SIZE])
{
    history_player_name(history_draw_player(&history->choices, history->config.players), name);
}

static int page_size(load_history *history)
{
    return PAGE_SIZES[draw(history, sizeof(PAGE_SIZES) / sizeof(PAGE_SIZES[0]))];
}

static load_history_route draw_route(load_history *history)
{
    int roll = (int)draw(history, 100), route = 0;
    while (roll >= ROUTE_WEIGHTS[route] && route + 1 < LOAD_HISTORY_ROUTES)
        roll -= ROUTE_WEIGHTS[route++];
    return (load_history_route)route;
}

/* ---- paths ------------------------------------------------------------------- */

static void games_path(load_history *history, struct query *q)
{
    static const char *const FILTERS[] = {
        "",         "&game=blokus&mode=4p", "&game=blokus&mode=duo", "&game=reef-builder&mode=race",
        "&mode=3p", "&status=finished"};
    const char *filter = FILTERS[draw(history, sizeof(FILTERS) / sizeof(FILTERS[0]))];
    const char *cursor = filter[0] ? "" : history->chains[CHAIN_GAMES];
    q->chain = filter[0] ? -1 : CHAIN_GAMES;
    snprintf(q->path, PATH_SIZE, "/api/games?limit=%d%s%s%s", page_size(history), filter,
             cursor[0] ? "&cursor=" : "", cursor);
}

static void games_of_player_path(load_history *history, struct query *q)
{
    char name[HISTORY_NAME_SIZE];
    random_player(history, name);
    snprintf(q->path, PATH_SIZE, "/api/games?player=%s&limit=%d%s", name, page_size(history),
             draw(history, 3) == 0 ? "&mode=duo" : "");
}

static void blokus_board_path(load_history *history, struct query *q)
{
    int kind = (int)draw(history, BLOKUS_KINDS);
    q->chain = kind;
    const char *cursor = history->chains[kind];
    snprintf(q->path, PATH_SIZE, "/api/leaderboards/blokus?kind=%s&limit=%d%s%s",
             BLOKUS_KINDS_NAMES[kind], page_size(history), cursor[0] ? "&cursor=" : "", cursor);
}

static void reef_board_path(load_history *history, struct query *q)
{
    uint32_t roll = draw(history, 10);
    if (roll < 4) {
        snprintf(q->path, PATH_SIZE, "/api/leaderboards/reef?seed=%u&limit=%d",
                 1 + draw(history, HISTORY_REEF_SEEDS), page_size(history));
    } else if (roll < 8) {
        snprintf(q->path, PATH_SIZE, "/api/leaderboards/reef?period=%s&limit=%d",
                 roll < 6 ? "day" : "week", page_size(history));
    } else {
        const char *cursor = history->chains[CHAIN_REEF_ALL];
        q->chain = CHAIN_REEF_ALL;
        snprintf(q->path, PATH_SIZE, "/api/leaderboards/reef?period=all&limit=%d%s%s",
                 page_size(history), cursor[0] ? "&cursor=" : "", cursor);
    }
}

static void build_path(load_history *history, struct query *q)
{
    char name[HISTORY_NAME_SIZE];
    int64_t id = random_game_id(history);
    int sampled = history->blokus_count ? (int)draw(history, (uint32_t)history->blokus_count) : 0;
    q->chain = -1;
    switch (q->route) {
    case LOAD_HISTORY_GAMES:
        games_path(history, q);
        return;
    case LOAD_HISTORY_GAMES_OF_PLAYER:
        games_of_player_path(history, q);
        return;
    case LOAD_HISTORY_GAMES_OF_CONTEST:
        snprintf(q->path, PATH_SIZE, "/api/games?tournament=%u&limit=20",
                 1 + draw(history, (uint32_t)history_tournament_count(history->newest_id) + 1));
        return;
    case LOAD_HISTORY_GAME:
        snprintf(q->path, PATH_SIZE, "/api/games/%lld", (long long)id);
        return;
    case LOAD_HISTORY_REPLAY:
        snprintf(q->path, PATH_SIZE, "/api/games/%lld/replay", (long long)id);
        return;
    case LOAD_HISTORY_SGF:
        snprintf(q->path, PATH_SIZE, "/api/games/%lld.blksgf",
                 (long long)(history->blokus_count ? history->blokus_ids[sampled] : id));
        return;
    case LOAD_HISTORY_PLAYER:
        random_player(history, name);
        snprintf(q->path, PATH_SIZE, "/api/players/%s", name);
        return;
    case LOAD_HISTORY_BLOKUS_BOARD:
        blokus_board_path(history, q);
        return;
    case LOAD_HISTORY_REEF_BOARD:
        reef_board_path(history, q);
        return;
    case LOAD_HISTORY_REEF_AROUND:
        random_player(history, name);
        snprintf(q->path, PATH_SIZE, "/api/leaderboards/reef?period=%s&around=%s&limit=%d",
                 draw(history, 10) < 7 ? "all" : "week", name, page_size(history));
        return;
    case LOAD_HISTORY_ROUTES:
        break;
    }
}

/* ---- queries in flight -------------------------------------------------- */

static struct query *new_query(load_history *history)
{
    struct query *q = calloc(1, sizeof(*q));
    if (!q)
        return NULL;
    q->history = history;
    q->next = history->queries;
    if (history->queries)
        history->queries->previous = q;
    history->queries = q;
    return q;
}

static void free_query(struct query *q)
{
    load_history *history = q->history;
    if (q->previous)
        q->previous->next = q->next;
    else
        history->queries = q->next;
    if (q->next)
        q->next->previous = q->previous;
    free(q);
}

/* Continues the query's board chain from the answer's `next`. */
static void follow_chain(load_history *history, int chain, const http_answer *answer)
{
    json_span whole = {answer->body, answer->length}, next;
    char *cursor = history->chains[chain];
    if (!json_scan_find(whole, "next", &next) || next.length != PAGE_CURSOR_SIZE + 1) {
        cursor[0] = '\0'; /* null: the board's end; start again at the top */
        return;
    }
    memcpy(cursor, next.start + 1, PAGE_CURSOR_SIZE - 1);
    cursor[PAGE_CURSOR_SIZE - 1] = '\0';
}

static void count_error(load_history *history, const struct query *q, const http_answer *answer)
{
    history->stats->errors[q->route]++;
    if (history->printed_errors++ >= MAX_PRINTED_ERRORS)
        return;
    if (answer->status)
        fprintf(stderr, "tessera-load: GET %s -> %d %.*s\n", q->path, answer->status,
                (int)(answer->length > 200 ? 200 : answer->length), answer->body);
    else
        fprintf(stderr, "tessera-load: GET %s -> no answer: %s\n", q->path, answer->error);
}

static void on_answer(void *user, const http_answer *answer)
{
    struct query *q = user;
    load_history *history = q->history;
    load_history_stats *stats = history->stats;
    uint64_t now = uv_hrtime();
    uint64_t latency_us = (now - q->sent_ns) / 1000, due_latency_us = (now - q->due_ns) / 1000;
    if (q->chain >= 0 && answer->status == 200)
        follow_chain(history, q->chain, answer);
    if (q->is_counted && (answer->status == 200 || answer->status == 404)) {
        histogram_record(&stats->latency_us[q->route], latency_us);
        histogram_record(&stats->all_latency_us, latency_us);
        histogram_record(&stats->due_latency_us[q->route], due_latency_us);
        histogram_record(&stats->all_due_latency_us, due_latency_us);
        if (answer->status == 200)
            stats->answers[q->route]++, stats->bytes[q->route] += answer->length;
        else
            stats->not_found[q->route]++;
    } else if (q->is_counted) {
        count_error(history, q, answer);
    }
    free_query(q);
}

/* Sends the request due at `due_ns`, now `now_ns`. */
static void send_query(load_history *history, uint64_t due_ns, uint64_t now_ns)
{
    load_history_route route = draw_route(history);
    bool is_counted = history->window->is_measuring;
    if (is_counted) {
        history->stats->due++;
        histogram_record(&history->stats->send_lag_us, (now_ns - due_ns) / 1000);
    }
    struct query *q = new_query(history);
    if (!q) {
        history->stats->errors[route] += is_counted;
        return;
    }
    q->route = route;
    q->due_ns = due_ns;
    q->sent_ns = now_ns;
    q->is_counted = is_counted;
    build_path(history, q);
    if (http_client_get(history->client, q->path, on_answer, q) != 0) {
        history->stats->errors[q->route] += is_counted;
        free_query(q);
    }
}

static void on_tick(uv_timer_t *timer)
{
    load_history *history = timer->data;
    uint64_t now = uv_hrtime();
    while (!history->is_stopped && history->next_due_ns <= now) {
        send_query(history, history->next_due_ns, now);
        history->next_due_ns += history->interval_ns;
    }
}

/* ---- set-up ------------------------------------------------------------------ */

static void start_schedule(load_history *history)
{
    history->next_due_ns = uv_hrtime();
    uv_timer_start(&history->tick, on_tick, TICK_MS, TICK_MS);
}

/* The ids of a games list's items, added to the Blokus sample. */
static void add_sample(load_history *history, json_t *items)
{
    size_t index;
    json_t *item;
    json_array_foreach(items, index, item)
    {
        json_int_t id = json_integer_value(json_object_get(item, "id"));
        if (id > 0 && history->blokus_count < SAMPLE_MAX)
            history->blokus_ids[history->blokus_count++] = id;
    }
}

static void on_sample(void *user, const http_answer *answer)
{
    struct query *q = user;
    load_history *history = q->history;
    json_t *json = answer->status == 200 ? json_loadb(answer->body, answer->length, 0, NULL) : NULL;
    add_sample(history, json_object_get(json, "items"));
    json_decref(json);
    free_query(q);
    if (--history->setup_pending > 0 || history->is_stopped)
        return;
    if (history->blokus_count == 0) {
        fprintf(stderr, "tessera-load: the database has no Blokus game to sample\n");
        history->has_failed = true;
        return;
    }
    start_schedule(history);
}

static void ask_sample(load_history *history, const char *mode)
{
    struct query *q = new_query(history);
    if (!q) {
        history->setup_pending--;
        return;
    }
    snprintf(q->path, PATH_SIZE, "/api/games?game=blokus&mode=%s&limit=%d", mode, SAMPLE_PAGE_SIZE);
    if (http_client_get(history->client, q->path, on_sample, q) != 0) {
        free_query(q);
        history->setup_pending--;
    }
}

static void on_newest(void *user, const http_answer *answer)
{
    struct query *q = user;
    load_history *history = q->history;
    json_t *json = answer->status == 200 ? json_loadb(answer->body, answer->length, 0, NULL) : NULL;
    json_t *first = json_array_get(json_object_get(json, "items"), 0);
    history->newest_id = json_integer_value(json_object_get(first, "id"));
    json_decref(json);
    free_query(q);
    if (history->newest_id < 1) {
        fprintf(stderr,
                "tessera-load: the history API lists no game (%d %s): generate the "
                "database with gen_history_db\n",
                answer->status, answer->error ? answer->error : "");
        history->has_failed = true;
        return;
    }
    history->setup_pending = BLOKUS_KINDS;
    for (int kind = 0; kind < BLOKUS_KINDS; kind++)
        ask_sample(history, BLOKUS_KINDS_NAMES[kind]);
}

/* ---- the API --------------------------------------------------------------------- */

int load_history_new(uv_loop_t *loop, const load_history_config *config, const load_stats *stats,
                     load_history **out)
{
    if (config->rate <= 0 || config->players < 1)
        return UV_EINVAL;
    load_history *history = calloc(1, sizeof(*history));
    load_history_stats *figures = calloc(1, sizeof(*figures));
    int rc = history && figures ? 0 : UV_ENOMEM;
    if (rc == 0)
        rc = http_client_new(loop, config->host, config->port, config->max_connections,
                             &history->client);
    if (rc == 0)
        rc = uv_timer_init(loop, &history->tick);
    if (rc != 0) {
        if (history)
            http_client_free(history->client);
        free(history);
        free(figures);
        return rc;
    }
    history->config = *config;
    history->loop = loop;
    history->window = stats;
    history->stats = figures;
    history->tick.data = history;
    history->choices = rng_seeded(config->seed);
    history->interval_ns = (uint64_t)(1e9 / config->rate);
    struct query *q = new_query(history);
    if (q)
        snprintf(q->path, PATH_SIZE, "/api/games?limit=1");
    rc = q ? http_client_get(history->client, q->path, on_newest, q) : UV_ENOMEM;
    if (rc != 0) {
        load_history_free(history);
        return rc;
    }
    *out = history;
    return 0;
}

void load_history_stop(load_history *history)
{
    history->is_stopped = true;
    uv_timer_stop(&history->tick);
}

const load_history_stats *load_history_stats_of(const load_history *history)
{
    return history->stats;
}

bool load_history_has_failed(const load_history *history)
{
    return history->has_failed;
}

const char *load_history_route_name(load_history_route route)
{
    return route < LOAD_HISTORY_ROUTES ? ROUTE_NAMES[route] : "unknown";
}

void load_history_free(load_history *history)
{
    if (!history)
        return;
    load_history_stop(history);
    http_client_free(history->client);
    while (history->queries)
        free_query(history->queries);
    uv_close((uv_handle_t *)&history->tick, NULL);
    uv_run(history->loop, UV_RUN_NOWAIT);
    free(history->stats);
    free(history);
}

/* history_run.c -- a parsed history request, read and written as JSON.
 *
 * Runs on a worker thread with a reader of its own; it touches nothing
 * shared. Each route is a few reads (storage/store_read.h: index ranges
 * only) and the JSON of what they found, written straight into one buffer
 * (json_out) in the order of its fields: building a jansson tree of every
 * game, seat and chart point first cost more than the reads on a busy
 * page (a 100-game list: 2.1 ms of server CPU with the tree, 0.8 without).
 * What arrives as a tree -- a tournament's view, a stored JSON column --
 * is written with json_out_value. A replay and an
 * SGF file replay the stored moves through the rules (replay_write,
 * sgf_export), the way a restart does, so the cells and scores a viewer
 * draws are the rules' own. A failed read drops what was written and
 * answers 500.
 *
 * Shapes shared by every answer: a player is {"id","name"}; times are
 * milliseconds since the Unix epoch in fields ending in _ms; a list is
 * {"items": [...], "next": cursor or null}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/history.h"
#include "history/replay.h"
#include "history/sgf.h"
#include "lobby/lobby.h"
#include "protocol/error_json.h"
#include "protocol/json_out.h"
#include "storage/rating.h"

#define SGF_CONTENT_TYPE  "application/x-blokus-sgf"
#define JSON_CONTENT_TYPE "application/json"

static int storage_failure(history_result *result, int rc)
{
    return history_fail(result, 500, "storage_error", "the database could not be read: %s",
                        store_strerror(rc));
}

/* The answer written into `out` becomes the result (taken), or a 500 when
 * writing it ran out of memory. */
static void succeed(history_result *result, json_out *out)
{
    size_t length = 0;
    char *text = json_out_take(out, &length);
    if (!text) {
        history_fail(result, 500, "internal", "the server ran out of memory");
        return;
    }
    result->status = 200;
    result->text = text;
    result->length = length;
}

/* A failed read: what was written is dropped and the result is a 500. */
static void fail_read(history_result *result, json_out *out, int rc)
{
    json_out_free(out);
    storage_failure(result, rc);
}

static void write_string_or_null(json_out *out, const char *text)
{
    if (text[0])
        json_out_string(out, text);
    else
        json_out_text(out, "null");
}

static void write_bool(json_out *out, bool value)
{
    json_out_text(out, value ? "true" : "false");
}

/* {"id","name" (and "guest" when `guest` is not NULL)}. */
static void write_player(json_out *out, int64_t id, const char *name, const bool *guest)
{
    json_out_text(out, "{\"id\":");
    json_out_int(out, id);
    json_out_text(out, ",\"name\":");
    json_out_string(out, name);
    if (guest) { /* a guest has no profile: clients do not link its name */
        json_out_text(out, ",\"guest\":");
        write_bool(out, *guest);
    }
    json_out_text(out, "}");
}

static void write_seat(json_out *out, const store_seat *seat)
{
    json_out_text(out, "{\"seat\":");
    json_out_int(out, seat->seat);
    json_out_text(out, ",\"player\":");
    if (seat->player_id > 0)
        write_player(out, seat->player_id, seat->player_name, &seat->is_guest);
    else
        json_out_text(out, "null");
    json_out_text(out, ",\"bot\":");
    write_string_or_null(out, seat->bot);
    if (!seat->has_result) {
        json_out_text(out, ",\"score\":null,\"rank\":null,\"winner\":null}");
        return;
    }
    json_out_text(out, ",\"score\":");
    json_out_int(out, seat->score);
    json_out_text(out, ",\"rank\":");
    json_out_int(out, seat->rank);
    json_out_text(out, ",\"winner\":");
    write_bool(out, seat->is_winner);
    json_out_text(out, "}");
}

/* A game's summary without its closing brace, so a route can add fields. */
static void write_summary_open(json_out *out, const store_game_summary *game)
{
    json_out_text(out, "{\"id\":");
    json_out_int(out, game->id);
    json_out_text(out, ",\"game\":");
    json_out_string(out, game->game);
    json_out_text(out, ",\"mode\":");
    json_out_string(out, game->mode);
    json_out_text(out, ",\"status\":");
    json_out_string(out, game->status);
    json_out_text(out, ",\"tournament\":");
    json_out_int_or_null(out, game->tournament_id > 0 ? game->tournament_id : -1);
    json_out_text(out, ",\"created_at_ms\":");
    json_out_int(out, game->created_at_ms);
    json_out_text(out, ",\"started_at_ms\":");
    json_out_int_or_null(out, game->started_at_ms);
    json_out_text(out, ",\"finished_at_ms\":");
    json_out_int_or_null(out, game->finished_at_ms);
    json_out_text(out, ",\"seats\":[");
    for (int i = 0; i < game->seat_count; i++) {
        if (i > 0)
            json_out_text(out, ",");
        write_seat(out, &game->seats[i]);
    }
    json_out_text(out, "]");
}

static void write_summary(json_out *out, const store_game_summary *game)
{
    write_summary_open(out, game);
    json_out_text(out, "}");
}

/* A rating's members "mu", "sigma" and "rating" (its displayed value). */
static void write_rating_members(json_out *out, rating value)
{
    json_out_text(out, "\"mu\":");
    json_out_real(out, value.mu);
    json_out_text(out, ",\"sigma\":");
    json_out_real(out, value.sigma);
    json_out_text(out, ",\"rating\":");
    json_out_real(out, rating_display(value));
}

static void write_rating_point(json_out *out, double mu, double sigma)
{
    json_out_text(out, "{");
    write_rating_members(out, (rating){mu, sigma});
    json_out_text(out, "}");
}

static void write_change(json_out *out, const store_rating_delta *change)
{
    json_out_text(out, "{\"player\":");
    write_player(out, change->player_id, change->player_name, NULL);
    json_out_text(out, ",\"pool\":");
    json_out_string(out, change->pool);
    json_out_text(out, ",\"game_id\":");
    json_out_int(out, change->game_id);
    json_out_text(out, ",\"before\":");
    write_rating_point(out, change->mu_before, change->sigma_before);
    json_out_text(out, ",\"after\":");
    write_rating_point(out, change->mu_after, change->sigma_after);
    json_out_text(out, ",\"at_ms\":");
    json_out_int(out, change->at_ms);
    json_out_text(out, "}");
}

/* A rating's fields after its pool: "mu" ... "average_score". */
static void write_rating_fields(json_out *out, const store_pool_rating *pool)
{
    json_out_text(out, "\"mu\":");
    json_out_real(out, pool->mu);
    json_out_text(out, ",\"sigma\":");
    json_out_real(out, pool->sigma);
    json_out_text(out, ",\"rating\":");
    json_out_real(out, pool->display);
    json_out_text(out, ",\"games\":");
    json_out_int(out, pool->games);
    json_out_text(out, ",\"wins\":");
    json_out_int(out, pool->wins);
    json_out_text(out, ",\"average_score\":");
    if (pool->games > 0)
        json_out_real(out, (double)pool->score_total / (double)pool->games);
    else
        json_out_text(out, "null");
}

/* A Reef run's fields after its board: "score", "run_id", "at_ms". */
static void write_reef_fields(json_out *out, const store_reef_entry *entry)
{
    json_out_text(out, "\"score\":");
    json_out_int(out, entry->score);
    json_out_text(out, ",\"run_id\":");
    json_out_int(out, entry->run_id);
    json_out_text(out, ",\"at_ms\":");
    json_out_int(out, entry->at_ms);
}

/* A leaderboard entry's start: {"rank","player", ready for its fields. */
static void write_ranked_open(json_out *out, int64_t rank, int64_t player_id, const char *name)
{
    json_out_text(out, "{\"rank\":");
    json_out_int(out, rank);
    json_out_text(out, ",\"player\":");
    write_player(out, player_id, name, NULL);
    json_out_text(out, ",");
}

/* A list's end: ],"next": the cursor or null (the object stays open). */
static void write_page_end(json_out *out, const history_request *request,
                           const store_read_page *page)
{
    json_out_text(out, "],\"next\":");
    if (page->has_next) {
        char cursor[PAGE_CURSOR_SIZE];
        history_cursor_write(request, page->next, cursor);
        json_out_string(out, cursor);
    } else {
        json_out_text(out, "null");
    }
}

/* The player of a name key, as a parameter: 400 unknown_player if none. */
static int find_player(store *reader, const char *key, const char *parameter,
                       store_profile *profile, history_result *result)
{
    int rc = store_read_player_by_key(reader, key, profile);
    if (rc == STORE_E_NOT_FOUND)
        return history_fail(result, 400, "unknown_player",
                            "%s: no account or bot is called '%s' (guests have no profile)",
                            parameter, key);
    return rc == STORE_OK ? 0 : storage_failure(result, rc);
}

static const char *or_null(const char *text)
{
    return text[0] ? text : NULL;
}

static void run_games(store *reader, const history_request *request, history_result *result)
{
    store_game_filter filter = {0, or_null(request->game), or_null(request->mode),
                                or_null(request->status), request->tournament_id};
    store_profile player;
    if (request->player_key[0] &&
        find_player(reader, request->player_key, "player", &player, result) != 0)
        return;
    filter.player_id = request->player_key[0] ? player.id : request->player_id;
    store_game_summary *items = malloc(sizeof(*items) * (size_t)request->limit);
    store_read_page page;
    int rc = items ? store_read_games(reader, &filter, request->after, request->limit, items, &page)
                   : STORE_E_NOMEM;
    json_out out = JSON_OUT_EMPTY;
    json_out_text(&out, "{\"items\":[");
    for (int i = 0; rc == STORE_OK && i < page.count; i++) {
        if (i > 0)
            json_out_text(&out, ",");
        write_summary(&out, &items[i]);
    }
    free(items);
    if (rc != STORE_OK) {
        fail_read(result, &out, rc);
        return;
    }
    write_page_end(&out, request, &page);
    json_out_text(&out, "}");
    succeed(result, &out);
}

/* Loads game `id` whole (seats and moves): 0, or -1 with a 404 or 500. */
static int load_game(store *reader, int64_t id, store_game_record **record, history_result *result)
{
    int rc = store_game_load(reader, id, record);
    if (rc == STORE_E_NOT_FOUND)
        return history_fail(result, 404, "not_found", "no game %lld", (long long)id);
    return rc == STORE_OK ? 0 : storage_failure(result, rc);
}

/* Each seat's moves, time used and last clock reading. */
static void write_clocks(json_out *out, const store_game_record *record)
{
    json_out_text(out, "[");
    for (int i = 0; i < record->seat_count; i++) {
        int seat = record->seats[i].seat, moves = 0;
        int64_t used_ms = 0, clock_ms = -1;
        for (int m = 0; m < record->move_count; m++) {
            if (record->moves[m].seat != seat)
                continue;
            moves++;
            used_ms += record->moves[m].elapsed_ms;
            clock_ms = record->moves[m].clock_ms;
        }
        json_out_text(out, i > 0 ? ",{\"seat\":" : "{\"seat\":");
        json_out_int(out, seat);
        json_out_text(out, ",\"moves\":");
        json_out_int(out, moves);
        json_out_text(out, ",\"time_used_ms\":");
        json_out_int(out, used_ms);
        json_out_text(out, ",\"clock_ms\":");
        json_out_int_or_null(out, clock_ms);
        json_out_text(out, "}");
    }
    json_out_text(out, "]");
}

/* A stored JSON column as it was stored, compact (null for none). */
static void write_stored(json_out *out, const char *text)
{
    if (!text) {
        json_out_text(out, "null");
        return;
    }
    json_t *value = json_loads(text, 0, NULL);
    json_out_value(out, value); /* NULL marks the writer failed */
    json_decref(value);
}

/* A loaded game's summary, as the games list shows it. */
static void summary_of(const store_game_record *record, store_game_summary *summary)
{
    memset(summary, 0, sizeof(*summary));
    summary->id = record->id;
    snprintf(summary->game, sizeof(summary->game), "%s", record->info.game);
    snprintf(summary->mode, sizeof(summary->mode), "%s", record->info.mode);
    snprintf(summary->status, sizeof(summary->status), "%s",
             store_game_status_name(record->status));
    summary->tournament_id = record->info.tournament_id;
    summary->created_at_ms = record->info.created_at_ms;
    summary->started_at_ms = record->started_at_ms;
    summary->finished_at_ms = record->finished_at_ms;
    summary->seat_count = record->seat_count;
    memcpy(summary->seats, record->seats, sizeof(record->seats[0]) * (size_t)record->seat_count);
}

static void run_game(store *reader, const history_request *request, history_result *result)
{
    store_game_record *record = NULL;
    if (load_game(reader, request->game_id, &record, result) != 0)
        return;
    store_rating_delta changes[STORE_MAX_SEATS];
    int count = 0;
    int rc = store_read_game_rating_changes(reader, request->game_id, changes, &count);
    if (rc != STORE_OK) {
        store_game_record_free(record);
        storage_failure(result, rc);
        return;
    }
    store_game_summary summary;
    summary_of(record, &summary);
    json_out out = JSON_OUT_EMPTY;
    write_summary_open(&out, &summary);
    json_out_text(&out, ",\"options\":");
    write_stored(&out, record->info.options);
    json_out_text(&out, ",\"result\":");
    write_stored(&out, record->result);
    json_out_text(&out, ",\"moves\":");
    json_out_int(&out, record->move_count);
    json_out_text(&out, ",\"clocks\":");
    write_clocks(&out, record);
    json_out_text(&out, ",\"rating_changes\":[");
    for (int i = 0; i < count; i++) {
        if (i > 0)
            json_out_text(&out, ",");
        write_change(&out, &changes[i]);
    }
    json_out_text(&out, "]}");
    store_game_record_free(record);
    succeed(result, &out);
}

static void run_replay(store *reader, const history_request *request, history_result *result)
{
    store_game_record *record = NULL;
    if (load_game(reader, request->game_id, &record, result) != 0)
        return;
    store_game_summary summary;
    summary_of(record, &summary);
    json_out out = JSON_OUT_EMPTY;
    write_summary_open(&out, &summary);
    char problem[256];
    if (replay_write(record, &out, problem, sizeof(problem)) != 0) {
        bool has_started = record->started_at_ms >= 0;
        store_game_record_free(record);
        json_out_free(&out);
        history_fail(result, has_started ? 500 : 404, has_started ? "internal" : "not_found",
                     "game %lld has no replay: %s", (long long)request->game_id, problem);
        return;
    }
    json_out_text(&out, ",\"result\":");
    write_stored(&out, record->result);
    json_out_text(&out, "}");
    store_game_record_free(record);
    succeed(result, &out);
}

static void run_sgf(store *reader, const history_request *request, history_result *result)
{
    store_game_record *record = NULL;
    if (load_game(reader, request->game_id, &record, result) != 0)
        return;
    char problem[256], *sgf = NULL;
    bool is_blokus = strcmp(record->info.game, "blokus") == 0;
    bool has_started = record->started_at_ms >= 0;
    if (sgf_export(record, &sgf, problem, sizeof(problem)) != 0) {
        bool is_missing = !is_blokus || !has_started;
        history_fail(result, is_missing ? 404 : 500, is_missing ? "not_found" : "internal",
                     "game %lld has no SGF: %s", (long long)request->game_id, problem);
    } else {
        result->status = 200;
        result->text = sgf;
        result->length = strlen(sgf);
        result->is_sgf = true;
    }
    store_game_record_free(record);
}

/* One point of a rating chart: the rating after a game (the one before it
 * is the previous point's, or the newcomer's). */
static void write_chart_point(json_out *out, const store_rating_delta *change)
{
    json_out_text(out, "{\"game_id\":");
    json_out_int(out, change->game_id);
    json_out_text(out, ",\"at_ms\":");
    json_out_int(out, change->at_ms);
    json_out_text(out, ",");
    write_rating_members(out, (rating){change->mu_after, change->sigma_after});
    json_out_text(out, "}");
}

/* The player's rating history in each pool it has a rating in, oldest
 * first (a chart's order), read in one go: 0 or a store_error. */
static int write_histories(json_out *out, store *reader, int64_t player_id,
                           const store_pool_rating *ratings, int count)
{
    store_rating_delta *changes =
        malloc(sizeof(*changes) * STORE_READ_POOL_COUNT * HISTORY_PROFILE_HISTORY);
    int found = 0;
    int rc = changes ? store_read_rating_histories(reader, player_id, HISTORY_PROFILE_HISTORY,
                                                   changes, &found)
                     : STORE_E_NOMEM;
    json_out_text(out, "{");
    for (int i = 0; rc == STORE_OK && i < count; i++) {
        if (i > 0)
            json_out_text(out, ",");
        json_out_string(out, ratings[i].pool);
        json_out_text(out, ":[");
        bool is_first = true; /* the pool's changes are together, newest first */
        for (int c = found - 1; c >= 0; c--) {
            if (strcmp(changes[c].pool, ratings[i].pool) != 0)
                continue;
            if (!is_first)
                json_out_text(out, ",");
            write_chart_point(out, &changes[c]);
            is_first = false;
        }
        json_out_text(out, "]");
    }
    json_out_text(out, "}");
    free(changes);
    return rc;
}

/* The profile's lists: ratings, their history, best boards, recent games:
 * 0 or a store_error. */
static int write_profile_lists(json_out *out, store *reader, int64_t player_id)
{
    store_pool_rating ratings[STORE_READ_POOL_COUNT];
    store_reef_entry boards[HISTORY_PROFILE_BOARDS];
    store_game_summary games[HISTORY_PROFILE_GAMES];
    store_game_filter filter = {.player_id = player_id};
    store_read_after first = {true, 0, 0};
    store_read_page page = {0};
    int rating_count = 0, board_count = 0;
    int rc = store_read_player_ratings(reader, player_id, ratings, &rating_count);
    if (rc == STORE_OK)
        rc = store_read_player_reef_best(reader, player_id, HISTORY_PROFILE_BOARDS, boards,
                                         &board_count);
    if (rc == STORE_OK)
        rc = store_read_games(reader, &filter, first, HISTORY_PROFILE_GAMES, games, &page);
    if (rc != STORE_OK)
        return rc;
    json_out_text(out, ",\"ratings\":[");
    for (int i = 0; i < rating_count; i++) {
        json_out_text(out, i > 0 ? ",{\"pool\":" : "{\"pool\":");
        json_out_string(out, ratings[i].pool);
        json_out_text(out, ",");
        write_rating_fields(out, &ratings[i]);
        json_out_text(out, "}");
    }
    json_out_text(out, "],\"rating_history\":");
    rc = write_histories(out, reader, player_id, ratings, rating_count);
    json_out_text(out, ",\"reef_best\":[");
    for (int i = 0; i < board_count; i++) {
        json_out_text(out, i > 0 ? ",{\"board\":" : "{\"board\":");
        json_out_string(out, boards[i].board);
        json_out_text(out, ",");
        write_reef_fields(out, &boards[i]);
        json_out_text(out, "}");
    }
    json_out_text(out, "],\"recent_games\":[");
    for (int i = 0; i < page.count; i++) {
        if (i > 0)
            json_out_text(out, ",");
        write_summary(out, &games[i]);
    }
    json_out_text(out, "]");
    return rc;
}

static void run_player(store *reader, const history_request *request, history_result *result)
{
    store_profile profile;
    int rc = store_read_player_by_key(reader, request->player_key, &profile);
    if (rc == STORE_E_NOT_FOUND) {
        history_fail(result, 404, "not_found",
                     "no account or bot is called '%s' (guests have no profile)",
                     request->player_key);
        return;
    }
    json_out out = JSON_OUT_EMPTY;
    if (rc == STORE_OK) {
        json_out_text(&out, "{\"player\":");
        write_player(&out, profile.id, profile.name, NULL);
        json_out_text(&out, ",\"bot\":");
        write_bool(&out, profile.is_bot);
        json_out_text(&out, ",\"created_at_ms\":");
        json_out_int(&out, profile.created_at_ms);
        json_out_text(&out, ",\"games_played\":");
        json_out_int(&out, profile.games_played);
        json_out_text(&out, ",\"wins\":");
        json_out_int(&out, profile.wins);
        rc = write_profile_lists(&out, reader, profile.id);
    }
    if (rc != STORE_OK) {
        fail_read(result, &out, rc);
        return;
    }
    json_out_text(&out, "}");
    succeed(result, &out);
}

static void run_blokus_board(store *reader, const history_request *request, history_result *result)
{
    store_pool_rating *items = malloc(sizeof(*items) * (size_t)request->limit);
    store_read_page page;
    int rc = items ? store_read_blokus_board(reader, request->pool, request->min_games,
                                             request->after, request->limit, items, &page)
                   : STORE_E_NOMEM;
    json_out out = JSON_OUT_EMPTY;
    json_out_text(&out, "{\"items\":[");
    for (int i = 0; rc == STORE_OK && i < page.count; i++) {
        if (i > 0)
            json_out_text(&out, ",");
        write_ranked_open(&out, page.first_position + i, items[i].player_id, items[i].player_name);
        write_rating_fields(&out, &items[i]);
        json_out_text(&out, "}");
    }
    free(items);
    if (rc != STORE_OK) {
        fail_read(result, &out, rc);
        return;
    }
    write_page_end(&out, request, &page);
    json_out_text(&out, ",\"pool\":");
    json_out_string(&out, request->pool);
    json_out_text(&out, ",\"min_games\":");
    json_out_int(&out, request->min_games);
    json_out_text(&out, "}");
    succeed(result, &out);
}

static void run_reef_board(store *reader, const history_request *request, history_result *result)
{
    store_profile around;
    if (request->player_key[0] &&
        find_player(reader, request->player_key, "around", &around, result) != 0)
        return;
    store_reef_entry *items = malloc(sizeof(*items) * (size_t)request->limit);
    store_read_page page;
    int rc = !items ? STORE_E_NOMEM
             : request->player_key[0]
                 ? store_read_reef_board_around(reader, request->board, around.id, request->limit,
                                                items, &page)
                 : store_read_reef_board(reader, request->board, request->after, request->limit,
                                         items, &page);
    json_out out = JSON_OUT_EMPTY;
    json_out_text(&out, "{\"items\":[");
    for (int i = 0; rc == STORE_OK && i < page.count; i++) {
        if (i > 0)
            json_out_text(&out, ",");
        write_ranked_open(&out, page.first_position + i, items[i].player_id, items[i].player_name);
        write_reef_fields(&out, &items[i]);
        json_out_text(&out, "}");
    }
    free(items);
    if (rc == STORE_E_NOT_FOUND) {
        json_out_free(&out);
        history_fail(result, 404, "not_found", "%s has no run on board %s", around.name,
                     request->board);
        return;
    }
    if (rc != STORE_OK) {
        fail_read(result, &out, rc);
        return;
    }
    write_page_end(&out, request, &page);
    json_out_text(&out, ",\"board\":");
    json_out_string(&out, request->board);
    json_out_text(&out, ",\"seed\":");
    if (request->has_seed)
        json_out_int(&out, (int64_t)request->seed);
    else
        json_out_text(&out, "null");
    json_out_text(&out, "}");
    succeed(result, &out);
}

static void write_tournament_summary(json_out *out, const store_tournament_summary *item)
{
    json_out_text(out, "{\"id\":");
    json_out_int(out, item->id);
    json_out_text(out, ",\"name\":");
    json_out_string(out, item->name);
    json_out_text(out, ",\"game\":");
    json_out_string(out, item->game);
    json_out_text(out, ",\"mode\":");
    json_out_string(out, item->mode);
    json_out_text(out, ",\"format\":");
    json_out_string(out, item->format);
    json_out_text(out, ",\"status\":");
    json_out_string(out, store_tournament_status(item->is_finished, item->is_cancelled));
    json_out_text(out, ",\"arena\":");
    write_string_or_null(out, item->arena);
    json_out_text(out, ",\"created_at_ms\":");
    json_out_int(out, item->created_at_ms);
    json_out_text(out, ",\"finished_at_ms\":");
    json_out_int_or_null(out, item->finished_at_ms);
    json_out_text(out, "}");
}

/* Newest first; the cursor carries the last id shown. */
static void run_tournaments(store *reader, const history_request *request, history_result *result)
{
    store_tournament_summary items[STORE_READ_MAX_PAGE];
    int count = 0;
    int64_t before = request->after.is_first ? INT64_MAX : request->after.id;
    int rc = store_read_tournaments(reader, before, request->limit, items, &count);
    if (rc != 0) {
        storage_failure(result, rc);
        return;
    }
    json_out out = JSON_OUT_EMPTY;
    json_out_text(&out, "{\"items\":[");
    for (int i = 0; i < count; i++) {
        if (i > 0)
            json_out_text(&out, ",");
        write_tournament_summary(&out, &items[i]);
    }
    store_read_page page = {count, count == request->limit, {false, 0, 0}, 0};
    if (count > 0)
        page.next.id = items[count - 1].id;
    write_page_end(&out, request, &page);
    json_out_text(&out, "}");
    succeed(result, &out);
}

static void run_tournament(store *reader, const history_request *request, history_result *result)
{
    store_tournament_record *record = NULL;
    int rc = store_tournament_load(reader, request->game_id, &record);
    if (rc == STORE_E_NOT_FOUND) {
        history_fail(result, 404, "not_found", "no tournament %lld", (long long)request->game_id);
    } else if (rc != 0) {
        storage_failure(result, rc);
    } else {
        json_t *view = tournament_view_json(record, true);
        json_out out = JSON_OUT_EMPTY;
        json_out_value(&out, view); /* NULL marks the writer failed */
        json_decref(view);
        succeed(result, &out);
    }
    store_tournament_record_free(record);
}

void history_run(store *reader, const history_request *request, history_result *result)
{
    memset(result, 0, sizeof(*result));
    switch (request->route) {
    case HISTORY_GAMES:
        run_games(reader, request, result);
        return;
    case HISTORY_GAME:
        run_game(reader, request, result);
        return;
    case HISTORY_REPLAY:
        run_replay(reader, request, result);
        return;
    case HISTORY_SGF:
        run_sgf(reader, request, result);
        return;
    case HISTORY_PLAYER:
        run_player(reader, request, result);
        return;
    case HISTORY_BLOKUS_BOARD:
        run_blokus_board(reader, request, result);
        return;
    case HISTORY_REEF_BOARD:
        run_reef_board(reader, request, result);
        return;
    case HISTORY_TOURNAMENTS:
        run_tournaments(reader, request, result);
        return;
    case HISTORY_TOURNAMENT:
        run_tournament(reader, request, result);
        return;
    }
}

char *history_render(history_result *result, int *status, const char **content_type, size_t *length)
{
    char *body = NULL;
    *content_type = result->is_sgf ? SGF_CONTENT_TYPE : JSON_CONTENT_TYPE;
    *status = result->status;
    if (result->text) {
        body = result->text;
        *length = result->length;
        result->text = NULL;
    } else {
        body =
            error_json_render(ERROR_JSON_FLAT, result->failure.code, result->failure.message, NULL);
        *length = body ? strlen(body) : 0;
    }
    history_result_clear(result);
    if (!body)
        *status = 500;
    return body;
}

void history_result_clear(history_result *result)
{
    free(result->text);
    result->text = NULL;
    result->length = 0;
}

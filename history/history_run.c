/* history_run.c -- a parsed history request, read and written as JSON.
 *
 * Runs on a worker thread with a reader of its own; it touches nothing
 * shared. Each route is a few reads (storage/store_read.h: index ranges
 * only) and the JSON of what they found, built with jansson: these answers
 * are read far less often than game events are sent, so the tree is worth
 * its clarity. A replay and an SGF file replay the stored moves through
 * the rules (replay_export, sgf_export), the way a restart
 * does, so the cells and scores a viewer draws are the rules' own.
 * The tree is written out by json_out_value rather than json_dumps: the
 * same bytes in well under half the time, which for a busy player's
 * profile (140 KB) was most of the answer's cost.
 *
 * Shapes shared by every answer: a player is {"id","name"}; times are
 * milliseconds since the Unix epoch in fields ending in _ms; a list is
 * {"items": [...], "next": cursor or null}. */
#include <stdlib.h>
#include <string.h>

#include "history/history.h"
#include "history/replay.h"
#include "history/sgf.h"
#include "lobby/lobby.h"
#include "protocol/error_json.h"
#include "protocol/json_out.h"

#define SGF_CONTENT_TYPE  "application/x-blokus-sgf"
#define JSON_CONTENT_TYPE "application/json"

static int storage_failure(history_result *result, int rc)
{
    return history_fail(result, 500, "storage_error", "the database could not be read: %s",
                        store_strerror(rc));
}

static json_t *time_or_null(int64_t at_ms)
{
    return at_ms >= 0 ? json_integer(at_ms) : json_null();
}

static json_t *player_json(int64_t id, const char *name)
{
    return json_pack("{s:I, s:s}", "id", (json_int_t)id, "name", name);
}

static json_t *seat_json(const store_seat *seat)
{
    json_t *player =
        seat->player_id > 0 ? player_json(seat->player_id, seat->player_name) : json_null();
    if (seat->player_id > 0) /* a guest has no profile: clients do not link its name */
        json_object_set_new(player, "guest", json_boolean(seat->is_guest));
    json_t *bot = seat->bot[0] ? json_string(seat->bot) : json_null();
    if (!seat->has_result)
        return json_pack("{s:i, s:o, s:o, s:n, s:n, s:n}", "seat", seat->seat, "player", player,
                         "bot", bot, "score", "rank", "winner");
    return json_pack("{s:i, s:o, s:o, s:I, s:i, s:b}", "seat", seat->seat, "player", player, "bot",
                     bot, "score", (json_int_t)seat->score, "rank", seat->rank, "winner",
                     seat->is_winner);
}

/* Appends `item` (taken) to `list`: the list, or NULL (both freed) when
 * either is missing or the append fails, so a loop stops at the first
 * failure and its caller answers 500. */
static json_t *append(json_t *list, json_t *item)
{
    if (list && item && json_array_append_new(list, item) == 0)
        return list;
    if (!list)
        json_decref(item); /* else the failed append freed it */
    json_decref(list);
    return NULL;
}

static json_t *seats_json(const store_seat *seats, int count)
{
    json_t *list = json_array();
    for (int i = 0; list && i < count; i++)
        list = append(list, seat_json(&seats[i]));
    return list;
}

static json_t *summary_json(const store_game_summary *game)
{
    json_t *tournament = game->tournament_id > 0 ? json_integer(game->tournament_id) : json_null();
    return json_pack("{s:I, s:s, s:s, s:s, s:o, s:I, s:o, s:o, s:o}", "id", (json_int_t)game->id,
                     "game", game->game, "mode", game->mode, "status", game->status, "tournament",
                     tournament, "created_at_ms", (json_int_t)game->created_at_ms, "started_at_ms",
                     time_or_null(game->started_at_ms), "finished_at_ms",
                     time_or_null(game->finished_at_ms), "seats",
                     seats_json(game->seats, game->seat_count));
}

static json_t *rating_point(double mu, double sigma)
{
    return json_pack("{s:f, s:f, s:f}", "mu", mu, "sigma", sigma, "rating", mu - 3 * sigma);
}

static json_t *change_json(const store_rating_delta *change)
{
    return json_pack("{s:o, s:s, s:I, s:o, s:o, s:I}", "player",
                     player_json(change->player_id, change->player_name), "pool", change->pool,
                     "game_id", (json_int_t)change->game_id, "before",
                     rating_point(change->mu_before, change->sigma_before), "after",
                     rating_point(change->mu_after, change->sigma_after), "at_ms",
                     (json_int_t)change->at_ms);
}

static json_t *average_score(const store_pool_rating *rating)
{
    return rating->games > 0 ? json_real((double)rating->score_total / (double)rating->games)
                             : json_null();
}

static json_t *rating_json(const store_pool_rating *rating)
{
    return json_pack("{s:s, s:f, s:f, s:f, s:I, s:I, s:o}", "pool", rating->pool, "mu", rating->mu,
                     "sigma", rating->sigma, "rating", rating->display, "games",
                     (json_int_t)rating->games, "wins", (json_int_t)rating->wins, "average_score",
                     average_score(rating));
}

static json_t *reef_entry_json(const store_reef_entry *entry)
{
    return json_pack("{s:s, s:I, s:I, s:I}", "board", entry->board, "score",
                     (json_int_t)entry->score, "run_id", (json_int_t)entry->run_id, "at_ms",
                     (json_int_t)entry->at_ms);
}

/* A leaderboard entry: {"rank","player"} then the fields of `fields`
 * (taken) but `shared`, which the whole page has in common. */
static json_t *ranked(int64_t rank, int64_t player_id, const char *name, json_t *fields,
                      const char *shared)
{
    json_t *entry =
        json_pack("{s:I, s:o}", "rank", (json_int_t)rank, "player", player_json(player_id, name));
    json_object_del(fields, shared);
    if (entry && (!fields || json_object_update(entry, fields) != 0)) {
        json_decref(entry);
        entry = NULL;
    }
    json_decref(fields);
    return entry;
}

/* Sets a 200 answer, or a 500 when building it ran out of memory. */
static void succeed(history_result *result, json_t *answer)
{
    if (!answer) {
        history_fail(result, 500, "internal", "the server ran out of memory");
        return;
    }
    result->status = 200;
    result->json = answer;
}

/* {"items": items, "next": the cursor or null}; takes `items`. */
static json_t *page_json(json_t *items, const history_request *request, const store_read_page *page)
{
    char cursor[PAGE_CURSOR_SIZE];
    history_cursor_write(request, page->next, cursor);
    return json_pack("{s:o, s:o}", "items", items, "next",
                     page->has_next ? json_string(cursor) : json_null());
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
    json_t *list = rc == STORE_OK ? json_array() : NULL;
    for (int i = 0; list && i < page.count; i++)
        list = append(list, summary_json(&items[i]));
    free(items);
    if (rc != STORE_OK)
        storage_failure(result, rc);
    else
        succeed(result, list ? page_json(list, request, &page) : NULL);
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
static json_t *clocks_json(const store_game_record *record)
{
    json_t *clocks = json_array();
    for (int i = 0; clocks && i < record->seat_count; i++) {
        int seat = record->seats[i].seat, moves = 0;
        int64_t used_ms = 0, clock_ms = -1;
        for (int m = 0; m < record->move_count; m++) {
            if (record->moves[m].seat != seat)
                continue;
            moves++;
            used_ms += record->moves[m].elapsed_ms;
            clock_ms = record->moves[m].clock_ms;
        }
        clocks = append(clocks, json_pack("{s:i, s:i, s:I, s:o}", "seat", seat, "moves", moves,
                                          "time_used_ms", (json_int_t)used_ms, "clock_ms",
                                          time_or_null(clock_ms)));
    }
    return clocks;
}

/* A stored JSON column as a value (null for none). */
static json_t *stored_json(const char *text)
{
    return text ? json_loads(text, 0, NULL) : json_null();
}

/* The game's summary with `extra`'s fields added; takes `extra`. */
static json_t *game_with(const store_game_summary *summary, json_t *extra)
{
    json_t *game = summary_json(summary);
    if (game && extra && json_object_update(game, extra) != 0) {
        json_decref(game);
        game = NULL;
    }
    json_decref(extra);
    return game;
}

static void run_game(store *reader, const history_request *request, history_result *result)
{
    store_game_summary summary;
    store_game_record *record = NULL;
    store_rating_delta changes[STORE_MAX_SEATS];
    int count = 0;
    int rc = store_read_game(reader, request->game_id, &summary);
    if (rc == STORE_E_NOT_FOUND) {
        history_fail(result, 404, "not_found", "no game %lld", (long long)request->game_id);
        return;
    }
    if (rc == STORE_OK)
        rc = store_read_game_rating_changes(reader, request->game_id, changes, &count);
    if (rc != STORE_OK || load_game(reader, request->game_id, &record, result) != 0) {
        if (rc != STORE_OK)
            storage_failure(result, rc);
        return;
    }
    json_t *rating_changes = json_array();
    for (int i = 0; rating_changes && i < count; i++)
        rating_changes = append(rating_changes, change_json(&changes[i]));
    json_t *extra =
        json_pack("{s:o, s:o, s:i, s:o, s:o}", "options", stored_json(record->info.options),
                  "result", stored_json(record->result), "moves", record->move_count, "clocks",
                  clocks_json(record), "rating_changes", rating_changes);
    store_game_record_free(record);
    succeed(result, extra ? game_with(&summary, extra) : NULL);
}

static void run_replay(store *reader, const history_request *request, history_result *result)
{
    store_game_summary summary;
    store_game_record *record = NULL;
    int rc = store_read_game(reader, request->game_id, &summary);
    if (rc == STORE_E_NOT_FOUND) {
        history_fail(result, 404, "not_found", "no game %lld", (long long)request->game_id);
        return;
    }
    if (rc != STORE_OK) {
        storage_failure(result, rc);
        return;
    }
    if (load_game(reader, request->game_id, &record, result) != 0)
        return;
    json_t *replay = NULL;
    char problem[256];
    if (replay_export(record, &replay, problem, sizeof(problem)) != 0) {
        bool has_started = record->started_at_ms >= 0;
        store_game_record_free(record);
        history_fail(result, has_started ? 500 : 404, has_started ? "internal" : "not_found",
                     "game %lld has no replay: %s", (long long)request->game_id, problem);
        return;
    }
    if (json_object_set_new(replay, "result", stored_json(record->result)) != 0) {
        json_decref(replay);
        replay = NULL;
    }
    store_game_record_free(record);
    succeed(result, replay ? game_with(&summary, replay) : NULL);
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
    }
    store_game_record_free(record);
}

/* One point of a rating chart: the rating after a game (the one before it
 * is the previous point's, or the newcomer's). */
static json_t *chart_point_json(const store_rating_delta *change)
{
    return json_pack("{s:I, s:I, s:f, s:f, s:f}", "game_id", (json_int_t)change->game_id, "at_ms",
                     (json_int_t)change->at_ms, "mu", change->mu_after, "sigma",
                     change->sigma_after, "rating", change->mu_after - 3 * change->sigma_after);
}

/* The player's rating history in each pool it has a rating in, oldest
 * first (a chart's order). */
static json_t *histories_json(store *reader, int64_t player_id, const store_pool_rating *ratings,
                              int count, int *rc)
{
    json_t *histories = json_object();
    store_rating_delta changes[HISTORY_PROFILE_HISTORY];
    for (int i = 0; histories && *rc == STORE_OK && i < count; i++) {
        int found = 0;
        *rc = store_read_rating_history(reader, player_id, ratings[i].pool, HISTORY_PROFILE_HISTORY,
                                        changes, &found);
        json_t *list = json_array();
        for (int c = found - 1; list && c >= 0; c--)
            list = append(list, chart_point_json(&changes[c]));
        if (!list || json_object_set_new(histories, ratings[i].pool, list) != 0) {
            json_decref(histories);
            return NULL;
        }
    }
    return histories;
}

/* The profile's lists: ratings, their history, best boards, recent games. */
static json_t *profile_lists(store *reader, int64_t player_id, int *rc)
{
    store_pool_rating ratings[STORE_READ_POOL_COUNT];
    store_reef_entry boards[HISTORY_PROFILE_BOARDS];
    store_game_summary games[HISTORY_PROFILE_GAMES];
    store_game_filter filter = {.player_id = player_id};
    store_read_after first = {true, 0, 0};
    store_read_page page = {0};
    int rating_count = 0, board_count = 0;
    *rc = store_read_player_ratings(reader, player_id, ratings, &rating_count);
    if (*rc == STORE_OK)
        *rc = store_read_player_reef_best(reader, player_id, HISTORY_PROFILE_BOARDS, boards,
                                          &board_count);
    if (*rc == STORE_OK)
        *rc = store_read_games(reader, &filter, first, HISTORY_PROFILE_GAMES, games, &page);
    json_t *rating_list = json_array(), *board_list = json_array(), *game_list = json_array();
    for (int i = 0; rating_list && i < rating_count; i++)
        rating_list = append(rating_list, rating_json(&ratings[i]));
    for (int i = 0; board_list && i < board_count; i++)
        board_list = append(board_list, reef_entry_json(&boards[i]));
    for (int i = 0; game_list && i < page.count; i++)
        game_list = append(game_list, summary_json(&games[i]));
    json_t *lists = json_pack("{s:o, s:o, s:o, s:o}", "ratings", rating_list, "rating_history",
                              histories_json(reader, player_id, ratings, rating_count, rc),
                              "reef_best", board_list, "recent_games", game_list);
    return lists;
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
    json_t *lists = rc == STORE_OK ? profile_lists(reader, profile.id, &rc) : NULL;
    if (rc != STORE_OK) {
        json_decref(lists);
        storage_failure(result, rc);
        return;
    }
    json_t *head = json_pack("{s:o, s:b, s:I, s:I, s:I}", "player",
                             player_json(profile.id, profile.name), "bot", profile.is_bot,
                             "created_at_ms", (json_int_t)profile.created_at_ms, "games_played",
                             (json_int_t)profile.games_played, "wins", (json_int_t)profile.wins);
    if (head && (!lists || json_object_update(head, lists) != 0)) {
        json_decref(head);
        head = NULL;
    }
    json_decref(lists);
    succeed(result, head);
}

static void run_blokus_board(store *reader, const history_request *request, history_result *result)
{
    store_pool_rating *items = malloc(sizeof(*items) * (size_t)request->limit);
    store_read_page page;
    int rc = items ? store_read_blokus_board(reader, request->pool, request->min_games,
                                             request->after, request->limit, items, &page)
                   : STORE_E_NOMEM;
    json_t *list = rc == STORE_OK ? json_array() : NULL;
    for (int i = 0; list && i < page.count; i++) {
        json_t *entry = ranked(page.first_position + i, items[i].player_id, items[i].player_name,
                               rating_json(&items[i]), "pool");
        list = append(list, entry);
    }
    free(items);
    if (rc != STORE_OK) {
        storage_failure(result, rc);
        return;
    }
    json_t *answer = list ? page_json(list, request, &page) : NULL;
    json_object_set_new(answer, "pool", json_string(request->pool));
    json_object_set_new(answer, "min_games", json_integer(request->min_games));
    succeed(result, answer);
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
    json_t *list = rc == STORE_OK ? json_array() : NULL;
    for (int i = 0; list && i < page.count; i++) {
        json_t *entry = ranked(page.first_position + i, items[i].player_id, items[i].player_name,
                               reef_entry_json(&items[i]), "board");
        list = append(list, entry);
    }
    free(items);
    if (rc == STORE_E_NOT_FOUND) {
        history_fail(result, 404, "not_found", "%s has no run on board %s", around.name,
                     request->board);
        return;
    }
    if (rc != STORE_OK) {
        storage_failure(result, rc);
        return;
    }
    json_t *answer = list ? page_json(list, request, &page) : NULL;
    json_object_set_new(answer, "board", json_string(request->board));
    json_object_set_new(answer, "seed",
                        request->has_seed ? json_integer((json_int_t)request->seed) : json_null());
    succeed(result, answer);
}

static json_t *tournament_summary_json(const store_tournament_summary *item)
{
    return json_pack(
        "{s:I, s:s, s:s, s:s, s:s, s:s, s:o, s:I, s:o}", "id", (json_int_t)item->id, "name",
        item->name, "game", item->game, "mode", item->mode, "format", item->format, "status",
        store_tournament_status(item->is_finished, item->is_cancelled), "arena",
        item->arena[0] ? json_string(item->arena) : json_null(), "created_at_ms",
        (json_int_t)item->created_at_ms, "finished_at_ms", time_or_null(item->finished_at_ms));
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
    json_t *list = json_array();
    for (int i = 0; i < count; i++)
        list = append(list, tournament_summary_json(&items[i]));
    store_read_page page = {count, count == request->limit, {false, 0, 0}, 0};
    if (count > 0)
        page.next.id = items[count - 1].id;
    succeed(result, list ? page_json(list, request, &page) : NULL);
}

static void run_tournament(store *reader, const history_request *request, history_result *result)
{
    store_tournament_record *record = NULL;
    int rc = store_tournament_load(reader, request->game_id, &record);
    if (rc == STORE_E_NOT_FOUND)
        history_fail(result, 404, "not_found", "no tournament %lld", (long long)request->game_id);
    else if (rc != 0)
        storage_failure(result, rc);
    else
        succeed(result, tournament_view_json(record, true));
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
    *content_type = result->text ? SGF_CONTENT_TYPE : JSON_CONTENT_TYPE;
    *status = result->status;
    if (result->text) {
        body = result->text;
        result->text = NULL;
    } else if (result->json) {
        json_out writer = JSON_OUT_EMPTY;
        json_out_value(&writer, result->json);
        body = json_out_take(&writer, NULL);
    } else {
        body =
            error_json_render(ERROR_JSON_FLAT, result->failure.code, result->failure.message, NULL);
    }
    history_result_clear(result);
    *length = body ? strlen(body) : 0;
    if (!body)
        *status = 500;
    return body;
}

void history_result_clear(history_result *result)
{
    json_decref(result->json);
    free(result->text);
    result->json = NULL;
    result->text = NULL;
}

/* store_api.c -- the SQLite store behind the store_api table: each entry
 * forwards to the store_* function of the same name. */
#include "storage/store_api.h"

static int api_player_by_id(void *context, int64_t id, store_player *out)
{
    return store_player_by_id(context, id, out);
}

static int api_game_finish(void *context, int64_t game_id, store_game_status status,
                           const char *result_json, int seat_count,
                           const store_seat_result *results, int64_t at_ms)
{
    return store_game_finish(context, game_id, status, result_json, seat_count, results, at_ms);
}

static int api_tournaments_running(void *context, int64_t **ids, int *count)
{
    return store_tournaments_running(context, ids, count);
}

static int api_tournament_load(void *context, int64_t id, store_tournament_record **out)
{
    return store_tournament_load(context, id, out);
}

static int api_unfinished_games(void *context, int64_t **ids, int *count)
{
    return store_unfinished_games(context, ids, count);
}

static int api_game_load(void *context, int64_t id, store_game_record **out)
{
    return store_game_load(context, id, out);
}

store_api store_api_of(store *storage)
{
    store_api api = {
        .context = storage,
        .player_by_id = api_player_by_id,
        .game_finish = api_game_finish,
        .tournaments_running = api_tournaments_running,
        .tournament_load = api_tournament_load,
        .unfinished_games = api_unfinished_games,
        .game_load = api_game_load,
    };
    return api;
}

/* store_api.c -- the SQLite store behind the store_api table: each entry
 * forwards to the store_* function of the same name. */
#include "storage/store_api.h"

static int api_player_create(void *context, const char *name, bool is_bot, const char *token,
                             int64_t *id)
{
    return store_player_create(context, name, is_bot, token, id);
}

static int api_player_by_token(void *context, const char *token, store_player *out)
{
    return store_player_by_token(context, token, out);
}

static int api_player_by_bot_key(void *context, const char *key, store_player *out)
{
    return store_player_by_bot_key(context, key, out);
}

static int api_player_by_id(void *context, int64_t id, store_player *out)
{
    return store_player_by_id(context, id, out);
}

static int api_account_by_name(void *context, const char *name_key, store_account *out)
{
    return store_account_by_name(context, name_key, out);
}

static int api_guests_expire(void *context, int64_t before_ms, int limit,
                             store_guest_cursor *cursor,
                             bool (*is_held)(void *held_context, int64_t id), void *held_context,
                             int *looked_at, int *deleted)
{
    return store_guests_expire(context, before_ms, limit, cursor, is_held, held_context, looked_at,
                               deleted);
}

static int api_game_finish(void *context, int64_t game_id, store_game_status status,
                           const char *result_json, int seat_count,
                           const store_seat_result *results, int64_t at_ms)
{
    return store_game_finish(context, game_id, status, result_json, seat_count, results, at_ms);
}

static int api_builtin_player(void *context, const char *name, int64_t *id)
{
    return store_builtin_player(context, name, id);
}

static int api_rating_get(void *context, int64_t player_id, const char *pool, store_rating *out)
{
    return store_rating_get(context, player_id, pool, out);
}

static int api_reef_run_add(void *context, const store_reef_run *run, int64_t *id, bool *is_repeat)
{
    return store_reef_run_add(context, run, id, is_repeat);
}

static int api_tournaments_running(void *context, int64_t **ids, int *count)
{
    return store_tournaments_running(context, ids, count);
}

static int api_tournament_load(void *context, int64_t id, store_tournament_record **out)
{
    return store_tournament_load(context, id, out);
}

static int api_arena_last_start(void *context, const char *arena, int64_t *at_ms)
{
    return store_arena_last_start(context, arena, at_ms);
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
        .player_create = api_player_create,
        .player_by_token = api_player_by_token,
        .player_by_bot_key = api_player_by_bot_key,
        .player_by_id = api_player_by_id,
        .account_by_name = api_account_by_name,
        .guests_expire = api_guests_expire,
        .game_finish = api_game_finish,
        .builtin_player = api_builtin_player,
        .rating_get = api_rating_get,
        .reef_run_add = api_reef_run_add,
        .tournaments_running = api_tournaments_running,
        .tournament_load = api_tournament_load,
        .arena_last_start = api_arena_last_start,
        .unfinished_games = api_unfinished_games,
        .game_load = api_game_load,
    };
    return api;
}

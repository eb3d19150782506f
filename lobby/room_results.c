/* room_results.c -- ratings and Reef runs of a finished game (see
 * room_results.h for the rules). */
#include <stdio.h>
#include <string.h>

#include "lobby/rating.h"
#include "lobby/room_results.h"

const char *room_results_pool(const game_options *options)
{
    if (options->kind == GAME_REEF)
        return options->is_race ? "reef-race" : NULL;
    switch (options->blokus_mode) {
    case BLOKUS_MODE_4P:
        return "blokus-4p";
    case BLOKUS_MODE_3P:
        return "blokus-3p";
    case BLOKUS_MODE_2P:
        return "blokus-2p";
    case BLOKUS_MODE_DUO:
        return "blokus-duo";
    }
    return NULL;
}

/* The player row that stands for `seat`: the seated player, or the
 * built-in bot's rating entry. 0 for an empty seat. */
static int participant_of(const store_api *api, const match *finished, int seat, int64_t *id)
{
    const match_seat *holder = &finished->seats[seat];
    *id = 0;
    if (holder->kind == MATCH_SEAT_PLAYER) {
        *id = holder->player_id;
        return 0;
    }
    if (holder->kind != MATCH_SEAT_BOT)
        return 0;
    return room_results_bot_entry(api, holder->bot, finished->config.bot_think_ms, id);
}

int room_results_bot_entry(const store_api *api, const char *bot, uint32_t think_ms, int64_t *id)
{
    char name[STORE_NAME_SIZE];
    if (strcmp(bot, "mcts") == 0)
        snprintf(name, sizeof(name), "bot:mcts@%ums", (unsigned)think_ms);
    else
        snprintf(name, sizeof(name), "bot:%s", bot);
    return api->builtin_player(api->context, name, id);
}

/* Whether `seat` is the seat its participant is rated by: its best
 * placed (the lowest seat number among equals). */
static bool is_rated_seat(const int64_t *ids, const match_result *result, int seat)
{
    for (int other = 0; other < result->seat_count; other++) {
        if (other == seat || ids[other] != ids[seat])
            continue;
        int rank = result->ranks[other], own = result->ranks[seat];
        if (rank < own || (rank == own && other < seat))
            return false;
    }
    return true;
}

/* Reads everyone's rating (a newcomer's is the initial one), rates the
 * game, writes each participant's change with its history row. */
static int rate(const store_api *api, int64_t game_id, const char *pool, const int64_t *ids,
                const match_result *result, int64_t at_ms)
{
    rating_config config = rating_default_config();
    rating before[GAME_MAX_SEATS], after[GAME_MAX_SEATS];
    int count = result->seat_count;
    for (int seat = 0; seat < count; seat++) {
        store_rating stored;
        int rc = api->rating_get(api->context, ids[seat], pool, &stored);
        if (rc == STORE_E_NOT_FOUND)
            before[seat] = rating_initial(&config);
        else if (rc == 0)
            before[seat] = (rating){stored.mu, stored.sigma};
        else
            return rc;
    }
    if (rating_update(&config, count, before, result->ranks, after) != 0)
        return STORE_E_INTERNAL;
    for (int seat = 0; seat < count; seat++) {
        if (!is_rated_seat(ids, result, seat))
            continue;
        store_rating_change change = {
            .player_id = ids[seat],
            .pool = pool,
            .game_id = game_id,
            .mu_before = before[seat].mu,
            .sigma_before = before[seat].sigma,
            .mu_after = after[seat].mu,
            .sigma_after = after[seat].sigma,
            .score = result->scores[seat],
            .is_winner = result->is_winner[seat],
            .at_ms = at_ms,
        };
        int rc = api->rating_record(api->context, &change);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int store_ratings(const store_api *api, int64_t game_id, const match *finished,
                         const match_result *result, int64_t at_ms)
{
    const char *pool = room_results_pool(&finished->options);
    if (!pool || result->seat_count < 2)
        return 0;
    int64_t ids[GAME_MAX_SEATS];
    for (int seat = 0; seat < result->seat_count; seat++) {
        int rc = participant_of(api, finished, seat, &ids[seat]);
        if (rc != 0)
            return rc;
        if (ids[seat] == 0)
            return 0;
    }
    return rate(api, game_id, pool, ids, result, at_ms);
}

static int store_reef_runs(const store_api *api, int64_t game_id, const match *finished,
                           const match_result *result, int64_t at_ms)
{
    const game_options *options = &finished->options;
    if (options->kind != GAME_REEF || options->max_turns != REEF_STANDARD_TURNS)
        return 0;
    for (int seat = 0; seat < result->seat_count; seat++) {
        const match_seat *holder = &finished->seats[seat];
        if (holder->kind != MATCH_SEAT_PLAYER)
            continue;
        store_reef_run run = {holder->player_id, options->seed, result->scores[seat],
                              game_id,           NULL,          at_ms};
        int64_t run_id;
        int rc = api->reef_run_add(api->context, &run, &run_id, NULL);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int room_results_store(const store_api *api, int64_t game_id, const match *finished,
                       const match_result *result, int64_t at_ms)
{
    int rc = store_ratings(api, game_id, finished, result, at_ms);
    return rc != 0 ? rc : store_reef_runs(api, game_id, finished, result, at_ms);
}

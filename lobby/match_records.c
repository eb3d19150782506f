/* match_records.c -- match effects -> store records (see match_records.h). */
#include "lobby/match_records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lobby/action_record.h"
#include "lobby/tournament_plan.h"

_Static_assert(ACTION_RECORD_TEXT_MAX <= STORE_ACTION_SIZE, "a stored action fits its record");

const char *match_records_pool(const game_options *options)
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

void match_records_bot_entry(const char *bot, uint32_t think_ms, char *out)
{
    if (strcmp(bot, "mcts") == 0 || strcmp(bot, "mcts-v2") == 0)
        snprintf(out, STORE_NAME_SIZE, "bot:%s@%ums", bot, (unsigned)think_ms);
    else
        snprintf(out, STORE_NAME_SIZE, "bot:%s", bot);
}

/* Copies a malloc'd text into a record's buffer and frees it. */
static int take_text(char *text, char *out, size_t size)
{
    if (!text)
        return STORE_E_NOMEM;
    int rc = strlen(text) < size ? STORE_OK : STORE_E_INVALID;
    if (rc == STORE_OK)
        memcpy(out, text, strlen(text) + 1);
    free(text);
    return rc;
}

static void seat_record(int64_t game_id, const match *next, int seat, store_record_seat *out)
{
    const match_seat *holder = &next->seats[seat];
    *out = (store_record_seat){.game_id = game_id, .seat = seat};
    if (holder->kind == MATCH_SEAT_PLAYER)
        out->player_id = holder->player_id;
    if (holder->kind != MATCH_SEAT_BOT)
        return;
    snprintf(out->bot, sizeof(out->bot), "%s", holder->bot);
    match_records_bot_entry(holder->bot, next->config.bot_think_ms, out->bot_entry);
}

static int result_record(int64_t game_id, const match *next, const match_result *result,
                         store_record_result *out)
{
    const game_options *options = &next->options;
    memset(out, 0, sizeof(*out));
    out->game_id = game_id;
    out->seat_count = result->seat_count;
    for (int seat = 0; seat < result->seat_count; seat++) {
        const match_seat *holder = &next->seats[seat];
        store_result_seat *stored = &out->seats[seat];
        if (holder->kind == MATCH_SEAT_PLAYER)
            stored->player_id = holder->player_id;
        else if (holder->kind == MATCH_SEAT_BOT)
            match_records_bot_entry(holder->bot, next->config.bot_think_ms, stored->bot_entry);
        stored->score = result->scores[seat];
        stored->rank = result->ranks[seat];
        stored->is_winner = result->is_winner[seat];
    }
    const char *pool = match_records_pool(options);
    snprintf(out->pool, sizeof(out->pool), "%s", pool ? pool : "");
    out->has_reef_runs = options->kind == GAME_REEF && options->max_turns == REEF_STANDARD_TURNS;
    out->reef_seed = options->seed;
    return take_text(match_records_result_text(next), out->result_json, sizeof(out->result_json));
}

static void standings_record(const match_records_tournament *tournament, const match_result *result,
                             store_record_standings *out)
{
    double points[GAME_MAX_SEATS];
    tournament_points(result->seat_count, result->ranks, points);
    out->tournament_id = tournament->id;
    out->count = 0;
    for (int seat = 0; seat < result->seat_count && seat < tournament->seat_count; seat++)
        out->changes[out->count++] =
            (store_standing_change){tournament->entries[seat], points[seat], 1,
                                    result->is_winner[seat], result->scores[seat]};
}

/* The store record of one match record; a result may add the standings. */
static int convert(int64_t game_id, const match *next, const match_record *record,
                   const match_records_tournament *tournament, store_record *out, int *count)
{
    store_record *stored = &out[(*count)++];
    memset(stored, 0, sizeof(*stored));
    stored->at_ms = record->at_ms;
    switch (record->kind) {
    case MATCH_RECORD_SEAT:
        stored->kind = STORE_RECORD_SEAT;
        seat_record(game_id, next, record->seat, &stored->seat);
        return STORE_OK;
    case MATCH_RECORD_START:
        stored->kind = STORE_RECORD_GAME_START;
        stored->game_id = game_id;
        return STORE_OK;
    case MATCH_RECORD_ACTION:
        stored->kind = STORE_RECORD_MOVE;
        stored->move = (store_move){game_id, record->seq,        record->seat,     (int)record->ply,
                                    NULL,    record->elapsed_ms, record->clock_ms, record->at_ms};
        action_record_write(&record->action, stored->action_text);
        return STORE_OK;
    case MATCH_RECORD_ABORT:
        stored->kind = STORE_RECORD_GAME_ABORT;
        stored->game_id = game_id;
        return STORE_OK;
    case MATCH_RECORD_FINISH:
        break;
    }
    match_result result;
    match_result_of(next, &result);
    stored->kind = STORE_RECORD_GAME_RESULT;
    int rc = result_record(game_id, next, &result, &stored->result);
    if (rc != STORE_OK || !tournament || !tournament->id)
        return rc;
    store_record *standings = &out[(*count)++];
    memset(standings, 0, sizeof(*standings));
    standings->kind = STORE_RECORD_TOURNAMENT_RESULT;
    standings->at_ms = record->at_ms;
    standings_record(tournament, &result, &standings->standings);
    return STORE_OK;
}

int match_records_of(int64_t game_id, const match *next, const match_effects *effects,
                     const match_records_tournament *tournament, store_record *out, int *count)
{
    *count = 0;
    int rc = STORE_OK;
    for (int i = 0; rc == STORE_OK && i < effects->record_count; i++)
        rc = convert(game_id, next, &effects->records[i], tournament, out, count);
    return rc;
}

char *match_records_result_text(const match *state)
{
    match_result result;
    match_result_of(state, &result);
    json_t *scores = json_array(), *ranks = json_array(), *winners = json_array();
    for (int seat = 0; seat < result.seat_count; seat++) {
        json_array_append_new(scores, json_integer(result.scores[seat]));
        json_array_append_new(ranks, json_integer(result.ranks[seat]));
        if (result.is_winner[seat])
            json_array_append_new(winners, json_integer(seat));
    }
    json_t *json = json_pack("{s:o, s:o, s:o, s:s}", "scores", scores, "ranks", ranks, "winners",
                             winners, "reason", match_end_reason_name(result.reason));
    char *text = json ? json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(json);
    return text;
}

/* tournament_view.c -- a tournament as JSON: standings ranked by points,
 * then wins, then total score (equal on all three: the same rank), each
 * entry's games left, and, for the REST page, the whole schedule. Pure:
 * the lobby sends it in events, the REST API renders it on a worker. */
#include <stdlib.h>
#include <string.h>

#include "lobby/tournament.h"
#include "lobby/tournament_plan.h"
#include "protocol/game_json.h"

/* Whether entry `a` ranks before entry `b` of `record`: more points, then
 * more wins, then more total score, then the lower entry number. */
static bool ranks_before(const store_tournament_record *record, int a, int b)
{
    const store_standing *left = &record->entries[a], *right = &record->entries[b];
    if (left->points != right->points)
        return left->points > right->points;
    if (left->wins != right->wins)
        return left->wins > right->wins;
    if (left->score_total != right->score_total)
        return left->score_total > right->score_total;
    return left->entry < right->entry;
}

/* Sorts the `count` entry indexes of `order` by rank: an insertion sort,
 * as there are at most TOURNAMENT_MAX_ENTRIES, and it needs no shared
 * state (views are rendered on the loop and on REST workers at once). */
static void sort_by_rank(const store_tournament_record *record, int *order, int count)
{
    for (int i = 1; i < count; i++) {
        int moving = order[i], j = i;
        for (; j > 0 && ranks_before(record, moving, order[j - 1]); j--)
            order[j] = order[j - 1];
        order[j] = moving;
    }
}

static bool is_tied(const store_standing *a, const store_standing *b)
{
    return a->points == b->points && a->wins == b->wins && a->score_total == b->score_total;
}

/* Games still to play for `entry`: scheduled and not finished, and for a
 * Swiss tournament one per round not paired yet. */
static int games_left(const store_tournament_record *record, int entry, int rounds_unplanned)
{
    int left = rounds_unplanned;
    for (int i = 0; i < record->game_count; i++) {
        const store_scheduled_game *scheduled = &record->games[i];
        if (scheduled->seat_count < 2 || scheduled->status == STORE_GAME_FINISHED)
            continue;
        for (int seat = 0; seat < scheduled->seat_count; seat++)
            left += scheduled->seats[seat] == entry;
    }
    return record->is_finished ? 0 : left;
}

static int rounds_unplanned(const store_tournament_record *record)
{
    json_t *settings = json_loads(record->info.settings, 0, NULL);
    int rounds = (int)json_integer_value(json_object_get(settings, "rounds"));
    json_decref(settings);
    int planned = record->game_count ? record->games[record->game_count - 1].round + 1 : 0;
    bool is_swiss = strcmp(record->info.format, "swiss") == 0;
    return is_swiss && rounds > planned ? rounds - planned : 0;
}

static json_t *standings_json(const store_tournament_record *record)
{
    int order[TOURNAMENT_MAX_ENTRIES];
    int count =
        record->entry_count < TOURNAMENT_MAX_ENTRIES ? record->entry_count : TOURNAMENT_MAX_ENTRIES;
    for (int i = 0; i < count; i++)
        order[i] = i;
    sort_by_rank(record, order, count);
    int unplanned = rounds_unplanned(record);
    json_t *list = json_array();
    int rank = 1;
    for (int k = 0; k < count; k++) {
        const store_standing *entry = &record->entries[order[k]];
        if (k > 0 && !is_tied(entry, &record->entries[order[k - 1]]))
            rank = k + 1;
        json_array_append_new(
            list,
            json_pack("{s:i, s:i, s:{s:I, s:s}, s:o, s:f, s:I, s:I, s:o, s:i}", "rank", rank,
                      "entry", entry->entry, "player", "id", (json_int_t)entry->player_id, "name",
                      entry->name, "bot", entry->bot[0] ? json_string(entry->bot) : json_null(),
                      "points", entry->points, "games", (json_int_t)entry->games, "wins",
                      (json_int_t)entry->wins, "average_score",
                      entry->games ? json_real((double)entry->score_total / (double)entry->games)
                                   : json_null(),
                      "games_left", games_left(record, entry->entry, unplanned)));
    }
    return list;
}

/* A scheduled game's status: an aborted game is played again, unless its
 * tournament was cancelled. Then every game not finished is cancelled: the
 * one under way is aborted by its room, an event of its own a moment later,
 * and one whose abort could not be stored no longer counts. */
static const char *scheduled_status(const store_tournament_record *record,
                                    const store_scheduled_game *scheduled)
{
    bool is_unplayed = !scheduled->game_id || scheduled->status == STORE_GAME_ABORTED;
    if (scheduled->seat_count == 1)
        return "bye";
    if (record->is_cancelled && scheduled->status != STORE_GAME_FINISHED)
        return "cancelled";
    if (is_unplayed)
        return "scheduled";
    return store_game_status_name(scheduled->status);
}

static json_t *schedule_json(const store_tournament_record *record)
{
    json_t *list = json_array();
    for (int i = 0; i < record->game_count; i++) {
        const store_scheduled_game *scheduled = &record->games[i];
        json_t *entries = json_array();
        for (int seat = 0; seat < scheduled->seat_count; seat++)
            json_array_append_new(entries, json_integer(scheduled->seats[seat]));
        const char *status = scheduled_status(record, scheduled);
        json_array_append_new(
            list,
            json_pack("{s:i, s:i, s:o, s:s, s:o, s:o}", "number", scheduled->number, "round",
                      scheduled->round, "entries", entries, "status", status, "room",
                      scheduled->game_id ? json_string(scheduled->room) : json_null(), "game_id",
                      scheduled->game_id ? json_integer(scheduled->game_id) : json_null()));
    }
    return list;
}

json_t *tournament_view_json(const store_tournament_record *record, bool with_games)
{
    const store_tournament_info *info = &record->info;
    int total = 0, finished = 0, playing = 0;
    for (int i = 0; i < record->game_count; i++) {
        const store_scheduled_game *scheduled = &record->games[i];
        if (scheduled->seat_count < 2)
            continue;
        total++;
        finished += scheduled->game_id && scheduled->status == STORE_GAME_FINISHED;
        playing += scheduled->game_id && (scheduled->status == STORE_GAME_PLAYING ||
                                          scheduled->status == STORE_GAME_WAITING);
    }
    json_t *view =
        json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:I, s:o, s:{s:i, s:i, s:i}, s:o}",
                  "id", (json_int_t)record->id, "name", info->name, "game", info->game, "mode",
                  info->mode, "format", info->format, "status",
                  store_tournament_status(record->is_finished, record->is_cancelled), "seed",
                  game_json_seed_value(info->seed), "arena",
                  info->arena ? json_string(info->arena) : json_null(), "created_at_ms",
                  (json_int_t)info->created_at_ms, "finished_at_ms",
                  record->finished_at_ms >= 0 ? json_integer(record->finished_at_ms) : json_null(),
                  "games", "planned", total, "finished", finished, "playing", playing, "standings",
                  standings_json(record));
    if (view && with_games)
        json_object_set_new(view, "schedule", schedule_json(record));
    return view;
}

char *tournament_event_text(const store_tournament_record *record, tournament_tell what, int number)
{
    static const char *const TYPES[] = {"tournament.game", "tournament.standings",
                                        "tournament.finished", "tournament.cancelled"};
    json_t *message = json_pack("{s:s, s:o}", "type", TYPES[what], "tournament",
                                tournament_view_json(record, false));
    if (message && what == TOURNAMENT_TELL_GAME) {
        const store_scheduled_game *scheduled = &record->games[number];
        json_t *seat_list = json_array();
        for (int seat = 0; seat < scheduled->seat_count; seat++)
            json_array_append_new(seat_list, json_integer(scheduled->seats[seat]));
        json_object_set_new(message, "game",
                            json_pack("{s:i, s:i, s:s, s:I, s:o}", "number", scheduled->number,
                                      "round", scheduled->round, "room", scheduled->room, "game_id",
                                      (json_int_t)scheduled->game_id, "entries", seat_list));
    }
    char *text = message ? json_dumps(message, JSON_COMPACT) : NULL;
    json_decref(message);
    return text;
}

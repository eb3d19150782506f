/* tournament_step.c -- a running tournament's next step (tournament_step.h). */
#include "lobby/tournament_step.h"

/* Whether a scheduled game's room was opened: its game is stored, or
 * (marked by the caller) still being stored. */
static bool is_opened(const store_scheduled_game *scheduled)
{
    return scheduled->game_id || scheduled->status != STORE_GAME_WAITING;
}

bool tournament_step_is_running(const store_scheduled_game *scheduled)
{
    return is_opened(scheduled) &&
           (scheduled->status == STORE_GAME_WAITING || scheduled->status == STORE_GAME_PLAYING);
}

/* A game still to start: never opened, or opened and discarded. */
static bool is_pending(const store_scheduled_game *scheduled)
{
    return scheduled->seat_count > 1 &&
           (!is_opened(scheduled) || scheduled->status == STORE_GAME_ABORTED);
}

/* Whether every game scheduled so far is played (a bye counts as played). */
static bool is_round_done(const store_tournament_record *record)
{
    for (int i = 0; i < record->game_count; i++)
        if (record->games[i].seat_count > 1 && record->games[i].status != STORE_GAME_FINISHED)
            return false;
    return true;
}

/* The round of the last Swiss game planned, -1 before the first. */
static int last_round(const store_tournament_record *record)
{
    return record->game_count ? record->games[record->game_count - 1].round : -1;
}

/* The pending games there is room for, in schedule order. */
static void plan_starts(const store_tournament_record *record, int parallel, tournament_step *out)
{
    int running = 0;
    for (int i = 0; i < record->game_count; i++)
        running += tournament_step_is_running(&record->games[i]);
    out->kind = TOURNAMENT_STEP_WAIT;
    out->start_count = 0;
    for (int i = 0; i < record->game_count && running < parallel; i++) {
        if (!is_pending(&record->games[i]))
            continue;
        out->starts[out->start_count++] = i;
        running++;
        out->kind = TOURNAMENT_STEP_START;
    }
}

/* Pairs round `round` from the standings so far. */
static int plan_pairs(const store_tournament_record *record, int round, tournament_step *out)
{
    int count = record->entry_count;
    if (count < 2 || count > SWISS_MAX_PLAYERS)
        return -1;
    double points[SWISS_MAX_PLAYERS];
    bool had_bye[SWISS_MAX_PLAYERS] = {false};
    bool has_met[SWISS_MAX_PLAYERS * SWISS_MAX_PLAYERS] = {false};
    for (int i = 0; i < count; i++)
        points[i] = record->entries[i].points;
    for (int i = 0; i < record->game_count; i++) {
        const store_scheduled_game *scheduled = &record->games[i];
        if (scheduled->seat_count == 1)
            had_bye[scheduled->seats[0]] = true;
        else
            has_met[scheduled->seats[0] * count + scheduled->seats[1]] =
                has_met[scheduled->seats[1] * count + scheduled->seats[0]] = true;
    }
    swiss_round pairing;
    if (swiss_pair(count, points, had_bye, has_met, &pairing) != 0)
        return -1;
    out->kind = TOURNAMENT_STEP_PAIR;
    out->round = round;
    out->pair_count = pairing.pair_count;
    for (int i = 0; i < pairing.pair_count; i++) {
        out->pairs[i][0] = pairing.pairs[i][round % 2];
        out->pairs[i][1] = pairing.pairs[i][1 - round % 2];
    }
    out->bye = pairing.bye;
    return 0;
}

int tournament_step_next(const store_tournament_record *record, const tournament_rules *rules,
                         tournament_step *out)
{
    *out = (tournament_step){.kind = TOURNAMENT_STEP_WAIT, .bye = -1};
    if (!is_round_done(record)) {
        plan_starts(record, rules->parallel, out);
        return 0;
    }
    int round = last_round(record) + 1;
    if (rules->format == TOURNAMENT_SWISS && round < rules->rounds)
        return plan_pairs(record, round, out);
    out->kind = TOURNAMENT_STEP_FINISH;
    return 0;
}

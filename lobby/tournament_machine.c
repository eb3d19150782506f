/* tournament_machine.c -- a running tournament's events and effects
 * (tournament_machine.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/tournament_machine.h"

tournament_state tournament_machine_new(store_tournament_record *record,
                                        const tournament_rules *rules)
{
    return (tournament_state){
        .record = record, .rules = *rules, .round_bye = -1, .game_capacity = record->game_count};
}

static void add(tournament_effects *out, tournament_effect_kind kind, int game,
                tournament_tell tell)
{
    if (out->count < TOURNAMENT_MAX_EFFECTS) /* bounded: at most `parallel` opens and 3 more */
        out->items[out->count++] = (tournament_effect){kind, game, tell, TOURNAMENT_COMMIT_NONE};
}

static void add_store(tournament_effects *out, tournament_commit commit)
{
    add(out, TOURNAMENT_EFFECT_STORE, 0, 0);
    out->items[out->count - 1].commit = commit;
}

static store_record *add_record(tournament_effects *out, store_record_kind kind, int64_t now)
{
    store_record *record = &out->records[out->record_count++];
    *record = (store_record){.kind = kind, .at_ms = now};
    return record;
}

/* Forgets that game `number`'s row is being stored: whether it was. */
static bool take_opening(tournament_state *state, int number)
{
    for (int i = 0; i < state->opening_count; i++)
        if (state->opening[i] == number) {
            state->opening[i] = state->opening[--state->opening_count];
            return true;
        }
    return false;
}

/* Makes room in the schedule for `more` games: 0, or -1 out of memory. */
static int reserve_games(tournament_state *state, int more)
{
    store_tournament_record *record = state->record;
    if (record->game_count + more <= state->game_capacity)
        return 0;
    int capacity = record->game_count + more;
    store_scheduled_game *games = realloc(record->games, sizeof(*games) * (size_t)capacity);
    if (!games)
        return -1;
    record->games = games;
    state->game_capacity = capacity;
    return 0;
}

/* Opens the rooms of the games `step` starts: each runs from now on. */
static void start(tournament_state *state, const tournament_step *step, tournament_effects *out)
{
    for (int i = 0; i < step->start_count; i++) {
        store_scheduled_game *scheduled = &state->record->games[step->starts[i]];
        scheduled->status = STORE_GAME_PLAYING;
        scheduled->game_id = 0; /* a discarded game's row stays aborted; a new one comes */
        scheduled->room[0] = '\0';
        state->opening[state->opening_count++] = scheduled->number;
        add(out, TOURNAMENT_EFFECT_OPEN, scheduled->number, 0);
    }
}

/* Stores a Swiss round: its games wait after the schedule's end until
 * the commit is answered. */
static void pair(tournament_state *state, const tournament_step *step, int64_t now,
                 tournament_effects *out)
{
    store_tournament_record *record = state->record;
    int games = step->pair_count + (step->bye >= 0);
    if (reserve_games(state, games) != 0)
        return; /* the next tick tries again */
    for (int i = 0; i < games; i++) {
        bool is_bye = i == step->pair_count;
        store_scheduled_game *scheduled = &record->games[record->game_count + i];
        *scheduled = (store_scheduled_game){.number = record->game_count + i,
                                            .round = step->round,
                                            .seat_count = is_bye ? 1 : 2,
                                            .status = STORE_GAME_WAITING};
        memcpy(scheduled->seats, is_bye ? &step->bye : step->pairs[i],
               sizeof(int) * (size_t)scheduled->seat_count);
        store_record_scheduled *stored =
            &add_record(out, STORE_RECORD_TOURNAMENT_SCHEDULE, now)->scheduled;
        *stored = (store_record_scheduled){
            record->id, scheduled->number, step->round, scheduled->seat_count, {0}};
        memcpy(stored->seats, scheduled->seats, sizeof(int) * (size_t)scheduled->seat_count);
    }
    if (step->bye >= 0) { /* a bye is worth one point at once */
        store_record *point = add_record(out, STORE_RECORD_TOURNAMENT_RESULT, now);
        point->standings = (store_record_standings){record->id, 1, {{0}}};
        point->standings.changes[0] = (store_standing_change){step->bye, 1.0, 0, false, 0};
    }
    state->commit = TOURNAMENT_COMMIT_ROUND;
    state->round_games = games;
    state->round_bye = step->bye;
    add_store(out, TOURNAMENT_COMMIT_ROUND);
}

/* Stores the tournament's end. */
static void finish(tournament_state *state, int64_t now, tournament_effects *out)
{
    add_record(out, STORE_RECORD_TOURNAMENT_FINISH, now)->tournament_id = state->record->id;
    state->commit = TOURNAMENT_COMMIT_FINISH;
    state->commit_at_ms = now;
    add_store(out, TOURNAMENT_COMMIT_FINISH);
}

/* What follows now: games to start, a round or the end to store. Only
 * a round or an end when `is_restored`. */
static void carry_on(tournament_state *state, int64_t now, bool is_restored,
                     tournament_effects *out)
{
    tournament_step step;
    if (state->is_over || state->is_cancelling || state->commit != TOURNAMENT_COMMIT_NONE ||
        tournament_step_next(state->record, &state->rules, &step) != 0)
        return;
    if (step.kind == TOURNAMENT_STEP_START && !is_restored)
        start(state, &step, out);
    else if (step.kind == TOURNAMENT_STEP_PAIR)
        pair(state, &step, now, out);
    else if (step.kind == TOURNAMENT_STEP_FINISH)
        finish(state, now, out);
}

/* Adds one game's standings changes to the entries, as the store did. */
static void add_standings(store_tournament_record *record, int count,
                          const store_standing_change *changes)
{
    for (int i = 0; i < count; i++) {
        if (changes[i].entry < 0 || changes[i].entry >= record->entry_count)
            continue;
        store_standing *entry = &record->entries[changes[i].entry];
        entry->points += changes[i].points;
        entry->games += changes[i].games;
        entry->wins += changes[i].is_winner;
        entry->score_total += changes[i].score;
    }
}

/* The tournament ends (finished or cancelled at `at`). */
static void end(tournament_state *state, bool is_cancelled, int64_t at, tournament_effects *out)
{
    state->record->is_finished = true;
    state->record->is_cancelled = is_cancelled;
    state->record->finished_at_ms = at;
    state->is_over = true;
    if (is_cancelled)
        add(out, TOURNAMENT_EFFECT_ABORT, 0, 0);
    add(out, TOURNAMENT_EFFECT_TELL, 0,
        is_cancelled ? TOURNAMENT_TELL_CANCELLED : TOURNAMENT_TELL_FINISHED);
    add(out, TOURNAMENT_EFFECT_OVER, 0, 0);
}

/* A commit's answer. One that failed changes nothing: the next tick
 * decides again (a cancellation is asked for again by its requester). */
static void stored(tournament_state *state, const tournament_event *event, tournament_effects *out)
{
    store_tournament_record *record = state->record;
    if (event->commit == TOURNAMENT_COMMIT_CANCEL) {
        state->is_cancelling = false;
        if (event->rc == STORE_OK)
            end(state, true, state->cancel_at_ms, out);
        return;
    }
    tournament_commit commit = state->commit;
    state->commit = TOURNAMENT_COMMIT_NONE;
    if (event->rc != STORE_OK || commit != event->commit)
        return;
    if (commit == TOURNAMENT_COMMIT_FINISH) {
        end(state, false, state->commit_at_ms, out);
        return;
    }
    record->game_count += state->round_games;
    if (state->round_bye >= 0)
        add_standings(record, 1, &(store_standing_change){state->round_bye, 1.0, 0, false, 0});
    carry_on(state, event->now_ms, false, out); /* the round's games start */
}

/* Game `number` of the schedule, or NULL for a number out of it. */
static store_scheduled_game *game_of(tournament_state *state, int number)
{
    return number >= 0 && number < state->record->game_count ? &state->record->games[number] : NULL;
}

static void opened(tournament_state *state, const tournament_event *event, tournament_effects *out)
{
    store_scheduled_game *scheduled = game_of(state, event->game);
    if (!scheduled)
        return;
    snprintf(scheduled->room, sizeof(scheduled->room), "%s", event->room);
    if (event->game_id && take_opening(state, event->game)) {
        scheduled->game_id = event->game_id;
        add(out, TOURNAMENT_EFFECT_TELL, event->game, TOURNAMENT_TELL_GAME);
    }
}

static void game_created(tournament_state *state, const tournament_event *event,
                         tournament_effects *out)
{
    store_scheduled_game *scheduled = game_of(state, event->game);
    if (!scheduled || !scheduled->room[0] || !take_opening(state, event->game))
        return; /* not opened yet: OPENED brings the id */
    scheduled->game_id = event->game_id;
    add(out, TOURNAMENT_EFFECT_TELL, event->game, TOURNAMENT_TELL_GAME);
}

static void game_over(tournament_state *state, const tournament_event *event,
                      tournament_effects *out)
{
    store_scheduled_game *scheduled = game_of(state, event->game);
    if (!scheduled || scheduled->status == STORE_GAME_FINISHED)
        return; /* counted once */
    take_opening(state, event->game);
    bool has_result = event->has_result;
    scheduled->status = has_result ? STORE_GAME_FINISHED : STORE_GAME_ABORTED;
    if (has_result)
        add_standings(state->record, event->standings_count, event->standings);
    add(out, TOURNAMENT_EFFECT_TELL, 0, TOURNAMENT_TELL_STANDINGS);
    carry_on(state, event->now_ms, false, out);
}

static void cancel(tournament_state *state, int64_t now, tournament_effects *out)
{
    state->is_cancelling = true;
    state->cancel_at_ms = now;
    add_record(out, STORE_RECORD_TOURNAMENT_CANCEL, now)->tournament_id = state->record->id;
    add_store(out, TOURNAMENT_COMMIT_CANCEL);
}

void tournament_machine_apply(tournament_state *state, const tournament_event *event,
                              tournament_effects *out)
{
    out->count = 0;
    out->record_count = 0;
    if (state->is_over)
        return;
    switch (event->kind) {
    case TOURNAMENT_EVENT_TICK:
    case TOURNAMENT_EVENT_RESTORED:
        carry_on(state, event->now_ms, event->kind == TOURNAMENT_EVENT_RESTORED, out);
        return;
    case TOURNAMENT_EVENT_OPENED:
        opened(state, event, out);
        return;
    case TOURNAMENT_EVENT_GAME_CREATED:
        game_created(state, event, out);
        return;
    case TOURNAMENT_EVENT_DISCARDED: {
        store_scheduled_game *scheduled = game_of(state, event->game);
        if (scheduled)
            scheduled->status = STORE_GAME_ABORTED; /* pending again: the next tick starts it */
        take_opening(state, event->game);
        return;
    }
    case TOURNAMENT_EVENT_FINISHED:
        game_over(state, event, out);
        return;
    case TOURNAMENT_EVENT_STORED:
        stored(state, event, out);
        return;
    case TOURNAMENT_EVENT_CANCEL:
        cancel(state, event->now_ms, out);
        return;
    }
}

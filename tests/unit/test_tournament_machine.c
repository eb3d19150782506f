/* test_tournament_machine.c -- a running tournament as a pure machine
 * (lobby/tournament_machine.c), with plain values: every format played to
 * its end, a Swiss with byes through its last round, games that end while
 * a commit or a game row is on its way, commits that fail and are tried
 * again, a cancellation midway, a discarded game, a restart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lobby/tournament_machine.h"
#include "lobby/tournament_plan.h"

#define NOW 1000000

/* A machine, the effects of its last event, and the test's clock. */
struct run {
    tournament_state state;
    tournament_effects effects;
    int64_t now;
    int64_t next_game_id;
    int tells[TOURNAMENT_TELL_CANCELLED + 1]; /* how many of each, over the run */
};

static struct run run;

/* A tournament of `entries` entries as the store would load it, with a
 * round-robin's or fixed tournament's whole schedule. */
static void start_run(int entries, tournament_format format, int seats, int per_group, int rounds,
                      int parallel)
{
    store_tournament_record *record = calloc(1, sizeof(*record));
    assert_non_null(record);
    record->id = 7;
    record->finished_at_ms = -1;
    record->entry_count = entries;
    record->entries = calloc((size_t)entries, sizeof(*record->entries));
    for (int i = 0; i < entries; i++)
        record->entries[i].entry = i;
    int count =
        format == TOURNAMENT_SWISS ? 0 : tournament_plan_count(format, entries, seats, per_group);
    record->games = count ? calloc((size_t)count, sizeof(*record->games)) : NULL;
    for (int number = 0; number < count; number++) {
        store_scheduled_game *game = &record->games[number];
        *game = (store_scheduled_game){.number = number, .seat_count = seats};
        tournament_plan_game(format, entries, seats, per_group, number, game->seats);
    }
    record->game_count = count;
    memset(&run, 0, sizeof(run));
    tournament_rules rules = {format, rounds, parallel};
    run.state = tournament_machine_new(record, &rules);
    run.now = NOW;
    run.next_game_id = 100;
}

static int teardown(void **state)
{
    (void)state;
    store_tournament_record_free(run.state.record);
    return 0;
}

/* Applies `event` at the run's time; counts the tells. */
static void apply(tournament_event event)
{
    event.now_ms = run.now;
    tournament_machine_apply(&run.state, &event, &run.effects);
    for (int i = 0; i < run.effects.count; i++)
        if (run.effects.items[i].kind == TOURNAMENT_EFFECT_TELL)
            run.tells[run.effects.items[i].tell]++;
}

/* How many effects of `kind` the last event had. */
static int effects_of(tournament_effect_kind kind)
{
    int count = 0;
    for (int i = 0; i < run.effects.count; i++)
        count += run.effects.items[i].kind == kind;
    return count;
}

/* The commit the last event stored, NONE if none. */
static tournament_commit stored_commit(void)
{
    for (int i = 0; i < run.effects.count; i++)
        if (run.effects.items[i].kind == TOURNAMENT_EFFECT_STORE)
            return run.effects.items[i].commit;
    return TOURNAMENT_COMMIT_NONE;
}

static void answer(tournament_commit commit, int rc)
{
    apply((tournament_event){.kind = TOURNAMENT_EVENT_STORED, .commit = commit, .rc = rc});
}

/* Opens the rooms the last event asked for, their rows stored at once. */
static void open_rooms(void)
{
    int games[TOURNAMENT_MAX_EFFECTS], count = 0;
    for (int i = 0; i < run.effects.count; i++)
        if (run.effects.items[i].kind == TOURNAMENT_EFFECT_OPEN)
            games[count++] = run.effects.items[i].game;
    for (int i = 0; i < count; i++) {
        tournament_event opened = {.kind = TOURNAMENT_EVENT_OPENED, .game = games[i]};
        opened.game_id = run.next_game_id++;
        snprintf(opened.room, sizeof(opened.room), "ROOM%d", games[i]);
        apply(opened);
        assert_int_equal(effects_of(TOURNAMENT_EFFECT_TELL), 1); /* tournament.game */
    }
}

/* Game `number` ended, its first seat the winner; the rooms asked for
 * next are opened. */
static void end_game(int number)
{
    const store_scheduled_game *game = &run.state.record->games[number];
    tournament_event over = {.kind = TOURNAMENT_EVENT_FINISHED, .game = number};
    over.has_result = true;
    over.standings_count = game->seat_count;
    for (int seat = 0; seat < game->seat_count; seat++)
        over.standings[seat] =
            (store_standing_change){game->seats[seat], seat == 0 ? 1.0 : 0.0, 1, seat == 0, 10};
    apply(over);
    open_rooms();
}

/* The first game running, or -1. */
static int running_game(void)
{
    for (int i = 0; i < run.state.record->game_count; i++)
        if (tournament_step_is_running(&run.state.record->games[i]))
            return i;
    return -1;
}

static int running_count(void)
{
    int count = 0;
    for (int i = 0; i < run.state.record->game_count; i++)
        count += tournament_step_is_running(&run.state.record->games[i]);
    return count;
}

/* Plays games one after the other (their rounds stored as asked) until
 * the tournament asks to store its end: how many games were played. */
static int play_to_the_end(void)
{
    int played = 0;
    for (int guard = 0; guard < 10000; guard++) {
        tournament_commit commit = stored_commit();
        if (commit == TOURNAMENT_COMMIT_FINISH)
            return played;
        if (commit == TOURNAMENT_COMMIT_ROUND) {
            answer(TOURNAMENT_COMMIT_ROUND, STORE_OK);
            open_rooms();
            continue;
        }
        int game = running_game();
        assert_true(game >= 0);
        end_game(game);
        played++;
    }
    fail_msg("the tournament did not end");
    return played;
}

static double points_sum(void)
{
    double sum = 0;
    for (int i = 0; i < run.state.record->entry_count; i++)
        sum += run.state.record->entries[i].points;
    return sum;
}

/* The end is stored: the tournament is over, its followers told. */
static void store_the_end(void)
{
    assert_int_equal(run.effects.record_count, 1);
    assert_int_equal(run.effects.records[0].kind, STORE_RECORD_TOURNAMENT_FINISH);
    assert_int_equal(run.effects.records[0].tournament_id, 7);
    answer(TOURNAMENT_COMMIT_FINISH, STORE_OK);
    assert_int_equal(effects_of(TOURNAMENT_EFFECT_OVER), 1);
    assert_int_equal(run.tells[TOURNAMENT_TELL_FINISHED], 1);
    assert_true(run.state.is_over);
    assert_true(run.state.record->is_finished);
    assert_false(run.state.record->is_cancelled);
    assert_int_equal(run.state.record->finished_at_ms, run.now);
}

static void test_a_round_robin_plays_every_game_two_at_a_time_to_its_end(void **state)
{
    (void)state;
    start_run(3, TOURNAMENT_ROUND_ROBIN, 2, 1, 0, 2);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK});
    assert_int_equal(effects_of(TOURNAMENT_EFFECT_OPEN), 2);
    open_rooms();
    assert_int_equal(running_count(), 2);
    assert_int_equal(play_to_the_end(), 6);
    assert_int_equal(run.tells[TOURNAMENT_TELL_GAME], 6);
    assert_int_equal(run.tells[TOURNAMENT_TELL_STANDINGS], 6);
    for (int i = 0; i < 3; i++)
        assert_int_equal(run.state.record->entries[i].games, 4);
    assert_true(points_sum() == 6.0);
    store_the_end();
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK}); /* over: nothing more */
    assert_int_equal(run.effects.count, 0);
}

static void test_a_fixed_group_of_four_plays_its_games_one_at_a_time(void **state)
{
    (void)state;
    start_run(4, TOURNAMENT_FIXED, 4, 3, 0, 1);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK});
    assert_int_equal(effects_of(TOURNAMENT_EFFECT_OPEN), 1);
    open_rooms();
    assert_int_equal(play_to_the_end(), 3);
    for (int i = 0; i < 4; i++)
        assert_int_equal(run.state.record->entries[i].games, 3);
    store_the_end();
}

static void test_a_swiss_of_five_pairs_each_round_with_a_bye_to_the_end(void **state)
{
    (void)state;
    start_run(5, TOURNAMENT_SWISS, 2, 1, 3, 4);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK});
    assert_int_equal(stored_commit(), TOURNAMENT_COMMIT_ROUND);
    assert_int_equal(run.effects.record_count, 4); /* two games, the bye, its point */
    assert_int_equal(run.effects.records[3].kind, STORE_RECORD_TOURNAMENT_RESULT);
    assert_int_equal(run.state.record->game_count, 0); /* not stored yet */
    assert_int_equal(play_to_the_end(), 6);
    assert_int_equal(run.state.record->game_count, 9);
    int byes[5] = {0};
    for (int i = 0; i < 9; i++)
        if (run.state.record->games[i].seat_count == 1)
            byes[run.state.record->games[i].seats[0]]++;
    for (int i = 0; i < 5; i++)
        assert_true(byes[i] <= 1); /* three byes, to three entries */
    assert_true(points_sum() == 9.0);
    store_the_end();
}

/* A game ends while another's row is being stored: its result counts and
 * the next game starts; the other is told once its row is stored. */
static void test_a_game_ends_while_another_games_row_is_being_stored(void **state)
{
    (void)state;
    start_run(3, TOURNAMENT_ROUND_ROBIN, 2, 1, 0, 2);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK});
    apply((tournament_event){
        .kind = TOURNAMENT_EVENT_OPENED, .game = 0, .game_id = 100, .room = "ROOM0"});
    apply((tournament_event){.kind = TOURNAMENT_EVENT_OPENED, .game = 1, .room = "ROOM1"});
    assert_int_equal(run.effects.count, 0); /* its row is on its way */
    assert_int_equal(running_count(), 2);
    run.next_game_id = 102;
    end_game(0);
    assert_int_equal(run.tells[TOURNAMENT_TELL_STANDINGS], 1);
    assert_int_equal(running_count(), 2); /* game 2 started */
    apply((tournament_event){.kind = TOURNAMENT_EVENT_GAME_CREATED, .game = 1, .game_id = 101});
    assert_int_equal(effects_of(TOURNAMENT_EFFECT_TELL), 1);
    assert_int_equal(run.state.record->games[1].game_id, 101);
    assert_string_equal(run.state.record->games[1].room, "ROOM1");
}

/* A Swiss round whose commit fails is not in the schedule; the next tick
 * pairs it again. */
static void test_a_round_that_is_not_stored_is_paired_again_at_the_next_tick(void **state)
{
    (void)state;
    start_run(4, TOURNAMENT_SWISS, 2, 1, 2, 4);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK});
    assert_int_equal(stored_commit(), TOURNAMENT_COMMIT_ROUND);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK}); /* out: no second one */
    assert_int_equal(run.effects.count, 0);
    answer(TOURNAMENT_COMMIT_ROUND, STORE_E_IO);
    assert_int_equal(run.effects.count, 0);
    assert_int_equal(run.state.record->game_count, 0);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK});
    assert_int_equal(stored_commit(), TOURNAMENT_COMMIT_ROUND);
    answer(TOURNAMENT_COMMIT_ROUND, STORE_OK);
    assert_int_equal(run.state.record->game_count, 2);
    assert_int_equal(effects_of(TOURNAMENT_EFFECT_OPEN), 2);
}

/* An end that is not stored leaves the tournament running; the next tick
 * stores it. */
static void test_an_end_that_is_not_stored_is_stored_at_the_next_tick(void **state)
{
    (void)state;
    start_run(2, TOURNAMENT_ROUND_ROBIN, 2, 1, 0, 1);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK});
    open_rooms();
    assert_int_equal(play_to_the_end(), 2);
    answer(TOURNAMENT_COMMIT_FINISH, STORE_E_IO);
    assert_false(run.state.is_over);
    assert_false(run.state.record->is_finished);
    run.now += 1000;
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK});
    store_the_end();
}

/* A cancellation midway: no game starts while it is out, a game that
 * ends meanwhile counts; one that fails changes nothing; once stored the
 * games under way are aborted and the tournament is over. */
static void test_a_cancellation_midway_stops_the_tournament_once_stored(void **state)
{
    (void)state;
    start_run(3, TOURNAMENT_ROUND_ROBIN, 2, 1, 0, 2);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK});
    open_rooms();
    apply((tournament_event){.kind = TOURNAMENT_EVENT_CANCEL});
    assert_int_equal(stored_commit(), TOURNAMENT_COMMIT_CANCEL);
    assert_int_equal(run.effects.records[0].kind, STORE_RECORD_TOURNAMENT_CANCEL);
    end_game(0);
    assert_int_equal(effects_of(TOURNAMENT_EFFECT_OPEN), 0); /* none while cancelling */
    assert_int_equal(run.state.record->entries[run.state.record->games[0].seats[0]].games, 1);
    answer(TOURNAMENT_COMMIT_CANCEL, STORE_E_IO);
    assert_int_equal(run.effects.count, 0);
    assert_false(run.state.is_over);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK}); /* it runs on */
    assert_int_equal(effects_of(TOURNAMENT_EFFECT_OPEN), 1);
    open_rooms();
    run.now += 5000;
    apply((tournament_event){.kind = TOURNAMENT_EVENT_CANCEL});
    answer(TOURNAMENT_COMMIT_CANCEL, STORE_OK);
    assert_int_equal(run.effects.items[0].kind, TOURNAMENT_EFFECT_ABORT);
    assert_int_equal(run.tells[TOURNAMENT_TELL_CANCELLED], 1);
    assert_int_equal(effects_of(TOURNAMENT_EFFECT_OVER), 1);
    assert_true(run.state.record->is_cancelled);
    assert_int_equal(run.state.record->finished_at_ms, NOW + 5000);
}

/* A game whose room could not be filled is pending again: the next tick
 * starts it, not the event itself. */
static void test_a_discarded_game_starts_again_at_the_next_tick(void **state)
{
    (void)state;
    start_run(2, TOURNAMENT_FIXED, 2, 2, 0, 1);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK});
    apply((tournament_event){.kind = TOURNAMENT_EVENT_DISCARDED, .game = 0});
    assert_int_equal(run.effects.count, 0);
    assert_int_equal(running_count(), 0);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_TICK});
    assert_int_equal(effects_of(TOURNAMENT_EFFECT_OPEN), 1);
    assert_int_equal(run.effects.items[0].game, 0);
}

/* A tournament loaded at start-up carries on only what stopped between a
 * result and what follows (a round, an end); games start at the tick. */
static void test_a_restored_tournament_carries_on_only_a_round_or_an_end(void **state)
{
    (void)state;
    start_run(2, TOURNAMENT_FIXED, 2, 2, 0, 1);
    apply((tournament_event){.kind = TOURNAMENT_EVENT_RESTORED});
    assert_int_equal(run.effects.count, 0);
    run.state.record->games[0].status = STORE_GAME_FINISHED;
    run.state.record->games[1].status = STORE_GAME_FINISHED;
    apply((tournament_event){.kind = TOURNAMENT_EVENT_RESTORED});
    assert_int_equal(stored_commit(), TOURNAMENT_COMMIT_FINISH);
}

#define MACHINE_TEST(name) cmocka_unit_test_teardown(name, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        MACHINE_TEST(test_a_round_robin_plays_every_game_two_at_a_time_to_its_end),
        MACHINE_TEST(test_a_fixed_group_of_four_plays_its_games_one_at_a_time),
        MACHINE_TEST(test_a_swiss_of_five_pairs_each_round_with_a_bye_to_the_end),
        MACHINE_TEST(test_a_game_ends_while_another_games_row_is_being_stored),
        MACHINE_TEST(test_a_round_that_is_not_stored_is_paired_again_at_the_next_tick),
        MACHINE_TEST(test_an_end_that_is_not_stored_is_stored_at_the_next_tick),
        MACHINE_TEST(test_a_cancellation_midway_stops_the_tournament_once_stored),
        MACHINE_TEST(test_a_discarded_game_starts_again_at_the_next_tick),
        MACHINE_TEST(test_a_restored_tournament_carries_on_only_a_round_or_an_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

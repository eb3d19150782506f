/* test_tournament_step.c -- a tournament's next step (lobby/tournament_step.c),
 * from plain records: which games start, when a Swiss round is paired,
 * when it is over -- tournaments played to their end without a lobby. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lobby/tournament_plan.h"
#include "lobby/tournament_step.h"

#define MAX_GAMES 64

/* A tournament's record in plain arrays, as the store would load it. */
struct field {
    store_tournament_record record;
    store_standing entries[SWISS_MAX_PLAYERS];
    store_scheduled_game games[MAX_GAMES];
    int64_t next_game_id;
};

static void field_start(struct field *field, int entries)
{
    memset(field, 0, sizeof(*field));
    field->record.entry_count = entries;
    field->record.entries = field->entries;
    field->record.games = field->games;
    field->next_game_id = 100;
}

static void schedule(struct field *field, int round, int seat_count, const int *seats)
{
    assert_true(field->record.game_count < MAX_GAMES);
    store_scheduled_game *game = &field->games[field->record.game_count];
    *game = (store_scheduled_game){.number = field->record.game_count, .round = round};
    game->seat_count = seat_count;
    memcpy(game->seats, seats, sizeof(int) * (size_t)seat_count);
    field->record.game_count++;
}

/* Stores the whole plan of a round-robin or fixed tournament. */
static void plan_all(struct field *field, tournament_format format, int seats, int per_group)
{
    int count = tournament_plan_count(format, field->record.entry_count, seats, per_group);
    for (int number = 0; number < count; number++) {
        int seating[STORE_MAX_SEATS];
        tournament_plan_game(format, field->record.entry_count, seats, per_group, number, seating);
        schedule(field, 0, seats, seating);
    }
}

static tournament_step next(const struct field *field, tournament_rules rules)
{
    tournament_step step;
    assert_int_equal(tournament_step_next(&field->record, &rules, &step), 0);
    return step;
}

/* The room of game `index` opened: it runs. */
static void open_game(struct field *field, int index)
{
    field->games[index].game_id = field->next_game_id++;
    field->games[index].status = STORE_GAME_PLAYING;
}

/* Game `index` ended: the first seat wins a point. */
static void finish_game(struct field *field, int index)
{
    field->games[index].status = STORE_GAME_FINISHED;
    field->entries[field->games[index].seats[0]].points += 1.0;
}

/* Stores a Swiss round as the step paired it, the bye worth a point. */
static void store_pairing(struct field *field, const tournament_step *step)
{
    for (int i = 0; i < step->pair_count; i++)
        schedule(field, step->round, 2, step->pairs[i]);
    if (step->bye >= 0) {
        schedule(field, step->round, 1, &step->bye);
        field->entries[step->bye].points += 1.0;
    }
}

static void test_round_robin_starts_games_in_order_up_to_parallel(void **state)
{
    (void)state;
    struct field field;
    field_start(&field, 4);
    plan_all(&field, TOURNAMENT_ROUND_ROBIN, 2, 0);
    assert_int_equal(field.record.game_count, 12); /* every pair, both ways */
    tournament_rules rules = {TOURNAMENT_ROUND_ROBIN, 0, 3};
    tournament_step step = next(&field, rules);
    assert_int_equal(step.kind, TOURNAMENT_STEP_START);
    assert_int_equal(step.start_count, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(step.starts[i], i);
        open_game(&field, i);
    }
    assert_int_equal(next(&field, rules).kind, TOURNAMENT_STEP_WAIT);
    finish_game(&field, 1);
    step = next(&field, rules);
    assert_int_equal(step.kind, TOURNAMENT_STEP_START);
    assert_int_equal(step.start_count, 1);
    assert_int_equal(step.starts[0], 3);
}

/* Played to the end one step at a time: every game starts exactly once,
 * never more than `parallel` at once, and then it is over. */
static void test_a_round_robin_is_played_to_its_end(void **state)
{
    (void)state;
    struct field field;
    field_start(&field, 5);
    plan_all(&field, TOURNAMENT_ROUND_ROBIN, 2, 0);
    tournament_rules rules = {TOURNAMENT_ROUND_ROBIN, 0, 2};
    int started[MAX_GAMES] = {0};
    int running[MAX_GAMES], running_count = 0;
    for (int turn = 0; turn < 1000; turn++) {
        tournament_step step = next(&field, rules);
        if (step.kind == TOURNAMENT_STEP_FINISH)
            break;
        if (running_count == 0) /* nothing runs: something must start, or it is stuck */
            assert_int_equal(step.kind, TOURNAMENT_STEP_START);
        for (int i = 0; step.kind == TOURNAMENT_STEP_START && i < step.start_count; i++) {
            open_game(&field, step.starts[i]);
            started[step.starts[i]]++;
            running[running_count++] = step.starts[i];
        }
        assert_true(running_count <= rules.parallel);
        finish_game(&field, running[0]); /* the oldest ends first */
        memmove(running, running + 1, sizeof(int) * (size_t)--running_count);
    }
    assert_int_equal(next(&field, rules).kind, TOURNAMENT_STEP_FINISH);
    for (int i = 0; i < field.record.game_count; i++)
        assert_int_equal(started[i], 1);
}

/* A game whose room was discarded is pending again and starts next. */
static void test_a_discarded_game_starts_again(void **state)
{
    (void)state;
    struct field field;
    field_start(&field, 3);
    plan_all(&field, TOURNAMENT_ROUND_ROBIN, 2, 0);
    tournament_rules rules = {TOURNAMENT_ROUND_ROBIN, 0, 1};
    open_game(&field, 0);
    field.games[0].status = STORE_GAME_ABORTED;
    tournament_step step = next(&field, rules);
    assert_int_equal(step.kind, TOURNAMENT_STEP_START);
    assert_int_equal(step.start_count, 1);
    assert_int_equal(step.starts[0], 0);
}

/* A game whose room is open but whose game row is still being stored
 * (marked playing, no game id yet) runs: it is not started again, and it
 * takes its place among the `parallel`. */
static void test_a_game_whose_row_is_being_stored_runs(void **state)
{
    (void)state;
    struct field field;
    field_start(&field, 3);
    plan_all(&field, TOURNAMENT_ROUND_ROBIN, 2, 0);
    tournament_rules rules = {TOURNAMENT_ROUND_ROBIN, 0, 2};
    field.games[0].status = STORE_GAME_PLAYING;
    tournament_step step = next(&field, rules);
    assert_int_equal(step.kind, TOURNAMENT_STEP_START);
    assert_int_equal(step.start_count, 1);
    assert_int_equal(step.starts[0], 1);
    assert_true(tournament_step_is_running(&field.games[0]));
}

/* Swiss from the first pairing to the end: a round is paired only when
 * the last is over, each entry plays once a round, nobody meets anybody
 * twice while that can be avoided, seats alternate by round, and after
 * the last round it is over. */
static void play_swiss(int entries, int rounds)
{
    struct field field;
    field_start(&field, entries);
    tournament_rules rules = {TOURNAMENT_SWISS, rounds, 4};
    bool has_met[SWISS_MAX_PLAYERS][SWISS_MAX_PLAYERS] = {{false}};
    int byes[SWISS_MAX_PLAYERS] = {0};
    for (int round = 0; round < rounds; round++) {
        tournament_step step = next(&field, rules);
        assert_int_equal(step.kind, TOURNAMENT_STEP_PAIR);
        assert_int_equal(step.round, round);
        assert_int_equal(step.pair_count, entries / 2);
        assert_int_equal(step.bye >= 0, entries % 2 == 1);
        int plays[SWISS_MAX_PLAYERS] = {0};
        for (int i = 0; i < step.pair_count; i++) {
            int first = step.pairs[i][0], second = step.pairs[i][1];
            assert_false(has_met[first][second]);
            has_met[first][second] = has_met[second][first] = true;
            plays[first]++;
            plays[second]++;
        }
        if (step.bye >= 0) {
            plays[step.bye]++;
            assert_int_equal(byes[step.bye]++, 0); /* nobody sits out twice */
        }
        for (int i = 0; i < entries; i++)
            assert_int_equal(plays[i], 1);
        int first_game = field.record.game_count;
        store_pairing(&field, &step);
        step = next(&field, rules);
        assert_int_equal(step.kind, TOURNAMENT_STEP_START);
        assert_int_equal(step.start_count, entries / 2 < 4 ? entries / 2 : 4);
        for (int i = first_game; i < field.record.game_count; i++) {
            if (field.games[i].seat_count == 1)
                continue; /* the bye is played already */
            open_game(&field, i);
            assert_int_not_equal(next(&field, rules).kind, TOURNAMENT_STEP_PAIR);
            finish_game(&field, i);
        }
    }
    assert_int_equal(next(&field, rules).kind, TOURNAMENT_STEP_FINISH);
}

static void test_a_swiss_of_eight_is_played_to_its_end(void **state)
{
    (void)state;
    play_swiss(8, 3);
}

static void test_a_swiss_of_five_gives_one_bye_a_round(void **state)
{
    (void)state;
    play_swiss(5, 4);
}

/* In odd rounds the better placed of a pair sits second. */
static void test_swiss_seats_alternate_by_round(void **state)
{
    (void)state;
    struct field field;
    field_start(&field, 2);
    tournament_rules rules = {TOURNAMENT_SWISS, 2, 1};
    tournament_step step = next(&field, rules);
    int first = step.pairs[0][0];
    store_pairing(&field, &step);
    open_game(&field, 0);
    finish_game(&field, 0); /* `first` leads now */
    step = next(&field, rules);
    assert_int_equal(step.kind, TOURNAMENT_STEP_PAIR);
    assert_int_equal(step.round, 1);
    assert_int_equal(step.pairs[0][1], first);
}

static void test_a_swiss_field_out_of_range_cannot_be_paired(void **state)
{
    (void)state;
    struct field field;
    field_start(&field, 1);
    tournament_rules rules = {TOURNAMENT_SWISS, 3, 1};
    tournament_step step;
    assert_int_equal(tournament_step_next(&field.record, &rules, &step), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_robin_starts_games_in_order_up_to_parallel),
        cmocka_unit_test(test_a_round_robin_is_played_to_its_end),
        cmocka_unit_test(test_a_discarded_game_starts_again),
        cmocka_unit_test(test_a_game_whose_row_is_being_stored_runs),
        cmocka_unit_test(test_a_swiss_of_eight_is_played_to_its_end),
        cmocka_unit_test(test_a_swiss_of_five_gives_one_bye_a_round),
        cmocka_unit_test(test_swiss_seats_alternate_by_round),
        cmocka_unit_test(test_a_swiss_field_out_of_range_cannot_be_paired),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

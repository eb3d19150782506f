/* test_reef_bot.c -- the built-in Reef Builder bots: names, legality over
 * whole runs, determinism, blindness to the hidden piece generator, skip
 * decisions and relative strength.
 *
 * A good bot never ends a run from an empty board, so runs from seeds are
 * cut after a fixed number of turns, and runs that must reach their natural
 * end start from crowded hand-made boards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/reef_bot.h"

static const reef_bot_kind BOTS[] = {REEF_BOT_GREEDY, REEF_BOT_LOOKAHEAD, REEF_BOT_PLANNER,
                                     REEF_BOT_CHAINER};
#define BOT_COUNT 4

static reef_piece piece(const char *letters)
{
    reef_piece result = {(uint8_t)reef_color_from_letter(letters[0]),
                         (uint8_t)reef_color_from_letter(letters[1])};
    return result;
}

/* A full board without same-color neighbours, except a two-cell G group at
 * (6,4)-(6,5), with one empty pair (7,4)-(7,5) below it: a GG piece there
 * blooms, any piece without G only ends the run. */
#define DEAD_END_BOARD                                                                             \
    "RBGYPR"                                                                                       \
    "GYPRBG"                                                                                       \
    "PRBGYP"                                                                                       \
    "BGYPRB"                                                                                       \
    "YPRBGY"                                                                                       \
    "RBGYPR"                                                                                       \
    "GYPRGG"                                                                                       \
    "PRBY.."

static reef_state dead_end_state(const char *current, const char *next, uint32_t skips_left)
{
    reef_setup setup = {3, DEAD_END_BOARD, piece(current), piece(next), 200, 0, skips_left};
    reef_state state;
    assert_int_equal(reef_init_custom(&state, &setup), 0);
    return state;
}

/* What the action `kind` chooses on `setup`'s position scores. */
static reef_result result_of_choice(reef_bot_kind kind, const reef_setup *setup)
{
    reef_state state;
    assert_int_equal(reef_init_custom(&state, setup), 0);
    reef_action action;
    assert_int_equal(reef_bot_choose(kind, &state, &action), 0);
    reef_result result;
    assert_int_equal(reef_play(&state, action, &result), 0);
    return result;
}

static bool is_listed(const reef_state *state, reef_action action)
{
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(state, actions);
    for (int index = 0; index < count; index++) {
        reef_action legal = actions[index];
        bool is_same_place = legal.type == REEF_ACTION_PLACE && action.type == REEF_ACTION_PLACE &&
                             legal.row == action.row && legal.col == action.col &&
                             legal.orientation == action.orientation;
        if (is_same_place || (legal.type == REEF_ACTION_SKIP && action.type == REEF_ACTION_SKIP))
            return true;
    }
    return false;
}

/* Plays up to `max_turns` bot actions, checking each one is legal. */
static void play_checked(reef_bot_kind bot, reef_state *state, uint32_t max_turns)
{
    while (!reef_is_over(state) && reef_turns(state) < max_turns) {
        reef_action action;
        assert_int_equal(reef_bot_choose(bot, state, &action), 0);
        assert_true(is_listed(state, action));
        assert_int_equal(reef_play(state, action, NULL), 0);
    }
}

static int64_t capped_score(reef_bot_kind bot, uint64_t seed, uint32_t max_turns)
{
    reef_state state;
    reef_init(&state, seed);
    while (!reef_is_over(&state) && reef_turns(&state) < max_turns) {
        reef_action action;
        assert_int_equal(reef_bot_choose(bot, &state, &action), 0);
        assert_int_equal(reef_play(&state, action, NULL), 0);
    }
    return reef_score(&state);
}

static void test_parse_knows_every_level(void **context)
{
    (void)context;
    reef_bot_kind kind = REEF_BOT_LOOKAHEAD;
    assert_int_equal(reef_bot_parse("greedy", &kind), 0);
    assert_int_equal(kind, REEF_BOT_GREEDY);
    assert_int_equal(reef_bot_parse("lookahead", &kind), 0);
    assert_int_equal(kind, REEF_BOT_LOOKAHEAD);
    assert_int_equal(reef_bot_parse("planner", &kind), 0);
    assert_int_equal(kind, REEF_BOT_PLANNER);
    assert_int_equal(reef_bot_parse("chainer", &kind), 0);
    assert_int_equal(kind, REEF_BOT_CHAINER);
    assert_string_equal(reef_bot_name(REEF_BOT_GREEDY), "greedy");
    assert_string_equal(reef_bot_name(REEF_BOT_LOOKAHEAD), "lookahead");
    assert_string_equal(reef_bot_name(REEF_BOT_PLANNER), "planner");
    assert_string_equal(reef_bot_name(REEF_BOT_CHAINER), "chainer");
}

static void test_parse_refuses_unknown_names(void **context)
{
    (void)context;
    reef_bot_kind kind = REEF_BOT_LOOKAHEAD;
    assert_int_equal(reef_bot_parse("Greedy", &kind), ENGINE_E_BAD_ARGUMENT);
    assert_int_equal(reef_bot_parse("", &kind), ENGINE_E_BAD_ARGUMENT);
    assert_int_equal(reef_bot_parse(NULL, &kind), ENGINE_E_BAD_ARGUMENT);
    assert_int_equal(kind, REEF_BOT_LOOKAHEAD);
    assert_string_equal(reef_bot_name((reef_bot_kind)9), "unknown");
}

static void test_choose_refuses_an_ended_run_and_an_unknown_bot(void **context)
{
    (void)context;
    reef_state state = dead_end_state("RB", "RB", 0);
    reef_action action;
    assert_int_equal(reef_bot_choose((reef_bot_kind)9, &state, &action), ENGINE_E_BAD_ARGUMENT);
    assert_int_equal(reef_play(&state, reef_place(7, 4, 0), NULL), 0);
    assert_true(reef_is_over(&state));
    for (int bot = 0; bot < BOT_COUNT; bot++)
        assert_int_equal(reef_bot_choose(BOTS[bot], &state, &action), ENGINE_E_GAME_OVER);
}

static void test_bots_only_choose_legal_actions_for_many_seeds(void **context)
{
    (void)context;
    for (int bot = 0; bot < BOT_COUNT; bot++) {
        for (uint64_t seed = 1; seed <= 12; seed++) {
            reef_state state;
            reef_init(&state, seed);
            play_checked(BOTS[bot], &state, 120);
            assert_int_equal(reef_turns(&state), 120);
        }
    }
}

/* Crowded starts: the no-groups full board of DEAD_END_BOARD's kind with
 * holes cut into it. With one empty pair every run ends within a few turns;
 * with two pairs runs end sometimes (5 of 32 within 100 turns, measured;
 * 2 with twelve empty cells). */
static void test_bots_play_crowded_runs_legally_to_their_end(void **context)
{
    (void)context;
    const char *boards[] = {"RBGYPRGYPRBGPRBGYPBGYPRBYPRBGYRBGYPRGYPRBGPR..YP",
                            "RBGYPRGYPRBGPRBGYPBG..RBYPRBGYRBGYPRGYPRBGPR..YP",
                            "RBGYPRGYPRBGPRBGYPBGYPRBYPRBGYRBGYPR............"};
    int ended[3] = {0};
    for (int bot = 0; bot < BOT_COUNT; bot++) {
        for (int board = 0; board < 3; board++) {
            for (uint64_t seed = 1; seed <= 8; seed++) {
                reef_state state;
                reef_setup setup = {seed, boards[board], piece("RB"), piece("GY"), 0, 0, 3};
                assert_int_equal(reef_init_custom(&state, &setup), 0);
                play_checked(BOTS[bot], &state, 100);
                ended[board] += reef_is_over(&state);
            }
        }
    }
    assert_int_equal(ended[0], 8 * BOT_COUNT);
    assert_true(ended[1] > 0 && ended[1] < 8 * BOT_COUNT);
}

static void test_greedy_takes_the_highest_scoring_placement(void **context)
{
    (void)context;
    /* R at (0,3) blooms 4 (100); at (2,3) with B at (3,3) it blooms R 4 and
     * B 4 at once (250). */
    reef_setup setup = {1,
                        "RRR..."
                        "......"
                        "RRR..."
                        "BBB..."
                        "......"
                        "......"
                        "......"
                        "......",
                        piece("RB"),
                        piece("GG"),
                        0,
                        0,
                        REEF_SKIPS};
    assert_int_equal(result_of_choice(REEF_BOT_GREEDY, &setup).points, 250);
}

static void test_both_bots_skip_a_piece_that_can_only_end_the_run(void **context)
{
    (void)context;
    for (int bot = 0; bot < BOT_COUNT; bot++) {
        reef_state state = dead_end_state("RB", "GG", 1);
        reef_action action;
        assert_int_equal(reef_bot_choose(BOTS[bot], &state, &action), 0);
        assert_int_equal(action.type, REEF_ACTION_SKIP);
    }
}

static void test_bots_place_when_no_skip_is_left(void **context)
{
    (void)context;
    for (int bot = 0; bot < BOT_COUNT; bot++) {
        reef_state state = dead_end_state("RB", "GG", 0);
        reef_action action;
        assert_int_equal(reef_bot_choose(BOTS[bot], &state, &action), 0);
        assert_int_equal(action.type, REEF_ACTION_PLACE);
        assert_int_equal(reef_check(&state, action), 0);
    }
}

static void test_bots_bloom_rather_than_skip(void **context)
{
    (void)context;
    for (int bot = 0; bot < BOT_COUNT; bot++) {
        reef_state state = dead_end_state("GG", "RB", 3);
        reef_action action;
        assert_int_equal(reef_bot_choose(BOTS[bot], &state, &action), 0);
        reef_result result;
        assert_int_equal(reef_play(&state, action, &result), 0);
        assert_int_equal(result.points, 100);
    }
}

static void test_same_seed_gives_identical_games(void **context)
{
    (void)context;
    for (int bot = 0; bot < BOT_COUNT; bot++) {
        reef_state first;
        reef_state second;
        reef_init(&first, 99);
        reef_init(&second, 99);
        for (int turn = 0; turn < 150; turn++) {
            reef_action first_action;
            reef_action second_action;
            assert_int_equal(reef_bot_choose(BOTS[bot], &first, &first_action), 0);
            assert_int_equal(reef_bot_choose(BOTS[bot], &second, &second_action), 0);
            assert_memory_equal(&first_action, &second_action, sizeof(first_action));
            assert_int_equal(reef_play(&first, first_action, NULL), 0);
            assert_int_equal(reef_play(&second, second_action, NULL), 0);
        }
        assert_int_equal(reef_score(&first), reef_score(&second));
        assert_true(reef_occupied(&first) == reef_occupied(&second));
    }
}

/* Along real runs, a copy of each position whose generator (the pieces after
 * `next`, which no player sees) comes from another seed must get the same
 * action: a bot that read the generator would tell the copies apart. */
static void test_bots_never_read_the_hidden_generator(void **context)
{
    (void)context;
    for (int bot = 0; bot < BOT_COUNT; bot++) {
        for (uint64_t seed = 1; seed <= 2; seed++) {
            reef_state state;
            reef_init(&state, seed);
            while (reef_turns(&state) < 120) {
                reef_state blind = state;
                blind.generator = reef_generator_init(seed + 1000);
                reef_action action;
                reef_action blind_action;
                assert_int_equal(reef_bot_choose(BOTS[bot], &state, &action), 0);
                assert_int_equal(reef_bot_choose(BOTS[bot], &blind, &blind_action), 0);
                assert_memory_equal(&action, &blind_action, sizeof(action));
                assert_int_equal(reef_play(&state, action, NULL), 0);
            }
        }
    }
}

static void test_health_prefers_room_and_punishes_isolated_holes(void **context)
{
    (void)context;
    /* Same cells filled, same colors; in the second board the holes are
     * isolated single cells instead of pairs. */
    reef_setup paired = {1,
                         "RBGYPR"
                         "GYPRBG"
                         "PRBGYP"
                         "BGYPRB"
                         "YPRBGY"
                         "RBGYPR"
                         "GY..BG"
                         "PRBGYP",
                         piece("RB"),
                         piece("GG"),
                         0,
                         0,
                         REEF_SKIPS};
    reef_setup isolated = paired;
    isolated.board = "RBGYPR"
                     "GYPRBG"
                     "P.BGYP"
                     "BGYPRB"
                     "YPR.GY"
                     "RBGYPR"
                     "GYPRBG"
                     "PRBGYP";
    reef_state paired_state;
    reef_state isolated_state;
    assert_int_equal(reef_init_custom(&paired_state, &paired), 0);
    assert_int_equal(reef_init_custom(&isolated_state, &isolated), 0);
    assert_true(reef_bot_health(&paired_state) > reef_bot_health(&isolated_state));
}

/* A pairing of two bots over seeds 1..`seeds`, each run capped at
 * `turns` actions: their total scores and how often `upper` beat `lower`
 * (`is_tie_a_win`: or matched it). */
typedef struct pairing {
    int64_t lower_total, upper_total;
    int upper_wins;
} pairing;

static pairing pair_bots(reef_bot_kind lower, reef_bot_kind upper, uint64_t seeds, int turns,
                         bool is_tie_a_win)
{
    pairing result = {0, 0, 0};
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        int64_t low = capped_score(lower, seed, turns);
        int64_t high = capped_score(upper, seed, turns);
        result.lower_total += low;
        result.upper_total += high;
        result.upper_wins += high > low || (is_tie_a_win && high == low);
    }
    return result;
}

static void test_lookahead_scores_at_least_as_much_as_greedy_over_50_seeds(void **context)
{
    (void)context;
    pairing result = pair_bots(REEF_BOT_GREEDY, REEF_BOT_LOOKAHEAD, 50, 100, true);
    /* Measured: lookahead 11943 a run on average, greedy 6380, and lookahead
     * ahead on all 50 seeds; the asserts leave room for retuning. */
    assert_true(result.upper_total >= result.lower_total);
    assert_true(result.upper_wins >= 40);
}

static void test_planner_scores_more_than_lookahead_at_a_short_cap(void **context)
{
    (void)context;
    pairing result = pair_bots(REEF_BOT_LOOKAHEAD, REEF_BOT_PLANNER, 8, 300, false);
    /* Measured: 316,625 against 310,775 (+1.9%), planner ahead on 6 seeds of
     * 8; over 1000-turn runs the gap is wider (docs/BOTS.md). */
    assert_true(result.upper_total >= result.lower_total + result.lower_total / 100);
    assert_true(result.upper_wins >= 5);
}

static void test_chainer_scores_more_than_planner_at_a_short_cap(void **context)
{
    (void)context;
    pairing result = pair_bots(REEF_BOT_PLANNER, REEF_BOT_CHAINER, 8, 300, false);
    /* Measured: 322,950 against 316,625 (+2.0%), chainer ahead on 7 seeds
     * of 8; over 1000-turn runs it is 4.2% above lookahead (docs/BOTS.md). */
    assert_true(result.upper_total >= result.lower_total + result.lower_total / 100);
    assert_true(result.upper_wins >= 6);
}

/* While the streak is 0 and the board has room, the chainer grows its
 * groups instead of spending one at x1: here RR could bloom the R three
 * (150 points), and the chainer places it elsewhere. */
static void test_chainer_does_not_start_a_chain_on_an_empty_board(void **context)
{
    (void)context;
    reef_setup setup = {1,
                        "RRR..."
                        "......"
                        "......"
                        "......"
                        "......"
                        "......"
                        "......"
                        "......",
                        piece("RR"),
                        piece("BB"),
                        0,
                        0,
                        REEF_SKIPS};
    assert_int_equal(result_of_choice(REEF_BOT_CHAINER, &setup).bloom_count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_knows_every_level),
        cmocka_unit_test(test_parse_refuses_unknown_names),
        cmocka_unit_test(test_choose_refuses_an_ended_run_and_an_unknown_bot),
        cmocka_unit_test(test_bots_only_choose_legal_actions_for_many_seeds),
        cmocka_unit_test(test_bots_play_crowded_runs_legally_to_their_end),
        cmocka_unit_test(test_greedy_takes_the_highest_scoring_placement),
        cmocka_unit_test(test_both_bots_skip_a_piece_that_can_only_end_the_run),
        cmocka_unit_test(test_bots_place_when_no_skip_is_left),
        cmocka_unit_test(test_bots_bloom_rather_than_skip),
        cmocka_unit_test(test_same_seed_gives_identical_games),
        cmocka_unit_test(test_bots_never_read_the_hidden_generator),
        cmocka_unit_test(test_health_prefers_room_and_punishes_isolated_holes),
        cmocka_unit_test(test_lookahead_scores_at_least_as_much_as_greedy_over_50_seeds),
        cmocka_unit_test(test_planner_scores_more_than_lookahead_at_a_short_cap),
        cmocka_unit_test(test_chainer_scores_more_than_planner_at_a_short_cap),
        cmocka_unit_test(test_chainer_does_not_start_a_chain_on_an_empty_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_reef.c -- Reef Builder rules: generator, placement, blooms, scoring,
 * skips, the end of a run, legal actions and refused actions.
 *
 * Boards are set up with reef_init_custom from hand-drawn rows, and every
 * expected score is worked out by hand in the test from the rules of
 * docs/ARCHITECTURE.md, "Reef Builder rules".
 * The generator's golden vectors come from tests/tools/reef_gen_reference.py,
 * an independent Python implementation of reef-gen-1. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/reef.h"

/* Output of `tests/tools/reef_gen_reference.py 40 0 1 7 9223372036854775808`. */
static const char GOLDEN_SEED_0[] = "RB BR GG GB RR BB GG BR RB GG BB GR YY BB BG RY YY BB GB YY "
                                    "RB RR YY RB GY BB RR YY GG YR YG BR GG BB BY YY BB BB PY BY";
static const char GOLDEN_SEED_1[] = "BR RG RR RB BB RG RR RR RB GG GB BB YR BR GY GB GG GG BR YY "
                                    "RR GR RR GG YY BB BY YY YY BB GP PP YY RR RB RY PP YY RR YY";
static const char GOLDEN_SEED_7[] = "RR BB BB GG BR RR GG BB GB RR RG GR BB RB YY BB RR GG GG RG "
                                    "GG YY YG GG GR YY YY GG RB BB PY BP PP YY GR RR YR PP PP YY";
static const char GOLDEN_SEED_2_POW_63[] =
    "GG BB RB RR RR BG GB BR RB BB GR GG BB GG RB RR GY YB GR BB "
    "GG YR YB GG GG RR BG YG YY BB GG BB PP YR PP YP BG RR RY RY";

/* Rows 1 to 7 of an empty board, to complete a hand-drawn row 0. */
#define EMPTY_ROWS_1_TO_7                                                                          \
    "......"                                                                                       \
    "......"                                                                                       \
    "......"                                                                                       \
    "......"                                                                                       \
    "......"                                                                                       \
    "......"                                                                                       \
    "......"
#define EMPTY_BOARD "......" EMPTY_ROWS_1_TO_7

static reef_piece piece(const char *letters)
{
    reef_piece result = {(uint8_t)reef_color_from_letter(letters[0]),
                         (uint8_t)reef_color_from_letter(letters[1])};
    return result;
}

typedef struct position {
    const char *board;
    const char *current;
    const char *next;
    int64_t score;
    uint32_t streak;
    uint32_t skips_left;
} position;

static reef_state make_state(position spec)
{
    reef_setup setup = {7,          spec.board,  piece(spec.current), piece(spec.next),
                        spec.score, spec.streak, spec.skips_left};
    reef_state state;
    assert_int_equal(reef_init_custom(&state, &setup), 0);
    return state;
}

/* A position with score 0, streak 0 and all skips left. */
static reef_state board_state(const char *board, const char *current, const char *next)
{
    return make_state((position){board, current, next, 0, 0, REEF_SKIPS});
}

/* Field by field: struct padding makes memcmp unreliable. */
static void assert_same_state(const reef_state *left, const reef_state *right)
{
    for (int index = 0; index < REEF_COLORS; index++)
        assert_true(left->color_cells[index] == right->color_cells[index]);
    assert_true(left->generator.rng.state == right->generator.rng.state);
    assert_true(left->generator.drawn == right->generator.drawn);
    assert_int_equal(left->current.a, right->current.a);
    assert_int_equal(left->current.b, right->current.b);
    assert_int_equal(left->next.a, right->next.a);
    assert_int_equal(left->next.b, right->next.b);
    assert_int_equal(left->score, right->score);
    assert_int_equal(left->streak, right->streak);
    assert_int_equal(left->turns, right->turns);
    assert_int_equal(left->placements, right->placements);
    assert_int_equal(left->blooms, right->blooms);
    assert_int_equal(left->skips_left, right->skips_left);
    assert_int_equal(left->is_over, right->is_over);
}

static void assert_refused_unchanged(reef_state *state, reef_action action, int expected_error)
{
    reef_state before = *state;
    reef_result result;
    assert_int_equal(reef_check(state, action), expected_error);
    assert_int_equal(reef_play(state, action, &result), expected_error);
    assert_same_state(state, &before);
}

static void assert_cell(const reef_state *state, int row, int col, char letter)
{
    assert_int_equal(reef_color_letter(reef_cell_color(state, row, col)), letter);
}

/* Plays a placement that must succeed and returns its points. */
static int64_t play_place(reef_state *state, int row, int col, int orientation)
{
    reef_result result;
    assert_int_equal(reef_play(state, reef_place(row, col, orientation), &result), 0);
    return result.points;
}

/* ---- generator ---- */

static void assert_generator_matches(uint64_t seed, const char *golden)
{
    char drawn[40 * 3];
    reef_generator generator = reef_generator_init(seed);
    for (int index = 0; index < 40; index++) {
        reef_piece next = reef_generator_next(&generator);
        drawn[index * 3] = reef_color_letter(next.a);
        drawn[index * 3 + 1] = reef_color_letter(next.b);
        drawn[index * 3 + 2] = index == 39 ? '\0' : ' ';
    }
    assert_string_equal(drawn, golden);
}

static void test_generator_matches_reference_for_seed_0(void **context)
{
    (void)context;
    assert_generator_matches(0, GOLDEN_SEED_0);
}

static void test_generator_matches_reference_for_seed_1(void **context)
{
    (void)context;
    assert_generator_matches(1, GOLDEN_SEED_1);
}

static void test_generator_matches_reference_for_seed_7(void **context)
{
    (void)context;
    assert_generator_matches(7, GOLDEN_SEED_7);
}

static void test_generator_matches_reference_for_seed_2_pow_63(void **context)
{
    (void)context;
    assert_generator_matches(UINT64_C(1) << 63, GOLDEN_SEED_2_POW_63);
}

static void test_init_starts_empty_with_draws_0_and_1(void **context)
{
    (void)context;
    reef_state state;
    reef_init(&state, 7);
    assert_true(reef_occupied(&state) == 0);
    assert_int_equal(reef_score(&state), 0);
    assert_int_equal(reef_streak(&state), 0);
    assert_int_equal(reef_skips_left(&state), REEF_SKIPS);
    assert_false(reef_is_over(&state));
    assert_int_equal(reef_turns(&state), 0);
    assert_int_equal(reef_pieces_drawn(&state), 2);
    assert_int_equal(reef_current(&state).a, REEF_RED); /* seed 7: RR BB BB GG */
    assert_int_equal(reef_current(&state).b, REEF_RED);
    assert_int_equal(reef_next(&state).a, REEF_BLUE);
    assert_int_equal(reef_fitting_placements(&state), 164);
}

static void test_next_piece_becomes_current_and_a_new_one_is_drawn(void **context)
{
    (void)context;
    reef_state state;
    reef_init(&state, 7);
    play_place(&state, 0, 0, 0);
    assert_int_equal(reef_current(&state).a, REEF_BLUE); /* draw 1: BB */
    assert_int_equal(reef_next(&state).a, REEF_BLUE);    /* draw 2: BB */
    assert_int_equal(reef_pieces_drawn(&state), 3);
    play_place(&state, 2, 0, 0);
    assert_int_equal(reef_next(&state).a, REEF_GREEN); /* draw 3: GG */
    assert_int_equal(reef_turns(&state), 2);
}

static void test_custom_position_draws_from_piece_2_of_its_seed(void **context)
{
    (void)context;
    reef_state state = board_state(EMPTY_BOARD, "YP", "PY");
    play_place(&state, 0, 0, 0);
    assert_int_equal(reef_current(&state).a, REEF_PURPLE);
    assert_int_equal(reef_next(&state).a, REEF_BLUE); /* seed 7, draw 2: BB */
}

static void test_color_letters_round_trip(void **context)
{
    (void)context;
    const char *letters = ".RBGYP";
    for (int color = REEF_EMPTY; color <= REEF_PURPLE; color++) {
        assert_int_equal(reef_color_letter(color), letters[color]);
        assert_int_equal(reef_color_from_letter(letters[color]), color);
    }
    assert_int_equal(reef_color_letter(6), '?');
    assert_int_equal(reef_color_letter(-1), '?');
    assert_int_equal(reef_color_from_letter('r'), ENGINE_E_BAD_ARGUMENT);
    assert_int_equal(reef_color_from_letter('X'), ENGINE_E_BAD_ARGUMENT);
}

/* ---- placement ---- */

static void test_orientation_puts_partner_right_below_left_above(void **context)
{
    (void)context;
    int orientations[4] = {0, 90, 180, 270};
    int partner_rows[4] = {3, 4, 3, 2};
    int partner_cols[4] = {3, 2, 1, 2};
    for (int index = 0; index < 4; index++) {
        reef_state state = board_state(EMPTY_BOARD, "RB", "GG");
        assert_int_equal(play_place(&state, 3, 2, orientations[index]), 0);
        assert_cell(&state, 3, 2, 'R');
        assert_cell(&state, partner_rows[index], partner_cols[index], 'B');
        assert_int_equal(__builtin_popcountll(reef_occupied(&state)), 2);
    }
}

static void test_placement_without_bloom_scores_zero_and_resets_streak(void **context)
{
    (void)context;
    reef_state state =
        make_state((position){"RRB..." EMPTY_ROWS_1_TO_7, "GG", "GG", 500, 3, REEF_SKIPS});
    reef_result result;
    assert_int_equal(reef_play(&state, reef_place(1, 0, 0), &result), 0);
    assert_int_equal(result.points, 0);
    assert_int_equal(result.bloom_count, 0);
    assert_int_equal(reef_score(&state), 500);
    assert_int_equal(reef_streak(&state), 0);
    assert_int_equal(state.placements, 1);
}

static void test_placement_errors_explain_why(void **context)
{
    (void)context;
    reef_state state = board_state("RB...." EMPTY_ROWS_1_TO_7, "GG", "GG");
    assert_int_equal(reef_check(&state, reef_place(0, 5, 0)), ENGINE_E_OUT_OF_BOUNDS);
    assert_int_equal(reef_check(&state, reef_place(0, 0, 0)), ENGINE_E_OCCUPIED);
    assert_int_equal(reef_check(&state, reef_place(0, 2, 45)), ENGINE_E_BAD_ORIENTATION);
    assert_string_equal(engine_error_name(ENGINE_E_OCCUPIED), "occupied");
    assert_string_equal(engine_error_name(ENGINE_E_BAD_ARGUMENT), "bad_argument");
}

static void test_out_of_bounds_placement_is_refused_and_changes_nothing(void **context)
{
    (void)context;
    reef_state state = board_state(EMPTY_BOARD, "RB", "GG");
    reef_action outside[] = {
        reef_place(0, 5, 0),         reef_place(7, 0, 90),      reef_place(0, 0, 180),
        reef_place(0, 3, 270),       reef_place(-1, 0, 90),     reef_place(8, 0, 0),
        reef_place(0, -1, 0),        reef_place(0, 6, 180),     reef_place(100, 100, 0),
        reef_place(INT_MAX, 0, 90),  reef_place(0, INT_MAX, 0), reef_place(INT_MIN, 0, 270),
        reef_place(0, INT_MIN, 180),
    };
    for (size_t index = 0; index < sizeof(outside) / sizeof(outside[0]); index++)
        assert_refused_unchanged(&state, outside[index], ENGINE_E_OUT_OF_BOUNDS);
}

static void test_occupied_placement_is_refused_and_changes_nothing(void **context)
{
    (void)context;
    reef_state state = board_state("..R..."
                                   "..B..."
                                   "......"
                                   "......"
                                   "......"
                                   "......"
                                   "......"
                                   "......",
                                   "RB", "GG");
    assert_refused_unchanged(&state, reef_place(0, 2, 90), ENGINE_E_OCCUPIED); /* both */
    assert_refused_unchanged(&state, reef_place(0, 1, 0), ENGINE_E_OCCUPIED);  /* partner */
    assert_refused_unchanged(&state, reef_place(1, 2, 0), ENGINE_E_OCCUPIED);  /* anchor */
    assert_refused_unchanged(&state, reef_place(2, 2, 270), ENGINE_E_OCCUPIED);
}

static void test_bad_orientation_is_refused_and_changes_nothing(void **context)
{
    (void)context;
    reef_state state = board_state(EMPTY_BOARD, "RB", "GG");
    int orientations[] = {1, 45, 89, -90, 360, 450, -1, 2147483647};
    for (size_t index = 0; index < sizeof(orientations) / sizeof(orientations[0]); index++)
        assert_refused_unchanged(&state, reef_place(3, 3, orientations[index]),
                                 ENGINE_E_BAD_ORIENTATION);
}

static void test_unknown_action_type_is_refused_and_changes_nothing(void **context)
{
    (void)context;
    reef_state state;
    reef_init(&state, 1);
    reef_action action = reef_place(0, 0, 0);
    action.type = (reef_action_type)7;
    assert_refused_unchanged(&state, action, ENGINE_E_BAD_ARGUMENT);
}

static void test_corrupted_current_piece_is_refused_and_changes_nothing(void **context)
{
    (void)context;
    reef_state state;
    reef_init(&state, 1);
    state.current.b = REEF_EMPTY;
    assert_refused_unchanged(&state, reef_place(0, 0, 0), ENGINE_E_BAD_ARGUMENT);
    state.current.b = REEF_PURPLE + 1;
    assert_refused_unchanged(&state, reef_place(0, 0, 0), ENGINE_E_BAD_ARGUMENT);
}

/* ---- blooms and scoring ---- */

static void test_single_group_of_four_scores_100(void **context)
{
    (void)context;
    reef_state state = board_state("RRR..." EMPTY_ROWS_1_TO_7, "RB", "GG");
    reef_result result;
    assert_int_equal(reef_play(&state, reef_place(0, 3, 90), &result), 0);
    assert_int_equal(result.points, 100);
    assert_int_equal(result.bloom_count, 1);
    assert_int_equal(result.blooms[0].color, REEF_RED);
    assert_int_equal(result.blooms[0].size, 4);
    assert_true(result.blooms[0].cells == 0xF); /* (0,0)..(0,3) */
    assert_int_equal(reef_score(&state), 100);
    assert_int_equal(reef_streak(&state), 1);
    assert_int_equal(state.blooms, 1);
    assert_true(reef_occupied(&state) == (UINT64_C(1) << 9)); /* only B at (1,3) is left */
}

static void test_bloom_cells_are_listed_in_row_major_order(void **context)
{
    (void)context;
    reef_state state = board_state(".R...."
                                   ".R...."
                                   "......"
                                   "......"
                                   "......"
                                   "......"
                                   "......"
                                   "......",
                                   "RR", "GG");
    reef_result result;
    assert_int_equal(reef_play(&state, reef_place(2, 1, 90), &result), 0);
    reef_cell cells[REEF_CELLS];
    assert_int_equal(reef_mask_cells(result.blooms[0].cells, cells), 4);
    for (int index = 0; index < 4; index++) {
        assert_int_equal(cells[index].row, index);
        assert_int_equal(cells[index].col, 1);
    }
}

static void test_group_of_five_scores_150(void **context)
{
    (void)context;
    reef_state state = board_state("RR.RR." EMPTY_ROWS_1_TO_7, "RB", "GG");
    assert_int_equal(play_place(&state, 0, 2, 90), 150); /* 50 * 5 - 100 */
}

static void test_group_of_seven_with_both_halves_is_one_bloom_scoring_250(void **context)
{
    (void)context;
    reef_state state = board_state("RRR.RR" EMPTY_ROWS_1_TO_7, "RR", "GG");
    reef_result result;
    assert_int_equal(reef_play(&state, reef_place(0, 3, 90), &result), 0);
    assert_int_equal(result.bloom_count, 1);
    assert_int_equal(result.blooms[0].size, 7);
    assert_int_equal(result.points, 250); /* 50 * 7 - 100 */
    assert_true(reef_occupied(&state) == 0);
}

static void test_two_simultaneous_groups_add_50(void **context)
{
    (void)context;
    reef_state state = board_state("RRR..."
                                   "BBB..."
                                   "......"
                                   "......"
                                   "......"
                                   "......"
                                   "......"
                                   "......",
                                   "RB", "GG");
    reef_result result;
    assert_int_equal(reef_play(&state, reef_place(0, 3, 90), &result), 0);
    assert_int_equal(result.bloom_count, 2);
    assert_int_equal(result.blooms[0].color, REEF_RED); /* the anchor's group first */
    assert_int_equal(result.blooms[1].color, REEF_BLUE);
    assert_int_equal(result.points, 250); /* 100 + 100 + 50 */
    assert_int_equal(reef_streak(&state), 1);
    assert_int_equal(state.blooms, 2);
    assert_true(reef_occupied(&state) == 0);
}

static void test_two_groups_of_different_sizes_score_each_plus_50(void **context)
{
    (void)context;
    reef_state state = board_state("RRR..."
                                   "..B.B."
                                   "..BB.."
                                   "......"
                                   "......"
                                   "......"
                                   "......"
                                   "......",
                                   "RB", "GG");
    reef_result result;
    assert_int_equal(reef_play(&state, reef_place(0, 3, 90), &result), 0);
    assert_int_equal(result.bloom_count, 2);
    assert_int_equal(result.blooms[0].size, 4);
    assert_int_equal(result.blooms[1].size, 5);
    assert_int_equal(result.points, 300); /* 100 + 150 + 50 */
}

static void test_streak_multiplies_by_1_1_5_2_2_5_3_and_caps_at_3(void **context)
{
    (void)context;
    int64_t expected[] = {100, 150, 200, 250, 300, 300, 300};
    uint32_t streaks[] = {0, 1, 2, 3, 4, 5, 1000};
    for (int index = 0; index < 7; index++) {
        reef_state state =
            make_state((position){"RRR..." EMPTY_ROWS_1_TO_7, "RB", "GG", 0, streaks[index], 3});
        assert_int_equal(play_place(&state, 0, 3, 90), expected[index]);
        assert_int_equal(reef_streak(&state), streaks[index] + 1);
    }
}

static void test_streak_multiplier_applies_to_the_whole_total(void **context)
{
    (void)context;
    reef_state state = make_state((position){"RRR..."
                                             "BBB..."
                                             "......"
                                             "......"
                                             "......"
                                             "......"
                                             "......"
                                             "......",
                                             "RB", "GG", 1000, 1, REEF_SKIPS});
    assert_int_equal(play_place(&state, 0, 3, 90), 375); /* (100 + 100 + 50) * 1.5 */
    assert_int_equal(reef_score(&state), 1375);
}

static void test_consecutive_blooms_raise_the_streak_and_a_miss_resets_it(void **context)
{
    (void)context;
    /* Pieces: RY, BP, then seed 7's draws 2 and 3: BB, GG. */
    reef_state state = board_state("RRR..."
                                   "BBB..."
                                   "......"
                                   "......"
                                   "BB...."
                                   "......"
                                   "......"
                                   "......",
                                   "RY", "BP");
    assert_int_equal(play_place(&state, 0, 3, 0), 100); /* x1 */
    assert_int_equal(play_place(&state, 1, 3, 0), 150); /* x1.5 */
    assert_int_equal(play_place(&state, 5, 0, 0), 200); /* x2 */
    assert_int_equal(reef_streak(&state), 3);
    assert_int_equal(play_place(&state, 7, 4, 0), 0);
    assert_int_equal(reef_streak(&state), 0);
    assert_int_equal(reef_score(&state), 450);
}

static void test_half_points_are_floored(void **context)
{
    (void)context;
    assert_int_equal(reef_apply_streak(75, 1), 112);  /* 112.5 */
    assert_int_equal(reef_apply_streak(75, 3), 187);  /* 187.5 */
    assert_int_equal(reef_apply_streak(101, 1), 151); /* 151.5 */
    assert_int_equal(reef_apply_streak(75, 2), 150);
    assert_int_equal(reef_apply_streak(75, 9), 225);
}

static void test_bloom_totals_are_multiples_of_50_so_halves_never_arise_in_play(void **context)
{
    (void)context;
    uint8_t five[] = {5};
    uint8_t four_and_five[] = {4, 5};
    assert_int_equal(reef_bloom_points(five, 1, 1), 225);          /* 150 * 1.5 */
    assert_int_equal(reef_bloom_points(five, 1, 3), 375);          /* 150 * 2.5 */
    assert_int_equal(reef_bloom_points(four_and_five, 2, 0), 300); /* 100 + 150 + 50 */
    assert_int_equal(reef_bloom_points(four_and_five, 2, 4), 900);
    assert_int_equal(reef_bloom_points(five, 0, 4), 0);
}

static void test_blooms_leave_holes_without_gravity_or_cascade(void **context)
{
    (void)context;
    /* If cells fell, the B group above the R row would land on the B at (3,0)
     * and make a group of 4 that would bloom in a cascade. */
    reef_state state = board_state("B....."
                                   "BB...."
                                   "RRR..."
                                   "B....."
                                   "......"
                                   "......"
                                   "......"
                                   "......",
                                   "RG", "GG");
    reef_result result;
    assert_int_equal(reef_play(&state, reef_place(2, 3, 0), &result), 0);
    assert_int_equal(result.bloom_count, 1);
    assert_int_equal(result.points, 100);
    assert_cell(&state, 0, 0, 'B');
    assert_cell(&state, 1, 0, 'B');
    assert_cell(&state, 1, 1, 'B');
    for (int col = 0; col < 4; col++)
        assert_cell(&state, 2, col, '.');
    assert_cell(&state, 2, 4, 'G');
    assert_cell(&state, 3, 0, 'B');
    assert_int_equal(__builtin_popcountll(reef_occupied(&state)), 5);
}

/* ---- skips ---- */

static void test_skip_costs_50_and_keeps_the_streak(void **context)
{
    (void)context;
    reef_state state =
        make_state((position){"RRR..." EMPTY_ROWS_1_TO_7, "RB", "GY", 120, 2, REEF_SKIPS});
    reef_result result;
    assert_int_equal(reef_play(&state, reef_skip(), &result), 0);
    assert_int_equal(result.points, -50);
    assert_int_equal(reef_score(&state), 70);
    assert_int_equal(reef_streak(&state), 2);
    assert_int_equal(reef_skips_left(&state), 2);
    assert_int_equal(reef_current(&state).a, REEF_GREEN);
    assert_int_equal(reef_current(&state).b, REEF_YELLOW);
    assert_int_equal(reef_turns(&state), 1);
    assert_int_equal(state.placements, 0);
    assert_int_equal(__builtin_popcountll(reef_occupied(&state)), 3);
}

static void test_skip_below_50_floors_the_score_at_0(void **context)
{
    (void)context;
    reef_state state = make_state((position){EMPTY_BOARD, "RB", "GY", 30, 0, 1});
    reef_result result;
    assert_int_equal(reef_play(&state, reef_skip(), &result), 0);
    assert_int_equal(result.points, -30);
    assert_int_equal(reef_score(&state), 0);
    assert_int_equal(reef_skips_left(&state), 0);
}

static void test_skip_with_none_left_is_refused_and_changes_nothing(void **context)
{
    (void)context;
    reef_state state;
    reef_init(&state, 3);
    for (int skip = 0; skip < REEF_SKIPS; skip++)
        assert_int_equal(reef_play(&state, reef_skip(), NULL), 0);
    assert_int_equal(reef_skips_left(&state), 0);
    assert_refused_unchanged(&state, reef_skip(), ENGINE_E_NO_SKIPS);
}

/* ---- the end of a run ---- */

/* The full boards below have cell (row, col) colored "RBGYP"[(2 * row + col)
 * % 5], so no two neighbours share a color, with a few holes cut into them. */
static void test_run_ends_when_no_two_adjacent_cells_are_empty_even_with_skips_left(void **context)
{
    (void)context;
    reef_state state = make_state((position){"RBGYPR"
                                             "GYPRBG"
                                             "PRBGYP"
                                             "BGYPRB"
                                             "YPRBGY"
                                             "RBGYPR"
                                             "GYPRBG"
                                             "PRBG..",
                                             "RB", "GG", 400, 0, REEF_SKIPS});
    assert_int_equal(reef_fitting_placements(&state), 2);
    reef_result result;
    assert_int_equal(reef_play(&state, reef_place(7, 4, 0), &result), 0);
    assert_true(result.is_over);
    assert_true(reef_is_over(&state));
    assert_int_equal(reef_skips_left(&state), REEF_SKIPS);
    assert_int_equal(reef_score(&state), 400);
    reef_action actions[REEF_MAX_ACTIONS];
    assert_int_equal(reef_legal_actions(&state, actions), 0);
    assert_refused_unchanged(&state, reef_skip(), ENGINE_E_GAME_OVER);
    assert_refused_unchanged(&state, reef_place(0, 0, 0), ENGINE_E_GAME_OVER);
    assert_refused_unchanged(&state, reef_place(9, 9, 45), ENGINE_E_GAME_OVER);
}

static void test_isolated_empty_cells_do_not_keep_a_run_alive(void **context)
{
    (void)context;
    reef_state state = board_state("RBGYPR"
                                   "GYPRBG"
                                   "P.BGYP"
                                   "BGYPRB"
                                   "YPR.GY"
                                   "RBGYPR"
                                   "GYPRBG"
                                   "PRBGYP",
                                   "RB", "GG");
    assert_true(reef_is_over(&state));
    assert_int_equal(reef_fitting_placements(&state), 0);
}

/* ---- legal actions ---- */

static bool action_less(reef_action left, reef_action right)
{
    if (left.row != right.row)
        return left.row < right.row;
    if (left.col != right.col)
        return left.col < right.col;
    return left.orientation < right.orientation;
}

static void test_legal_actions_list_placements_by_row_col_orientation_then_skip(void **context)
{
    (void)context;
    reef_state state;
    reef_init(&state, 1);
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(&state, actions);
    assert_int_equal(count, 165);
    assert_int_equal(actions[0].orientation, 0);
    assert_int_equal(actions[1].orientation, 90);
    assert_int_equal(actions[2].col, 1);
    assert_int_equal(actions[4].orientation, 180);
    assert_int_equal(actions[163].row, 7);
    assert_int_equal(actions[163].col, 5);
    assert_int_equal(actions[163].orientation, 270);
    assert_int_equal(actions[164].type, REEF_ACTION_SKIP);
    for (int index = 1; index < count - 1; index++)
        assert_true(action_less(actions[index - 1], actions[index]));
}

static void test_legal_actions_are_exactly_the_placements_that_check(void **context)
{
    (void)context;
    reef_state state = make_state((position){"RB.GY."
                                             ".P..R."
                                             "G.B..."
                                             "..YY.."
                                             "P....B"
                                             "..G..."
                                             ".R.R.R"
                                             "B.....",
                                             "RB", "GG", 0, 0, 0});
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(&state, actions);
    int listed = 0;
    for (int row = -1; row <= REEF_ROWS; row++) {
        for (int col = -1; col <= REEF_COLS; col++) {
            for (int orientation = 0; orientation < 360; orientation += 90) {
                if (reef_check(&state, reef_place(row, col, orientation)) != 0)
                    continue;
                assert_true(listed < count);
                assert_int_equal(actions[listed].row, row);
                assert_int_equal(actions[listed].col, col);
                assert_int_equal(actions[listed].orientation, orientation);
                listed++;
            }
        }
    }
    assert_int_equal(listed, count); /* no skip: none left */
    assert_int_equal(reef_fitting_placements(&state), count);
}

/* ---- positions and determinism ---- */

static void test_custom_positions_that_break_the_rules_are_refused(void **context)
{
    (void)context;
    reef_state state;
    reef_init(&state, 5);
    reef_state before = state;
    reef_piece red_blue = piece("RB");
    reef_piece no_color = {REEF_EMPTY, REEF_RED};
    reef_piece beyond_purple = {REEF_RED, REEF_PURPLE + 1};
    const char *ready_to_bloom = "RRRR.." EMPTY_ROWS_1_TO_7;
    const char *unknown_letter = "RRX..." EMPTY_ROWS_1_TO_7;
    const char *cells_49 = "RR...." EMPTY_ROWS_1_TO_7 ".";
    const char *cells_47 = "RR..." EMPTY_ROWS_1_TO_7;
    reef_setup setups[] = {
        {5, ready_to_bloom, red_blue, red_blue, 0, 0, 3},
        {5, unknown_letter, red_blue, red_blue, 0, 0, 3},
        {5, cells_49, red_blue, red_blue, 0, 0, 3},
        {5, cells_47, red_blue, red_blue, 0, 0, 3},
        {5, "", red_blue, red_blue, 0, 0, 3},
        {5, NULL, red_blue, red_blue, 0, 0, 3},
        {5, EMPTY_BOARD, no_color, red_blue, 0, 0, 3},
        {5, EMPTY_BOARD, red_blue, beyond_purple, 0, 0, 3},
        {5, EMPTY_BOARD, red_blue, red_blue, -1, 0, 3},
        {5, EMPTY_BOARD, red_blue, red_blue, 0, 0, 4},
    };
    for (size_t index = 0; index < sizeof(setups) / sizeof(setups[0]); index++) {
        assert_int_equal(reef_init_custom(&state, &setups[index]), ENGINE_E_BAD_ARGUMENT);
        assert_same_state(&state, &before);
    }
    assert_int_equal(reef_init_custom(&state, NULL), ENGINE_E_BAD_ARGUMENT);
}

static void test_board_text_reads_back_as_a_custom_board(void **context)
{
    (void)context;
    reef_state state;
    reef_init(&state, 11);
    for (int turn = 0; turn < 12; turn++) {
        reef_action actions[REEF_MAX_ACTIONS];
        int count = reef_legal_actions(&state, actions);
        assert_int_equal(reef_play(&state, actions[(turn * 37) % (count - 1)], NULL), 0);
    }
    char text[REEF_BOARD_TEXT];
    reef_board_text(&state, text);
    assert_int_equal(strlen(text), REEF_BOARD_TEXT - 1);
    reef_setup setup = {11, text, state.current, state.next, state.score, state.streak, 3};
    reef_state copy;
    assert_int_equal(reef_init_custom(&copy, &setup), 0);
    for (int index = 0; index < REEF_COLORS; index++)
        assert_true(copy.color_cells[index] == state.color_cells[index]);
}

static void test_cell_color_outside_the_board_is_an_error(void **context)
{
    (void)context;
    reef_state state;
    reef_init(&state, 1);
    assert_int_equal(reef_cell_color(&state, 0, 6), ENGINE_E_OUT_OF_BOUNDS);
    assert_int_equal(reef_cell_color(&state, -1, 0), ENGINE_E_OUT_OF_BOUNDS);
    assert_int_equal(reef_cell_color(&state, 8, 0), ENGINE_E_OUT_OF_BOUNDS);
    assert_int_equal(reef_cell_color(&state, 7, 5), REEF_EMPTY);
}

static void test_mask_helpers_do_not_wrap_across_rows(void **context)
{
    (void)context;
    uint64_t right_edge = UINT64_C(1) << 5; /* (0,5) */
    assert_true(reef_mask_neighbors(right_edge) == ((UINT64_C(1) << 4) | (UINT64_C(1) << 11)));
    uint64_t left_edge = UINT64_C(1) << 6; /* (1,0) */
    assert_true(reef_mask_neighbors(left_edge) ==
                ((UINT64_C(1) << 0) | (UINT64_C(1) << 7) | (UINT64_C(1) << 12)));
    uint64_t row_ends = (UINT64_C(1) << 5) | (UINT64_C(1) << 6);
    assert_true(reef_mask_group(UINT64_C(1) << 5, row_ends) == (UINT64_C(1) << 5));
}

/* Plays `turns` actions chosen by a fixed rule; same seed, same actions. */
static reef_state replay(uint64_t seed, int turns)
{
    reef_state state;
    reef_init(&state, seed);
    for (int turn = 0; turn < turns && !reef_is_over(&state); turn++) {
        reef_action actions[REEF_MAX_ACTIONS];
        int count = reef_legal_actions(&state, actions);
        assert_int_equal(reef_play(&state, actions[(turn * 7919) % count], NULL), 0);
    }
    return state;
}

static void test_same_seed_and_actions_give_the_same_run(void **context)
{
    (void)context;
    reef_state first = replay(42, 80);
    reef_state second = replay(42, 80);
    assert_same_state(&first, &second);
    reef_state other = replay(43, 80);
    assert_false(other.generator.rng.state == first.generator.rng.state);
}

static void test_daily_seed_is_the_utc_date_as_a_number(void **state)
{
    (void)state;
    assert_int_equal(reef_daily_seed(0), 19700101);
    assert_int_equal(reef_daily_seed(86400000 - 1), 19700101); /* the day's last millisecond */
    assert_int_equal(reef_daily_seed(86400000), 19700102);
    assert_int_equal(reef_daily_seed(-1), 19691231);
    assert_int_equal(reef_daily_seed(951782400000LL), 20000229); /* a leap day */
    assert_int_equal(reef_daily_seed(1795478400000LL), 20261124);
    assert_int_equal(reef_daily_seed(1795478400000LL + 86399999), 20261124);
    assert_int_equal(reef_daily_seed(4107456000000LL), 21000228);
    assert_int_equal(reef_daily_seed(4107542400000LL), 21000301); /* 2100 is not a leap year */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generator_matches_reference_for_seed_0),
        cmocka_unit_test(test_generator_matches_reference_for_seed_1),
        cmocka_unit_test(test_generator_matches_reference_for_seed_7),
        cmocka_unit_test(test_generator_matches_reference_for_seed_2_pow_63),
        cmocka_unit_test(test_init_starts_empty_with_draws_0_and_1),
        cmocka_unit_test(test_next_piece_becomes_current_and_a_new_one_is_drawn),
        cmocka_unit_test(test_custom_position_draws_from_piece_2_of_its_seed),
        cmocka_unit_test(test_color_letters_round_trip),
        cmocka_unit_test(test_orientation_puts_partner_right_below_left_above),
        cmocka_unit_test(test_placement_without_bloom_scores_zero_and_resets_streak),
        cmocka_unit_test(test_placement_errors_explain_why),
        cmocka_unit_test(test_out_of_bounds_placement_is_refused_and_changes_nothing),
        cmocka_unit_test(test_occupied_placement_is_refused_and_changes_nothing),
        cmocka_unit_test(test_bad_orientation_is_refused_and_changes_nothing),
        cmocka_unit_test(test_unknown_action_type_is_refused_and_changes_nothing),
        cmocka_unit_test(test_corrupted_current_piece_is_refused_and_changes_nothing),
        cmocka_unit_test(test_single_group_of_four_scores_100),
        cmocka_unit_test(test_bloom_cells_are_listed_in_row_major_order),
        cmocka_unit_test(test_group_of_five_scores_150),
        cmocka_unit_test(test_group_of_seven_with_both_halves_is_one_bloom_scoring_250),
        cmocka_unit_test(test_two_simultaneous_groups_add_50),
        cmocka_unit_test(test_two_groups_of_different_sizes_score_each_plus_50),
        cmocka_unit_test(test_streak_multiplies_by_1_1_5_2_2_5_3_and_caps_at_3),
        cmocka_unit_test(test_streak_multiplier_applies_to_the_whole_total),
        cmocka_unit_test(test_consecutive_blooms_raise_the_streak_and_a_miss_resets_it),
        cmocka_unit_test(test_half_points_are_floored),
        cmocka_unit_test(test_bloom_totals_are_multiples_of_50_so_halves_never_arise_in_play),
        cmocka_unit_test(test_blooms_leave_holes_without_gravity_or_cascade),
        cmocka_unit_test(test_skip_costs_50_and_keeps_the_streak),
        cmocka_unit_test(test_skip_below_50_floors_the_score_at_0),
        cmocka_unit_test(test_skip_with_none_left_is_refused_and_changes_nothing),
        cmocka_unit_test(test_run_ends_when_no_two_adjacent_cells_are_empty_even_with_skips_left),
        cmocka_unit_test(test_isolated_empty_cells_do_not_keep_a_run_alive),
        cmocka_unit_test(test_legal_actions_list_placements_by_row_col_orientation_then_skip),
        cmocka_unit_test(test_legal_actions_are_exactly_the_placements_that_check),
        cmocka_unit_test(test_custom_positions_that_break_the_rules_are_refused),
        cmocka_unit_test(test_board_text_reads_back_as_a_custom_board),
        cmocka_unit_test(test_cell_color_outside_the_board_is_an_error),
        cmocka_unit_test(test_mask_helpers_do_not_wrap_across_rows),
        cmocka_unit_test(test_same_seed_and_actions_give_the_same_run),
        cmocka_unit_test(test_daily_seed_is_the_utc_date_as_a_number),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

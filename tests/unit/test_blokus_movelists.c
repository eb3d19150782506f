/* test_blokus_movelists.c -- the list generator against the scan it
 * replaced.
 *
 * The scan (blokus_scan_*) was the engine's generator and is checked
 * against a cell-by-cell reference in test_blokus_reference.c; here the
 * list walk, the scan's engine form, the engine's generator that picks
 * between those two, and the turn order kept by blokus_apply's witnesses
 * must agree with it exactly:
 * the same move set (each move once) for every color at every ply of many
 * seeded games in every mode, the same "can it move?" answer, the same
 * turns and game end, and the exact perft counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/blokus.h"
#include "engine/rng.h"
#include "unit/blokus_games.h"

typedef int (*generator_fn)(const blokus_state *state, int color, blokus_move *moves);

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The moves of `color` by `generate` as sorted keys (orientation, row,
 * col); returns their number. */
static int sorted_keys(generator_fn generate, const blokus_state *s, int color, int *keys)
{
    static blokus_move moves[BLOKUS_MAX_MOVES];
    int count = generate(s, color, moves);
    for (int i = 0; i < count; i++)
        keys[i] = blokus_orientation_id(moves[i]) * 10000 + moves[i].row * 100 + moves[i].col;
    qsort(keys, (size_t)count, sizeof(int), compare_ints);
    return count;
}

static void assert_same_moves(generator_fn generate, const blokus_state *s, int color,
                              const int *expected, int expected_count)
{
    static int actual[BLOKUS_MAX_MOVES];
    int count = sorted_keys(generate, s, color, actual);
    assert_int_equal(count, expected_count);
    assert_memory_equal(actual, expected, sizeof(int) * (size_t)count);
}

/* Every generator and move finder of the engine agrees with the scan on
 * every color of `s`. */
static void assert_colors_agree(const blokus_state *s)
{
    static int expected[BLOKUS_MAX_MOVES];
    for (int color = 0; color < s->color_count; color++) {
        int count = sorted_keys(blokus_scan_generate_for, s, color, expected);
        for (int i = 1; i < count; i++)
            assert_true(expected[i - 1] < expected[i]); /* the scan lists each move once */
        assert_same_moves(blokus_walk_generate_for, s, color, expected, count);
        assert_same_moves(blokus_fast_scan_generate_for, s, color, expected, count);
        assert_same_moves(blokus_generate_for, s, color, expected, count);
        assert_int_equal(blokus_has_move(s, color), count > 0);
        assert_int_equal(blokus_scan_has_move(s, color), count > 0);
        blokus_move found;
        assert_int_equal(blokus_find_move(s, color, &found), count > 0);
        if (count == 0) {
            assert_int_equal(found.piece, BLOKUS_PASS);
            continue;
        }
        int key = blokus_orientation_id(found) * 10000 + found.row * 100 + found.col;
        assert_non_null(bsearch(&key, expected, (size_t)count, sizeof(int), compare_ints));
    }
}

/* Plays one game by `choose`, applying each move both ways: with the
 * engine's witnesses and with the scan's full "can it move?". The two must
 * keep the same turn order and end together, and every position must pass
 * assert_colors_agree. */
static void check_game(blokus_mode mode, uint64_t seed, blokus_games_chooser choose)
{
    blokus_state s, scanned;
    blokus_init(&s, mode, BLOKUS_SCORING_SQUARES);
    scanned = s;
    rng r = rng_seeded(seed);
    while (!s.is_over) {
        assert_colors_agree(&s);
        blokus_move m = choose(&s, &r);
        assert_int_equal(blokus_check(&s, m), 0);
        blokus_apply(&s, m);
        blokus_scan_apply(&scanned, m);
        assert_int_equal(s.to_move, scanned.to_move);
        assert_int_equal(s.out_mask, scanned.out_mask);
        assert_int_equal(s.is_over, scanned.is_over);
        assert_int_equal(s.shared_turns, scanned.shared_turns);
    }
    assert_colors_agree(&s);
}

static void test_random_games_list_the_scans_moves_in_every_mode(void **state)
{
    (void)state;
    blokus_games_random_in_every_mode(check_game, 1, 25);
}

static void test_largest_piece_games_list_the_scans_moves(void **state)
{
    (void)state;
    blokus_games_largest_in_4p_and_duo(check_game, 200, 15);
}

/* A witness stays in the state after its piece is played or its cells are
 * taken; the turn order must not trust it then. Colour 1 of Duo plays the
 * very move its witness names, so at its next turn the witness names a
 * used piece and a new one must be found. */
static void test_stale_witness_is_replaced(void **state)
{
    (void)state;
    static blokus_move moves[BLOKUS_MAX_MOVES];
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    assert_true(blokus_generate(&s, moves) > 0);
    blokus_apply(&s, moves[0]);
    assert_int_equal(s.to_move, 1);
    blokus_move played = s.witness[1];
    assert_int_equal(blokus_check(&s, played), 0);
    blokus_apply(&s, played);
    assert_int_equal(s.to_move, 0);
    assert_true(blokus_generate(&s, moves) > 0);
    blokus_apply(&s, moves[0]);
    assert_int_equal(s.to_move, 1);
    assert_int_not_equal(s.witness[1].piece, played.piece);
    assert_int_equal(blokus_check(&s, s.witness[1]), 0);
}

/* The first move of every color is a filter of its start cell's list: the
 * 58 placements through a classic corner, the 414 through a Duo start. */
static void test_first_moves_are_the_start_cell_lists(void **state)
{
    (void)state;
    static blokus_move moves[BLOKUS_MAX_MOVES];
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_SQUARES);
    for (int color = 0; color < BLOKUS_COLORS; color++)
        assert_int_equal(blokus_walk_generate_for(&s, color, moves), 58);
    blokus_init(&s, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    for (int color = 0; color < 2; color++)
        assert_int_equal(blokus_walk_generate_for(&s, color, moves), 414);
}

/* The counts the issue fixes: the generators change, the counts do not. */
static void test_perft_counts_are_unchanged(void **state)
{
    (void)state;
    static blokus_move buffers[4 * BLOKUS_MAX_MOVES];
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_SQUARES);
    assert_int_equal(blokus_perft(&s, 4, buffers), 11316496);
    assert_int_equal(blokus_scan_perft(&s, 3, buffers), 195112);
    blokus_init(&s, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    assert_int_equal(blokus_perft(&s, 3, buffers), 89204762);
    assert_int_equal(blokus_scan_perft(&s, 2, buffers), blokus_perft(&s, 2, buffers));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_games_list_the_scans_moves_in_every_mode),
        cmocka_unit_test(test_largest_piece_games_list_the_scans_moves),
        cmocka_unit_test(test_stale_witness_is_replaced),
        cmocka_unit_test(test_first_moves_are_the_start_cell_lists),
        cmocka_unit_test(test_perft_counts_are_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

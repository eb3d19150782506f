/* test_blokus_book.c -- mcts-v2's Duo opening book: its moves are legal,
 * mirror images get mirrored answers, it knows nothing beyond Duo's first
 * two moves, and mcts-v2 plays from it without searching. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "engine/blokus_book.h"
#include "engine/blokus_bot.h"

static void test_mirroring_swaps_rows_and_columns_and_undoes_itself(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    blokus_move moves[BLOKUS_MAX_MOVES];
    int count = blokus_generate(&s, moves);
    for (int i = 0; i < count; i++) {
        blokus_move mirrored = blokus_move_transposed(moves[i]);
        int cells[BLOKUS_MAX_PIECE_SIZE][2], mirrored_cells[BLOKUS_MAX_PIECE_SIZE][2];
        int size = blokus_move_cells(moves[i], cells);
        assert_int_equal(blokus_move_cells(mirrored, mirrored_cells), size);
        for (int k = 0; k < size; k++) {
            bool is_found = false;
            for (int j = 0; j < size; j++)
                is_found |=
                    mirrored_cells[j][0] == cells[k][1] && mirrored_cells[j][1] == cells[k][0];
            assert_true(is_found);
        }
        assert_int_equal(mirrored.piece, moves[i].piece);
        assert_true(blokus_move_equal(blokus_move_transposed(mirrored), moves[i]));
        assert_int_equal(blokus_check(&s, mirrored), 0); /* the start cell is on the diagonal */
        assert_true(
            blokus_move_equal(blokus_book_canonical(mirrored), blokus_book_canonical(moves[i])));
    }
}

static void test_the_opening_is_a_legal_first_move(void **state)
{
    (void)state;
    for (int scoring = BLOKUS_SCORING_SQUARES; scoring <= BLOKUS_SCORING_OFFICIAL; scoring++) {
        blokus_state s;
        blokus_init(&s, BLOKUS_MODE_DUO, (blokus_scoring)scoring);
        blokus_move m;
        assert_true(blokus_book_find(&s, &m));
        assert_int_equal(blokus_check(&s, m), 0);
    }
}

/* Every first move of Duo: where the book answers it, the answer is legal,
 * and the first move's mirror image gets the answer's mirror image. */
static void test_answers_are_legal_and_mirrored_with_the_first_move(void **state)
{
    (void)state;
    blokus_state empty;
    blokus_init(&empty, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    blokus_move firsts[BLOKUS_MAX_MOVES], opening, answer, mirrored_answer;
    int count = blokus_generate(&empty, firsts), answered = 0;
    assert_true(blokus_book_find(&empty, &opening));
    for (int i = 0; i < count; i++) {
        blokus_state s = empty, mirrored = empty;
        blokus_apply(&s, firsts[i]);
        blokus_apply(&mirrored, blokus_move_transposed(firsts[i]));
        bool is_known = blokus_book_find(&s, &answer);
        assert_true(is_known == blokus_book_find(&mirrored, &mirrored_answer));
        if (!is_known)
            continue;
        answered++;
        assert_int_equal(blokus_check(&s, answer), 0);
        assert_true(blokus_move_equal(mirrored_answer, blokus_move_transposed(answer)));
    }
    blokus_state after_opening = empty;
    blokus_apply(&after_opening, opening);
    assert_true(blokus_book_find(&after_opening, &answer));
    assert_true(answered >= 2);
}

static void test_the_book_knows_only_duo_openings(void **state)
{
    (void)state;
    blokus_state s;
    blokus_move m;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_SQUARES);
    assert_false(blokus_book_find(&s, &m));
    blokus_init(&s, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    for (int ply = 0; ply < 2; ply++) {
        assert_true(blokus_book_find(&s, &m));
        blokus_apply(&s, m);
    }
    assert_false(blokus_book_find(&s, &m));
}

static void test_mcts_v2_plays_the_book_without_searching(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    blokus_bot_budget budget = {0, 50, NULL};
    blokus_move booked, played, searched;
    blokus_bot_stats stats;
    assert_true(blokus_book_find(&s, &booked));
    assert_int_equal(blokus_bot_search(BLOKUS_BOT_MCTS2, &s, &budget, 1, &played, &stats), 0);
    assert_true(blokus_move_equal(played, booked));
    assert_int_equal(stats.playouts, 0);
    assert_int_equal(blokus_bot_search_unbooked(&s, &budget, 1, &searched, &stats), 0);
    assert_true(stats.playouts > 0);
    assert_int_equal(blokus_check(&s, searched), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mirroring_swaps_rows_and_columns_and_undoes_itself),
        cmocka_unit_test(test_the_opening_is_a_legal_first_move),
        cmocka_unit_test(test_answers_are_legal_and_mirrored_with_the_first_move),
        cmocka_unit_test(test_the_book_knows_only_duo_openings),
        cmocka_unit_test(test_mcts_v2_plays_the_book_without_searching),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

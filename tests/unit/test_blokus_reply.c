/* test_blokus_reply.c -- last-good-reply tables: what a simulation teaches.
 *
 * Each test feeds blokus_reply_learn() a short made-up simulation (moves
 * need not be legal: the table keys moves, it does not judge them) and
 * reads the replies back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "engine/blokus_reply.h"

static const blokus_move OPENING = {20, 0, 0, 0};
static const blokus_move ANSWER = {19, 1, 4, 5};
static const blokus_move OTHER_ANSWER = {18, 2, 6, 7};
static const blokus_move PASS = {BLOKUS_PASS, 0, 0, 0};

static void assert_same_move(blokus_move a, blokus_move b)
{
    assert_int_equal(a.piece, b.piece);
    assert_int_equal(a.orientation, b.orientation);
    assert_int_equal(a.row, b.row);
    assert_int_equal(a.col, b.col);
}

static blokus_reply_table *new_table(void)
{
    blokus_reply_table *table = blokus_reply_new();
    assert_non_null(table);
    return table;
}

/* One two-move simulation: color 0 plays `first`, color 1 answers with
 * `second`; `is_answer_won` says whether color 1's player won. */
static void learn_pair(blokus_reply_table *table, blokus_move first, blokus_move second,
                       bool is_answer_won)
{
    blokus_move moves[] = {first, second};
    uint8_t colors[] = {0, 1};
    bool is_win[] = {!is_answer_won, is_answer_won};
    blokus_reply_learn(table, moves, colors, is_win, 2);
}

static void test_an_empty_table_has_no_reply(void **state)
{
    (void)state;
    blokus_reply_table *table = new_table();
    blokus_move reply;
    assert_false(blokus_reply_find(table, 1, OPENING, &reply));
    blokus_reply_free(table);
}

static void test_a_winners_answer_becomes_its_colors_reply(void **state)
{
    (void)state;
    blokus_reply_table *table = new_table();
    learn_pair(table, OPENING, ANSWER, true);
    blokus_move reply;
    assert_true(blokus_reply_find(table, 1, OPENING, &reply));
    assert_same_move(reply, ANSWER);
    /* the reply is color 1's: color 0 and color 2 keep none to OPENING */
    assert_false(blokus_reply_find(table, 0, OPENING, &reply));
    assert_false(blokus_reply_find(table, 2, OPENING, &reply));
    blokus_reply_free(table);
}

static void test_a_later_win_replaces_the_reply(void **state)
{
    (void)state;
    blokus_reply_table *table = new_table();
    learn_pair(table, OPENING, ANSWER, true);
    learn_pair(table, OPENING, OTHER_ANSWER, true);
    blokus_move reply;
    assert_true(blokus_reply_find(table, 1, OPENING, &reply));
    assert_same_move(reply, OTHER_ANSWER);
    blokus_reply_free(table);
}

static void test_a_loss_forgets_that_reply_only(void **state)
{
    (void)state;
    blokus_reply_table *table = new_table();
    learn_pair(table, OPENING, ANSWER, true);
    learn_pair(table, OPENING, OTHER_ANSWER, false); /* another move lost: ANSWER stays */
    blokus_move reply;
    assert_true(blokus_reply_find(table, 1, OPENING, &reply));
    assert_same_move(reply, ANSWER);
    learn_pair(table, OPENING, ANSWER, false); /* the reply itself lost: forgotten */
    assert_false(blokus_reply_find(table, 1, OPENING, &reply));
    blokus_reply_free(table);
}

static void test_passes_neither_answer_nor_are_answered(void **state)
{
    (void)state;
    blokus_reply_table *table = new_table();
    blokus_move moves[] = {OPENING, PASS, ANSWER};
    uint8_t colors[] = {0, 1, 2};
    bool is_win[] = {true, true, true};
    blokus_reply_learn(table, moves, colors, is_win, 3);
    blokus_move reply;
    assert_false(blokus_reply_find(table, 1, OPENING, &reply));
    assert_false(blokus_reply_find(table, 2, PASS, &reply));
    blokus_reply_free(table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_an_empty_table_has_no_reply),
        cmocka_unit_test(test_a_winners_answer_becomes_its_colors_reply),
        cmocka_unit_test(test_a_later_win_replaces_the_reply),
        cmocka_unit_test(test_a_loss_forgets_that_reply_only),
        cmocka_unit_test(test_passes_neither_answer_nor_are_answered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_fifo.c -- the intrusive first-in, first-out list (util/fifo.h):
 * order kept at both ends, removal from anywhere keeps the ends right. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/fifo.h"

struct item {
    int value;
    fifo_link link;
};

/* Pops everything, writing the values out in order: how many. */
static int drain(fifo *list, int *values)
{
    int count = 0;
    fifo_link *link;
    while ((link = fifo_pop(list)) != NULL)
        values[count++] = FIFO_ITEM(link, struct item, link)->value;
    return count;
}

static void test_items_come_out_in_the_order_they_went_in(void **state)
{
    (void)state;
    struct item items[4] = {{1, {0}}, {2, {0}}, {3, {0}}, {4, {0}}};
    fifo list = {0};
    assert_true(fifo_is_empty(&list));
    fifo_push(&list, &items[1].link);
    fifo_push(&list, &items[2].link);
    fifo_push_front(&list, &items[0].link);
    fifo_push(&list, &items[3].link);
    int values[4];
    assert_int_equal(drain(&list, values), 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(values[i], i + 1);
    assert_true(fifo_is_empty(&list));
    assert_null(FIFO_ITEM(fifo_pop(&list), struct item, link));
    fifo_push(&list, &items[0].link);
    fifo_push(&list, &items[1].link);
    assert_int_equal(FIFO_ITEM(fifo_pop(&list), struct item, link)->value, 1); /* pops once */
    assert_int_equal(FIFO_ITEM(fifo_pop(&list), struct item, link)->value, 2);
}

static void test_removing_keeps_head_and_tail_right(void **state)
{
    (void)state;
    struct item items[3] = {{1, {0}}, {2, {0}}, {3, {0}}};
    fifo list = {0};
    for (int i = 0; i < 3; i++)
        fifo_push(&list, &items[i].link);
    assert_true(fifo_remove(&list, &items[2].link));  /* the tail */
    assert_false(fifo_remove(&list, &items[2].link)); /* not there any more */
    fifo_push(&list, &items[2].link);                 /* appended after 2, not lost */
    assert_true(fifo_remove(&list, &items[0].link));  /* the head */
    int values[3];
    assert_int_equal(drain(&list, values), 2);
    assert_int_equal(values[0], 2);
    assert_int_equal(values[1], 3);
    fifo_push_front(&list, &items[1].link); /* an empty list's first item is its tail too */
    fifo_push(&list, &items[0].link);
    assert_int_equal(drain(&list, values), 2);
    assert_int_equal(values[0], 2);
    assert_int_equal(values[1], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_items_come_out_in_the_order_they_went_in),
        cmocka_unit_test(test_removing_keeps_head_and_tail_right),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

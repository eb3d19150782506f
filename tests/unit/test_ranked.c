/* test_ranked.c -- the bounded best-first list (util/ranked.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/ranked.h"

struct line {
    char tag;
    int64_t value;
};

static void insert(struct line *lines, int *count, int capacity, char tag, int64_t value)
{
    struct line line = {tag, value};
    ranked_insert(lines, sizeof(lines[0]), count, capacity, &line, offsetof(struct line, value));
}

static void assert_tags(const struct line *lines, int count, const char *tags)
{
    assert_int_equal(count, (int)strlen(tags));
    for (int i = 0; i < count; i++)
        assert_int_equal(lines[i].tag, tags[i]);
}

static void test_items_are_kept_best_first_ties_in_arrival_order(void **state)
{
    (void)state;
    struct line lines[8];
    int count = 0;
    insert(lines, &count, 8, 'a', 5);
    insert(lines, &count, 8, 'b', 9);
    insert(lines, &count, 8, 'c', 5);
    insert(lines, &count, 8, 'd', -3);
    insert(lines, &count, 8, 'e', 9);
    assert_tags(lines, count, "beacd");
}

static void test_a_full_list_drops_its_last_or_the_newcomer(void **state)
{
    (void)state;
    struct line lines[3];
    int count = 0;
    insert(lines, &count, 3, 'a', 1);
    insert(lines, &count, 3, 'b', 2);
    insert(lines, &count, 3, 'c', 3);
    insert(lines, &count, 3, 'd', 0); /* ranks past the capacity */
    assert_tags(lines, count, "cba");
    insert(lines, &count, 3, 'e', 2); /* after b, pushes a out */
    assert_tags(lines, count, "cbe");
    insert(lines, &count, 3, 'f', 10);
    assert_tags(lines, count, "fcb");
    insert(lines, &count, 3, 'g', 2); /* equal to the last: it would come after it */
    assert_tags(lines, count, "fcb");
}

static void test_a_list_of_one_keeps_the_first_best(void **state)
{
    (void)state;
    struct line lines[1];
    int count = 0;
    insert(lines, &count, 1, 'a', 4);
    insert(lines, &count, 1, 'b', 4);
    insert(lines, &count, 1, 'c', 7);
    assert_tags(lines, count, "c");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_items_are_kept_best_first_ties_in_arrival_order),
        cmocka_unit_test(test_a_full_list_drops_its_last_or_the_newcomer),
        cmocka_unit_test(test_a_list_of_one_keeps_the_first_best),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

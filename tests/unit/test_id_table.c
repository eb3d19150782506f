/* test_id_table.c -- the one hash map: ids to borrowed pointers.
 *
 * Every entry stays findable through growth and backward-shift removals,
 * a replacement never allocates, and the walks see each value once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "util/id_table.h"

enum { COUNT = 2000 };

static int values[COUNT + 1]; /* values[id] is the value stored for id */

static void test_every_entry_is_found_through_growth_and_removals(void **state)
{
    (void)state;
    id_table table = {0};
    for (uint64_t id = 1; id <= COUNT; id++)
        assert_int_equal(id_table_put(&table, id, &values[id]), 0);
    assert_int_equal(table.count, COUNT);
    for (uint64_t id = 1; id <= COUNT; id += 3)
        id_table_remove(&table, id);
    id_table_remove(&table, COUNT + 1); /* absent: no effect */
    for (uint64_t id = 1; id <= COUNT; id++) {
        if ((id - 1) % 3 == 0)
            assert_null(id_table_get(&table, id));
        else
            assert_ptr_equal(id_table_get(&table, id), &values[id]);
    }
    assert_int_equal(table.count, COUNT - (COUNT + 2) / 3);
    id_table_clear(&table);
    assert_null(id_table_get(&table, 2));
}

static void test_replacing_a_value_keeps_the_slots(void **state)
{
    (void)state;
    id_table table = {0};
    for (uint64_t id = 1; id <= 8; id++) /* exactly the 50% load of 16 slots */
        assert_int_equal(id_table_put(&table, id, &values[id]), 0);
    struct id_slot *slots = table.slots;
    size_t capacity = table.capacity;
    assert_int_equal(id_table_put(&table, 8, &values[1]), 0);
    assert_ptr_equal(table.slots, slots); /* no growth: a replacement cannot fail */
    assert_int_equal(table.capacity, capacity);
    assert_int_equal(table.count, 8);
    assert_ptr_equal(id_table_get(&table, 8), &values[1]);
    id_table_clear(&table);
}

static void test_id_zero_is_never_stored(void **state)
{
    (void)state;
    id_table table = {0};
    assert_null(id_table_get(&table, 0));
    assert_int_equal(id_table_put(&table, 5, &values[5]), 0);
    assert_null(id_table_get(&table, 0));
    id_table_remove(&table, 0);
    assert_int_equal(table.count, 1);
    id_table_clear(&table);
}

static void add_value(void *value, void *context)
{
    *(long *)context += *(int *)value;
}

static void test_walks_see_each_value_once(void **state)
{
    (void)state;
    id_table table = {0};
    long expected = 0;
    for (uint64_t id = 1; id <= 100; id++) {
        values[id] = (int)id;
        expected += (long)id;
        assert_int_equal(id_table_put(&table, id * 7919, &values[id]), 0);
    }
    long sum = 0;
    id_table_each(&table, add_value, &sum);
    assert_int_equal(sum, expected);
    size_t count;
    void **snapshot = id_table_values(&table, &count);
    assert_int_equal(count, 100);
    sum = 0;
    for (size_t i = 0; i < count; i++)
        sum += *(int *)snapshot[i];
    assert_int_equal(sum, expected);
    free(snapshot);
    id_table_clear(&table);
    assert_null(id_table_values(&table, &count));
    assert_int_equal(count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_entry_is_found_through_growth_and_removals),
        cmocka_unit_test(test_replacing_a_value_keeps_the_slots),
        cmocka_unit_test(test_id_zero_is_never_stored),
        cmocka_unit_test(test_walks_see_each_value_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

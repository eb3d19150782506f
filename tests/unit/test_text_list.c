/* test_text_list.c -- entries of a comma-separated setting: trimmed, empty
 * ones skipped, long ones cut and told. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/text_list.h"

static void entries_come_trimmed_and_empty_ones_are_skipped(void **state)
{
    (void)state;
    const char *list = " a.example ,,\tb , c";
    char entry[16];
    assert_int_equal(text_list_next(&list, entry, sizeof(entry)), 9);
    assert_string_equal(entry, "a.example");
    assert_int_equal(text_list_next(&list, entry, sizeof(entry)), 1);
    assert_string_equal(entry, "b");
    assert_int_equal(text_list_next(&list, entry, sizeof(entry)), 1);
    assert_string_equal(entry, "c");
    assert_int_equal(text_list_next(&list, entry, sizeof(entry)), -1);
    const char *empty = " , ";
    assert_int_equal(text_list_next(&empty, entry, sizeof(entry)), -1);
}

static void a_long_entry_is_cut_and_its_length_told(void **state)
{
    (void)state;
    const char *list = "abcdefghij,k";
    char entry[5];
    assert_int_equal(text_list_next(&list, entry, sizeof(entry)), 10);
    assert_string_equal(entry, "abcd");
    assert_int_equal(text_list_next(&list, entry, sizeof(entry)), 1);
    assert_string_equal(entry, "k");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entries_come_trimmed_and_empty_ones_are_skipped),
        cmocka_unit_test(a_long_entry_is_cut_and_its_length_told),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

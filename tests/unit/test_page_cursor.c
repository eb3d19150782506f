/* test_page_cursor.c -- REST list cursors (protocol/page_cursor.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "protocol/page_cursor.h"

static void test_a_cursor_reads_back_as_written(void **state)
{
    (void)state;
    const page_cursor cursors[] = {{0, 0}, {1795478400000, 42}, {-1, INT64_MAX}, {INT64_MIN, 7}};
    for (size_t i = 0; i < sizeof(cursors) / sizeof(cursors[0]); i++) {
        char text[PAGE_CURSOR_SIZE];
        page_cursor_encode(cursors[i], text);
        page_cursor back;
        assert_int_equal(page_cursor_decode(text, &back), 0);
        assert_true(back.key == cursors[i].key && back.id == cursors[i].id);
    }
}

static void test_anything_else_is_not_a_cursor(void **state)
{
    (void)state;
    static const char *const BAD[] = {
        "",
        "00000000000000000000000000000000a",  /* one digit too many */
        "0000000000000000000000000000000",    /* one too few */
        "0000000000000000000000000000000G",   /* not hex */
        "000000000000000000000000000000 1",   /* a space */
        "00000000000000000000000000000000\n", /* a newline */
        "ABCDEF0000000000000000000000000000", /* upper case is not what we write */
    };
    page_cursor cursor;
    for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++)
        assert_int_equal(page_cursor_decode(BAD[i], &cursor), -1);
    assert_int_equal(page_cursor_decode(NULL, &cursor), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_cursor_reads_back_as_written),
        cmocka_unit_test(test_anything_else_is_not_a_cursor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

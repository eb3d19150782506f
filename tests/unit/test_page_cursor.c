/* test_page_cursor.c -- REST list cursors (protocol/page_cursor.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/page_cursor.h"

static void test_a_cursor_reads_back_as_written(void **state)
{
    (void)state;
    page_cursor cursors[] = {
        {0, 0, {0}}, {1795478400000, 42, {1, 2, 3}}, {-1, INT64_MAX, {0}}, {INT64_MIN, 7, {0}}};
    memset(cursors[2].tag, 0xff, sizeof(cursors[2].tag));
    for (size_t i = 0; i < sizeof(cursors) / sizeof(cursors[0]); i++) {
        char text[PAGE_CURSOR_SIZE];
        page_cursor_encode(&cursors[i], text);
        assert_int_equal(strlen(text), 64);
        page_cursor back;
        assert_int_equal(page_cursor_decode(text, &back), 0);
        assert_true(back.key == cursors[i].key && back.id == cursors[i].id);
        assert_memory_equal(back.tag, cursors[i].tag, PAGE_CURSOR_TAG_BYTES);
    }
}

static void test_anything_else_is_not_a_cursor(void **state)
{
    (void)state;
#define ZEROS_32 "00000000000000000000000000000000"
    static const char *const BAD[] = {
        "",
        ZEROS_32,                                     /* the old form, without a tag */
        ZEROS_32 ZEROS_32 "0",                        /* one digit too many */
        ZEROS_32 "0000000000000000000000000000000",   /* one too few */
        ZEROS_32 "0000000000000000000000000000000G",  /* not hex */
        ZEROS_32 "000000000000000000000000000000 1",  /* a space */
        ZEROS_32 "0000000000000000000000000000000\n", /* a newline */
        "ABCDEF00000000000000000000000000" ZEROS_32,  /* upper case is not what we write */
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

/* test_json_in.c -- the plain-JSON fast path (protocol/json_in.c) reads
 * exactly what jansson reads, and gives up on everything else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/rng.h"
#include "protocol/json_in.h"

/* What json_loadb makes of `text` as protocol_decode reads it, compact
 * with its members in order; NULL when jansson refuses it. */
static char *jansson_text(const char *text, size_t length)
{
    json_t *value = json_loadb(text, length, JSON_REJECT_DUPLICATES, NULL);
    char *dumped = value ? json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    json_decref(value);
    return dumped;
}

/* The fast path read `text` (length bytes): NULL, or the same value as
 * jansson, member for member. Whether it read it. */
static bool reads_as_jansson(const char *text, size_t length)
{
    json_t *plain = json_in_plain(text, length);
    if (!plain)
        return false;
    char *fast = json_dumps(plain, JSON_COMPACT | JSON_ENCODE_ANY);
    char *slow = jansson_text(text, length);
    assert_non_null(slow);
    assert_string_equal(fast, slow);
    json_t *again = json_loadb(text, length, JSON_REJECT_DUPLICATES, NULL);
    assert_true(json_equal(plain, again));
    json_decref(again);
    free(fast);
    free(slow);
    json_decref(plain);
    return true;
}

static const char *const PLAIN[] = {
    "{\"type\":\"game.move\",\"room\":\"K7Q2P9XA\",\"id\":12,\"ply\":14,\"action\":"
    "{\"piece\":\"V5\",\"orientation\":3,\"row\":10,\"col\":7}}",
    "{\"type\":\"game.moves\",\"room\":\"K7Q2P9XA\",\"id\":-5}",
    " {\r\n\t\"a\" : [ 1 , -0 , 123456789012345678 , [] , {} , true , false , null ] } \n",
    "{\"participants\":[{\"player\":\"ann\"},{\"bot\":\"greedy\"}],\"x\":\"\",\"y\":{\"z\":[[]]}}",
    "{}",
};

static const char *const NOT_PLAIN[] = {
    "[1]",                                         /* a message is an object */
    "{\"a\":\"\\n\"}",                             /* an escape */
    "{\"a\":\"\xc3\xa9\"}",                        /* UTF-8 */
    "{\"a\":1.5}",                                 /* a fraction */
    "{\"a\":1e3}",                                 /* an exponent */
    "{\"a\":01}",                                  /* a leading zero */
    "{\"a\":1234567890123456789}",                 /* 19 digits */
    "{\"a\":1,\"a\":2}",                           /* a duplicate key */
    "{\"a\":1} x",                                 /* trailing text */
    "{\"a\":1,}",                                  /* a trailing comma */
    "{\"a\":tru}",                                 /* a broken word */
    "{\"a\":-}",                                   /* a sign alone */
    "{\"a\":[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}", /* 17 levels */
    "{\"a\":1",                                    /* cut short */
};

static void test_plain_messages_read_as_jansson_reads_them(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(PLAIN) / sizeof(PLAIN[0]); i++)
        assert_true(reads_as_jansson(PLAIN[i], strlen(PLAIN[i])));
}

static void test_anything_else_is_left_to_jansson(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(NOT_PLAIN) / sizeof(NOT_PLAIN[0]); i++)
        assert_null(json_in_plain(NOT_PLAIN[i], strlen(NOT_PLAIN[i])));
    const char with_nul[] = "{\"a\":1}\0";
    assert_null(json_in_plain(with_nul, sizeof(with_nul) - 1));
}

/* Random damage to real messages: whatever the fast path reads, jansson
 * reads the same way. */
static void test_damaged_messages_read_as_jansson_or_not_at_all(void **state)
{
    (void)state;
    static const char ALPHABET[] = "{}[]\":,-01239.eEtrufalsn \\\x01\xc3\x7f";
    rng random = rng_seeded(17);
    int read = 0;
    for (int round = 0; round < 100000; round++) {
        const char *seed = PLAIN[rng_below(&random, sizeof(PLAIN) / sizeof(PLAIN[0]))];
        char text[256];
        size_t length = strlen(seed);
        memcpy(text, seed, length);
        for (int damage = 1 + (int)rng_below(&random, 3); damage > 0; damage--) {
            size_t at = rng_below(&random, (uint32_t)length);
            char c = ALPHABET[rng_below(&random, sizeof(ALPHABET) - 1)];
            int kind = (int)rng_below(&random, 3);
            if (kind == 0)
                text[at] = c;
            else if (kind == 1 && length + 1 < sizeof(text)) {
                memmove(text + at + 1, text + at, length - at);
                text[at] = c;
                length++;
            } else if (length > 1) {
                memmove(text + at, text + at + 1, length - at - 1);
                length--;
            }
        }
        read += reads_as_jansson(text, length);
    }
    assert_true(read > 1000); /* the damage did not always leave the subset */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_messages_read_as_jansson_reads_them),
        cmocka_unit_test(test_anything_else_is_left_to_jansson),
        cmocka_unit_test(test_damaged_messages_read_as_jansson_or_not_at_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

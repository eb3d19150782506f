/* test_json_scan.c -- the load generator's JSON walk finds each member's
 * value exactly, whatever brackets, quotes and backslashes its strings hold
 * and wherever the 64-byte blocks of the fast walk fall. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bench/json_scan.h"

#define TEXT_MAX  16384
#define MEMBERS   6
#define DEPTH_MAX 3

struct text {
    char bytes[TEXT_MAX];
    size_t length;
    uint64_t seed;
};

static unsigned next_random(struct text *t, unsigned below)
{
    t->seed = t->seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(t->seed >> 33) % below;
}

static void put(struct text *t, const char *bytes)
{
    size_t length = strlen(bytes);
    if (t->length + length < TEXT_MAX) {
        memcpy(t->bytes + t->length, bytes, length);
        t->length += length;
    }
}

/* A string holding the bytes that trip a walk up: brackets, escaped quotes
 * and escaped backslashes, now and then one at a block's edge. */
static void put_string(struct text *t)
{
    static const char *const PIECES[] = {"a",    "[", "]", "{", "}",     "\\\"",
                                         "\\\\", ",", ":", " ", "piece", "\\u005d"};
    put(t, "\"");
    for (unsigned n = next_random(t, 20); n > 0; n--)
        put(t, PIECES[next_random(t, sizeof(PIECES) / sizeof(PIECES[0]))]);
    put(t, "\"");
}

static void put_value(struct text *t, int depth)
{
    unsigned kind = depth >= DEPTH_MAX ? next_random(t, 3) : next_random(t, 5);
    if (kind == 0) {
        put_string(t);
    } else if (kind == 1) {
        put(t, next_random(t, 2) ? "-12.5e3" : "null");
    } else if (kind == 2) {
        put(t, "7");
    } else if (kind == 3) {
        put(t, "[");
        for (unsigned n = next_random(t, 16); n > 0; n--) {
            put_value(t, depth + 1);
            if (n > 1)
                put(t, next_random(t, 2) ? "," : " , ");
        }
        put(t, "]");
    } else {
        put(t, "{");
        for (unsigned n = next_random(t, 6); n > 0; n--) {
            put_string(t);
            put(t, ":");
            put_value(t, depth + 1);
            if (n > 1)
                put(t, ",");
        }
        put(t, "}");
    }
}

/* An object of MEMBERS members "m0".."m5"; where each value starts and
 * ends is noted as it is written. */
static void put_object(struct text *t, size_t starts[MEMBERS], size_t ends[MEMBERS])
{
    t->length = 0;
    put(t, "{");
    for (int m = 0; m < MEMBERS; m++) {
        char key[16];
        snprintf(key, sizeof(key), "%s\"m%d\": ", m ? "," : "", m);
        put(t, key);
        starts[m] = t->length;
        put_value(t, 0);
        ends[m] = t->length;
    }
    put(t, "}");
}

static void every_value_is_found_whole(void **state)
{
    (void)state;
    struct text t = {.seed = 20261127};
    int long_values = 0;
    for (int round = 0; round < 5000; round++) {
        size_t starts[MEMBERS], ends[MEMBERS];
        put_object(&t, starts, ends);
        assert_true(t.length < TEXT_MAX - 1); /* nothing was cut off */
        json_scan scan;
        assert_true(json_scan_object(&scan, (json_span){t.bytes, t.length}));
        json_span key, value;
        for (int m = 0; m < MEMBERS; m++) {
            assert_true(json_scan_next_member(&scan, &key, &value));
            assert_int_equal(key.length, 2);
            assert_int_equal(key.start[1], '0' + m);
            assert_ptr_equal(value.start, t.bytes + starts[m]);
            assert_int_equal(value.length, ends[m] - starts[m]);
            long_values += value.length > 128;
        }
        assert_false(json_scan_next_member(&scan, &key, &value));
    }
    assert_true(long_values > 1000); /* the block walk was exercised */
}

static void a_reply_gives_its_first_move(void **state)
{
    (void)state;
    char reply[8192];
    size_t length = (size_t)snprintf(reply, sizeof(reply), "{\"type\":\"game.moves\",\"moves\":[");
    for (int i = 0; i < 100; i++)
        length += (size_t)snprintf(reply + length, sizeof(reply) - length,
                                   "%s{\"piece\":\"I5\",\"orientation\":%d,\"row\":%d,\"col\":0}",
                                   i ? "," : "", i % 8, i % 20);
    length += (size_t)snprintf(reply + length, sizeof(reply) - length, "],\"id\":3}");
    json_span whole = {reply, length}, moves, first, id;
    assert_true(json_scan_find(whole, "moves", &moves));
    assert_true(json_scan_first_element(moves, &first));
    assert_int_equal(first.length,
                     strlen("{\"piece\":\"I5\",\"orientation\":0,\"row\":0,\"col\":0}"));
    assert_true(json_scan_find(whole, "id", &id));
    long number = 0;
    assert_true(json_span_to_long(id, &number));
    assert_int_equal(number, 3);
}

static void an_unclosed_value_ends_the_walk(void **state)
{
    (void)state;
    char text[300];
    memset(text, ' ', sizeof(text));
    memcpy(text, "{\"a\":[[\"]\"", 10); /* the string's bracket closes nothing */
    json_scan scan;
    json_span key, value;
    assert_true(json_scan_object(&scan, (json_span){text, sizeof(text)}));
    assert_false(json_scan_next_member(&scan, &key, &value));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_value_is_found_whole),
        cmocka_unit_test(a_reply_gives_its_first_move),
        cmocka_unit_test(an_unclosed_value_ends_the_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

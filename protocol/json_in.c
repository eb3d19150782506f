/* json_in.c -- plain JSON read into jansson values (json_in.h).
 *
 * A recursive descent over the text that never reports an error: each
 * reader returns NULL where the text leaves the plain subset or is not
 * JSON, and the whole read is given up. */
#include "protocol/json_in.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Deeper than any message the protocol has (tournament.create: 3). */
#define MAX_DEPTH 16
/* Integers of up to 18 digits fit json_int_t; longer ones are jansson's. */
#define MAX_DIGITS 18

struct reader {
    const char *at, *end;
    int depth;
};

static void skip_space(struct reader *r)
{
    while (r->at < r->end && (*r->at == ' ' || *r->at == '\n' || *r->at == '\r' || *r->at == '\t'))
        r->at++;
}

/* Whether the next byte is `c` (taken if so). */
static bool take(struct reader *r, char c)
{
    if (r->at >= r->end || *r->at != c)
        return false;
    r->at++;
    return true;
}

/* A string of printable ASCII without escapes: its bytes, or false. */
static bool read_string(struct reader *r, const char **start, size_t *length)
{
    if (!take(r, '"'))
        return false;
    *start = r->at;
    while (r->at < r->end && *r->at != '"') {
        unsigned char c = (unsigned char)*r->at;
        if (c < 0x20 || c > 0x7e || c == '\\')
            return false;
        r->at++;
    }
    *length = (size_t)(r->at - *start);
    return take(r, '"');
}

/* An integer without leading zeros, fraction or exponent. */
static json_t *read_integer(struct reader *r)
{
    bool is_negative = take(r, '-');
    const char *digits = r->at;
    json_int_t value = 0;
    while (r->at < r->end && *r->at >= '0' && *r->at <= '9' && r->at - digits < MAX_DIGITS)
        value = value * 10 + (*r->at++ - '0');
    size_t count = (size_t)(r->at - digits);
    if (count == 0 || (digits[0] == '0' && count > 1) ||
        (r->at < r->end &&
         ((*r->at >= '0' && *r->at <= '9') || *r->at == '.' || *r->at == 'e' || *r->at == 'E')))
        return NULL;
    return json_integer(is_negative ? -value : value);
}

/* One of the words true, false and null. */
static json_t *read_word(struct reader *r)
{
    static const struct {
        const char *text;
        size_t length;
        json_t *(*make)(void);
    } WORDS[] = {{"true", 4, json_true}, {"false", 5, json_false}, {"null", 4, json_null}};
    for (size_t i = 0; i < sizeof(WORDS) / sizeof(WORDS[0]); i++)
        if ((size_t)(r->end - r->at) >= WORDS[i].length &&
            memcmp(r->at, WORDS[i].text, WORDS[i].length) == 0) {
            r->at += WORDS[i].length;
            return WORDS[i].make();
        }
    return NULL;
}

static json_t *read_value(struct reader *r);

/* The members after '{', up to and with the '}'. */
static bool read_members(struct reader *r, json_t *object)
{
    skip_space(r);
    if (take(r, '}'))
        return true;
    do {
        const char *key;
        size_t key_length;
        skip_space(r);
        if (!read_string(r, &key, &key_length))
            return false;
        skip_space(r);
        if (!take(r, ':'))
            return false;
        json_t *value = read_value(r);
        if (!value)
            return false;
        if (json_object_getn(object, key, key_length)) { /* a duplicate: jansson refuses it */
            json_decref(value);
            return false;
        }
        if (json_object_setn_new_nocheck(object, key, key_length, value) != 0)
            return false;
        skip_space(r);
    } while (take(r, ','));
    return take(r, '}');
}

/* The elements after '[', up to and with the ']'. */
static bool read_elements(struct reader *r, json_t *array)
{
    skip_space(r);
    if (take(r, ']'))
        return true;
    do {
        json_t *value = read_value(r);
        if (!value || json_array_append_new(array, value) != 0)
            return false;
        skip_space(r);
    } while (take(r, ','));
    return take(r, ']');
}

static json_t *read_container(struct reader *r)
{
    bool is_object = *r->at++ == '{';
    if (++r->depth > MAX_DEPTH)
        return NULL;
    json_t *container = is_object ? json_object() : json_array();
    if (!container || !(is_object ? read_members(r, container) : read_elements(r, container))) {
        json_decref(container);
        return NULL;
    }
    r->depth--;
    return container;
}

static json_t *read_value(struct reader *r)
{
    skip_space(r);
    if (r->at >= r->end)
        return NULL;
    char c = *r->at;
    if (c == '{' || c == '[')
        return read_container(r);
    if (c == '"') {
        const char *start;
        size_t length;
        return read_string(r, &start, &length) ? json_stringn_nocheck(start, length) : NULL;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return read_integer(r);
    return read_word(r);
}

json_t *json_in_plain(const char *text, size_t length)
{
    struct reader r = {text, text + length, 0};
    skip_space(&r);
    if (r.at >= r.end || *r.at != '{')
        return NULL;
    json_t *value = read_value(&r);
    skip_space(&r);
    if (value && r.at != r.end) {
        json_decref(value);
        return NULL;
    }
    return value;
}

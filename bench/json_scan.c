/* json_scan.c -- step over JSON values by their brackets (see json_scan.h).
 *
 * skip_value() is the whole trick: a string ends at its first unescaped
 * quote; an object or array ends where the bracket depth returns to zero,
 * counting only brackets outside strings; anything else (number, literal)
 * ends at the next ',' '}' ']' or whitespace. Validation is not the goal:
 * the server's output is well-formed, and a malformed message only makes
 * the walk stop early. Nested values are walked 64 bytes at a time where
 * SSE2 is there (walk_blocks): at byte speed the load generator spent half
 * its time stepping over game.moves replies, time the server it measures
 * then did not have on a shared machine. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/json_scan.h"

static const char *skip_space(const char *at, const char *end)
{
    while (at < end && (*at == ' ' || *at == '\n' || *at == '\r' || *at == '\t'))
        at++;
    return at;
}

/* `at` is on the opening quote; returns the position after the closing one. */
static const char *skip_string(const char *at, const char *end)
{
    for (at++; at < end; at++) {
        if (*at == '\\')
            at++;
        else if (*at == '"')
            return at + 1;
    }
    return NULL;
}

/* Where a nested value's walk stands: how deep, and inside a string (just
 * after a backslash there, too). */
struct nesting {
    int depth;
    bool is_in_string;
    bool is_escaped;
};

/* Walks [at, stop) one byte at a time; the position after the bracket
 * that closes the value, or NULL if it is not in there. */
static const char *walk_bytes(const char *at, const char *stop, struct nesting *n)
{
    for (; at < stop; at++) {
        char c = *at;
        if (n->is_in_string) {
            if (n->is_escaped)
                n->is_escaped = false;
            else if (c == '\\')
                n->is_escaped = true;
            else if (c == '"')
                n->is_in_string = false;
        } else if (c == '"') {
            n->is_in_string = true;
        } else if (c == '{' || c == '[') {
            n->depth++;
        } else if ((c == '}' || c == ']') && --n->depth == 0) {
            return at + 1;
        }
    }
    return NULL;
}

#ifdef __SSE2__
#include <emmintrin.h>

/* A bit per byte of the 64 at `at` equal to `c` (SSE2, every x86-64). */
static uint64_t bytes_equal(const __m128i chunks[4], char c)
{
    __m128i wanted = _mm_set1_epi8(c);
    uint64_t mask = 0;
    for (int i = 0; i < 4; i++)
        mask |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(chunks[i], wanted))
                << (16 * i);
    return mask;
}

/* Walks whole blocks of 64 bytes while no backslash is in them: the quotes'
 * running parity says which bytes are inside strings, and only brackets
 * outside them are visited (a game.moves reply is ~20 KB of them). Returns
 * the end as walk_bytes() does, or NULL with *at at the first byte not
 * walked. */
static const char *walk_blocks(const char **at, const char *end, struct nesting *n)
{
    for (; !n->is_escaped && end - *at >= 64; *at += 64) {
        __m128i chunks[4], folded[4];
        for (int i = 0; i < 4; i++) {
            chunks[i] = _mm_loadu_si128((const __m128i *)(*at + 16 * i));
            folded[i] = _mm_or_si128(chunks[i], _mm_set1_epi8(0x20)); /* [ -> {, ] -> } */
        }
        if (bytes_equal(chunks, '\\'))
            return NULL;
        uint64_t inside = bytes_equal(chunks, '"');
        for (int shift = 1; shift < 64; shift *= 2)
            inside ^= inside << shift; /* bit i: odd quotes in 0..i */
        if (n->is_in_string)
            inside = ~inside;
        uint64_t opens = bytes_equal(folded, '{') & ~inside;
        uint64_t closes = bytes_equal(folded, '}') & ~inside;
        for (uint64_t brackets = opens | closes; brackets; brackets &= brackets - 1) {
            int i = __builtin_ctzll(brackets);
            if (opens >> i & 1)
                n->depth++;
            else if (--n->depth == 0)
                return *at + i + 1;
        }
        n->is_in_string = inside >> 63;
    }
    return NULL;
}
#endif

/* `at` is on '{' or '['; the position after its closing bracket. */
static const char *skip_nested(const char *at, const char *end)
{
    struct nesting n = {0};
    while (at < end) {
#ifdef __SSE2__
        const char *closed = walk_blocks(&at, end, &n);
        if (closed)
            return closed;
#endif
        /* A block with a backslash (or the tail) byte by byte. */
        const char *stop = end - at > 64 ? at + 64 : end;
        const char *closed_here = walk_bytes(at, stop, &n);
        if (closed_here)
            return closed_here;
        at = stop;
    }
    return NULL;
}

static const char *skip_scalar(const char *at, const char *end)
{
    while (at < end && !strchr(",}] \n\r\t", *at))
        at++;
    return at;
}

/* Returns the position just after the value that starts at `at`, or NULL. */
static const char *skip_value(const char *at, const char *end)
{
    if (at >= end)
        return NULL;
    if (*at == '"')
        return skip_string(at, end);
    if (*at == '{' || *at == '[')
        return skip_nested(at, end);
    return skip_scalar(at, end);
}

bool json_scan_object(json_scan *scan, json_span value)
{
    const char *end = value.start + value.length;
    const char *at = skip_space(value.start, end);
    if (at >= end || *at != '{')
        return false;
    scan->at = at + 1;
    scan->end = end;
    return true;
}

bool json_scan_next_member(json_scan *scan, json_span *key, json_span *value)
{
    const char *at = skip_space(scan->at, scan->end);
    if (at < scan->end && *at == ',')
        at = skip_space(at + 1, scan->end);
    if (at >= scan->end || *at != '"')
        return false;
    const char *key_end = skip_string(at, scan->end);
    if (!key_end)
        return false;
    key->start = at + 1;
    key->length = (size_t)(key_end - 1 - key->start);
    at = skip_space(key_end, scan->end);
    if (at >= scan->end || *at != ':')
        return false;
    at = skip_space(at + 1, scan->end);
    const char *value_end = skip_value(at, scan->end);
    if (!value_end)
        return false;
    value->start = at;
    value->length = (size_t)(value_end - at);
    scan->at = value_end;
    return true;
}

bool json_scan_find(json_span object, const char *key, json_span *value)
{
    json_scan scan;
    if (!json_scan_object(&scan, object))
        return false;
    size_t key_length = strlen(key);
    json_span member_key;
    while (json_scan_next_member(&scan, &member_key, value)) {
        if (member_key.length == key_length && memcmp(member_key.start, key, key_length) == 0)
            return true;
    }
    return false;
}

bool json_scan_first_element(json_span array, json_span *element)
{
    const char *end = array.start + array.length;
    const char *at = skip_space(array.start, end);
    if (at >= end || *at != '[')
        return false;
    at = skip_space(at + 1, end);
    if (at >= end || *at == ']')
        return false;
    const char *element_end = skip_value(at, end);
    if (!element_end)
        return false;
    element->start = at;
    element->length = (size_t)(element_end - at);
    return true;
}

bool json_span_is_string(json_span value, const char *text)
{
    size_t length = strlen(text);
    return value.length == length + 2 && value.start[0] == '"' &&
           memcmp(value.start + 1, text, length) == 0;
}

bool json_span_to_long(json_span value, long *out)
{
    if (value.length == 0 || value.length > 20)
        return false;
    char digits[24];
    memcpy(digits, value.start, value.length);
    digits[value.length] = '\0';
    char *end;
    long number = strtol(digits, &end, 10);
    if (*end != '\0' || end == digits)
        return false;
    *out = number;
    return true;
}

bool json_span_is_null(json_span value)
{
    return value.length == 4 && memcmp(value.start, "null", 4) == 0;
}

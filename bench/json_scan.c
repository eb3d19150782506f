/* json_scan.c -- step over JSON values by their brackets (see json_scan.h).
 *
 * skip_value() is the whole trick: a string ends at its first unescaped
 * quote; an object or array ends where the bracket depth returns to zero,
 * counting only brackets outside strings; anything else (number, literal)
 * ends at the next ',' '}' ']' or whitespace. Validation is not the goal:
 * the server's output is well-formed, and a malformed message only makes
 * the walk stop early. */
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

static const char *skip_nested(const char *at, const char *end)
{
    int depth = 0;
    while (at < end) {
        char c = *at;
        if (c == '"') {
            at = skip_string(at, end);
            if (!at)
                return NULL;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if ((c == '}' || c == ']') && --depth == 0)
            return at + 1;
        at++;
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

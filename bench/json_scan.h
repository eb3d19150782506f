/* json_scan.h -- read a few fields of a JSON object without parsing it.
 *
 * The load generator reads every message the server sends, and some are
 * large (a game.moves reply lists hundreds of moves). Building a jansson
 * tree of each would make the client cost as much as the server it
 * measures, so it only walks the text: json_scan_next_member() steps over
 * one top-level member of an object at a time, skipping nested values by
 * counting brackets, and hands back spans into the caller's text. Nothing
 * is allocated or unescaped; keys are compared as raw bytes, which is
 * exact for the server's plain ASCII keys. Malformed text ends the walk. */
#ifndef TESSERA_BENCH_JSON_SCAN_H
#define TESSERA_BENCH_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* A borrowed piece of the scanned text. A string value's span includes its
 * quotes; a key's span does not. */
typedef struct json_span {
    const char *start;
    size_t length;
} json_span;

/* Walks the members of one object, in order. */
typedef struct json_scan {
    const char *at;
    const char *end;
} json_scan;

/* Starts a walk over the object in `value` (a whole message, or a nested
 * object's span); false if it does not start with '{'. */
bool json_scan_object(json_scan *scan, json_span value);

/* The next member's key and value; false at the end of the object or at
 * malformed text. */
bool json_scan_next_member(json_scan *scan, json_span *key, json_span *value);

/* The value of member `key` of the object in `object`; false if absent. */
bool json_scan_find(json_span object, const char *key, json_span *value);

/* The first element of the array in `array`; false if empty or no array. */
bool json_scan_first_element(json_span array, json_span *element);

/* Whether the span is the JSON string "`text`" (compared raw, so `text`
 * must need no escaping). */
bool json_span_is_string(json_span value, const char *text);

/* A span's integer value; false if it is not a plain JSON integer. */
bool json_span_to_long(json_span value, long *out);

/* Whether the span is the literal null. */
bool json_span_is_null(json_span value);

#endif

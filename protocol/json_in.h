/* json_in.h -- the fast path for reading a client message's JSON.
 *
 * jansson's reader takes ~3.5 µs for a 110-byte game.move: after the
 * network, the largest cost of a move on the loop. Almost every message
 * is plain JSON: objects, arrays, strings of printable ASCII without
 * escapes, integers, true, false and null. json_in_plain reads exactly
 * those, into the very values json_loadb(text, JSON_REJECT_DUPLICATES)
 * makes (members in their order), and gives up on anything else -- an
 * escape, a byte outside printable ASCII, a fraction or an exponent, a
 * duplicate key, deep nesting, a syntax error -- so that the caller asks
 * jansson, whose values and error messages stay the ones clients see. */
#ifndef TESSERA_JSON_IN_H
#define TESSERA_JSON_IN_H

#include <stddef.h>

#include <jansson.h>

/* The object `text` holds (new reference), or NULL when it is not a plain
 * JSON object (or memory ran out): then read it with json_loadb. */
json_t *json_in_plain(const char *text, size_t length);

#endif

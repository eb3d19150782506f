/* utf8.h -- strict UTF-8 (RFC 3629), the one checker every layer uses.
 *
 * Client bytes reach JSON in several places: the HTTP target, error
 * messages that echo a parser's complaint, log lines. jansson refuses a
 * string that is not UTF-8 (and the answer is then lost), so each place
 * either checks or repairs with these, and they all agree on what UTF-8
 * is: no overlong forms, no surrogates, nothing past U+10FFFF. */
#ifndef TESSERA_UTF8_H
#define TESSERA_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* The length (1-4) of the well-formed sequence at `text`, which has `left`
 * bytes, or 0 if none starts there (or left is 0). */
int utf8_sequence_length(const unsigned char *text, size_t left);

/* Whether the NUL-terminated `text` is UTF-8 to its end. */
bool utf8_is_valid(const char *text);

/* Turns every byte of `text` that is not part of a well-formed sequence
 * into '?', in place: the result is UTF-8 and as long as before. */
void utf8_repair(char *text);

#endif

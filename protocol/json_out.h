/* json_out.h -- the one direct JSON writer, for the messages sent after
 * every move and the history API's answers.
 *
 * jansson builds a tree of small objects and then walks it to print it;
 * for the few messages the server sends on every move (game.state, the
 * move list) that costs more than the rest of the move together. A
 * json_out is a growing buffer the caller appends compact JSON to, in
 * order: keys, strings (escaped), integers, raw JSON. It keeps its memory
 * between uses (json_out_reset), so a hot path allocates nothing once warm.
 * An allocation failure is remembered (has_failed) and every later append
 * does nothing, so callers check once, at the end.
 *
 * The history API writes its answers here too. It also writes whole
 * jansson trees (json_out_value), for the parts that arrive as trees,
 * rather than json_dumps, whose dump machinery costs more than building
 * the tree did (a 140 KB player profile: 2.6 ms of 3.6). */
#ifndef TESSERA_JSON_OUT_H
#define TESSERA_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

typedef struct json_out {
    char *data; /* NUL-terminated after every append */
    size_t length, capacity;
    bool has_failed;
} json_out;

/* An empty writer owning no memory. */
#define JSON_OUT_EMPTY                                                                             \
    {                                                                                              \
        NULL, 0, 0, false                                                                          \
    }

/* Empties the text, keeping the memory. */
void json_out_reset(json_out *writer);

/* Frees the memory; the writer is empty again. */
void json_out_free(json_out *writer);

/* Hands the text over (the caller frees it) and empties the writer: the
 * text, or NULL if an append failed. */
char *json_out_take(json_out *writer, size_t *length);

/* The text read back as a jansson tree, for callers that need one of an
 * object written here (so the object is defined once); empties the writer.
 * New reference, or NULL if an append failed or memory ran out. */
json_t *json_out_tree(json_out *writer);

/* Room to write up to `most` bytes at the end of the text: where to write
 * them, or NULL when memory ran out. json_out_advance then says how many
 * were written. For loops that write thousands of small pieces. */
char *json_out_space(json_out *writer, size_t most);
void json_out_advance(json_out *writer, size_t written);

/* Appends bytes as they are (JSON the caller made). */
void json_out_raw(json_out *writer, const char *bytes, size_t length);

/* Appends a NUL-terminated piece of JSON as it is. */
void json_out_text(json_out *writer, const char *text);

/* Appends a string value, quoted and escaped. */
void json_out_string(json_out *writer, const char *text);

/* Appends an integer. */
void json_out_int(json_out *writer, int64_t value);

/* Appends a non-negative integer, or null for a negative one (a time, a
 * clock or an id that is not set). */
void json_out_int_or_null(json_out *writer, int64_t value);

/* Appends a real as jansson prints it (17 significant digits, always with
 * a '.' or an exponent). */
void json_out_real(json_out *writer, double value);

/* Appends `"key":` (the key is written as it is: callers pass literals). */
void json_out_key(json_out *writer, const char *key);

/* Appends `value` as compact JSON: the text json_dumps(value,
 * JSON_COMPACT) makes -- members in their order, reals as jansson prints
 * them (17 significant digits, always with a '.' or an exponent) --
 * except that control characters in strings are escaped as \u00XX. */
void json_out_value(json_out *writer, const json_t *value);

#endif

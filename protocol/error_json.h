/* error_json.h -- the one writer of error bodies, in the two shapes we serve.
 *
 * Every error a client reads as JSON is written here: the websocket-style
 * {"type":"error","code":C,"message":M} that HTTP routes share with the
 * websocket protocol, and the Reef API's documented {"error":{"code":C,
 * "message":M}}. Both carry the same two strings, so one function renders
 * them and a caller only chooses the shape.
 *
 * The message may echo client input (a path, a parameter name, a jansson
 * error): it is forced to printable ASCII, every other byte becoming '?',
 * so the result is always valid JSON and valid UTF-8 whatever came in. */
#ifndef TESSERA_ERROR_JSON_H
#define TESSERA_ERROR_JSON_H

#include <stddef.h>

typedef enum error_json_shape {
    ERROR_JSON_FLAT,   /* {"type":"error","code","message"} */
    ERROR_JSON_NESTED, /* {"error":{"code","message"}}: the Reef API */
} error_json_shape;

/* The error as compact JSON, malloc'd and owned by the caller, with its
 * length in *length (may be NULL). `code` is one of our stable codes
 * (ASCII). NULL only when memory ran out. */
char *error_json_render(error_json_shape shape, const char *code, const char *message,
                        size_t *length);

#endif

/* error_json.c -- error bodies in the flat or the nested shape.
 *
 * Written by hand rather than with jansson: the two shapes are fixed, the
 * strings are forced to printable ASCII first (so only '"' and '\\' need
 * escaping), and the only way to fail is malloc. jansson would refuse a
 * message with invalid UTF-8 and leave the caller without any body, which
 * is how a path with a stray byte once got a 500 with nothing in it. */
#include <stdlib.h>
#include <string.h>

#include "protocol/error_json.h"

/* The worst case of one byte written by append_escaped: a backslash pair. */
#define ESCAPED_BYTE_MAX 2

static const char *const OPENINGS[] = {
    [ERROR_JSON_FLAT] = "{\"type\":\"error\",\"code\":\"",
    [ERROR_JSON_NESTED] = "{\"error\":{\"code\":\"",
};

static const char *const CLOSINGS[] = {
    [ERROR_JSON_FLAT] = "\"}",
    [ERROR_JSON_NESTED] = "\"}}",
};

static const char MESSAGE_KEY[] = "\",\"message\":\"";

/* Appends `text` as the inside of a JSON string, printable ASCII only. */
static size_t append_escaped(char *out, size_t length, const char *text)
{
    for (const unsigned char *byte = (const unsigned char *)text; *byte != '\0'; byte++) {
        char c = (*byte < 0x20 || *byte > 0x7e) ? '?' : (char)*byte;
        if (c == '"' || c == '\\')
            out[length++] = '\\';
        out[length++] = c;
    }
    return length;
}

static size_t append(char *out, size_t length, const char *text)
{
    size_t text_length = strlen(text);
    memcpy(out + length, text, text_length);
    return length + text_length;
}

char *error_json_render(error_json_shape shape, const char *code, const char *message,
                        size_t *length)
{
    const char *opening = OPENINGS[shape], *closing = CLOSINGS[shape];
    size_t capacity = strlen(opening) + ESCAPED_BYTE_MAX * strlen(code) + strlen(MESSAGE_KEY) +
                      ESCAPED_BYTE_MAX * strlen(message) + strlen(closing) + 1;
    char *text = malloc(capacity);
    if (!text)
        return NULL;
    size_t used = append(text, 0, opening);
    used = append_escaped(text, used, code);
    used = append(text, used, MESSAGE_KEY);
    used = append_escaped(text, used, message);
    used = append(text, used, closing);
    text[used] = '\0';
    if (length)
        *length = used;
    return text;
}

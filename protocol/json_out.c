/* json_out.c -- the direct JSON writer. */
#include "protocol/json_out.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_out_reset(json_out *o)
{
    o->length = 0;
    o->has_failed = false;
    if (o->data)
        o->data[0] = '\0';
}

void json_out_free(json_out *o)
{
    free(o->data);
    *o = (json_out)JSON_OUT_EMPTY;
}

char *json_out_take(json_out *o, size_t *length)
{
    char *text = o->has_failed ? NULL : o->data;
    if (!text)
        free(o->data);
    if (length)
        *length = text ? o->length : 0;
    *o = (json_out)JSON_OUT_EMPTY;
    return text;
}

/* Room for `more` bytes and the NUL: false once memory ran out. */
static bool reserve(json_out *o, size_t more)
{
    if (o->has_failed)
        return false;
    if (o->length + more + 1 <= o->capacity)
        return true;
    size_t capacity = (o->length + more + 1) * 2;
    char *grown = realloc(o->data, capacity);
    if (!grown) {
        o->has_failed = true;
        return false;
    }
    o->data = grown;
    o->capacity = capacity;
    return true;
}

char *json_out_space(json_out *o, size_t most)
{
    return reserve(o, most) ? o->data + o->length : NULL;
}

void json_out_advance(json_out *o, size_t written)
{
    o->length += written;
    o->data[o->length] = '\0';
}

void json_out_raw(json_out *o, const char *bytes, size_t length)
{
    if (!reserve(o, length))
        return;
    memcpy(o->data + o->length, bytes, length);
    o->length += length;
    o->data[o->length] = '\0';
}

void json_out_text(json_out *o, const char *text)
{
    json_out_raw(o, text, strlen(text));
}

void json_out_string(json_out *o, const char *text)
{
    static const char HEX[] = "0123456789abcdef";
    size_t length = strlen(text);
    if (!reserve(o, 6 * length + 2))
        return;
    char *out = o->data + o->length;
    *out++ = '"';
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\') {
            *out++ = '\\';
            *out++ = (char)*c;
        } else if (*c < 0x20) {
            memcpy(out, "\\u00", 4);
            out[4] = HEX[*c >> 4];
            out[5] = HEX[*c & 0xf];
            out += 6;
        } else {
            *out++ = (char)*c;
        }
    }
    *out++ = '"';
    o->length = (size_t)(out - o->data);
    o->data[o->length] = '\0';
}

void json_out_int(json_out *o, int64_t value)
{
    char digits[24];
    int length = snprintf(digits, sizeof(digits), "%" PRId64, value);
    json_out_raw(o, digits, (size_t)length);
}

void json_out_key(json_out *o, const char *key)
{
    size_t length = strlen(key);
    if (!reserve(o, length + 3))
        return;
    char *out = o->data + o->length;
    *out++ = '"';
    memcpy(out, key, length);
    out += length;
    *out++ = '"';
    *out++ = ':';
    o->length = (size_t)(out - o->data);
    o->data[o->length] = '\0';
}

/* json_out.c -- the direct JSON writer. */
#include "protocol/json_out.h"
#include "protocol/real_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_out_reset(json_out *writer)
{
    writer->length = 0;
    writer->has_failed = false;
    if (writer->data)
        writer->data[0] = '\0';
}

void json_out_free(json_out *writer)
{
    free(writer->data);
    *writer = (json_out)JSON_OUT_EMPTY;
}

char *json_out_take(json_out *writer, size_t *length)
{
    char *text = writer->has_failed ? NULL : writer->data;
    if (!text)
        free(writer->data);
    if (length)
        *length = text ? writer->length : 0;
    *writer = (json_out)JSON_OUT_EMPTY;
    return text;
}

json_t *json_out_tree(json_out *writer)
{
    json_t *tree = writer->has_failed ? NULL : json_loadb(writer->data, writer->length, 0, NULL);
    json_out_free(writer);
    return tree;
}

/* Room for `more` bytes and the NUL: false once memory ran out. */
static bool reserve(json_out *writer, size_t more)
{
    if (writer->has_failed)
        return false;
    if (writer->length + more + 1 <= writer->capacity)
        return true;
    size_t capacity = (writer->length + more + 1) * 2;
    char *grown = realloc(writer->data, capacity);
    if (!grown) {
        writer->has_failed = true;
        return false;
    }
    writer->data = grown;
    writer->capacity = capacity;
    return true;
}

char *json_out_space(json_out *writer, size_t most)
{
    return reserve(writer, most) ? writer->data + writer->length : NULL;
}

void json_out_advance(json_out *writer, size_t written)
{
    writer->length += written;
    writer->data[writer->length] = '\0';
}

void json_out_raw(json_out *writer, const char *bytes, size_t length)
{
    if (!reserve(writer, length))
        return;
    memcpy(writer->data + writer->length, bytes, length);
    writer->length += length;
    writer->data[writer->length] = '\0';
}

void json_out_text(json_out *writer, const char *text)
{
    json_out_raw(writer, text, strlen(text));
}

void json_out_string(json_out *writer, const char *text)
{
    static const char HEX[] = "0123456789abcdef";
    size_t length = strlen(text);
    if (!reserve(writer, 6 * length + 2))
        return;
    char *out = writer->data + writer->length;
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
    writer->length = (size_t)(out - writer->data);
    writer->data[writer->length] = '\0';
}

/* Written by hand: snprintf was a few percent of a loaded server. */
void json_out_int(json_out *writer, int64_t value)
{
    char digits[24];
    size_t at = sizeof(digits);
    uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    do {
        digits[--at] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (value < 0)
        digits[--at] = '-';
    json_out_raw(writer, digits + at, sizeof(digits) - at);
}

void json_out_int_or_null(json_out *writer, int64_t value)
{
    if (value >= 0)
        json_out_int(writer, value);
    else
        json_out_text(writer, "null");
}

void json_out_key(json_out *writer, const char *key)
{
    size_t length = strlen(key);
    if (!reserve(writer, length + 3))
        return;
    char *out = writer->data + writer->length;
    *out++ = '"';
    memcpy(out, key, length);
    out += length;
    *out++ = '"';
    *out++ = ':';
    writer->length = (size_t)(out - writer->data);
    writer->data[writer->length] = '\0';
}

/* As jansson's dump prints it: %.17g, ".0" added when that reads as an
 * integer, the exponent without '+' or leading zeros. */
void json_out_real(json_out *writer, double value)
{
    char digits[REAL_TEXT_SIZE + 2];
    int length = real_text(value, digits);
    if (length < 0) {
        writer->has_failed = true;
        return;
    }
    if (!strchr(digits, '.') && !strchr(digits, 'e')) {
        memcpy(digits + length, ".0", 3);
        length += 2;
    }
    char *exponent = strchr(digits, 'e');
    if (exponent) {
        char *start = exponent + 1, *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        memmove(start, end, (size_t)(digits + length - end) + 1);
        length -= (int)(end - start);
    }
    json_out_raw(writer, digits, (size_t)length);
}

static void write_object(json_out *writer, const json_t *object)
{
    const char *key;
    json_t *member;
    bool is_first = true;
    json_out_raw(writer, "{", 1);
    json_object_foreach((json_t *)object, key, member)
    {
        if (!is_first)
            json_out_raw(writer, ",", 1);
        is_first = false;
        json_out_string(writer, key);
        json_out_raw(writer, ":", 1);
        json_out_value(writer, member);
    }
    json_out_raw(writer, "}", 1);
}

static void write_array(json_out *writer, const json_t *array)
{
    size_t index;
    json_t *element;
    json_out_raw(writer, "[", 1);
    json_array_foreach(array, index, element)
    {
        if (index > 0)
            json_out_raw(writer, ",", 1);
        json_out_value(writer, element);
    }
    json_out_raw(writer, "]", 1);
}

void json_out_value(json_out *writer, const json_t *value)
{
    if (!value) {
        writer->has_failed = true;
        return;
    }
    switch (json_typeof(value)) {
    case JSON_OBJECT:
        write_object(writer, value);
        return;
    case JSON_ARRAY:
        write_array(writer, value);
        return;
    case JSON_STRING:
        json_out_string(writer, json_string_value(value));
        return;
    case JSON_INTEGER:
        json_out_int(writer, json_integer_value(value));
        return;
    case JSON_REAL:
        json_out_real(writer, json_real_value(value));
        return;
    case JSON_TRUE:
        json_out_text(writer, "true");
        return;
    case JSON_FALSE:
        json_out_text(writer, "false");
        return;
    case JSON_NULL:
        json_out_text(writer, "null");
        return;
    }
}

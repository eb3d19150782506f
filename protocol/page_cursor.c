/* page_cursor.c -- two 64-bit numbers and a tag as 64 hexadecimal digits. */
#include "protocol/page_cursor.h"

#include <stdio.h>
#include <string.h>

void page_cursor_encode(const page_cursor *cursor, char out[PAGE_CURSOR_SIZE])
{
    int length = snprintf(out, PAGE_CURSOR_SIZE, "%016llx%016llx", (unsigned long long)cursor->key,
                          (unsigned long long)cursor->id);
    for (int i = 0; i < PAGE_CURSOR_TAG_BYTES; i++)
        length += snprintf(out + length, PAGE_CURSOR_SIZE - (size_t)length, "%02x", cursor->tag[i]);
}

/* `digits` lowercase hex digits as a number; -1 on any other character. */
static int read_number(const char *text, int digits, uint64_t *out)
{
    uint64_t value = 0;
    for (int i = 0; i < digits; i++) {
        char digit = text[i];
        int nibble = digit >= '0' && digit <= '9'   ? digit - '0'
                     : digit >= 'a' && digit <= 'f' ? digit - 'a' + 10
                                                    : -1;
        if (nibble < 0)
            return -1;
        value = value << 4 | (uint64_t)nibble;
    }
    *out = value;
    return 0;
}

int page_cursor_decode(const char *text, page_cursor *out)
{
    uint64_t key, id, byte;
    if (!text || strlen(text) != PAGE_CURSOR_SIZE - 1 || read_number(text, 16, &key) != 0 ||
        read_number(text + 16, 16, &id) != 0)
        return -1;
    for (int i = 0; i < PAGE_CURSOR_TAG_BYTES; i++) {
        if (read_number(text + 32 + 2 * i, 2, &byte) != 0)
            return -1;
        out->tag[i] = (unsigned char)byte;
    }
    out->key = (int64_t)key;
    out->id = (int64_t)id;
    return 0;
}

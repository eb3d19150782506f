/* page_cursor.c -- two 64-bit numbers as 32 hexadecimal digits. */
#include "protocol/page_cursor.h"

#include <stdio.h>
#include <string.h>

void page_cursor_encode(page_cursor cursor, char out[PAGE_CURSOR_SIZE])
{
    snprintf(out, PAGE_CURSOR_SIZE, "%016llx%016llx", (unsigned long long)cursor.key,
             (unsigned long long)cursor.id);
}

static int read_number(const char *digits, uint64_t *out)
{
    uint64_t value = 0;
    for (int i = 0; i < 16; i++) {
        char digit = digits[i];
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
    uint64_t key, id;
    if (!text || strlen(text) != PAGE_CURSOR_SIZE - 1 || read_number(text, &key) != 0 ||
        read_number(text + 16, &id) != 0)
        return -1;
    out->key = (int64_t)key;
    out->id = (int64_t)id;
    return 0;
}

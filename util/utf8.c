/* utf8.c -- strict UTF-8 (see utf8.h).
 *
 * A sequence is read from its lead byte: the lead says how many
 * continuation bytes follow, and the first continuation's range depends on
 * the lead (E0 needs A0-BF, ED 80-9F, F0 90-BF, F4 80-8F), which is how
 * overlong forms, surrogates and code points past U+10FFFF are refused
 * without decoding anything (RFC 3629 section 4). */
#include <string.h>

#include "util/utf8.h"

int utf8_sequence_length(const unsigned char *text, size_t left)
{
    if (left == 0)
        return 0;
    unsigned char lead = text[0];
    int length = lead < 0x80                   ? 1
                 : lead >= 0xc2 && lead < 0xe0 ? 2
                 : lead >= 0xe0 && lead < 0xf0 ? 3
                 : lead >= 0xf0 && lead < 0xf5 ? 4
                                               : 0;
    if (length == 0 || (size_t)length > left)
        return 0;
    unsigned char low = lead == 0xe0 ? 0xa0 : lead == 0xf0 ? 0x90 : 0x80;
    unsigned char high = lead == 0xed ? 0x9f : lead == 0xf4 ? 0x8f : 0xbf;
    for (int i = 1; i < length; i++) {
        if (text[i] < low || text[i] > high)
            return 0;
        low = 0x80;
        high = 0xbf;
    }
    return length;
}

bool utf8_is_valid(const char *text)
{
    const unsigned char *at = (const unsigned char *)text;
    size_t left = strlen(text);
    while (left > 0) {
        int length = utf8_sequence_length(at, left);
        if (length == 0)
            return false;
        at += length;
        left -= (size_t)length;
    }
    return true;
}

void utf8_repair(char *text)
{
    unsigned char *at = (unsigned char *)text;
    size_t left = strlen(text);
    while (left > 0) {
        int length = utf8_sequence_length(at, left);
        if (length == 0) {
            *at = '?';
            length = 1;
        }
        at += length;
        left -= (size_t)length;
    }
}

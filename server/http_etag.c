/* http_etag.c -- entity tags and If-None-Match (http_etag.h). */
#include "server/http_etag.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void http_etag_of(const void *bytes, size_t length, char etag[HTTP_ETAG_SIZE])
{
    const unsigned char *at = bytes;
    uint64_t hash = 0xcbf29ce484222325u; /* FNV-1a's offset basis and prime */
    for (size_t i = 0; i < length; i++)
        hash = (hash ^ at[i]) * 0x100000001b3u;
    snprintf(etag, HTTP_ETAG_SIZE, "W/\"%016llx\"", (unsigned long long)hash);
}

/* A tag without its weak mark: from its opening quote. */
static const char *opaque_part(const char *tag)
{
    return strncmp(tag, "W/", 2) == 0 ? tag + 2 : tag;
}

static bool is_separator(char c)
{
    return c == ' ' || c == '\t' || c == ',';
}

bool http_etag_matches(const char *if_none_match, const char *etag)
{
    const char *wanted = opaque_part(etag);
    size_t wanted_length = strlen(wanted);
    const char *at = if_none_match;
    for (;;) {
        while (is_separator(*at))
            at++;
        if (*at == '\0')
            return false;
        if (*at == '*' && (at[1] == '\0' || is_separator(at[1])))
            return true;
        at = opaque_part(at);
        const char *closing = *at == '"' ? strchr(at + 1, '"') : NULL;
        if (!closing)
            return false;
        size_t length = (size_t)(closing + 1 - at);
        if (length == wanted_length && memcmp(at, wanted, length) == 0)
            return true;
        at = closing + 1;
    }
}

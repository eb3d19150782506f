/* http_target.c -- request text checks without lws (see http_target.h).
 * UTF-8 is util/utf8.h's, the one definition the server uses. */
#include <errno.h>
#include <stdint.h>

#include "server/http_target.h"
#include "util/utf8.h"

bool http_target_is_utf8(const char *text)
{
    return utf8_is_valid(text);
}

bool http_target_is_all_utf8(const char *path, const url_query *query)
{
    if (!http_target_is_utf8(path))
        return false;
    for (size_t i = 0; i < query->count; i++)
        if (!http_target_is_utf8(query->arguments[i].name) ||
            !http_target_is_utf8(query->arguments[i].value))
            return false;
    return true;
}

int http_target_content_length(const char *text, size_t *out)
{
    unsigned long long length = 0;
    const char *c = text;
    if (*c < '0' || *c > '9')
        return -EINVAL;
    for (; *c >= '0' && *c <= '9'; c++) {
        if (length > (SIZE_MAX / 2 - (unsigned)(*c - '0')) / 10)
            return -ERANGE;
        length = length * 10 + (unsigned)(*c - '0');
    }
    while (*c == ' ' || *c == '\t')
        c++;
    if (*c != '\0')
        return -EINVAL;
    *out = (size_t)length;
    return 0;
}

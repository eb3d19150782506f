/* origin.c -- the Origin allow-list (origin.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "server/origin.h"
#include "util/text_list.h"

#define ENTRY_MAX 255 /* longer entries are no origin */

/* The part of an origin after its scheme ("http://x:1" -> "x:1"), or NULL. */
static const char *after_scheme(const char *origin)
{
    if (strncasecmp(origin, "http://", 7) == 0)
        return origin + 7;
    if (strncasecmp(origin, "https://", 8) == 0)
        return origin + 8;
    return NULL;
}

bool origin_is_allowed(const char *allow_list, const char *origin, const char *host)
{
    if (!origin[0] || !allow_list[0])
        return true;
    const char *origin_host = after_scheme(origin);
    if (origin_host && host[0] && strcasecmp(origin_host, host) == 0)
        return true;
    char entry[ENTRY_MAX + 1];
    int length;
    while ((length = text_list_next(&allow_list, entry, sizeof(entry))) >= 0)
        if (length <= ENTRY_MAX && (strcmp(entry, "*") == 0 || strcasecmp(entry, origin) == 0))
            return true;
    return false;
}

int origin_list_check(const char *allow_list, char *problem, size_t size)
{
    char entry[ENTRY_MAX + 1];
    int length;
    while ((length = text_list_next(&allow_list, entry, sizeof(entry))) >= 0) {
        if (strcmp(entry, "*") == 0)
            continue;
        const char *host = after_scheme(entry);
        if (length > ENTRY_MAX || !host || !host[0] || strpbrk(host, "/?# ")) {
            snprintf(problem, size,
                     "'%.40s' is not an origin (scheme://host[:port], no path) nor '*'", entry);
            return -EINVAL;
        }
    }
    return 0;
}

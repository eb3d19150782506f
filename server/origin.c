/* origin.c -- the Origin allow-list (origin.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "server/origin.h"

#define ENTRY_MAX 255

/* Copies the next comma-separated entry of *list, blanks trimmed, into
 * `entry` and moves past it; false at the end of the list. An entry too
 * long for `entry` is cut, which makes it fail every comparison and check. */
static bool next_entry(const char **list, char entry[ENTRY_MAX + 2])
{
    const char *start = *list;
    while (*start == ' ' || *start == ',')
        start++;
    if (!*start)
        return false;
    const char *end = strchr(start, ',');
    if (!end)
        end = start + strlen(start);
    *list = end;
    while (end > start && end[-1] == ' ')
        end--;
    size_t length = (size_t)(end - start);
    if (length > ENTRY_MAX + 1)
        length = ENTRY_MAX + 1;
    memcpy(entry, start, length);
    entry[length] = '\0';
    return true;
}

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
    char entry[ENTRY_MAX + 2];
    while (next_entry(&allow_list, entry))
        if (strcmp(entry, "*") == 0 || strcasecmp(entry, origin) == 0)
            return true;
    return false;
}

int origin_list_check(const char *allow_list, char *problem, size_t size)
{
    char entry[ENTRY_MAX + 2];
    while (next_entry(&allow_list, entry)) {
        if (strcmp(entry, "*") == 0)
            continue;
        const char *host = after_scheme(entry);
        if (strlen(entry) > ENTRY_MAX || !host || !host[0] || strpbrk(host, "/?# ")) {
            snprintf(problem, size,
                     "'%.40s' is not an origin (scheme://host[:port], no path) nor '*'", entry);
            return -1;
        }
    }
    return 0;
}

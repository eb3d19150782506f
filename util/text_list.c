/* text_list.c -- see text_list.h. */
#include <string.h>

#include "util/text_list.h"

int text_list_next(const char **list, char *entry, size_t size)
{
    const char *start = *list;
    while (*start == ' ' || *start == '\t' || *start == ',')
        start++;
    if (!*start)
        return -1;
    const char *end = strchr(start, ',');
    if (!end)
        end = start + strlen(start);
    *list = end;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t length = (size_t)(end - start);
    size_t kept = length < size ? length : size - 1;
    memcpy(entry, start, kept);
    entry[kept] = '\0';
    return (int)length;
}

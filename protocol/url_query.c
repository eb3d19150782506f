/* url_query.c -- a query's arguments as a plain array (see url_query.h).
 *
 * A request has a handful of arguments at most, so the array is grown by
 * one and searched in order: nothing cleverer would pay for itself, and
 * the order is the client's, which lookups of a repeated name rely on. */
#include <stdlib.h>
#include <string.h>

#include "protocol/url_query.h"

static char *copy_bytes(const char *bytes, size_t length)
{
    char *copy = malloc(length + 1);
    if (!copy)
        return NULL;
    memcpy(copy, bytes, length);
    copy[length] = '\0';
    return copy;
}

int url_query_add(url_query *query, const char *pair, size_t length)
{
    if (length == 0)
        return 0;
    const char *equals = memchr(pair, '=', length);
    size_t name_length = equals ? (size_t)(equals - pair) : length;
    const char *value = equals ? equals + 1 : "";
    size_t value_length = equals ? length - name_length - 1 : 0;
    url_query_argument argument = {copy_bytes(pair, name_length), copy_bytes(value, value_length)};
    url_query_argument *grown =
        realloc(query->arguments, (query->count + 1) * sizeof(*query->arguments));
    if (!argument.name || !argument.value || !grown) {
        free(argument.name);
        free(argument.value);
        if (grown)
            query->arguments = grown;
        return -1;
    }
    query->arguments = grown;
    query->arguments[query->count++] = argument;
    return 0;
}

const char *url_query_get(const url_query *query, const char *name)
{
    for (size_t i = 0; i < query->count; i++)
        if (strcmp(query->arguments[i].name, name) == 0)
            return query->arguments[i].value;
    return NULL;
}

size_t url_query_count(const url_query *query, const char *name)
{
    size_t count = 0;
    for (size_t i = 0; i < query->count; i++)
        count += strcmp(query->arguments[i].name, name) == 0;
    return count;
}

void url_query_clear(url_query *query)
{
    for (size_t i = 0; i < query->count; i++) {
        free(query->arguments[i].name);
        free(query->arguments[i].value);
    }
    free(query->arguments);
    query->arguments = NULL;
    query->count = 0;
}

/* url_query.h -- the arguments of a URL's query string, read by name.
 *
 * A query is a list of (name, value) pairs in the order the client sent
 * them; a name may repeat, and lookups see the first. The server's HTTP
 * library percent-decodes each `name=value` pair as
 * application/x-www-form-urlencoded says ('+' is a space, %XX a byte) and
 * splits pairs at '&' before it decodes, so a %26 stays inside its value;
 * url_query_add() takes one such decoded pair and splits it at its first
 * '=' (a pair without '=' is a name with the value ""; empty pairs are
 * skipped, as the URL standard skips them). Routes then ask for an
 * argument by name and never parse a query string themselves.
 *
 * The query owns copies of every string. A zeroed url_query is empty. */
#ifndef TESSERA_URL_QUERY_H
#define TESSERA_URL_QUERY_H

#include <stddef.h>

typedef struct url_query_argument {
    char *name;  /* NUL-terminated, may be "" (for "=v") */
    char *value; /* NUL-terminated, "" when the pair had no '=' */
} url_query_argument;

typedef struct url_query {
    url_query_argument *arguments;
    size_t count;
} url_query;

/* Appends one decoded pair of `length` bytes ("seed=7", "flag", "a=b=c" is
 * a -> "b=c"); an empty pair is skipped. 0, or -1 when out of memory (the
 * query is unchanged). */
int url_query_add(url_query *query, const char *pair, size_t length);

/* The value of the first argument called `name`, or NULL. Borrowed: valid
 * until the query is cleared. */
const char *url_query_get(const url_query *query, const char *name);

/* How many arguments are called `name`. */
size_t url_query_count(const url_query *query, const char *name);

/* Frees every argument; the query is empty again. */
void url_query_clear(url_query *query);

#endif

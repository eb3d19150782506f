/* http_encoding.h -- what a request's Accept-Encoding allows.
 *
 * The browser client's text files are kept gzipped beside their plain
 * bytes (http_static.c) and sent so to a client that accepts gzip. */
#ifndef TESSERA_HTTP_ENCODING_H
#define TESSERA_HTTP_ENCODING_H

#include <stdbool.h>

/* Whether an Accept-Encoding header value (RFC 9110 12.5.3; "" when the
 * request has none) accepts gzip: "gzip" or "x-gzip" named with a weight
 * above 0, or "*" with one and gzip not refused by name ("gzip;q=0").
 * Names are compared without case; a weight that does not read as a
 * number counts as 1. */
bool http_accepts_gzip(const char *accept_encoding);

#endif

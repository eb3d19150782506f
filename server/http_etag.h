/* http_etag.h -- the entity tags of the browser client's files, and
 * whether a request's If-None-Match names the one a file has.
 *
 * A file's tag is a hash of its plain bytes, weak (W/"..."), since the
 * file goes plain or gzipped (http_static.c) and both are the same
 * version of it. A browser that has a file sends its tag back; when it
 * still matches, the answer is 304 Not Modified and no body: with
 * `Cache-Control: no-cache` a browser revalidates every file on every
 * visit, and a repeat visit then costs only the requests. */
#ifndef TESSERA_HTTP_ETAG_H
#define TESSERA_HTTP_ETAG_H

#include <stdbool.h>
#include <stddef.h>

/* W/"", 16 hex digits and the NUL. */
#define HTTP_ETAG_SIZE 21

/* The tag of `length` bytes: W/" then 16 hex digits of their 64-bit
 * FNV-1a hash, then ". */
void http_etag_of(const void *bytes, size_t length, char etag[HTTP_ETAG_SIZE]);

/* Whether an If-None-Match header value (RFC 9110 13.1.2; "" when the
 * request has none) matches `etag`: "*", or a tag in its comma-separated
 * list whose quoted part equals etag's (weak comparison: a W/ on either
 * side does not count). A list that does not parse matches no further. */
bool http_etag_matches(const char *if_none_match, const char *etag);

#endif

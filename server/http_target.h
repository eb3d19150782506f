/* http_target.h -- the checks of an HTTP request's text that need no lws.
 *
 * lws splits and percent-decodes the request target and hands headers
 * over as strings; what the server then decides about those strings --
 * whether the path and every query argument are UTF-8, whether a
 * Content-Length is one decimal number -- is pure, so it lives here, where
 * the unit tests and a fuzzer (tests/fuzz/fuzz_http_target.c) reach it
 * without a socket. http_exchange.c calls these on every request. */
#ifndef TESSERA_HTTP_TARGET_H
#define TESSERA_HTTP_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "protocol/url_query.h"

/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past
 * U+10FFFF, the NUL-terminated `text` read to its end. */
bool http_target_is_utf8(const char *text);

/* Whether `path` and every name and value of `query` are UTF-8. */
bool http_target_is_all_utf8(const char *path, const url_query *query);

/* A Content-Length value: 1*DIGIT (RFC 9110 8.6), then optional spaces and
 * tabs (RFC 9112 5). 0 and *out, -ERANGE for a value past SIZE_MAX / 2, or
 * -EINVAL for anything else. */
int http_target_content_length(const char *text, size_t *out);

#endif

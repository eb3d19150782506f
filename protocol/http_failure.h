/* http_failure.h -- the HTTP APIs' one error type.
 *
 * Below HTTP each layer refuses with its own code (engine_error,
 * store_error, protocol_error); a module whose answer is an HTTP answer --
 * the history read model, the bot account rules, the REST routes --
 * refuses with an http_failure: the status, the stable wire code and one
 * sentence, exactly what the client reads (server/http_error.h writes it,
 * in the path's shape). A function that refuses this way returns 0, or
 * HTTP_FAILED with the failure filled in. docs/ARCHITECTURE.md, "Errors",
 * has the table of every layer's type. */
#ifndef TESSERA_HTTP_FAILURE_H
#define TESSERA_HTTP_FAILURE_H

#include <stdarg.h>

/* What a function returns when it filled in an http_failure. */
#define HTTP_FAILED (-1)

typedef struct http_failure {
    int status;        /* 400 .. 599 */
    const char *code;  /* its stable wire code (static): "bad_request", "not_found", ... */
    char message[256]; /* one sentence; it may echo client input */
} http_failure;

/* Fills in `failure` (a printf-style sentence); returns HTTP_FAILED. */
int http_fail(http_failure *failure, int status, const char *code, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* http_fail with the sentence's arguments in a va_list. */
int http_failv(http_failure *failure, int status, const char *code, const char *format,
               va_list arguments) __attribute__((format(printf, 4, 0)));

#endif

/* http_routes.h -- the HTTP side of the server: (method, path) -> handler.
 *
 * The transport hands every complete HTTP request to one callback; the struct app
 * gives that callback to http_routes_dispatch(), which finds the handler
 * registered for the request's method and path. A path is matched exactly,
 * or, when the registered path ends in '*', by the prefix before the '*'
 * (so "/api/replays/" plus a '*' serves every replay); exact paths are
 * tried before prefixes, and a path some exact route has is never given to
 * a prefix route; otherwise the first match in registration order wins. A
 * path known under other methods answers 405 with an Allow header listing
 * them, an unknown one 404, both JSON errors from http_error.h (so in the
 * Reef API's shape under its prefix).
 *
 * Handlers fill the transport_http_response: http_response_json() below
 * for answers, http_error_respond() (http_error.h) for errors. The routes copy the method
 * and path strings; contexts are borrowed and must outlive the table. */
#ifndef TESSERA_HTTP_ROUTES_H
#define TESSERA_HTTP_ROUTES_H

#include <jansson.h>

#include "server/transport.h"

typedef struct http_routes http_routes;

typedef void (*http_handler)(void *context, const transport_http_request *request,
                             transport_http_response *response);

#define HTTP_HEALTH_PROBLEM_SIZE 512

/* What GET /healthz reports besides the version; the app fills it in. A
 * `problem` ("" when healthy) is a sentence saying what fails. */
typedef struct http_health_info {
    long long uptime_s;
    int rooms;
    int connections;
    char problem[HTTP_HEALTH_PROBLEM_SIZE];
} http_health_info;

typedef void (*http_health_callback)(void *context, http_health_info *info);

/* An empty table. 0 and *out, or -ENOMEM. */
int http_routes_new(http_routes **out);

/* Frees the table (not the handlers' contexts). NULL is allowed. */
void http_routes_free(http_routes *routes);

/* Registers `handler` for `method` ("GET", "POST", ...) on `path`.
 * 0, -EINVAL for a path not starting with '/', or -ENOMEM. */
int http_routes_add(http_routes *routes, const char *method, const char *path, http_handler handler,
                    void *context);

/* Registers GET /healthz answering 200 {"status":"ok","version","uptime_s",
 * "rooms","connections"}, the figures from `callback`, or 503 with
 * "status":"failing" and "problem" when the callback names one. 0 or
 * -ENOMEM. */
int http_routes_add_health(http_routes *routes, http_health_callback callback, void *context);

/* Answers `request` with its route's handler, or a 404/405 JSON error
 * (a 405 with response->allow filled in). */
void http_routes_dispatch(const http_routes *routes, const transport_http_request *request,
                          transport_http_response *response);

/* Sets a JSON response with `status`; takes the reference to `body`.
 * 0, or -ENOMEM after setting a bodiless 500 (memory ran out). */
int http_response_json(transport_http_response *response, int status, json_t *body);

/* Sends the answer of a deferred request through `transport`, or drops it
 * when there is none (the server is stopping): the body is taken either
 * way (transport_http_respond drops it too when the client has left). */
void http_response_send(struct transport *transport, uint64_t exchange,
                        transport_http_response *response);

/* A copy of `request`'s body, NUL-terminated (*length its bytes), for an
 * answer that goes on after the route returns: the caller's (free), or
 * NULL after setting a 500 in `response` (memory ran out). */
char *http_request_body_copy(const transport_http_request *request,
                             transport_http_response *response, size_t *length);

#endif

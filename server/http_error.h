/* http_error.h -- every HTTP error answer, from every part of the server.
 *
 * The transport (a malformed request, 413, 429, 503), the route table (404,
 * 405) and the routes themselves answer errors through this one helper, so
 * each answer is whole: a status, a JSON body and its length. The path
 * decides the shape: under the Reef API's prefix, /api/games/reef-builder/,
 * errors are the Reef API's documented {"error":{"code","message"}} on
 * every path, known or not, whatever the status; everywhere else they are
 * {"type":"error","code","message"} like the websocket protocol's. The
 * JSON is written by error_json_render() (protocol/error_json.h), which
 * the Reef API itself uses too. */
#ifndef TESSERA_HTTP_ERROR_H
#define TESSERA_HTTP_ERROR_H

#include "protocol/error_json.h"
#include "server/transport.h"

/* The prefix under which errors take the Reef API's shape. */
#define HTTP_ERROR_REEF_API_PREFIX "/api/games/reef-builder/"

/* The error shape of requests for `path`. */
error_json_shape http_error_shape(const char *path);

/* Sets `response` to the error `status` with a JSON body in the shape of
 * `path`; `message` may echo client input (it is made printable ASCII).
 * Frees a body the response held. 0, or -ENOMEM, after which the response
 * is a 500 without a body (Content-Length 0), the only error answer
 * without one. */
int http_error_respond(transport_http_response *response, const char *path, int status,
                       const char *code, const char *message);

/* One row of a route's table from its layer's error codes to HTTP. */
typedef struct http_error_mapping {
    int code;         /* the layer's error code */
    int status;       /* its HTTP status */
    const char *name; /* its wire code */
} http_error_mapping;

/* Answers the error `code` as the row of `table` (of `count`) that names it
 * says, else as `fallback_status` with the wire code `fallback_name`; the
 * message is `message`. Returns as http_error_respond. */
int http_error_respond_mapped(transport_http_response *response, const char *path,
                              const http_error_mapping *table, size_t count, int code,
                              int fallback_status, const char *fallback_name, const char *message);

#endif

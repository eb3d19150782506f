/* http_error.c -- the shape of an HTTP error, and the answer that carries it.
 *
 * The shape follows the path prefix rather than the route: errors raised
 * before any route is found (a request the transport refuses, or a path
 * under the prefix that no route serves) must look like the rest of the
 * API the client is talking to, and a prefix is known before any route. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server/http_error.h"

#define JSON_CONTENT_TYPE "application/json"

error_json_shape http_error_shape(const char *path)
{
    static const char PREFIX[] = HTTP_ERROR_REEF_API_PREFIX;
    return strncmp(path, PREFIX, sizeof(PREFIX) - 1) == 0 ? ERROR_JSON_NESTED : ERROR_JSON_FLAT;
}

int http_error_respond(transport_http_response *response, const char *path, int status,
                       const char *code, const char *message)
{
    free(response->body);
    response->content_type = JSON_CONTENT_TYPE;
    response->body =
        error_json_render(http_error_shape(path), code, message, &response->body_length);
    response->status = response->body ? status : 500;
    if (!response->body) {
        response->body_length = 0;
        return -ENOMEM;
    }
    return 0;
}

int http_error_respond_mapped(transport_http_response *response, const char *path,
                              const http_error_mapping *table, size_t count, int code,
                              int fallback_status, const char *fallback_name, const char *message)
{
    for (size_t i = 0; i < count; i++)
        if (table[i].code == code)
            return http_error_respond(response, path, table[i].status, table[i].name, message);
    return http_error_respond(response, path, fallback_status, fallback_name, message);
}

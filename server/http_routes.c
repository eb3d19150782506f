/* http_routes.c -- route table and JSON response helpers (see http_routes.h).
 *
 * The table is a small array searched in order: a server has a few dozen
 * routes at most, and an array keeps registration order, which is the
 * matching priority of prefix routes. Exact paths are searched first, so a
 * prefix route ("/api/games/" and a '*') serves only the paths below it
 * that no exact route has: POST-only /api/games/reef-builder/action still
 * answers GET with 405, not with the prefix route's handler. The health route is an ordinary
 * route whose context is the table itself, so it needs no allocation of
 * its own. A 405 lists in its Allow header every method the path has,
 * which is a walk of the same array. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/http_error.h"
#include "server/http_routes.h"

#define JSON_CONTENT_TYPE "application/json"

struct route {
    char *method;
    char *path;
    size_t prefix_length; /* of a path ending in '*', without it; 0: exact path */
    http_handler handler;
    void *context;
};

struct http_routes {
    struct route *routes;
    size_t count, capacity;
    http_health_callback health_callback;
    void *health_context;
};

int http_routes_new(http_routes **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? 0 : -ENOMEM;
}

void http_routes_free(http_routes *routes)
{
    if (!routes)
        return;
    for (size_t i = 0; i < routes->count; i++) {
        free(routes->routes[i].method);
        free(routes->routes[i].path);
    }
    free(routes->routes);
    free(routes);
}

static int grow(http_routes *routes)
{
    if (routes->count < routes->capacity)
        return 0;
    size_t capacity = routes->capacity ? routes->capacity * 2 : 8;
    struct route *grown = realloc(routes->routes, capacity * sizeof(*grown));
    if (!grown)
        return -ENOMEM;
    routes->routes = grown;
    routes->capacity = capacity;
    return 0;
}

int http_routes_add(http_routes *routes, const char *method, const char *path, http_handler handler,
                    void *context)
{
    if (path[0] != '/')
        return -EINVAL;
    if (grow(routes) < 0)
        return -ENOMEM;
    struct route route = {strdup(method), strdup(path), 0, handler, context};
    if (!route.method || !route.path) {
        free(route.method);
        free(route.path);
        return -ENOMEM;
    }
    size_t length = strlen(path);
    if (path[length - 1] == '*')
        route.prefix_length = length - 1;
    routes->routes[routes->count++] = route;
    return 0;
}

static bool path_matches(const struct route *route, const char *path)
{
    if (route->prefix_length == 0)
        return strcmp(route->path, path) == 0;
    return strncmp(route->path, path, route->prefix_length) == 0;
}

/* Appends `method` to the Allow list unless it is there already. */
static void add_allowed(char *allow, const char *method)
{
    size_t length = strlen(allow), method_length = strlen(method);
    for (const char *at = strstr(allow, method); at; at = strstr(at + 1, method))
        if ((at == allow || at[-1] == ' ') && (at[method_length] == ',' || !at[method_length]))
            return;
    snprintf(allow + length, TRANSPORT_ALLOW_SIZE - length, "%s%s", length ? ", " : "", method);
}

/* One pass over the routes of one kind (exact paths, or prefixes): true
 * when a handler answered; the methods of paths that matched otherwise
 * are added to the Allow list. */
static bool dispatch_pass(const http_routes *routes, bool is_prefix_pass,
                          const transport_http_request *request, transport_http_response *response)
{
    for (size_t i = 0; i < routes->count; i++) {
        const struct route *route = &routes->routes[i];
        if ((route->prefix_length > 0) != is_prefix_pass || !path_matches(route, request->path))
            continue;
        if (strcmp(route->method, request->method) == 0) {
            response->allow[0] = '\0'; /* other methods seen on the way are no 405's */
            route->handler(route->context, request, response);
            return true;
        }
        add_allowed(response->allow, route->method);
    }
    return false;
}

void http_routes_dispatch(const http_routes *routes, const transport_http_request *request,
                          transport_http_response *response)
{
    response->allow[0] = '\0';
    /* A path registered exactly belongs to its exact routes: a prefix
     * route never answers it, even for another method. */
    if (dispatch_pass(routes, false, request, response))
        return;
    if (response->allow[0] == '\0' && dispatch_pass(routes, true, request, response))
        return;
    char message[256];
    if (response->allow[0] != '\0') {
        snprintf(message, sizeof(message), "%s is not allowed on %s; allowed: %s", request->method,
                 request->path, response->allow);
        http_error_respond(response, request->path, 405, "method_not_allowed", message);
        return;
    }
    snprintf(message, sizeof(message), "no route for %s %s", request->method, request->path);
    http_error_respond(response, request->path, 404, "not_found", message);
}

int http_response_json(transport_http_response *response, int status, json_t *body)
{
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    response->content_type = JSON_CONTENT_TYPE;
    if (!text) {
        response->status = 500;
        response->body = NULL;
        response->body_length = 0;
        return -ENOMEM;
    }
    response->status = status;
    response->body = text;
    response->body_length = strlen(text);
    return 0;
}

static void answer_health(void *context, const transport_http_request *request,
                          transport_http_response *response)
{
    (void)request;
    const http_routes *routes = context;
    http_health_info info = {0, 0, 0, ""};
    routes->health_callback(routes->health_context, &info);
    bool is_healthy = info.problem[0] == '\0';
    json_t *body = json_pack("{s:s, s:s, s:I, s:i, s:i}", "status", is_healthy ? "ok" : "failing",
                             "version", TESSERA_VERSION, "uptime_s", (json_int_t)info.uptime_s,
                             "rooms", info.rooms, "connections", info.connections);
    if (body && !is_healthy &&
        json_object_set_new(body, "problem", json_string(info.problem)) < 0) {
        json_decref(body); /* out of memory: http_response_json answers 500 */
        body = NULL;
    }
    http_response_json(response, is_healthy ? 200 : 503, body);
}

int http_routes_add_health(http_routes *routes, http_health_callback callback, void *context)
{
    routes->health_callback = callback;
    routes->health_context = context;
    return http_routes_add(routes, "GET", "/healthz", answer_health, routes);
}

char *http_request_body_copy(const transport_http_request *request,
                             transport_http_response *response, size_t *length)
{
    char *copy = malloc(request->body_length + 1);
    if (!copy) {
        http_error_respond(response, request->path, 500, "internal",
                           "the server ran out of memory");
        return NULL;
    }
    memcpy(copy, request->body, request->body_length);
    copy[request->body_length] = '\0';
    *length = request->body_length;
    return copy;
}

void http_response_send(struct transport *transport, uint64_t exchange,
                        transport_http_response *response)
{
    if (transport)
        transport_http_respond(transport, exchange, response);
    else
        free(response->body);
    response->body = NULL;
}

/* fuzz_http_target.c -- an HTTP request's target, as the server sees it.
 *
 * lws parses the request line and percent-decodes; what reaches our code
 * is a method, a path, the query's decoded pairs (split at '&' and ';')
 * and header strings. The input is read as: one byte choosing the method,
 * then the target up to the first newline (the path up to '?', the query
 * after it), then a Content-Length header's value. What must hold:
 * - http_target_is_utf8 agrees with jansson's own strict UTF-8 check, on
 *   the path and on every query name and value, and
 *   http_target_is_all_utf8 is their conjunction;
 * - http_target_content_length agrees with a plain reference parser;
 * - url_query keeps every pair: a name is found exactly when counted;
 * - the route table (the server's real paths, stub handlers) answers
 *   every request: a handler's 200, or a 404/405 whose body is a whole
 *   error in the shape of the path (http_error_shape), a 405 with an Allow
 *   list that does not name the method.
 * Nothing crashes or leaks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/http_error.h"
#include "server/http_routes.h"
#include "server/http_target.h"
#include "tests/fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const METHODS[] = {"GET",    "POST",    "PUT",  "PATCH",
                                      "DELETE", "OPTIONS", "HEAD", "UNKNOWN"};

/* Every route the server registers (app.c and the modules it calls). */
static const struct {
    const char *method, *path;
} ROUTES[] = {
    {"GET", "/healthz"},
    {"GET", "/metrics"},
    {"GET", "/"},
    {"GET", "/web/*"},
    {"GET", "/api/games/blokus/pieces"},
    {"GET", "/api/games/reef-builder/init"},
    {"POST", "/api/games/reef-builder/action"},
    {"POST", "/api/games/reef-builder/submit"},
    {"GET", "/api/games"},
    {"GET", "/api/games/*"},
    {"GET", "/api/players/*"},
    {"GET", "/api/leaderboards/blokus"},
    {"GET", "/api/leaderboards/reef"},
    {"GET", "/api/tournaments"},
    {"GET", "/api/tournaments/*"},
    {"POST", "/api/tournaments"},
    {"POST", "/api/bots"},
    {"POST", "/api/bots/*"},
    {"DELETE", "/api/bots/*"},
};
#define ROUTE_COUNT (sizeof(ROUTES) / sizeof(ROUTES[0]))

static void stub(void *context, const transport_http_request *request,
                 transport_http_response *response)
{
    (void)request;
    http_response_json(response, 200, json_pack("{s:s}", "route", (const char *)context));
}

static http_routes *route_table(void)
{
    static http_routes *routes;
    if (routes)
        return routes;
    FUZZ_REQUIRE(http_routes_new(&routes) == 0);
    for (size_t i = 0; i < ROUTE_COUNT; i++)
        FUZZ_REQUIRE(http_routes_add(routes, ROUTES[i].method, ROUTES[i].path, stub,
                                     (void *)ROUTES[i].path) == 0);
    return routes;
}

static int jansson_utf8(const char *text)
{
    json_t *string = json_string(text);
    json_decref(string);
    return string != NULL;
}

/* lws's query split: pairs end at '&' or ';'. */
static void split_query(const char *text, url_query *query)
{
    while (*text) {
        size_t length = strcspn(text, "&;");
        FUZZ_REQUIRE(url_query_add(query, text, length) == 0);
        text += length;
        if (*text)
            text++;
    }
}

static void check_query(const url_query *query)
{
    for (size_t i = 0; i < query->count; i++) {
        const url_query_argument *argument = &query->arguments[i];
        FUZZ_REQUIRE(url_query_count(query, argument->name) >= 1);
        FUZZ_REQUIRE(url_query_get(query, argument->name) != NULL);
    }
    FUZZ_REQUIRE((url_query_get(query, "seed") != NULL) == (url_query_count(query, "seed") > 0));
}

static void check_utf8(const char *path, const url_query *query)
{
    int is_all = http_target_is_utf8(path);
    FUZZ_REQUIRE(http_target_is_utf8(path) == (bool)jansson_utf8(path));
    for (size_t i = 0; i < query->count; i++) {
        const url_query_argument *argument = &query->arguments[i];
        FUZZ_REQUIRE(http_target_is_utf8(argument->name) == (bool)jansson_utf8(argument->name));
        FUZZ_REQUIRE(http_target_is_utf8(argument->value) == (bool)jansson_utf8(argument->value));
        is_all =
            is_all && http_target_is_utf8(argument->name) && http_target_is_utf8(argument->value);
    }
    FUZZ_REQUIRE(http_target_is_all_utf8(path, query) == (bool)is_all);
}

/* The reference: digits, then spaces and tabs only, at most SIZE_MAX / 2. */
static void check_content_length(const char *text)
{
    size_t parsed = 0, expected = 0;
    int rc = http_target_content_length(text, &parsed);
    size_t digits = strspn(text, "0123456789");
    int is_valid = digits > 0 && text[digits + strspn(text + digits, " \t")] == '\0';
    for (size_t i = 0; is_valid && i < digits; i++) {
        if (expected > (SIZE_MAX / 2 - (size_t)(text[i] - '0')) / 10)
            is_valid = 0;
        else
            expected = expected * 10 + (size_t)(text[i] - '0');
    }
    FUZZ_REQUIRE((rc == 0) == is_valid);
    if (rc == 0)
        FUZZ_REQUIRE(parsed == expected);
}

static void check_dispatch(const char *method, const char *path, const url_query *query)
{
    transport_http_request request;
    memset(&request, 0, sizeof(request));
    request.method = method;
    request.path = path;
    request.query = query;
    request.body = "";
    request.peer_ip = "127.0.0.1";
    request.authorization = "";
    request.if_none_match = "";
    transport_http_response response;
    memset(&response, 0, sizeof(response));
    http_routes_dispatch(route_table(), &request, &response);
    FUZZ_REQUIRE(response.body != NULL && response.body_length == strlen(response.body));
    if (response.status == 200) {
        FUZZ_REQUIRE(response.allow[0] == '\0');
    } else {
        FUZZ_REQUIRE(response.status == 404 || response.status == 405);
        fuzz_require_error(response.body, response.body_length,
                           http_error_shape(path) == ERROR_JSON_NESTED);
        if (response.status == 405) {
            FUZZ_REQUIRE(response.allow[0] != '\0');
            FUZZ_REQUIRE(strstr(response.allow, method) == NULL);
        }
    }
    free(response.body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *method = METHODS[data[0] % (sizeof(METHODS) / sizeof(METHODS[0]))];
    char *text = malloc(size + 1);
    text[0] = '/'; /* lws hands over paths that start with '/' */
    memcpy(text + 1, data + 1, size - 1);
    text[size] = '\0';
    char *header = strchr(text, '\n');
    if (header)
        *header++ = '\0';
    char *query_text = strchr(text, '?');
    if (query_text)
        *query_text++ = '\0';
    url_query query = {NULL, 0};
    split_query(query_text ? query_text : "", &query);
    check_query(&query);
    check_utf8(text, &query);
    check_content_length(header ? header : "");
    check_dispatch(method, text, &query);
    url_query_clear(&query);
    free(text);
    return 0;
}

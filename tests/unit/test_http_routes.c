/* test_http_routes.c -- which handler answers a request, and the JSON answers.
 *
 * Requests are built as the transport builds them; handlers record that
 * they ran; bodies are parsed back with jansson to check their shape. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/http_routes.h"

static void record(void *context, const transport_http_request *request,
                   transport_http_response *response)
{
    (void)request;
    *(const char **)context = "called";
    response->status = 204;
}

static const url_query NO_QUERY = {NULL, 0};

static transport_http_request request_for(const char *method, const char *path)
{
    transport_http_request request = {method,      path, &NO_QUERY, "",    0,
                                      "127.0.0.1", 1,    "",        false, ""};
    return request;
}

/* Dispatches and returns the parsed JSON body (NULL if none). */
static json_t *dispatch(const http_routes *routes, const char *method, const char *path,
                        transport_http_response *response)
{
    transport_http_request request = request_for(method, path);
    memset(response, 0, sizeof(*response));
    http_routes_dispatch(routes, &request, response);
    json_t *body =
        response->body ? json_loadb(response->body, response->body_length, 0, NULL) : NULL;
    free(response->body);
    response->body = NULL;
    return body;
}

static void test_exact_route_gets_its_method_only(void **state)
{
    (void)state;
    http_routes *routes;
    const char *called = NULL;
    assert_int_equal(http_routes_new(&routes), 0);
    assert_int_equal(http_routes_add(routes, "GET", "/api/x", record, &called), 0);
    transport_http_response response;
    assert_null(dispatch(routes, "GET", "/api/x", &response));
    assert_string_equal(called, "called");
    assert_int_equal(response.status, 204);

    json_t *error = dispatch(routes, "POST", "/api/x", &response);
    assert_int_equal(response.status, 405);
    assert_string_equal(response.allow, "GET");
    assert_string_equal(json_string_value(json_object_get(error, "code")), "method_not_allowed");
    json_decref(error);

    error = dispatch(routes, "GET", "/api/x/more", &response);
    assert_int_equal(response.status, 404);
    assert_string_equal(json_string_value(json_object_get(error, "type")), "error");
    assert_string_equal(json_string_value(json_object_get(error, "code")), "not_found");
    assert_string_equal(response.content_type, "application/json");
    json_decref(error);
    http_routes_free(routes);
}

/* A prefix route serves the paths below it that no exact route has, even
 * when it was registered first. */
static void test_star_route_matches_by_prefix_and_exact_paths_win(void **state)
{
    (void)state;
    http_routes *routes;
    const char *first = NULL, *second = NULL;
    assert_int_equal(http_routes_new(&routes), 0);
    assert_int_equal(http_routes_add(routes, "GET", "/replays/*", record, &first), 0);
    assert_int_equal(http_routes_add(routes, "GET", "/replays/7", record, &second), 0);
    transport_http_response response;
    dispatch(routes, "GET", "/replays/7", &response);
    assert_null(first);
    assert_non_null(second);
    second = NULL;
    dispatch(routes, "GET", "/replays/8", &response);
    assert_non_null(first);
    assert_null(second);
    first = NULL;
    json_decref(dispatch(routes, "GET", "/replays", &response));
    assert_null(first);
    assert_int_equal(response.status, 404);
    http_routes_free(routes);
}

static void test_path_must_start_with_a_slash(void **state)
{
    (void)state;
    http_routes *routes;
    assert_int_equal(http_routes_new(&routes), 0);
    assert_int_equal(http_routes_add(routes, "GET", "healthz", record, NULL), -EINVAL);
    http_routes_free(routes);
}

static void test_405_allows_every_method_of_the_path_once(void **state)
{
    (void)state;
    http_routes *routes;
    const char *called = NULL;
    assert_int_equal(http_routes_new(&routes), 0);
    assert_int_equal(http_routes_add(routes, "GET", "/items/*", record, &called), 0);
    assert_int_equal(http_routes_add(routes, "POST", "/items/new", record, &called), 0);
    assert_int_equal(http_routes_add(routes, "GET", "/items/new", record, &called), 0);
    assert_int_equal(http_routes_add(routes, "PUT", "/other", record, &called), 0);
    transport_http_response response;
    json_t *error = dispatch(routes, "DELETE", "/items/new", &response);
    assert_int_equal(response.status, 405);
    assert_string_equal(response.allow, "POST, GET");
    assert_string_equal(json_string_value(json_object_get(error, "message")),
                        "DELETE is not allowed on /items/new; allowed: POST, GET");
    json_decref(error);
    assert_null(called);
    http_routes_free(routes);
}

static void test_an_answer_found_after_other_methods_has_no_allow_header(void **state)
{
    (void)state;
    http_routes *routes;
    const char *called = NULL;
    assert_int_equal(http_routes_new(&routes), 0);
    assert_int_equal(http_routes_add(routes, "POST", "/items/*", record, &called), 0);
    assert_int_equal(http_routes_add(routes, "DELETE", "/items/*", record, &called), 0);
    transport_http_response response;
    json_decref(dispatch(routes, "DELETE", "/items/1", &response));
    assert_string_equal(called, "called");
    assert_int_equal(response.status, 204);
    assert_string_equal(response.allow, "");
    http_routes_free(routes);
}

static void test_errors_under_the_reef_api_take_its_shape(void **state)
{
    (void)state;
    http_routes *routes;
    const char *called = NULL;
    assert_int_equal(http_routes_new(&routes), 0);
    assert_int_equal(
        http_routes_add(routes, "POST", "/api/games/reef-builder/action", record, &called), 0);
    transport_http_response response;
    json_t *error = dispatch(routes, "GET", "/api/games/reef-builder/action", &response);
    assert_int_equal(response.status, 405);
    assert_string_equal(response.allow, "POST");
    assert_null(json_object_get(error, "type"));
    assert_string_equal(json_string_value(json_object_get(json_object_get(error, "error"), "code")),
                        "method_not_allowed");
    json_decref(error);
    error = dispatch(routes, "GET", "/api/games/reef-builder/nope", &response);
    assert_int_equal(response.status, 404);
    assert_string_equal(json_string_value(json_object_get(json_object_get(error, "error"), "code")),
                        "not_found");
    json_decref(error);
    /* The prefix is a whole path segment: a look-alike keeps the flat shape. */
    error = dispatch(routes, "GET", "/api/games/reef-builder-2", &response);
    assert_string_equal(json_string_value(json_object_get(error, "type")), "error");
    json_decref(error);
    http_routes_free(routes);
}

static void test_error_messages_echoing_bad_bytes_stay_json(void **state)
{
    (void)state;
    http_routes *routes;
    assert_int_equal(http_routes_new(&routes), 0);
    transport_http_response response;
    json_t *error = dispatch(routes, "GET", "/caf\xc3\xa9x\xff\"\\", &response);
    assert_int_equal(response.status, 404);
    assert_non_null(error);
    assert_string_equal(json_string_value(json_object_get(error, "message")),
                        "no route for GET /caf??x?\"\\");
    json_decref(error);
    http_routes_free(routes);
}

static void fill_health(void *context, http_health_info *info)
{
    (void)context;
    info->uptime_s = 42;
    info->rooms = 3;
    info->connections = 5;
}

static void test_health_route_reports_the_app_figures(void **state)
{
    (void)state;
    http_routes *routes;
    assert_int_equal(http_routes_new(&routes), 0);
    assert_int_equal(http_routes_add_health(routes, fill_health, NULL), 0);
    transport_http_response response;
    json_t *health = dispatch(routes, "GET", "/healthz", &response);
    assert_int_equal(response.status, 200);
    assert_string_equal(response.content_type, "application/json");
    assert_string_equal(json_string_value(json_object_get(health, "status")), "ok");
    assert_string_equal(json_string_value(json_object_get(health, "version")), TESSERA_VERSION);
    assert_int_equal(json_integer_value(json_object_get(health, "uptime_s")), 42);
    assert_int_equal(json_integer_value(json_object_get(health, "rooms")), 3);
    assert_int_equal(json_integer_value(json_object_get(health, "connections")), 5);
    json_decref(health);
    http_routes_free(routes);
}

static void test_json_response_takes_the_reference(void **state)
{
    (void)state;
    transport_http_response response;
    memset(&response, 0, sizeof(response));
    assert_int_equal(http_response_json(&response, 201, json_pack("{s:i}", "n", 1)), 0);
    assert_int_equal(response.status, 201);
    assert_string_equal(response.body, "{\"n\":1}");
    assert_int_equal(response.body_length, strlen("{\"n\":1}"));
    free(response.body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_route_gets_its_method_only),
        cmocka_unit_test(test_star_route_matches_by_prefix_and_exact_paths_win),
        cmocka_unit_test(test_path_must_start_with_a_slash),
        cmocka_unit_test(test_405_allows_every_method_of_the_path_once),
        cmocka_unit_test(test_an_answer_found_after_other_methods_has_no_allow_header),
        cmocka_unit_test(test_errors_under_the_reef_api_take_its_shape),
        cmocka_unit_test(test_error_messages_echoing_bad_bytes_stay_json),
        cmocka_unit_test(test_health_route_reports_the_app_figures),
        cmocka_unit_test(test_json_response_takes_the_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

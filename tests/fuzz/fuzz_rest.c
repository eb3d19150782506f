/* fuzz_rest.c -- every REST parameter and request body, fuzzed.
 *
 * The first byte chooses the surface; the rest is its input:
 * - history (docs/API.md's GET routes): a route prefix chosen by the
 *   second byte ("/api/games", "/api/players/", ...) then the rest of the
 *   path up to '?', then query pairs split at '&'. history_parse either
 *   accepts, with a request in range (limit 1-100), or refuses with a
 *   whole error: 400 or 404, a code, a message, rendered by history_render
 *   as a JSON error body. An accepted request also runs on an empty
 *   database and renders a 200 or a whole error.
 * - bot accounts: POST /api/bots with the rest as its JSON body, or
 *   POST/DELETE /api/bots/{rest}/key, through the real routes, read on a
 *   reader pool, on a fresh database (tests/unit/http_harness.h); the
 *   Authorization header is chosen by a byte (the admin key, a wrong one,
 *   none, another scheme).
 * - tournaments: POST /api/tournaments with the rest as its body, through
 *   the real route and a lobby on the fake host (tests/unit/fake_host.h).
 * Every answer is whole: a success status with a JSON body, or an error
 * status with {"type":"error","code","message"}. Nothing crashes or leaks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "history/history.h"
#include "server/http_accounts.h"
#include "server/http_error.h"
#include "server/http_tournaments.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/fault_store.h"
#include "tests/unit/http_harness.h"

#define ADMIN_KEY "admin-key-for-fuzzing"
#define NOW_MS    1764000000000LL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const PREFIXES[] = {"/api/games",
                                       "/api/games/",
                                       "/api/players/",
                                       "/api/leaderboards/blokus",
                                       "/api/leaderboards/reef",
                                       "/api/tournaments",
                                       "/api/tournaments/",
                                       ""};
#define PREFIX_COUNT (sizeof(PREFIXES) / sizeof(PREFIXES[0]))

static const char *const AUTHORIZATIONS[] = {"Bearer " ADMIN_KEY, "Bearer wrong", "",
                                             "Basic " ADMIN_KEY, "Bearer "};
#define AUTHORIZATION_COUNT (sizeof(AUTHORIZATIONS) / sizeof(AUTHORIZATIONS[0]))

/* An empty database for history_run, opened once and only read. */
static store *empty_reader(void)
{
    static store *reader;
    if (!reader)
        FUZZ_REQUIRE(store_open(":memory:", false, &reader) == 0);
    return reader;
}

static void check_rendered(history_result *result, int expected_status)
{
    int status;
    const char *content_type;
    size_t length;
    char *body = history_render(result, &status, &content_type, &length);
    FUZZ_REQUIRE(body != NULL && status == expected_status);
    if (status != 200)
        fuzz_require_error(body, length, 0);
    free(body);
}

static void fuzz_history(const uint8_t *data, size_t size)
{
    if (size == 0)
        return;
    const char *prefix = PREFIXES[data[0] % PREFIX_COUNT];
    char *path = malloc(strlen(prefix) + size);
    strcpy(path, prefix);
    memcpy(path + strlen(prefix), data + 1, size - 1);
    path[strlen(prefix) + size - 1] = '\0';
    url_query query = {NULL, 0};
    char *query_text = strchr(path, '?');
    if (query_text)
        *query_text++ = '\0';
    while (query_text && *query_text) {
        size_t length = strcspn(query_text, "&");
        FUZZ_REQUIRE(url_query_add(&query, query_text, length) == 0);
        query_text += length + (query_text[length] == '&');
    }
    static const unsigned char CURSOR_KEY[STORE_CURSOR_KEY_BYTES] = {1};
    history_settings settings = {5, NOW_MS, CURSOR_KEY};
    history_request request;
    history_result result;
    if (history_parse(path, &query, &settings, &request, &result) != 0) {
        FUZZ_REQUIRE(result.status == 400 || result.status == 404);
        FUZZ_REQUIRE(result.failure.code && result.failure.code[0] && result.failure.message[0]);
        check_rendered(&result, result.status);
    } else {
        FUZZ_REQUIRE(request.limit >= 1 && request.limit <= 100);
        history_run(empty_reader(), &request, &result);
        FUZZ_REQUIRE(result.status == 200 || result.status == 400 || result.status == 404);
        if (result.status != 200)
            FUZZ_REQUIRE(result.failure.code && result.failure.code[0] &&
                         result.failure.message[0]);
        check_rendered(&result, result.status);
    }
    url_query_clear(&query);
    free(path);
}

/* The answer of a route is whole (see the header comment). */
static void check_response(const transport_http_response *response)
{
    FUZZ_REQUIRE(response->body != NULL && response->body_length == strlen(response->body));
    if (response->status == 200 || response->status == 201) {
        json_t *body = json_loadb(response->body, response->body_length, 0, NULL);
        FUZZ_REQUIRE(json_is_object(body));
        json_decref(body);
        return;
    }
    FUZZ_REQUIRE(response->status >= 400 && response->status <= 503);
    fuzz_require_error(response->body, response->body_length, 0);
}

/* Runs a request as the server does (tests/unit/http_harness.h) and checks
 * its answer; one still held would be a bug here, as the stores answer at
 * once. */
static void dispatch(http_routes *routes, const char *method, const char *path,
                     const char *authorization, const char *body, size_t length)
{
    transport_http_response response;
    http_harness_dispatch(routes, method, path, authorization, body, length, &response);
    check_response(&response);
    free(response.body);
}

/* The rest as a NUL-terminated copy (bodies are, on the transport). */
static char *copy_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

static void fuzz_bots(const uint8_t *data, size_t size)
{
    if (size == 0)
        return;
    const char *authorization = AUTHORIZATIONS[data[0] % AUTHORIZATION_COUNT];
    int route = (data[0] / AUTHORIZATION_COUNT) % 3;
    char *text = copy_text(data + 1, size - 1);
    http_routes *routes = NULL;
    struct http_accounts *accounts = NULL;
    FUZZ_REQUIRE(http_harness_open() == 0);
    store_port port = store_port_of(http_harness_db()); /* answers at once */
    FUZZ_REQUIRE(http_routes_new(&routes) == 0);
    FUZZ_REQUIRE(http_accounts_new(http_harness_readers(), &port, ADMIN_KEY, 10, &accounts) == 0);
    FUZZ_REQUIRE(http_accounts_add_routes(routes, accounts) == 0);
    http_accounts_attach(accounts, http_harness_transport());
    /* a bot to rotate keys of, so the key routes get past "no such bot" */
    dispatch(routes, "POST", "/api/bots", AUTHORIZATIONS[0], "{\"name\":\"fuzzbot\"}", 18);
    if (route == 0) {
        dispatch(routes, "POST", "/api/bots", authorization, text, size - 1);
    } else {
        char *path = malloc(strlen(text) + 32);
        snprintf(path, strlen(text) + 32, "/api/bots/%s/key", text);
        dispatch(routes, route == 1 ? "POST" : "DELETE", path, authorization, "", 0);
        free(path);
    }
    FUZZ_REQUIRE(http_accounts_in_flight(accounts) == 0);
    http_accounts_free(accounts);
    http_routes_free(routes);
    http_harness_close();
    free(text);
}

static void fuzz_tournaments(const uint8_t *data, size_t size)
{
    if (size == 0)
        return;
    const char *authorization = AUTHORIZATIONS[data[0] % AUTHORIZATION_COUNT];
    char *text = copy_text(data + 1, size - 1);
    http_routes *routes = NULL;
    struct http_accounts *accounts = NULL;
    struct http_tournaments *tournaments = NULL;
    struct lobby *lobby = NULL;
    fake_host_reset(1);
    FUZZ_REQUIRE(http_harness_open() == 0);
    store_port port = fault_store_port(http_harness_db());
    lobby_config config = lobby_default_config();
    config.bot_think_ms = 1;
    config.max_rooms = 64;
    FUZZ_REQUIRE(lobby_new(&FAKE_HOST, &port, &config, &lobby) == 0);
    FUZZ_REQUIRE(http_routes_new(&routes) == 0);
    FUZZ_REQUIRE(http_accounts_new(http_harness_readers(), &port, ADMIN_KEY, 10, &accounts) == 0);
    FUZZ_REQUIRE(http_tournaments_new(lobby, accounts, &tournaments) == 0);
    FUZZ_REQUIRE(http_tournaments_add_routes(routes, tournaments) == 0);
    http_accounts_attach(accounts, http_harness_transport());
    http_tournaments_attach(tournaments, http_harness_transport());
    dispatch(routes, "POST", "/api/tournaments", authorization, text, size - 1);
    lobby_shutdown(lobby); /* bot searches stop at once, then finish */
    fake_host_run_jobs(FAKE_HOST_JOBS * 4);
    lobby_free(lobby);
    http_tournaments_free(tournaments);
    http_accounts_free(accounts);
    http_routes_free(routes);
    http_harness_close();
    fake_host_release();
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool is_sodium_ready;
    if (!is_sodium_ready)
        FUZZ_REQUIRE(secret_init() == 0);
    is_sodium_ready = true;
    if (size == 0)
        return 0;
    switch (data[0] % 4) {
    case 0:
    case 1:
        fuzz_history(data + 1, size - 1);
        break;
    case 2:
        fuzz_bots(data + 1, size - 1);
        break;
    default:
        fuzz_tournaments(data + 1, size - 1);
        break;
    }
    return 0;
}

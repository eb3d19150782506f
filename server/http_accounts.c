/* http_accounts.c -- bot accounts over REST (see http_accounts.h).
 *
 * A request goes: who asks (the Authorization header) -> what it asks (the
 * path, and for a creation the JSON body, decoded strictly: an object with
 * a string `name` and an optional string `owner`, nothing else) -> the
 * rule (bot_accounts.c) -> its one record, stored through the store port
 * -> the answer, once the store has answered: in the route itself when
 * the port answers before submit returns, else later through the
 * transport (the request is deferred). Every refusal happens before the
 * one write, so a refused request changes nothing; a record that is not
 * stored is answered 500 storage_error (409 name_taken for a name taken
 * meanwhile) and changes nothing either.
 *
 * Who asks: with an admin key configured, a Bearer equal to it is the
 * admin. Otherwise the Bearer is looked up as a session token: a named
 * account's token is that account; a guest's or a bot's is refused (403),
 * an unknown one is 401 -- or 403 when the server has no admin key, to say
 * that admin access is off rather than that the key was wrong. The reads
 * are single index probes, so they run on the loop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/bot_accounts.h"
#include "server/http_accounts.h"
#include "server/http_error.h"

#define ADMIN_KEY_SIZE 128
#define BEARER         "Bearer "
#define ROUTE_PREFIX   "/api/bots/"
#define KEY_SUFFIX     "/key"
#define OPEN_SUFFIX    "/tournaments"

struct http_accounts {
    store *db;
    store_port port;
    struct transport *transport; /* for answers that come after the route returned */
    int in_flight;               /* changes the store has not answered yet */
    char admin_key[ADMIN_KEY_SIZE];
    int max_bots; /* per account; the admin is not capped */
};

/* What a stored change is answered with. */
typedef enum answer_shape { ANSWER_CREATED, ANSWER_KEY, ANSWER_OPEN } answer_shape;

/* A change on its way to the store. */
struct bot_request {
    struct http_accounts *accounts;
    uint64_t exchange;
    answer_shape shape;
    bool is_submitting; /* the route is in submit: it answers itself */
    bool is_answered;
    int rc; /* the store's answer */
    bot_accounts_change change;
    store_batch batch; /* the change's record */
};

int http_accounts_new(store *db, const store_port *port, const char *admin_key, int max_bots,
                      struct http_accounts **out)
{
    struct http_accounts *accounts = calloc(1, sizeof(*accounts));
    if (!accounts)
        return -ENOMEM;
    accounts->db = db;
    accounts->port = *port;
    accounts->max_bots = max_bots;
    snprintf(accounts->admin_key, sizeof(accounts->admin_key), "%s", admin_key);
    *out = accounts;
    return 0;
}

void http_accounts_attach(struct http_accounts *accounts, struct transport *transport)
{
    accounts->transport = transport;
}

int http_accounts_in_flight(const struct http_accounts *accounts)
{
    return accounts->in_flight;
}

void http_accounts_free(struct http_accounts *accounts)
{
    if (!accounts)
        return;
    secret_forget(accounts->admin_key, sizeof(accounts->admin_key));
    free(accounts);
}

int http_accounts_authorize(const struct http_accounts *accounts,
                            const transport_http_request *request,
                            transport_http_response *response, int64_t *actor)
{
    const char *secret = request->authorization;
    if (strncmp(secret, BEARER, strlen(BEARER)) != 0 || !secret[strlen(BEARER)]) {
        http_error_respond(response, request->path, 401, "unauthorized",
                           "send 'Authorization: Bearer SECRET': the admin key or an account's "
                           "session token");
        return HTTP_FAILED;
    }
    secret += strlen(BEARER);
    *actor = 0;
    if (accounts->admin_key[0] && secret_equal(secret, accounts->admin_key))
        return 0;
    store_player player;
    int rc = store_player_by_token(accounts->db, secret, &player);
    if (rc == 0 && player.is_account) {
        *actor = player.id;
        return 0;
    }
    if (rc == 0)
        http_error_respond(response, request->path, 403, "forbidden",
                           "only the admin and named accounts may do this");
    else if (rc != STORE_E_NOT_FOUND)
        http_error_respond(response, request->path, 500, "storage_error", store_strerror(rc));
    else if (!accounts->admin_key[0])
        http_error_respond(response, request->path, 403, "forbidden",
                           "this server has no admin key; only an account's session token "
                           "is accepted");
    else
        http_error_respond(response, request->path, 401, "unauthorized",
                           "wrong admin key or session token");
    return HTTP_FAILED;
}

/* The HTTP answer of a bot_accounts refusal to a request for `path`. */
static void respond_failure(const char *path, transport_http_response *response,
                            const bot_accounts_result *result)
{
    const http_failure *failure = &result->failure;
    http_error_respond(response, path, failure->status, failure->code, failure->message);
}

static void respond_bot(transport_http_response *response, int status,
                        const bot_accounts_result *result, bool has_owner)
{
    json_t *body = json_pack("{s:I, s:s, s:o}", "id", (json_int_t)result->id, "name", result->name,
                             "key", result->key[0] ? json_string(result->key) : json_null());
    if (body && has_owner)
        json_object_set_new(body, "owner",
                            result->owner[0] ? json_string(result->owner) : json_null());
    http_response_json(response, status, body);
}

/* The answer of a change the store has answered. The path only gives an
 * error its shape, which is the same for every route here. */
static void answer(struct bot_request *request, transport_http_response *response)
{
    const bot_accounts_result *result = &request->change.result;
    int rc = bot_accounts_stored(&request->change, request->rc);
    if (rc != 0)
        respond_failure(ROUTE_PREFIX, response, result);
    else if (request->shape != ANSWER_OPEN)
        respond_bot(response, request->shape == ANSWER_CREATED ? 201 : 200, result,
                    request->shape == ANSWER_CREATED);
    else
        http_response_json(response, 200,
                           json_pack("{s:I, s:s, s:b}", "id", (json_int_t)result->id, "name",
                                     result->name, "open_to_tournaments",
                                     result->is_open_to_tournaments));
    bot_accounts_forget(&request->change);
}

/* The store's answer: kept for the route while it is still submitting,
 * else answered through the transport (dropped if the client left). */
static void on_stored(void *context, int rc, store_batch *batch)
{
    struct bot_request *request = context;
    (void)batch;
    request->rc = rc;
    request->is_answered = true;
    if (request->is_submitting)
        return;
    struct http_accounts *accounts = request->accounts;
    transport_http_response response;
    memset(&response, 0, sizeof(response));
    answer(request, &response);
    if (accounts->transport)
        transport_http_respond(accounts->transport, request->exchange, &response);
    else
        free(response.body);
    accounts->in_flight--;
    free(request);
}

/* Stores `change` (copied) for `http`, and answers it in `response` if the
 * store answers before submit returns, else defers it. */
static void submit_change(struct http_accounts *accounts, const transport_http_request *http,
                          transport_http_response *response, answer_shape shape,
                          const bot_accounts_change *change)
{
    struct bot_request *request = calloc(1, sizeof(*request));
    if (!request) {
        http_error_respond(response, http->path, 500, "internal", "out of memory");
        return;
    }
    *request = (struct bot_request){.accounts = accounts,
                                    .exchange = http->exchange,
                                    .shape = shape,
                                    .is_submitting = true,
                                    .change = *change};
    request->batch = (store_batch){&request->change.record, 1};
    int rc = accounts->port.submit(accounts->port.context, &request->batch, on_stored, request);
    request->is_submitting = false;
    if (rc != STORE_OK && !request->is_answered) {
        request->rc = rc; /* refused at once: no answer comes */
        request->is_answered = true;
    }
    if (request->is_answered) {
        answer(request, response);
        free(request);
        return;
    }
    response->is_deferred = true;
    accounts->in_flight++;
}

/* The body of a creation: {name, owner?}; 0, or HTTP_FAILED with the
 * refusal in `response`. */
static int decode_creation(const transport_http_request *request, transport_http_response *response,
                           json_t **body, const char **name, const char **owner)
{
    json_error_t error;
    char message[256];
    *body = json_loadb(request->body, request->body_length, JSON_REJECT_DUPLICATES, &error);
    if (!*body || !json_is_object(*body)) {
        snprintf(message, sizeof(message), "the body must be a JSON object {name, owner?}%s%s",
                 *body ? "" : ": ", *body ? "" : error.text);
        http_error_respond(response, request->path, 400, "bad_json", message);
        return HTTP_FAILED;
    }
    const char *key;
    json_t *value;
    json_object_foreach(*body, key, value)
    {
        if ((strcmp(key, "name") != 0 && strcmp(key, "owner") != 0) || !json_is_string(value)) {
            snprintf(message, sizeof(message), "'%s' %s", key,
                     strcmp(key, "name") == 0 || strcmp(key, "owner") == 0 ? "must be a string"
                                                                           : "is not a field");
            http_error_respond(response, request->path, 400, "bad_request", message);
            return HTTP_FAILED;
        }
    }
    *name = json_string_value(json_object_get(*body, "name"));
    *owner = json_string_value(json_object_get(*body, "owner"));
    if (!*name) {
        http_error_respond(response, request->path, 400, "bad_request", "'name' is missing");
        return HTTP_FAILED;
    }
    return 0;
}

static void create_route(void *context, const transport_http_request *request,
                         transport_http_response *response)
{
    struct http_accounts *accounts = context;
    int64_t actor;
    json_t *body = NULL;
    const char *name, *owner;
    if (http_accounts_authorize(accounts, request, response, &actor) != 0 ||
        decode_creation(request, response, &body, &name, &owner) != 0) {
        json_decref(body);
        return;
    }
    bot_accounts_change change;
    int rc = bot_accounts_create(accounts->db, name, owner, actor, accounts->max_bots, &change);
    json_decref(body);
    if (rc != 0)
        respond_failure(request->path, response, &change.result);
    else
        submit_change(accounts, request, response, ANSWER_CREATED, &change);
    bot_accounts_forget(&change);
}

/* The bot name of /api/bots/{name}{ending} into `name`; false for any
 * other path. */
static bool bot_path_name(const char *path, const char *ending, char *name, size_t size)
{
    const char *start = path + strlen(ROUTE_PREFIX);
    size_t length = strlen(start), suffix = strlen(ending);
    if (length <= suffix || length - suffix >= size || strcmp(start + length - suffix, ending) != 0)
        return false;
    memcpy(name, start, length - suffix);
    name[length - suffix] = '\0';
    return strchr(name, '/') == NULL;
}

/* POST (a new key) or DELETE (revoked) /api/bots/{name}/key, and POST
 * (open) or DELETE (closed) /api/bots/{name}/tournaments. */
static void bot_route(void *context, const transport_http_request *request,
                      transport_http_response *response)
{
    struct http_accounts *accounts = context;
    char name[STORE_NAME_SIZE], message[256];
    bool is_key = bot_path_name(request->path, KEY_SUFFIX, name, sizeof(name));
    if (!is_key && !bot_path_name(request->path, OPEN_SUFFIX, name, sizeof(name))) {
        snprintf(message, sizeof(message), "no route for %s %s", request->method, request->path);
        http_error_respond(response, request->path, 404, "not_found", message);
        return;
    }
    int64_t actor;
    if (http_accounts_authorize(accounts, request, response, &actor) != 0)
        return;
    bool is_delete = strcmp(request->method, "DELETE") == 0;
    bot_accounts_change change;
    int rc = is_key ? bot_accounts_set_key(accounts->db, name, is_delete, actor, &change)
                    : bot_accounts_set_open(accounts->db, name, !is_delete, actor, &change);
    if (rc != 0)
        respond_failure(request->path, response, &change.result);
    else
        submit_change(accounts, request, response, is_key ? ANSWER_KEY : ANSWER_OPEN, &change);
    bot_accounts_forget(&change);
}

int http_accounts_add_routes(http_routes *routes, struct http_accounts *accounts)
{
    int rc = http_routes_add(routes, "POST", "/api/bots", create_route, accounts);
    if (rc == 0)
        rc = http_routes_add(routes, "POST", ROUTE_PREFIX "*", bot_route, accounts);
    if (rc == 0)
        rc = http_routes_add(routes, "DELETE", ROUTE_PREFIX "*", bot_route, accounts);
    return rc;
}

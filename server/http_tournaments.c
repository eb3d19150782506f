/* http_tournaments.c -- POST /api/tournaments: a tournament created over
 * REST, by the admin key or a named account's session token (as
 * tournament.create is over the websocket, with the same consent rule and
 * caps for an account; the admin has neither). The body is
 * tournament.create's fields as a JSON object, decoded by the protocol's
 * own strict decoder, so both ways accept exactly the same requests.
 * DELETE /api/tournaments/{id} cancels one, by the admin or its creator.
 * Reading tournaments is the history API's (GET /api/tournaments,
 * /api/tournaments/{id}).
 *
 * A request is decoded on the loop, then who sent it is found on the reader
 * pool (http_accounts_authorize), then the lobby is asked; its answer goes
 * out through the transport. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "lobby/lobby.h"
#include "server/http_error.h"
#include "server/http_tournaments.h"

struct http_tournaments {
    struct lobby *lobby;
    struct http_accounts *accounts;
    struct transport *transport; /* where later answers go; NULL: dropped */
};

/* A creation or cancellation: authorized, then asked of the lobby, which
 * answers once it is stored; the answer goes out through the transport. */
struct http_request {
    struct http_tournaments *owner;
    uint64_t exchange;
    char path[128]; /* for the error's shape and the log */
    bool is_cancel;
    int64_t id; /* a cancellation's */
    char *body; /* a creation's, decoded once who asks may */
    size_t body_length;
    bool is_decoded;
    protocol_message message; /* the creation, kept until the lobby answers */
};

static void request_free(struct http_request *asked)
{
    if (asked->is_decoded)
        protocol_message_clear(&asked->message);
    free(asked->body);
    free(asked);
}

int http_tournaments_new(struct lobby *lobby, struct http_accounts *accounts,
                         struct http_tournaments **out)
{
    *out = calloc(1, sizeof(**out));
    if (!*out)
        return -ENOMEM;
    (*out)->lobby = lobby;
    (*out)->accounts = accounts;
    return 0;
}

void http_tournaments_attach(struct http_tournaments *tournaments, struct transport *transport)
{
    tournaments->transport = transport;
}

void http_tournaments_free(struct http_tournaments *tournaments)
{
    free(tournaments);
}

/* The body as a tournament.create message: 0, or HTTP_FAILED with the
 * refusal (400, or 500 out of memory) in `response`. */
static int decode(const struct http_request *request, transport_http_response *response,
                  protocol_message *message)
{
    json_error_t error;
    json_t *body = json_loadb(request->body, request->body_length, JSON_REJECT_DUPLICATES, &error);
    protocol_failure failure;
    int rc = -1;
    if (!json_is_object(body) || json_object_get(body, "type") || json_object_get(body, "id")) {
        http_error_respond(response, request->path, 400, "bad_json",
                           body ? "the body must be a JSON object of tournament.create's fields"
                                : error.text);
    } else {
        json_object_set_new(body, "type", json_string("tournament.create"));
        char *text = json_dumps(body, JSON_COMPACT);
        if (!text)
            http_error_respond(response, request->path, 500, "internal",
                               "the server ran out of memory");
        else if ((rc = protocol_decode(text, strlen(text), message, &failure)) != 0)
            http_error_respond(response, request->path, 400, "bad_request", failure.message);
        free(text);
    }
    json_decref(body);
    return rc == 0 ? 0 : HTTP_FAILED;
}

/* The HTTP answer of a lobby refusal. */
static void respond_failure(const char *path, transport_http_response *response, int code,
                            const protocol_failure *failure)
{
    static const http_error_mapping ANSWERS[] = {
        {PROTOCOL_E_BAD_MESSAGE, 400, "bad_request"},
        {PROTOCOL_E_CONSENT_REQUIRED, 403, "consent_required"},
        {PROTOCOL_E_NOT_OWNER, 403, "forbidden"},
        {PROTOCOL_E_NO_SUCH_TOURNAMENT, 404, "not_found"},
        {PROTOCOL_E_TOO_MANY_TOURNAMENTS, 429, "too_many_tournaments"},
    };
    http_error_respond_mapped(response, path, ANSWERS, sizeof(ANSWERS) / sizeof(ANSWERS[0]), code,
                              503, protocol_error_name(code), failure->message);
}

/* The lobby's answer, into `response`. */
static void respond(const struct http_request *asked, transport_http_response *response, int rc,
                    int64_t id, const protocol_failure *failure)
{
    if (rc == LOBBY_TOURNAMENT_SENT_ON) {
        http_response_json(response, 202,
                           json_pack("{s:I, s:s}", "id", (json_int_t)id, "status", "cancelling"));
    } else if (rc != 0) {
        respond_failure(asked->path, response, rc, failure);
    } else if (asked->is_cancel) {
        http_response_json(response, 200,
                           json_pack("{s:I, s:s}", "id", (json_int_t)id, "status", "cancelled"));
    } else {
        char url[64];
        snprintf(url, sizeof(url), "/api/tournaments/%lld", (long long)id);
        http_response_json(response, 201,
                           json_pack("{s:I, s:s}", "id", (json_int_t)id, "url", url));
    }
}

/* Sends `answer` (dropped when the client is gone) and frees the request. */
static void send_answer(struct http_request *asked, transport_http_response *answer)
{
    http_response_send(asked->owner->transport, asked->exchange, answer);
    request_free(asked);
}

/* lobby_tournament_answer. */
static void answered(void *context, int rc, int64_t id, const protocol_failure *failure)
{
    struct http_request *asked = context;
    transport_http_response answer = {0};
    respond(asked, &answer, rc, id, failure);
    send_answer(asked, &answer);
}

/* http_accounts_then: the lobby is asked for `actor`, or (not allowed:
 * already answered) the request goes. */
static void authorized(void *context, int64_t actor, bool is_allowed)
{
    struct http_request *asked = context;
    transport_http_response answer = {0};
    if (!is_allowed) {
        request_free(asked);
        return;
    }
    if (!asked->is_cancel && decode(asked, &answer, &asked->message) != 0) {
        send_answer(asked, &answer);
        return;
    }
    asked->is_decoded = !asked->is_cancel;
    protocol_failure failure;
    struct lobby *lobby = asked->owner->lobby;
    int rc = asked->is_cancel
                 ? lobby_tournament_cancel(lobby, asked->id, actor, answered, asked, &failure)
                 : lobby_tournament_create(lobby, &asked->message.body.tournament, actor, answered,
                                           asked, &failure);
    if (rc != 0) { /* else the lobby answers, maybe already has */
        respond_failure(asked->path, &answer, rc, &failure);
        send_answer(asked, &answer);
    }
}

/* Asks who sent `request` for `asked` (taken), which goes on in authorized. */
static void authorize(struct http_tournaments *tournaments, const transport_http_request *request,
                      transport_http_response *response, struct http_request *asked)
{
    asked->owner = tournaments;
    asked->exchange = request->exchange;
    snprintf(asked->path, sizeof(asked->path), "%s", request->path);
    if (http_accounts_authorize(tournaments->accounts, request, response, authorized, asked) != 0)
        request_free(asked);
}

static void create_route(void *context, const transport_http_request *request,
                         transport_http_response *response)
{
    struct http_tournaments *tournaments = context;
    struct http_request *asked = calloc(1, sizeof(*asked));
    if (!asked) {
        http_error_respond(response, request->path, 500, "internal",
                           "the server ran out of memory");
        return;
    }
    if (!(asked->body = http_request_body_copy(request, response, &asked->body_length)))
        free(asked);
    else
        authorize(tournaments, request, response, asked);
}

#define ONE_PREFIX "/api/tournaments/"

/* The id of /api/tournaments/{id}: > 0, or 0 for any other path. */
static int64_t path_id(const char *path)
{
    const char *digits = path + strlen(ONE_PREFIX);
    char *end;
    errno = 0;
    long long id = strtoll(digits, &end, 10);
    bool is_whole = digits[0] >= '1' && digits[0] <= '9' && !*end && errno == 0;
    return is_whole ? (int64_t)id : 0;
}

static void cancel_route(void *context, const transport_http_request *request,
                         transport_http_response *response)
{
    struct http_tournaments *tournaments = context;
    int64_t id = path_id(request->path);
    if (!id) {
        char message[128];
        snprintf(message, sizeof(message), "no route for DELETE %.80s", request->path);
        http_error_respond(response, request->path, 404, "not_found", message);
        return;
    }
    struct http_request *asked = calloc(1, sizeof(*asked));
    if (!asked) {
        http_error_respond(response, request->path, 500, "internal",
                           "the server ran out of memory");
        return;
    }
    asked->is_cancel = true;
    asked->id = id;
    authorize(tournaments, request, response, asked);
}

int http_tournaments_add_routes(http_routes *routes, struct http_tournaments *tournaments)
{
    int rc = http_routes_add(routes, "POST", "/api/tournaments", create_route, tournaments);
    if (rc == 0)
        rc = http_routes_add(routes, "DELETE", ONE_PREFIX "*", cancel_route, tournaments);
    return rc;
}

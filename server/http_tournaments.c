/* http_tournaments.c -- POST /api/tournaments: a tournament created over
 * REST, by the admin key or a named account's session token (as
 * tournament.create is over the websocket). The body is tournament.create's
 * fields as a JSON object, decoded by the protocol's own strict decoder, so
 * both ways accept exactly the same requests. Reading tournaments is the
 * history API's (GET /api/tournaments, /api/tournaments/{id}). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby.h"
#include "server/http_error.h"
#include "server/http_tournaments.h"

struct http_tournaments {
    struct lobby *lobby;
    const struct http_accounts *accounts;
};

int http_tournaments_new(struct lobby *lobby, const struct http_accounts *accounts,
                         struct http_tournaments **out)
{
    *out = calloc(1, sizeof(**out));
    if (!*out)
        return -1;
    (*out)->lobby = lobby;
    (*out)->accounts = accounts;
    return 0;
}

void http_tournaments_free(struct http_tournaments *tournaments)
{
    free(tournaments);
}

/* The body as a tournament.create message: 0, or -1 with a 400 sent. */
static int decode(const transport_http_request *request, transport_http_response *response,
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
    return rc == 0 ? 0 : -1;
}

static void create_route(void *context, const transport_http_request *request,
                         transport_http_response *response)
{
    struct http_tournaments *tournaments = context;
    int64_t actor = 0, id = 0;
    protocol_message message;
    protocol_failure failure;
    if (http_accounts_authorize(tournaments->accounts, request, response, &actor) != 0 ||
        decode(request, response, &message) != 0)
        return;
    int rc = lobby_tournament_create(tournaments->lobby, &message.body.tournament, &id, &failure);
    protocol_message_clear(&message);
    if (rc == PROTOCOL_E_BAD_MESSAGE) {
        http_error_respond(response, request->path, 400, "bad_request", failure.message);
        return;
    }
    if (rc != 0) {
        http_error_respond(response, request->path, 503, protocol_error_name(rc), failure.message);
        return;
    }
    char url[64];
    snprintf(url, sizeof(url), "/api/tournaments/%lld", (long long)id);
    http_response_json(response, 201, json_pack("{s:I, s:s}", "id", (json_int_t)id, "url", url));
}

int http_tournaments_add_routes(http_routes *routes, struct http_tournaments *tournaments)
{
    return http_routes_add(routes, "POST", "/api/tournaments", create_route, tournaments);
}

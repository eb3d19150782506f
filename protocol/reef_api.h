/* reef_api.h -- the stateless Reef Builder HTTP API, without the HTTP.
 *
 *   GET  /api/games/reef-builder/init?seed=N     -> {state, legalActions}
 *   POST /api/games/reef-builder/action          -> {state, legalActions, result}
 *        with body {state, action}
 *
 * The server keeps nothing between requests: the client carries `state`
 * forward. Because a client may edit it, `state` is never believed: it
 * carries the seed and the history of actions played (a compact string, see
 * docs/REEF_API.md), every request replays them through the engine, and
 * every visible field the client sent must equal the replayed one. So a
 * forged board or score never reaches a leaderboard; the price is a replay
 * per request and a body that grows by about 4 bytes per action played.
 *
 * These functions are pure: text in, status and JSON text out, no sockets,
 * no globals, so the transport only routes requests and copies bytes.
 * docs/REEF_API.md is the bot author's guide: shapes, examples, error codes. */
#ifndef TESSERA_REEF_API_H
#define TESSERA_REEF_API_H

#include <stddef.h>

#include "protocol/url_query.h"

/* An HTTP answer: status 200, 400, 422 or 500, and a JSON body, malloc'd and
 * owned by the caller. Errors are {"error": {"code", "message"}}. body is
 * NULL only if memory ran out (status 500). */
typedef struct reef_api_response {
    int status;
    char *body;
} reef_api_response;

/* Answers the init request. `query` holds the decoded arguments; it must be
 * exactly one `seed=N`, N decimal in 0..2^64-1. */
void reef_api_init(const url_query *query, reef_api_response *out);

/* Answers the action request: verifies `state` by replaying it, then plays
 * `action`. `body` is the request body, `length` bytes, not NUL-terminated. */
void reef_api_action(const char *body, size_t length, reef_api_response *out);

/* Frees the response body; safe on a zeroed or already cleared response. */
void reef_api_response_clear(reef_api_response *response);

#endif

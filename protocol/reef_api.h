/* reef_api.h -- the stateless Reef Builder HTTP API, without the HTTP.
 *
 *   GET  /api/games/reef-builder/init?seed=N     -> {state, legalActions}
 *   POST /api/games/reef-builder/action          -> {state, legalActions, result}
 *        with body {state, action}
 *   POST /api/games/reef-builder/submit          -> the run, on the leaderboards
 *        with body {token, state}: the run is checked here, the token
 *        and the storing are the lobby's
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
#include <stdint.h>

#include "engine/reef.h"

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

/* The longest token a submission may carry. */
#define REEF_API_TOKEN_MAX 128

/* A run submitted for the leaderboards, verified by replaying it. */
typedef struct reef_api_run {
    char *token; /* who claims it: a session token or a bot key, unchecked */
    uint64_t seed;
    int64_t score;
    uint32_t turns;
    char *history_json; /* the run's history, as a JSON string */
} reef_api_run;

/* Checks a submission body {token, state} like an action's state (decoded,
 * replayed, every visible field equal) and requires the run to be played
 * to its end: over, or at REEF_STANDARD_TURNS turns; a longer run is
 * refused (422 run_too_long), a shorter one that could go on too (422
 * run_not_over). 0 and *run (free it with reef_api_run_clear), or -1 and
 * *refusal, an answer as reef_api_action gives. Who the token names is the
 * caller's to check. */
int reef_api_submission(const char *body, size_t length, reef_api_run *run,
                        reef_api_response *refusal);

/* Replays `history` (the state's history string, e.g. "00r 23d s") from
 * `seed` into *out: 0, or -1 with `problem` saying which action fails. */
int reef_api_replay(uint64_t seed, const char *history, reef_state *out, char *problem,
                    size_t size);

/* Frees a run's strings; safe on a zeroed or cleared run. */
void reef_api_run_clear(reef_api_run *run);

/* Frees the response body; safe on a zeroed or already cleared response. */
void reef_api_response_clear(reef_api_response *response);

#endif

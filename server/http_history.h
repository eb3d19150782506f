/* http_history.h -- the history API on HTTP: its routes, read on the
 * reader pool.
 *
 * A history read can take milliseconds (a replay plays a whole game
 * through the rules), so none runs on the loop. A request is parsed on the
 * loop (bad input is answered at once), then runs on the reader pool
 * (reader_pool.h), encoding its answer there, and the answer goes out from
 * the loop. With every connection busy, requests wait their turn; past the
 * pool's limit of waiting jobs a request is answered 503 at once. */
#ifndef TESSERA_HTTP_HISTORY_H
#define TESSERA_HTTP_HISTORY_H

#include <stdint.h>
#include <uv.h>

#include "server/http_routes.h"
#include "server/reader_pool.h"
#include "server/transport.h"

struct http_history;

/* The history API reading through `readers` (borrowed). Blokus
 * leaderboards list players with at least `min_games` games. 0 and *out,
 * or a store_error after logging why. */
int http_history_new(struct reader_pool *readers, int64_t min_games, struct http_history **out);

/* Registers the GET routes of history/history.h. 0 or -ENOMEM. */
int http_history_add_routes(struct http_history *history, http_routes *routes);

/* Where answers go: called once the transport exists. NULL detaches it
 * (answers finishing afterwards are dropped). */
void http_history_attach(struct http_history *history, struct transport *transport);

/* Requests running or waiting. */
int http_history_jobs_in_flight(const struct http_history *history);

/* Frees it; no job may be in flight. NULL is allowed. */
void http_history_free(struct http_history *history);

#endif

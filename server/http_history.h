/* http_history.h -- the history API on HTTP: routes, readers, workers.
 *
 * A history read can take milliseconds (a replay plays a whole game
 * through the rules), so none runs on the loop. The module owns a small
 * pool of read-only database connections (storage/store_read.h); a request
 * is parsed on the loop (bad input is answered at once), then takes a free
 * connection and runs on libuv's thread pool, encoding its answer there,
 * and the answer goes out from the loop. With every connection busy,
 * requests wait in a queue on the loop, first come first served, and past
 * HTTP_HISTORY_MAX_WAITING of them a request is answered 503 at once. A
 * connection is only ever used by the one job holding it, and all the
 * bookkeeping happens on the loop, so there is no lock. */
#ifndef TESSERA_HTTP_HISTORY_H
#define TESSERA_HTTP_HISTORY_H

#include <stdint.h>
#include <uv.h>

#include "server/http_routes.h"
#include "server/transport.h"

/* Requests that may wait for a connection before new ones get 503. */
#define HTTP_HISTORY_MAX_WAITING 256

struct http_history;

/* Opens `readers` read-only connections to the database at `db_path`
 * (which the server's writer has already created and migrated). Blokus
 * leaderboards list players with at least `min_games` games. 0 and *out,
 * or a store_error after logging why. */
int http_history_new(uv_loop_t *loop, const char *db_path, int readers, int64_t min_games,
                     struct http_history **out);

/* Registers the GET routes of history/history.h. 0 or -ENOMEM. */
int http_history_add_routes(struct http_history *history, http_routes *routes);

/* Where answers go: called once the transport exists. NULL detaches it
 * (answers finishing afterwards are dropped). */
void http_history_attach(struct http_history *history, struct transport *transport);

/* Requests running or waiting. */
int http_history_jobs_in_flight(const struct http_history *history);

/* Closes the connections; no job may be in flight. NULL is allowed. */
void http_history_free(struct http_history *history);

#endif

/* http_harness.h -- REST routes driven as the server drives them, for the
 * unit tests and the fuzzers: a libuv loop, a reader pool
 * (server/reader_pool.h) on a fresh SQLite database file, and the
 * transport's deferred answers recorded -- this harness defines
 * transport_http_respond, so a test linking it links no real transport. */
#ifndef TESSERA_HTTP_HARNESS_H
#define TESSERA_HTTP_HARNESS_H

#include <stdint.h>

#include "server/http_routes.h"
#include "server/reader_pool.h"

/* Opens a fresh database (its schema made), the loop and a pool of two
 * readers on it: 0, or a store error. */
int http_harness_open(void);

/* The database (writable, on the test's thread), the loop, the pool, and
 * the stand-in transport to attach the routes to. */
store *http_harness_db(void);
uv_loop_t *http_harness_loop(void);
struct reader_pool *http_harness_readers(void);
struct transport *http_harness_transport(void);

/* Dispatches a request to `routes`, then, when it was deferred, runs the
 * loop until it is answered or the pool has nothing left to run. *answer
 * is its answer (the caller's: free its body), or status 0 and no body:
 * held (its record waits on the store). */
void http_harness_dispatch(http_routes *routes, const char *method, const char *path,
                           const char *authorization, const char *body, size_t length,
                           transport_http_response *answer);

/* Takes the answer the transport got for the `index`th request dispatched
 * (from 0, since open) into *answer: whether it came. */
bool http_harness_answer(int index, transport_http_response *answer);

/* Closes the pool, the loop and the database, and removes its file. */
void http_harness_close(void);

#endif

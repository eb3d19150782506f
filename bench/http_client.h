/* http_client.h -- HTTP/1.1 GET requests on keep-alive connections, on
 * one libuv loop.
 *
 * The load generator's REST side (tessera-load --history). A connection
 * carries one request at a time (no pipelining), so a request never waits
 * behind another's answer on the same socket: a request that finds every
 * connection busy opens one more, up to `max_connections`, and beyond
 * that waits in a FIFO list for the first connection to come free. With
 * enough connections, an answer's latency is the server's.
 *
 * An answer must carry Content-Length (tessera's always do; anything else
 * is reported as an error); "Connection: close" is honoured. A request
 * sent on a reused connection that the server closed before answering
 * (an idle keep-alive timing out) is sent again once on a new connection.
 *
 * Lifetimes: the callback of a request is called exactly once, on the
 * loop -- from inside http_client_get only when the request fails at once
 * (no connection can be opened) -- unless the client is freed first:
 * http_client_free drops the requests in flight without calling them. */
#ifndef TESSERA_BENCH_HTTP_CLIENT_H
#define TESSERA_BENCH_HTTP_CLIENT_H

#include <stddef.h>
#include <uv.h>

typedef struct http_client http_client;

/* What came back: a status and the body (borrowed, valid during the
 * callback; not NUL-terminated), or status 0 and `error` saying why not. */
typedef struct http_answer {
    int status;
    const char *body;
    size_t length;
    const char *error;
} http_answer;

typedef void (*http_client_callback)(void *user, const http_answer *answer);

/* A client of `host` (an IPv4 address) and `port` with at most
 * `max_connections` connections; 0 or a negative uv error. */
int http_client_new(uv_loop_t *loop, const char *host, int port, int max_connections,
                    http_client **out);

/* Sends `GET path` (copied); `callback` gets the answer with `user`.
 * 0, or UV_ENOMEM, or UV_EINVAL for a path over 2000 bytes (then nothing
 * was sent and no callback follows). */
int http_client_get(http_client *client, const char *path, http_client_callback callback,
                    void *user);

/* Connections open or opening now. */
int http_client_connection_count(const http_client *client);

/* Closes every connection and frees the client, running the loop until
 * their handles are closed; requests in flight are dropped silently. */
void http_client_free(http_client *client);

#endif

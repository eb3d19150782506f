/* transport.h -- websocket and HTTP connections on the server's libuv loop.
 *
 * The transport owns everything about sockets: it listens and accepts
 * itself (listener.c) and hands each connection to libwebsockets, which
 * runs on the caller's uv loop as a foreign loop; it reassembles fragmented messages
 * and enforces the limits below itself (lws 4.1 has no message size or
 * per-IP limit); it queues outgoing messages per connection and applies
 * backpressure. Above it, a connection is only a number and a message only
 * a complete UTF-8 text: the callbacks never see an lws type.
 *
 * Lifetimes: a connection id is announced by on_open, valid until on_close,
 * and never reused. on_message is called once per complete text message.
 * transport_send() copies the text, so callers keep ownership of theirs.
 *
 * Errors are negative errno values, as libuv's are (-ENOMEM, -ENOBUFS,
 * -ENOENT, or the uv_* call's that failed). Inside transport.c, the lws
 * callback's -1 is lws's own "close this connection", not an error code.
 *
 * Rules the transport applies by itself (server/transport.c has the why):
 * - A message over max_message_bytes, a binary message, or invalid UTF-8
 *   closes the connection (1009, 1003, 1007); the app never sees it.
 * - A message without credit is answered by the transport with
 *   {"type":"error","code":"rate_limited","message":"too many messages;
 *   slow down"}; rate_strikes_to_close refusals in a row close it (1008).
 * - A send queue past send_queue_max_bytes, or the largest queues when all
 *   of them together would pass send_queue_budget_bytes, close their
 *   connections (1013, reader too slow).
 * - A connection silent for idle_timeout_s is closed (1001); one whose
 *   reading was paused by a long send queue for that long is dropped
 *   without a close frame (its reader is too slow).
 * - Past connections_per_ip open connections from one address (HTTP or
 *   websocket, counted from accept to close), a new connection is closed
 *   as soon as it is accepted, before a byte is read. During a shutdown
 *   the websocket handshake is refused (dropped without an HTTP answer).
 * - Out of file descriptors, the transport stops accepting until a
 *   connection closes (retrying every 250 ms meanwhile), so new clients
 *   wait in the kernel's backlog; it logs that at most once a second.
 * - HTTP requests: every answer is complete (status, Content-Length, the
 *   body), and every error a JSON body from http_error.h. A request that
 *   cannot be framed (malformed or repeated Content-Length, any
 *   Transfer-Encoding, a POST/PUT/PATCH without a length) gets 400 or 411
 *   and the connection is closed after the answer; a path or query that is
 *   not UTF-8, or a path holding a NUL, gets 400; a body over
 *   max_http_body_bytes gets 413; past the per-address HTTP rate
 *   (http_requests_per_second, http_burst) 429 with Retry-After; during a
 *   shutdown 503. JSON responses carry `Cache-Control: no-store`; every
 *   answer, lws's own too, the security headers of docs/API.md
 *   (Content-Security-Policy and two more). lws refuses a few requests
 *   before the transport sees them (http_exchange.c lists them).
 *   Pipelining with a body (a request with one written before the answer
 *   to the one before, or any behind it) is refused: the later request is
 *   not read, the answer in hand says `Connection: close` and the
 *   connection is closed after it, or at once when the app answers later
 *   (http_exchange.c).
 * - A close the transport or the app requests is sent after the queued
 *   messages; a peer that does not answer it is cut off after 5 s. */
#ifndef TESSERA_TRANSPORT_H
#define TESSERA_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "protocol/url_query.h"
#include "server/origin.h"
#include "server/proxy.h"

struct transport;

/* Close codes the transport uses (RFC 6455). */
#define TRANSPORT_CLOSE_NORMAL         1000
#define TRANSPORT_CLOSE_GOING_AWAY     1001 /* shutdown, idle timeout */
#define TRANSPORT_CLOSE_UNSUPPORTED    1003 /* a binary message */
#define TRANSPORT_CLOSE_INVALID_TEXT   1007 /* text that is not UTF-8 (sent by lws) */
#define TRANSPORT_CLOSE_POLICY         1008 /* rate limit kept being exceeded */
#define TRANSPORT_CLOSE_TOO_BIG        1009 /* inbound message over max_message_bytes */
#define TRANSPORT_CLOSE_INTERNAL_ERROR 1011 /* out of memory */
#define TRANSPORT_CLOSE_TRY_AGAIN      1013 /* send queue overflow: reader too slow */

typedef struct transport_limits {
    size_t max_message_bytes;    /* inbound cap, default 16 KiB; over it: close 1009 */
    size_t max_http_body_bytes;  /* HTTP request bodies, default 256 KiB; over it: 413 */
    int messages_per_second;     /* credit refill rate, default 20 */
    int message_burst;           /* credit bucket size, default 40 */
    int rate_strikes_to_close;   /* refused messages in a row before close 1008, default 20 */
    int connections_per_ip;      /* default 32; over it a new connection is closed at accept */
    int connection_rate;         /* new connections per second per address, 100 (bursts of 300) */
    size_t send_queue_bytes;     /* queued outbound bytes before rx flow control, default 1 MiB */
    size_t send_queue_max_bytes; /* queued bytes after which the peer is dropped (1013), 8 MiB */
    size_t send_queue_budget_bytes; /* all queues together; past it the largest go (1013), 64 MiB */
    int ping_interval_s;            /* websocket ping when idle this long, default 30; 0: never */
    int idle_timeout_s;             /* no traffic (pongs included) this long: close, 90; 0: never */
    int handshake_timeout_s;        /* to send the request headers, default 10 */
    int http_requests_per_second;   /* per peer address, refill rate, default 100 */
    int http_burst;                 /* per peer address, bucket size, default 200; over: 429 */
    char allowed_origins[ORIGIN_LIST_SIZE]; /* origin.h; "" (default): any page */
    char trusted_proxies[PROXY_LIST_SIZE];  /* proxy.h; "" (default): none */
} transport_limits;

/* A complete HTTP request (body included) routed to on_http. Everything
 * it points to lives until on_http returns. */
typedef struct transport_http_request {
    const char *method;     /* "GET", "POST", ... */
    const char *path;       /* decoded, without the query string; valid UTF-8 */
    const url_query *query; /* the decoded arguments (see url_query.h) */
    const char *body;       /* NUL-terminated, "" if none */
    size_t body_length;
    const char *peer_ip;
    uint64_t exchange;         /* names the request for transport_http_respond() */
    const char *authorization; /* the Authorization header; "" if none or too long */
    bool accepts_gzip;         /* its Accept-Encoding allows gzip (http_encoding.h) */
    const char *if_none_match; /* the If-None-Match header (http_etag.h); "" if none or long */
} transport_http_request;

/* The longest Authorization header kept, in bytes. */
#define TRANSPORT_AUTHORIZATION_MAX 255

#define TRANSPORT_ALLOW_SIZE 64

/* The response on_http fills in. body is owned by the transport after the
 * callback returns (malloc'd; NULL for none). A handler that answers later
 * sets is_deferred, keeps request->exchange and calls
 * transport_http_respond() from the loop; the rest is then ignored. */
typedef struct transport_http_response {
    int status;                /* 200, 404, 422, ... ; 0 = not handled: 404 */
    const char *content_type;  /* static string, e.g. "application/json" */
    const char *cache_control; /* static string; NULL: "no-store" for JSON, none else */
    char *body;
    size_t body_length;
    char allow[TRANSPORT_ALLOW_SIZE]; /* a 405's Allow header, e.g. "GET, POST"; "" none */
    int retry_after_s;                /* a Retry-After header in seconds; 0 none */
    const char *content_encoding;     /* static string, e.g. "gzip" (the body is so); NULL none */
    const char *etag;                 /* an ETag living as long as the server; NULL none */
    bool varies_by_encoding;          /* Vary: Accept-Encoding (the body depends on it) */
    bool is_deferred;                 /* answered later with transport_http_respond() */
} transport_http_response;

typedef struct transport_callbacks {
    void *context; /* passed to every callback */
    void (*on_open)(void *context, uint64_t connection, const char *peer_ip);
    void (*on_message)(void *context, uint64_t connection, const char *text, size_t length);
    void (*on_close)(void *context, uint64_t connection);
    void (*on_http)(void *context, const transport_http_request *request,
                    transport_http_response *response);
    /* Once per turn of the loop that has something to send, after the
     * turn's messages were handed to the app and before their answers are
     * sent; NULL for none. The server hands the database writer the
     * turn's moves here, so they are stored while the loop sends. */
    void (*on_turn_end)(void *context);
} transport_callbacks;

/* What the transport counts, for /metrics; every field only grows but
 * send_queue_bytes, which is what the send budget holds now. */
typedef struct transport_stats {
    uint64_t websockets_opened;
    uint64_t refused_per_ip;    /* connections over connections_per_ip, closed at accept */
    uint64_t refused_rate;      /* connections over connection_rate, closed at accept */
    uint64_t messages;          /* complete messages handed to the app */
    uint64_t rate_limited;      /* messages refused with rate_limited */
    uint64_t rate_closed;       /* connections closed for staying over the rate */
    uint64_t too_big;           /* connections closed for a message over the size cap */
    uint64_t binary;            /* connections closed for a binary message */
    uint64_t slow_dropped;      /* readers dropped for a send queue that would not drain */
    uint64_t idle_closed;       /* connections closed for silence */
    uint64_t origin_refused;    /* websocket upgrades from a page not allowed (origin.h) */
    uint64_t slow_requests;     /* HTTP bodies that took longer than handshake-timeout: 408 */
    uint64_t http_responses[6]; /* HTTP answers by status class: [2] is 2xx, ... */
    uint64_t http_rate_limited; /* HTTP requests answered 429 */
    uint64_t send_queue_bytes;  /* send budget in use: every queue, and lws's partial sends */
} transport_stats;

/* A copy of the counters. */
void transport_stats_read(const struct transport *transport, transport_stats *out);

/* The defaults listed in transport_limits. */
transport_limits transport_default_limits(void);

/* Starts listening on bind_address:port (an IP literal; port 0 picks a
 * free port) on `loop`. 0 and *out, or a negative errno-style code (e.g.
 * -EADDRINUSE). Routes lws's own log (errors and warnings only) to log.h. */
int transport_new(uv_loop_t *loop, const char *bind_address, int port,
                  const transport_limits *limits, const transport_callbacks *callbacks,
                  struct transport **out);

/* The port actually listened on. */
int transport_port(const struct transport *transport);

/* Number of open websocket connections. */
int transport_connection_count(const struct transport *transport);

/* Queues a copy of `text` for `connection`. 0, or -ENOENT for an unknown
 * or closing connection. A queue past send_queue_max_bytes drops the
 * connection (close 1013) and returns -ENOBUFS; past the send budget the
 * largest queues are dropped first (1013), and -ENOBUFS when that was this
 * connection's. */
int transport_send(struct transport *transport, uint64_t connection, const char *text,
                   size_t length);

/* As transport_send, for a message nobody is waiting on (a spectator's
 * event): it leaves within TRANSPORT_SOON_MS, in one send with whatever
 * else was queued for that connection by then, so a fast game's watchers
 * cost a send per batch of moves, not per move. Order is kept: a message
 * sent at once later takes the waiting ones with it. */
#define TRANSPORT_SOON_MS 50
int transport_send_soon(struct transport *transport, uint64_t connection, const char *text,
                        size_t length);

/* Answers the deferred request `exchange` (see transport_http_response)
 * on the loop thread; takes ownership of response->body in every case.
 * 0, or -ENOENT when the client is gone (its connection closed meanwhile)
 * or the exchange was answered already: the response is then dropped. */
int transport_http_respond(struct transport *transport, uint64_t exchange,
                           transport_http_response *response);

/* Lets `connection`'s next `messages` messages pass the rate limit free
 * (the app asked for them: a seat's turn began). Unknown ids are ignored. */
void transport_grant(struct transport *transport, uint64_t connection, int messages);

/* Closes a connection with `code` after its queued messages are written;
 * `reason` (up to 63 bytes are kept) may be NULL. Unknown ids are ignored. */
void transport_close(struct transport *transport, uint64_t connection, int code,
                     const char *reason);

/* Graceful stop: refuse new websockets (503 for HTTP), close every
 * connection with 1001 after flushing its queue, then call `done` (on the
 * loop) once all are closed or `timeout_ms` passed. Messages arriving
 * meanwhile are dropped; on_close is still called until `done`, and no
 * callback at all after it. The listening socket stays open until
 * transport_free. The transport must still be freed afterwards. */
void transport_shutdown(struct transport *transport, int timeout_ms, void (*done)(void *context),
                        void *context);

/* Destroys the lws context (twice, as docs/ARCHITECTURE.md,
 * "Foreign-loop teardown" requires) and frees everything, calling no
 * callback. It runs the loop itself (UV_RUN_NOWAIT) until the transport's
 * and lws's handles are closed, so it must not be called from inside
 * uv_run; the caller's other handles may stay open. NULL is allowed. */
void transport_free(struct transport *transport);

#endif

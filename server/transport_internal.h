/* transport_internal.h -- what the transport's files share (private).
 *
 * transport.c owns the lws context, the websocket connections and the
 * timers; http_exchange.c answers plain HTTP requests on the same port,
 * and owns the HTTP rate limiter and the table of deferred requests.
 * Both see the transport and lws's per-connection user data. */
#ifndef TESSERA_TRANSPORT_INTERNAL_H
#define TESSERA_TRANSPORT_INTERNAL_H

#include <libwebsockets.h>
#include <stdbool.h>

#include "server/address_counts.h"
#include "server/connection.h"
#include "server/listener.h"
#include "server/transport.h"
#include "util/id_table.h"
#include "util/rate_limit.h"

struct http_exchange;

struct transport {
    uv_loop_t *loop;
    struct lws_context *context;
    struct lws_vhost *vhost;   /* no listener of its own: it adopts ours */
    struct listener *listener; /* NULL once transport_free began */
    transport_limits limits;
    transport_callbacks callbacks;
    uint64_t last_id;
    id_table connections;        /* id -> connection (websockets) */
    address_counts *addresses;   /* open connections (HTTP or websocket) per address */
    rate_limit *accept_rate;     /* new connections per address (transport.c) */
    struct lws *serviced_socket; /* the wsi whose callback is running, if any */
    uv_timer_t sweep_timer;
    uv_timer_t shutdown_timer;
    uv_check_t flush_check; /* after each turn of the loop: writes what was queued */
    uv_timer_t soon_timer;  /* TRANSPORT_SOON_MS after a message that can wait */
    int open_timers;        /* handles closing in transport_free */
    struct connection_ids {
        uint64_t *ids;
        size_t count, capacity;
    } dirty, waiting; /* to flush at the end of the turn / when soon_timer fires */
    bool is_shutting_down;
    bool are_callbacks_detached; /* the app is gone or going: call nothing */
    void (*shutdown_done)(void *context);
    void *shutdown_context;
    rate_limit *http_rate;  /* per-address token buckets (http_exchange.c) */
    id_table http_deferred; /* exchange id -> struct http_exchange awaiting the struct app */
    uint64_t last_exchange;
    uint32_t request_prefix; /* random, the first part of every request id */
    transport_stats stats;   /* what /metrics shows */
    size_t all_queued;       /* send budget in use: every queue, and lws's part (transport.c) */
    unsigned char *batch;    /* LWS_PRE, then the frames of one send (transport.c) */
    size_t batch_capacity;
};

/* The client's address (transport.c): the peer's, or a trusted proxy's
 * X-Forwarded-For client. */
void transport_client_address(struct transport *transport, struct lws *wsi, const char *peer,
                              char *out, size_t size);

/* lws's per-connection user data, zeroed by lws: a websocket connection
 * or the HTTP request in progress. */
struct session {
    connection *connection;
    struct http_exchange *http;
};

/* http_exchange.c: one HTTP request and its response, per lws callback. */

/* Creates the HTTP side's state (the rate limiter). 0 or -ENOMEM. */
int http_exchanges_init(struct transport *transport);

/* Frees it; every exchange must be freed already. */
void http_exchanges_free(struct transport *transport);

/* LWS_CALLBACK_HTTP: the headers are in; answer now or wait for the body. */
int http_begin(struct transport *transport, struct lws *wsi, struct session *session,
               const char *path);

/* LWS_CALLBACK_HTTP_BODY: a piece of the body. */
int http_receive_body(struct transport *transport, struct http_exchange *exchange, const char *data,
                      size_t length);

/* LWS_CALLBACK_HTTP_BODY_COMPLETION: the whole body is in; answer. */
int http_complete_body(struct transport *transport, struct lws *wsi, struct session *session);

/* LWS_CALLBACK_HTTP_WRITEABLE: write more of the response. */
int http_write(struct transport *transport, struct lws *wsi, struct session *session);

/* Frees the request in progress of a session, if any; a deferred one is
 * forgotten, so its late answer is dropped. */
void http_exchange_free(struct transport *transport, struct session *session);

#endif

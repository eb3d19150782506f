/* transport.c -- libwebsockets 4.1 on the server's libuv loop.
 *
 * One lws context with one vhost and one protocol serves the whole port:
 * HTTP requests and websocket upgrades on any path both arrive at
 * `callback`, which only dispatches. lws joins the caller's loop as a
 * foreign loop, so the transport adds two uv timers of its own and never
 * runs the loop except in transport_free. The vhost does not listen: our
 * listener (listener.c, which says why) accepts, and admit() hands each
 * socket to lws with lws_adopt_socket_vhost.
 *
 * What lws 4.1 does not do, this file does (docs/ARCHITECTURE.md,
 * "What libwebsockets 4.1 leaves to the server"):
 * - Size cap: each received piece is checked, with the rest of its frame as
 *   announced by the header, against max_message_bytes before it is
 *   buffered; over it, close 1009 at once (connection.c).
 * - Per-IP limit: every adopted socket holds a count of its peer address
 *   (address_counts.c, O(1)) from accept until lws frees it
 *   (LWS_CALLBACK_WSI_DESTROY); admit() closes a connection over the
 *   limit before lws sees it, so half-open handshakes count too.
 * - Liveness: a sweep timer pings connections that were silent for
 *   ping_interval_s and closes those silent for idle_timeout_s (1001). A
 *   connection whose reading is paused by backpressure is silent too: that
 *   is the reader that stays too slow, and it is cut off (see below). lws's own
 *   validity pings are disabled (policy at the maximum) so that ours is
 *   the one rule.
 * - Handshake timeout: lws's "ah idle" timeout, which covers a connection
 *   from accept to the end of its request headers.
 * - Writing: messages are queued per connection, and at the end of each
 *   turn of the loop (a uv_check handle) every connection queued to is
 *   written at once, all its messages framed by us into one send (see
 *   flush_connection, write_frames). WRITEABLE is asked for only when the
 *   kernel would not take more: lws's libuv glue turns each request into
 *   two epoll_ctl calls, which cost more than the send.
 * - Backpressure: reading stops past send_queue_bytes queued and resumes
 *   below it; past send_queue_max_bytes the connection is dropped (1013).
 * - Send budget: every connection's queue, and what lws still holds of a
 *   send the kernel took only in part, count against one total,
 *   send_queue_budget_bytes, so many slow readers together cannot take more
 *   memory than one operator-chosen figure. A message that would pass it
 *   first drops the connections with the largest queues (the slowest
 *   readers: a queue grows while its reader does not read), 1013 like any
 *   reader too slow, until it fits (fit_budget). Dropping clears a queue at
 *   once; lws's part goes when the connection closes.
 *
 * Every close we decide goes one of two ways. A peer that still reads is
 * closed in order (start_close): the queue is flushed, then we write the
 * close frame ourselves and wait, reading and discarding, for the peer's
 * answer; an lws timeout kills the connection if that takes more than
 * CLOSE_GRACE_S. send_close_frame() says why lws's own close path is not
 * used. A peer that reads nothing more (a slow reader whose socket is full
 * when it is dropped, a paused reader gone silent) would not read a close
 * frame either, queued behind the data it leaves unread: it is cut off at
 * once, its socket reset so that neither we nor the kernel keep its unsent
 * data (cut, reset_on_close); so is any connection that ends without a
 * close frame from the peer (one that did not answer ours within the
 * grace, or went without one). Either way the descriptor, the address's count
 * and the budget's bytes are free within CLOSE_GRACE_S, whatever the peer
 * does; set_deadline says what that takes from lws.
 *
 * HTTP requests are handled in http_exchange.c: this file only dispatches
 * their callbacks.
 *
 * Once transport_shutdown has called `done`, or transport_free has begun,
 * no callback reaches the app: it may be freed already. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>

#include <libwebsockets.h>

#include "server/connection.h"
#include "server/log.h"
#include "server/transport.h"
#include "server/transport_internal.h"

#define PROTOCOL_NAME  "tessera"
#define RX_CHUNK_BYTES 16384 /* largest piece of a frame lws hands us at once */
/* Largest piece of a frame lws offers the kernel in one send. Left at 0,
 * lws would use RX_CHUNK_BYTES and split every bigger message (a Blokus
 * move list is often 20 KB) into two sends a poll cycle apart, copying
 * the rest into its own buffer in between. */
#define TX_CHUNK_BYTES            (256 * 1024)
#define SWEEP_INTERVAL_MS         500   /* resolution of the ping and idle rules */
#define CLOSE_GRACE_S             5     /* after a close request, kill if still open */
#define LWS_VALIDITY_NEVER        65535 /* seconds: lws's own ping and hangup, disabled */
#define CONNECTION_BURST_FACTOR   3     /* new connections at once: 3 seconds' worth */
#define ACCEPT_RATE_MAX_ADDRESSES 65536 /* buckets kept at most */

/* The opcode lws writes close frames with (no longer in its public enum). */
#define LWS_WRITE_CLOSE ((enum lws_write_protocol)4)

/* lws 4.1 does not report a pong with an empty payload: ping with one. */
#define PING_PAYLOAD "tessera"

#define RATE_LIMITED_ERROR                                                                         \
    "{\"type\":\"error\",\"code\":\"rate_limited\",\"message\":\"too many messages; slow down\"}"

/* The security headers of every HTTP answer, ours and lws's own (it adds a
 * vhost's headers to each status line it writes). The page loads nothing
 * but its own files and runs no inline script or style; 'self' also covers
 * its websocket (CSP 3 matches ws: to the page's http: origin). */
static const struct lws_protocol_vhost_options REFERRER_POLICY = {
    NULL, NULL, "referrer-policy:", "same-origin"};
static const struct lws_protocol_vhost_options NO_SNIFF = {&REFERRER_POLICY, NULL,
                                                           "x-content-type-options:", "nosniff"};
static const struct lws_protocol_vhost_options SECURITY_HEADERS = {
    &NO_SNIFF, NULL, "content-security-policy:",
    "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"};

static const lws_retry_bo_t LWS_VALIDITY_POLICY = {
    .secs_since_valid_ping = LWS_VALIDITY_NEVER,
    .secs_since_valid_hangup = LWS_VALIDITY_NEVER,
};

void transport_stats_read(const struct transport *transport, transport_stats *out)
{
    *out = transport->stats;
    out->send_queue_bytes = transport->all_queued;
}

transport_limits transport_default_limits(void)
{
    transport_limits limits = {
        .max_message_bytes = 16 * 1024,
        .max_http_body_bytes = 256 * 1024,
        .messages_per_second = 20,
        .message_burst = 40,
        .rate_strikes_to_close = 20,
        .connections_per_ip = 32,
        .connection_rate = 100,
        .send_queue_bytes = 1024 * 1024,
        .send_queue_max_bytes = 8 * 1024 * 1024,
        .send_queue_budget_bytes = 64 * 1024 * 1024,
        .ping_interval_s = 30,
        .idle_timeout_s = 90,
        .handshake_timeout_s = 10,
        .http_requests_per_second = 100,
        .http_burst = 200,
    };
    return limits;
}

/* lws's own log lines (errors and warnings only) go to ours, rate-limited:
 * lws logs some failures each time it retries them, which can be a storm. */
static void emit_lws_log(int level, const char *line)
{
    if (level == LLL_ERR)
        log_error_limited("lws: %s", line);
    else
        log_warn_limited("lws: %s", line);
}

/* ---- accepted sockets ------------------------------------------------------ */

/* Whether `address` may open one more connection now: a trusted proxy
 * (proxy.h) always may, as it carries many players and caps each itself;
 * anyone else within connections_per_ip open at once and connection_rate
 * new ones a second. */
static bool may_connect(struct transport *transport, const char *address, int open_count)
{
    if (proxy_is_trusted(transport->limits.trusted_proxies, address))
        return true;
    if (open_count > transport->limits.connections_per_ip) {
        log_warn_limited("refusing connection from %s: it has %d connections already", address,
                         open_count - 1);
        transport->stats.refused_per_ip++;
        return false;
    }
    if (rate_limit_take(transport->accept_rate, rate_limit_address_key(address),
                        uv_now(transport->loop)) > 0) {
        log_warn_limited("refusing connection from %s: more than %d new connections a second",
                         address, transport->limits.connection_rate);
        transport->stats.refused_rate++;
        return false;
    }
    return true;
}

/* The listener's callback: the per-address limits, then lws takes the fd.
 * The address's count is held by the wsi (its opaque user data) until lws
 * frees it (forget_socket), so it covers HTTP requests and handshakes in
 * progress, not only open websockets. */
static void admit(void *context, int fd, const char *address)
{
    struct transport *transport = context;
    address_count *entry;
    if (address_counts_acquire(transport->addresses, address, &entry) < 0) {
        log_error_limited("refusing connection from %s: out of memory", address);
        close(fd);
        return;
    }
    if (!may_connect(transport, address, address_count_value(entry))) {
        address_counts_release(transport->addresses, entry);
        close(fd);
        return;
    }
    struct lws *wsi = lws_adopt_socket_vhost(transport->vhost, fd);
    if (!wsi) { /* lws closed the fd */
        log_error_limited("lws could not adopt a connection from %s", address);
        address_counts_release(transport->addresses, entry);
        return;
    }
    lws_set_opaque_user_data(wsi, entry);
}

/* LWS_CALLBACK_WSI_DESTROY: lws freed a socket it adopted and closed its
 * descriptor, so the address has one connection less and a struct listener
 * paused for want of descriptors may accept again. */
static void forget_socket(struct transport *transport, struct lws *wsi)
{
    address_count *entry = lws_get_opaque_user_data(wsi);
    if (!entry)
        return;
    lws_set_opaque_user_data(wsi, NULL);
    address_counts_release(transport->addresses, entry);
    if (transport->listener)
        listener_descriptor_freed(transport->listener);
}

/* The peer's address as admit() saw it. */
static const char *peer_address_of(struct lws *wsi)
{
    const address_count *entry = lws_get_opaque_user_data(wsi);
    return entry ? address_count_address(entry) : "unknown";
}

/* The client's address: the peer's, or behind a trusted proxy the one the
 * proxy wrote last into X-Forwarded-For (proxy.h). */
void transport_client_address(struct transport *transport, struct lws *wsi, const char *peer,
                              char *out, size_t size)
{
    snprintf(out, size, "%s", peer);
    if (!proxy_is_trusted(transport->limits.trusted_proxies, peer))
        return;
    char forwarded[512];
    if (lws_hdr_copy(wsi, forwarded, sizeof(forwarded), WSI_TOKEN_X_FORWARDED_FOR) > 0)
        proxy_forwarded_client(forwarded, out, size);
}

/* ---- websocket connections ---------------------------------------------- */

static unsigned long long id_of(const connection *peer)
{
    return (unsigned long long)peer->id;
}

/* Stops or resumes reading `peer` as its queue passes send_queue_bytes. */
static void update_reading(struct transport *transport, connection *peer)
{
    bool should_pause =
        peer->queued_bytes > transport->limits.send_queue_bytes && !peer->is_closing;
    if (should_pause == peer->is_reading_paused)
        return;
    peer->is_reading_paused = should_pause;
    int flags = should_pause ? 0 : 1;
    /* From outside this wsi's own callback lws would defer the change to
     * its next service, which a paused wsi may never get. */
    if (peer->socket != transport->serviced_socket)
        flags |= LWS_RXFLOW_REASON_FLAG_PROCESS_NOW;
    lws_rx_flow_control(peer->socket, flags);
}

/* Asks lws for a WRITEABLE callback unless one is on its way. Each request
 * re-arms the socket's poll in lws's libuv glue (uv_poll_start, which
 * costs an epoll_ctl or two even when nothing changes), so a connection
 * asks once per batch of messages, not once per message. */
static void request_writable(connection *peer)
{
    if (peer->is_writable_requested)
        return;
    peer->is_writable_requested = true;
    lws_callback_on_writable(peer->socket);
}

/* Kills `peer`'s connection `seconds` from now (LWS_TO_KILL_ASYNC: on lws's
 * next turn). lws checks its timeouts on a uv timer that only its own
 * service re-arms, after each event it handles; a timeout set from one of
 * our timers or from the app would wait for the next event of any lws
 * socket, or lws's own 30 s timer. Waking the service (lws_cancel_service)
 * makes it re-arm in this turn of the loop. */
static void set_deadline(struct transport *transport, connection *peer, int seconds)
{
    lws_set_timeout(peer->socket, PENDING_TIMEOUT_USER_OK, seconds);
    if (!transport->serviced_socket)
        lws_cancel_service(transport->context);
}

/* Asks for a close with `code` once the queue is written. */
static void start_close(struct transport *transport, connection *peer, int code, const char *reason)
{
    if (peer->is_closing)
        return;
    peer->is_closing = true;
    peer->close_code = code;
    snprintf(peer->close_reason, sizeof(peer->close_reason), "%s", reason);
    update_reading(transport, peer); /* read again, to see the peer's close answer */
    request_writable(peer);
    set_deadline(transport, peer, CLOSE_GRACE_S);
}

/* Makes the close of `peer`'s socket a reset (SO_LINGER 0): the kernel
 * drops what it still holds for a peer that does not read, instead of
 * keeping it, unsent, in FIN-WAIT or LAST-ACK for minutes. Should
 * setsockopt fail, the close is an orderly one. */
static void reset_on_close(connection *peer)
{
    struct linger reset = {.l_onoff = 1, .l_linger = 0};
    lws_sockfd_type fd = lws_get_socket_fd(peer->socket);
    if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset)) < 0)
        log_warn_limited("connection %llu: cannot set SO_LINGER (%s); closing it in order",
                         id_of(peer), strerror(errno));
}

/* Cuts `peer` off without a close frame, for a peer that takes nothing
 * more (a close frame would wait behind what it does not read) or a failed
 * send: its queue goes now, and lws frees it, resetting the socket (see
 * close_websocket), on its next turn. */
static void cut(struct transport *transport, connection *peer)
{
    peer->is_closing = true;
    connection_clear_queue(peer);
    set_deadline(transport, peer, LWS_TO_KILL_ASYNC);
}

/* Appends a connection id to a list of connections to flush: 0, or
 * -ENOMEM. */
static int remember(struct connection_ids *list, uint64_t id)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 64;
        uint64_t *grown = realloc(list->ids, capacity * sizeof(*grown));
        if (!grown)
            return -ENOMEM;
        list->ids = grown;
        list->capacity = capacity;
    }
    list->ids[list->count++] = id;
    return 0;
}

/* Marks `peer` for the flush at the end of this turn of the loop, which
 * writes everything queued to it in one send, straight away. Only a
 * connection the kernel would not take more from waits for WRITEABLE:
 * asking lws for it costs two epoll_ctl calls (its libuv glue stops and
 * starts the poll), more than the send itself. */
static void mark_dirty(struct transport *transport, connection *peer)
{
    if (peer->is_dirty || peer->is_writable_requested)
        return;
    if (remember(&transport->dirty, peer->id) != 0) {
        request_writable(peer); /* the slow way still works */
        return;
    }
    peer->is_dirty = true;
}

static void flush_waiting(uv_timer_t *timer);

/* Marks `peer` for the flush TRANSPORT_SOON_MS from the first message that
 * can wait; a flush of `peer` before then takes its messages along. */
static void mark_waiting(struct transport *transport, connection *peer)
{
    if (peer->is_waiting || peer->is_dirty || peer->is_writable_requested)
        return;
    if (remember(&transport->waiting, peer->id) != 0) {
        mark_dirty(transport, peer);
        return;
    }
    peer->is_waiting = true;
    if (!uv_is_active((uv_handle_t *)&transport->soon_timer))
        uv_timer_start(&transport->soon_timer, flush_waiting, TRANSPORT_SOON_MS, 0);
}

/* Counts what lws holds of `peer`'s last send in the send budget. lws
 * keeps the part the kernel refused (at most that send, which the count
 * takes whole), writes it before anything else, and calls WRITEABLE only
 * once it is gone; so a connection holding some asks for WRITEABLE, and the
 * count ends there (write_queue) or when the connection closes. */
static void set_lws_buffered(struct transport *transport, connection *peer, size_t bytes)
{
    transport->all_queued = transport->all_queued - peer->lws_buffered + bytes;
    peer->lws_buffered = bytes;
}

/* Drops a reader too slow for what is sent to it: its queue goes at once.
 * If its socket still takes data, a close (1013) follows; if not (lws holds
 * part of a send, or the kernel refuses more), the peer is not reading and
 * would never read a close frame either, so it is cut off now. */
static void drop_slow_reader(struct transport *transport, connection *peer)
{
    transport->stats.slow_dropped++;
    connection_clear_queue(peer);
    if (peer->lws_buffered > 0 || lws_send_pipe_choked(peer->socket))
        cut(transport, peer);
    else
        start_close(transport, peer, TRANSPORT_CLOSE_TRY_AGAIN, "reader too slow");
}

static void visit_for_largest_queue(void *value, void *context)
{
    connection *peer = value, **largest = context;
    if (peer->queued_bytes > 0 && (!*largest || peer->queued_bytes > (*largest)->queued_bytes))
        *largest = peer;
}

/* Makes room for `cost` more bytes in the send budget by dropping the
 * connections with the largest queues, the first found of equals. 0, or
 * -ENOBUFS when `peer` was dropped itself: its queue was the largest, or
 * nothing queued was left to drop (lws holds the rest, until it is sent or
 * its connection closes). A walk of every connection per drop: drops are
 * rare, and each frees at least the average queue. */
static int fit_budget(struct transport *transport, connection *peer, size_t cost)
{
    size_t budget = transport->limits.send_queue_budget_bytes;
    while (transport->all_queued + cost > budget) {
        connection *largest = NULL;
        id_table_each(&transport->connections, visit_for_largest_queue, &largest);
        if (!largest)
            largest = peer;
        log_warn_limited(
            "dropping connection %llu: the send budget (%zu bytes, %zu in use) is full "
            "and its queue (%zu bytes) is the largest (reader too slow)",
            id_of(largest), budget, transport->all_queued, largest->queued_bytes);
        drop_slow_reader(transport, largest);
        if (largest == peer)
            return -ENOBUFS;
    }
    return 0;
}

static int enqueue(struct transport *transport, connection *peer, const char *text, size_t length,
                   bool can_wait)
{
    if (peer->queued_bytes + length > transport->limits.send_queue_max_bytes) {
        log_warn_limited("dropping connection %llu: send queue over %zu bytes (reader too slow)",
                         id_of(peer), transport->limits.send_queue_max_bytes);
        drop_slow_reader(transport, peer);
        return -ENOBUFS;
    }
    if (fit_budget(transport, peer, connection_frame_cost(peer, length)) < 0)
        return -ENOBUFS;
    if (connection_push(peer, text, length) < 0)
        return -ENOMEM;
    if (can_wait)
        mark_waiting(transport, peer);
    else
        mark_dirty(transport, peer);
    update_reading(transport, peer);
    return 0;
}

/* Decides on an upgrade request: nonzero refuses it, and lws then drops
 * the connection without an answer. (An HTTP error answer would be nicer,
 * but lws 4.1 calls LWS_CALLBACK_HTTP_CONFIRM_UPGRADE before it gives the
 * connection our per-session data, so there is nowhere to keep one.) The
 * per-address limit was applied at accept (admit). */
static int filter_websocket(struct transport *transport, struct lws *wsi)
{
    if (transport->is_shutting_down) {
        log_info_limited("refusing websocket from %s: shutting down", peer_address_of(wsi));
        return 1;
    }
    char origin[ORIGIN_LIST_SIZE] = "", host[256] = "";
    if (lws_hdr_copy(wsi, origin, sizeof(origin), WSI_TOKEN_ORIGIN) < 0)
        origin[0] = '\0';
    if (lws_hdr_copy(wsi, host, sizeof(host), WSI_TOKEN_HOST) < 0)
        host[0] = '\0';
    if (origin_is_allowed(transport->limits.allowed_origins, origin, host))
        return 0;
    transport->stats.origin_refused++;
    log_info_limited("refusing websocket from %s: origin %s is not allowed (allowed-origins)",
                     peer_address_of(wsi), origin);
    return 1;
}

static int open_websocket(struct transport *transport, struct lws *wsi, struct session *session)
{
    char ip[CONNECTION_IP_SIZE];
    transport_client_address(transport, wsi, peer_address_of(wsi), ip, sizeof(ip));
    connection *peer;
    if (connection_new(transport->last_id + 1, ip, LWS_PRE + CONNECTION_FRAME_HEADER_MAX,
                       uv_now(transport->loop), &transport->limits, &transport->all_queued,
                       &peer) < 0)
        return -1;
    if (id_table_put(&transport->connections, peer->id, peer) != 0) {
        connection_free(peer);
        return -1;
    }
    transport->last_id++;
    transport->stats.websockets_opened++;
    peer->socket = wsi;
    session->connection = peer;
    log_debug("connection %llu open from %s", id_of(peer), ip);
    if (!transport->are_callbacks_detached && transport->callbacks.on_open)
        transport->callbacks.on_open(transport->callbacks.context, peer->id, ip);
    return 0;
}

/* Once every connection is closed, or at the deadline, ends a shutdown. */
static void finish_shutdown(struct transport *transport)
{
    void (*done)(void *) = transport->shutdown_done;
    if (!done)
        return;
    transport->shutdown_done = NULL;
    transport->are_callbacks_detached = true;
    uv_timer_stop(&transport->shutdown_timer);
    done(transport->shutdown_context);
}

static void close_websocket(struct transport *transport, struct session *session)
{
    connection *peer = session->connection;
    if (!peer)
        return;
    session->connection = NULL;
    /* No close handshake (cut off, out of grace, or gone without a close
     * frame): whatever the kernel still holds for the peer would not be read. */
    if (!peer->is_close_received)
        reset_on_close(peer);
    id_table_remove(&transport->connections, peer->id);
    log_debug("connection %llu closed", id_of(peer));
    if (!transport->are_callbacks_detached && transport->callbacks.on_close)
        transport->callbacks.on_close(transport->callbacks.context, peer->id);
    set_lws_buffered(transport, peer, 0); /* lws frees its buffers with the socket */
    connection_free(peer);
    if (transport->is_shutting_down && transport->connections.count == 0)
        finish_shutdown(transport);
}

/* Closes `peer` for breaking a rule; the rest of its input is discarded. */
static void refuse(struct transport *transport, connection *peer, int code, const char *reason)
{
    log_info_limited("closing connection %llu: %s (%d)", id_of(peer), reason, code);
    start_close(transport, peer, code, reason);
}

/* A complete message: spend a credit on it, or refuse it. */
static void deliver(struct transport *transport, connection *peer)
{
    connection_verdict verdict =
        connection_take_credit(peer, uv_now(transport->loop), &transport->limits);
    if (verdict == CONNECTION_DELIVER) {
        transport->stats.messages++;
        if (!transport->is_shutting_down && !transport->are_callbacks_detached &&
            transport->callbacks.on_message)
            transport->callbacks.on_message(transport->callbacks.context, peer->id, peer->message,
                                            peer->message_length);
        connection_reset_message(peer);
        return;
    }
    connection_reset_message(peer);
    transport->stats.rate_limited++;
    if (enqueue(transport, peer, RATE_LIMITED_ERROR, sizeof(RATE_LIMITED_ERROR) - 1, false) < 0)
        return;
    if (verdict == CONNECTION_REFUSE_AND_CLOSE) {
        transport->stats.rate_closed++;
        log_info_limited("closing connection %llu: %d messages in a row over the rate limit",
                         id_of(peer), peer->strikes);
        start_close(transport, peer, TRANSPORT_CLOSE_POLICY, "rate limit exceeded");
    }
}

static int receive(struct transport *transport, struct lws *wsi, connection *peer, const char *data,
                   size_t length)
{
    peer->last_heard_ms = uv_now(transport->loop);
    if (peer->is_closing)
        return 0;
    int rc = lws_frame_is_binary(wsi)
                 ? -EPROTO
                 : connection_append(peer, data, length, lws_remaining_packet_payload(wsi),
                                     transport->limits.max_message_bytes);
    if (rc == 0 && lws_is_final_fragment(wsi))
        deliver(transport, peer);
    if (rc == 0)
        return 0;
    connection_reset_message(peer);
    if (rc == -EPROTO) {
        transport->stats.binary++;
        refuse(transport, peer, TRANSPORT_CLOSE_UNSUPPORTED, "binary messages are not supported");
    } else if (rc == -EMSGSIZE) {
        transport->stats.too_big++;
        refuse(transport, peer, TRANSPORT_CLOSE_TOO_BIG, "message too big");
    } else
        refuse(transport, peer, TRANSPORT_CLOSE_INTERNAL_ERROR, "out of memory");
    return 0;
}

/* Sends our close frame and keeps the connection open, reading and
 * discarding, until the peer answers with its own (see the callback for
 * LWS_CALLBACK_WS_PEER_INITIATED_CLOSE) or the close grace runs out.
 *
 * lws 4.1 offers lws_close_reason() and a -1 return instead, but does not
 * do what it promises: from WRITEABLE it sends no close frame at all (it
 * takes -1 there for a failed write), and from other callbacks it closes
 * the socket right after the frame without waiting for the answer, so a
 * peer still sending gets a TCP reset that can destroy the close frame
 * before it is read. LWS_WRITE_CLOSE (4) left the public enum in 4.x but
 * is still what lws itself writes close frames with. */
static int send_close_frame(struct lws *wsi, connection *peer)
{
    unsigned char frame[LWS_PRE + 2 + CONNECTION_REASON_SIZE];
    size_t reason_length = strlen(peer->close_reason);
    frame[LWS_PRE] = (unsigned char)(peer->close_code >> 8);
    frame[LWS_PRE + 1] = (unsigned char)(peer->close_code & 0xff);
    memcpy(frame + LWS_PRE + 2, peer->close_reason, reason_length);
    peer->is_close_sent = true;
    log_debug("connection %llu: close frame sent (%d)", id_of(peer), peer->close_code);
    return lws_write(wsi, frame + LWS_PRE, 2 + reason_length, LWS_WRITE_CLOSE) < 0 ? -1 : 0;
}

/* Room in transport->batch for a send of `length` bytes after LWS_PRE:
 * 0, or -ENOMEM. */
static int reserve_batch(struct transport *transport, size_t length)
{
    size_t wanted = LWS_PRE + (length > TX_CHUNK_BYTES ? length : TX_CHUNK_BYTES);
    if (wanted <= transport->batch_capacity)
        return 0;
    unsigned char *grown = realloc(transport->batch, wanted);
    if (!grown)
        return -ENOMEM;
    transport->batch = grown;
    transport->batch_capacity = wanted;
    return 0;
}

/* Writes queued messages, framed by us, as few sends as fit in a batch:
 * lws_write frames one message per call and lws sends each at once, so
 * game.moved and game.state would cost a send each. The frames are whole
 * and unmasked, so lws's raw path (which buffers what the kernel does not
 * take and asks for WRITEABLE again) carries them as they are. */
static int write_frames(struct transport *transport, struct lws *wsi, connection *peer)
{
    if (connection_front(peer)->length >= CONNECTION_IN_PLACE_MIN) {
        size_t length;
        unsigned char *start = connection_frame_in_place(peer, &length);
        int rc = lws_write(wsi, start, length, LWS_WRITE_RAW); /* lws keeps what is not sent */
        connection_pop(peer);
        if (rc < 0)
            return -1;
        if (lws_partial_buffered(wsi))
            set_lws_buffered(transport, peer, length);
        return 0;
    }
    size_t first = connection_front(peer)->length + CONNECTION_FRAME_HEADER_MAX;
    if (reserve_batch(transport, first) < 0)
        return -1;
    unsigned char *start = transport->batch + LWS_PRE;
    size_t length = connection_pack_frames(peer, start, transport->batch_capacity - LWS_PRE);
    if (lws_write(wsi, start, length, LWS_WRITE_RAW) < 0)
        return -1;
    if (lws_partial_buffered(wsi))
        set_lws_buffered(transport, peer, length);
    return 0;
}

/* Writes the due ping and queued messages while the kernel takes them:
 * lws calls WRITEABLE when the socket can take a write, and a write the
 * kernel took whole (lws holds none of it: lws_partial_buffered) is
 * followed by the next; lws keeps what the kernel refuses of one and the
 * rest waits for WRITEABLE. (lws_send_pipe_choked would ask the kernel
 * first, at a poll(2) a write.) */
static int write_queue(struct transport *transport, struct lws *wsi, connection *peer)
{
    peer->is_writable_requested = false;
    if (!lws_partial_buffered(wsi))
        set_lws_buffered(transport, peer, 0);
    if (peer->is_ping_due) {
        unsigned char ping[LWS_PRE + sizeof(PING_PAYLOAD)];
        memcpy(ping + LWS_PRE, PING_PAYLOAD, sizeof(PING_PAYLOAD) - 1);
        peer->is_ping_due = false;
        if (lws_write(wsi, ping + LWS_PRE, sizeof(PING_PAYLOAD) - 1, LWS_WRITE_PING) < 0)
            return -1;
    }
    while (connection_front(peer) && !lws_partial_buffered(wsi)) {
        if (write_frames(transport, wsi, peer) < 0)
            return -1;
    }
    update_reading(transport, peer);
    if (connection_front(peer) || peer->lws_buffered > 0 ||
        (peer->is_closing && lws_send_pipe_choked(wsi))) {
        request_writable(peer);
        return 0;
    }
    if (peer->is_closing && !peer->is_close_sent)
        return send_close_frame(wsi, peer);
    return 0;
}

/* Writes `peer`'s queue now (one send of whole frames) unless lws still
 * holds part of an earlier send: then, and for the rest of a queue longer
 * than one send or a send the kernel took in part (lws keeps it), WRITEABLE
 * goes on. The kernel is not asked first: it nearly always takes the send,
 * and asking costs a poll(2) (lws_send_pipe_choked) for each. A failed send
 * kills the connection. */
static void flush_connection(struct transport *transport, connection *peer)
{
    peer->is_dirty = false;
    peer->is_waiting = false;
    if (!connection_front(peer) || peer->is_writable_requested)
        return;
    if (peer->is_closing || lws_partial_buffered(peer->socket)) {
        request_writable(peer);
        return;
    }
    if (write_frames(transport, peer->socket, peer) < 0) {
        log_info_limited("connection %llu: send failed; closing it", id_of(peer));
        cut(transport, peer);
        return;
    }
    update_reading(transport, peer);
    /* More than one batch, or lws holds part of it: the rest as the kernel takes it. */
    if (connection_front(peer) || peer->lws_buffered > 0)
        request_writable(peer);
}

/* Flushes the connections of `list` that are still open and still marked
 * (is_dirty, or is_waiting for the `waiting` list: a connection flushed
 * meanwhile has nothing left to say). */
static void flush_list(struct transport *transport, struct connection_ids *list, bool waiting)
{
    for (size_t i = 0; i < list->count; i++) {
        connection *peer = id_table_get(&transport->connections, list->ids[i]);
        if (peer && (waiting ? peer->is_waiting : peer->is_dirty))
            flush_connection(transport, peer);
    }
    list->count = 0;
}

static void flush(uv_check_t *check)
{
    struct transport *transport = check->data;
    if (transport->dirty.count > 0 && transport->callbacks.on_turn_end)
        transport->callbacks.on_turn_end(transport->callbacks.context);
    flush_list(transport, &transport->dirty, false);
}

static void flush_waiting(uv_timer_t *timer)
{
    struct transport *transport = timer->data;
    flush_list(transport, &transport->waiting, true);
}

/* The sweep's rules for one connection: idle close, slow drop, ping. */
static void check_liveness(struct transport *transport, connection *peer, uint64_t now_ms)
{
    uint64_t silent_ms = now_ms - peer->last_heard_ms;
    uint64_t idle_ms = (uint64_t)transport->limits.idle_timeout_s * 1000;
    uint64_t ping_ms = (uint64_t)transport->limits.ping_interval_s * 1000;
    if (idle_ms > 0 && silent_ms >= idle_ms && peer->is_reading_paused) {
        log_warn_limited("dropping connection %llu: reader too slow (%zu bytes queued for %d s)",
                         id_of(peer), peer->queued_bytes, transport->limits.idle_timeout_s);
        transport->stats.slow_dropped++;
        cut(transport, peer);
        return;
    }
    if (idle_ms > 0 && silent_ms >= idle_ms) {
        log_info_limited("closing connection %llu: silent for %d s", id_of(peer),
                         transport->limits.idle_timeout_s);
        transport->stats.idle_closed++;
        start_close(transport, peer, TRANSPORT_CLOSE_GOING_AWAY, "idle timeout");
        return;
    }
    if (ping_ms > 0 && silent_ms >= ping_ms && now_ms - peer->last_ping_ms >= ping_ms) {
        peer->last_ping_ms = now_ms;
        peer->is_ping_due = true;
        request_writable(peer);
    }
}

static void visit_for_liveness(void *value, void *context)
{
    connection *peer = value;
    struct transport *transport = context;
    if (!peer->is_closing)
        check_liveness(transport, peer, uv_now(transport->loop));
}

/* Nothing a visit does closes a connection at once (lws closes later, on
 * its own service), so the table does not change during the walk. */
static void sweep(uv_timer_t *timer)
{
    struct transport *transport = timer->data;
    id_table_each(&transport->connections, visit_for_liveness, transport);
}

/* ---- lws callback ---------------------------------------------------------- */

static int dispatch(struct transport *transport, struct lws *wsi, enum lws_callback_reasons reason,
                    struct session *session, void *in, size_t length)
{
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return filter_websocket(transport, wsi);
    case LWS_CALLBACK_ESTABLISHED:
        return open_websocket(transport, wsi, session);
    case LWS_CALLBACK_RECEIVE:
        return session->connection ? receive(transport, wsi, session->connection, in, length) : -1;
    case LWS_CALLBACK_RECEIVE_PONG:
        if (session->connection)
            session->connection->last_heard_ms = uv_now(transport->loop);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return session->connection ? write_queue(transport, wsi, session->connection) : 0;
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* After our close frame this is the answer: close without echoing. */
        if (!session->connection)
            return 0;
        session->connection->is_close_received = true;
        return session->connection->is_close_sent ? -1 : 0;
    case LWS_CALLBACK_CLOSED:
        close_websocket(transport, session);
        return 0;
    case LWS_CALLBACK_HTTP:
        return http_begin(transport, wsi, session, in);
    case LWS_CALLBACK_HTTP_BODY:
        return http_receive_body(transport, session->http, in, length);
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        return http_complete_body(transport, wsi, session);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return http_write(transport, wsi, session);
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
    case LWS_CALLBACK_CLOSED_HTTP:
        http_exchange_free(transport, session);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, session, in, length);
    }
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t length)
{
    struct transport *transport = lws_context_user(lws_get_context(wsi));
    if (transport && reason == LWS_CALLBACK_WSI_DESTROY)
        forget_socket(transport, wsi);
    if (!transport || !user)
        return lws_callback_http_dummy(wsi, reason, user, in, length);
    struct lws *outer_socket = transport->serviced_socket;
    transport->serviced_socket = wsi;
    int rc = dispatch(transport, wsi, reason, user, in, length);
    transport->serviced_socket = outer_socket;
    return rc;
}

static const struct lws_protocols PROTOCOLS[] = {
    {PROTOCOL_NAME, callback, sizeof(struct session), RX_CHUNK_BYTES, 0, NULL, TX_CHUNK_BYTES},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* ---- life cycle ---------------------------------------------------------- */

static void on_handle_closed(uv_handle_t *handle)
{
    struct transport *transport = handle->data;
    transport->open_timers--;
}

static void note_closing_handle(uv_handle_t *handle, void *any_closing)
{
    if (uv_is_closing(handle))
        *(bool *)any_closing = true;
}

/* Runs the loop without blocking until our timers and every handle lws
 * started closing are closed; the app's live handles are left alone. */
static void run_until_closed(struct transport *transport)
{
    bool any_closing;
    do {
        uv_run(transport->loop, UV_RUN_NOWAIT);
        any_closing = false;
        uv_walk(transport->loop, note_closing_handle, &any_closing);
    } while (transport->open_timers > 0 || any_closing);
}

/* docs/ARCHITECTURE.md, "Foreign-loop teardown": the first destroy closes
 * every connection and starts closing lws's uv handles, the loop runs until
 * they are closed, and only the second destroy frees the context. */
static void destroy_context(struct transport *transport)
{
    lws_context_destroy(transport->context);
    run_until_closed(transport);
    lws_context_destroy(transport->context);
    transport->context = NULL;
}

/* The lws context and its one vhost, which has no listening socket: it
 * adopts the connections our listener accepts. */
static int create_context(struct transport *transport)
{
    struct lws_context_creation_info info;
    void *foreign_loops[1] = {transport->loop};
    memset(&info, 0, sizeof(info));
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_VALIDATE_UTF8 |
                   LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    info.foreign_loops = foreign_loops;
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = PROTOCOLS;
    info.user = transport;
    info.timeout_secs_ah_idle = (unsigned int)transport->limits.handshake_timeout_s;
    info.retry_and_idle_policy = &LWS_VALIDITY_POLICY;
    info.headers = &SECURITY_HEADERS;
    info.gid = -1;
    info.uid = -1;
    transport->context = lws_create_context(&info);
    if (!transport->context)
        return -ENOMEM;
    /* The vhost is created apart: when the default vhost of
     * lws_create_context fails, lws 4.1 with a foreign loop frees memory
     * holding uv handles that are still on our loop. */
    transport->vhost = lws_create_vhost(transport->context, &info);
    if (!transport->vhost) {
        destroy_context(transport);
        return -ENOMEM;
    }
    return 0;
}

int transport_new(uv_loop_t *loop, const char *bind_address, int port,
                  const transport_limits *limits, const transport_callbacks *callbacks,
                  struct transport **out)
{
    struct transport *transport = calloc(1, sizeof(*transport));
    if (!transport)
        return -ENOMEM;
    transport->loop = loop;
    transport->limits = *limits;
    transport->callbacks = *callbacks;
    lws_set_log_level(LLL_ERR | LLL_WARN, emit_lws_log);
    int rc = http_exchanges_init(transport);
    if (rc == 0)
        rc = address_counts_new(NULL, &transport->addresses);
    if (rc == 0)
        rc = rate_limit_new(transport->limits.connection_rate,
                            CONNECTION_BURST_FACTOR * transport->limits.connection_rate,
                            ACCEPT_RATE_MAX_ADDRESSES, &transport->accept_rate);
    if (rc < 0) {
        address_counts_free(transport->addresses);
        http_exchanges_free(transport);
        free(transport);
        return rc;
    }
    rc = create_context(transport);
    if (rc == 0)
        rc = listener_new(loop, bind_address, port, admit, transport, &transport->listener);
    if (rc < 0) {
        if (transport->context)
            destroy_context(transport);
        address_counts_free(transport->addresses);
        rate_limit_free(transport->accept_rate);
        http_exchanges_free(transport);
        free(transport);
        return rc;
    }
    uv_timer_init(loop, &transport->sweep_timer);
    uv_timer_init(loop, &transport->shutdown_timer);
    uv_check_init(loop, &transport->flush_check);
    uv_timer_init(loop, &transport->soon_timer);
    transport->sweep_timer.data = transport;
    transport->shutdown_timer.data = transport;
    transport->flush_check.data = transport;
    transport->soon_timer.data = transport;
    transport->open_timers = 4;
    uv_timer_start(&transport->sweep_timer, sweep, SWEEP_INTERVAL_MS, SWEEP_INTERVAL_MS);
    uv_check_start(&transport->flush_check, flush);
    *out = transport;
    return 0;
}

int transport_port(const struct transport *transport)
{
    return listener_port(transport->listener);
}

int transport_connection_count(const struct transport *transport)
{
    return (int)transport->connections.count;
}

int transport_send(struct transport *transport, uint64_t connection_id, const char *text,
                   size_t length)
{
    connection *peer = id_table_get(&transport->connections, connection_id);
    if (!peer || peer->is_closing)
        return -ENOENT;
    return enqueue(transport, peer, text, length, false);
}

int transport_send_soon(struct transport *transport, uint64_t connection_id, const char *text,
                        size_t length)
{
    connection *peer = id_table_get(&transport->connections, connection_id);
    if (!peer || peer->is_closing)
        return -ENOENT;
    return enqueue(transport, peer, text, length, true);
}

void transport_grant(struct transport *transport, uint64_t connection_id, int messages)
{
    connection *peer = id_table_get(&transport->connections, connection_id);
    if (peer)
        connection_grant(peer, messages);
}

void transport_close(struct transport *transport, uint64_t connection_id, int code,
                     const char *reason)
{
    connection *peer = id_table_get(&transport->connections, connection_id);
    if (peer)
        start_close(transport, peer, code, reason ? reason : "");
}

static void on_shutdown_deadline(uv_timer_t *timer)
{
    struct transport *transport = timer->data;
    if (transport->connections.count > 0)
        log_warn("shutdown: %zu connections still open at the deadline",
                 transport->connections.count);
    finish_shutdown(transport);
}

static void close_for_shutdown(void *value, void *context)
{
    start_close(context, value, TRANSPORT_CLOSE_GOING_AWAY, "server shutting down");
}

void transport_shutdown(struct transport *transport, int timeout_ms, void (*done)(void *context),
                        void *context)
{
    if (transport->is_shutting_down)
        return;
    transport->is_shutting_down = true;
    transport->shutdown_done = done;
    transport->shutdown_context = context;
    log_info("shutdown: closing %zu connections", transport->connections.count);
    id_table_each(&transport->connections, close_for_shutdown,
                  transport); /* closes later: see sweep() */
    uv_timer_start(&transport->shutdown_timer, on_shutdown_deadline,
                   transport->connections.count > 0 ? (uint64_t)timeout_ms : 0, 0);
}

static void free_connection(void *value, void *context)
{
    (void)context;
    connection_free(value);
}

void transport_free(struct transport *transport)
{
    if (!transport)
        return;
    transport->are_callbacks_detached = true;
    transport->shutdown_done = NULL;
    uv_close((uv_handle_t *)&transport->sweep_timer, on_handle_closed);
    uv_close((uv_handle_t *)&transport->shutdown_timer, on_handle_closed);
    uv_close((uv_handle_t *)&transport->flush_check, on_handle_closed);
    uv_close((uv_handle_t *)&transport->soon_timer, on_handle_closed);
    listener_free(transport->listener);
    transport->listener = NULL;
    destroy_context(transport); /* runs the loop until our timers and the listener are closed too */
    id_table_each(&transport->connections, free_connection, NULL);
    id_table_clear(&transport->connections);
    rate_limit_free(transport->accept_rate);
    address_counts_free(transport->addresses);
    http_exchanges_free(transport);
    free(transport->batch);
    free(transport->dirty.ids);
    free(transport->waiting.ids);
    free(transport);
}

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
 * What lws 4.1 does not do, this file does (see DESIGN.md):
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
 *   is the reader that stays too slow, and it is dropped without a close
 *   frame, which could not get through its full pipe anyway. lws's own
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
 *
 * Every close we decide goes the same way (start_close): the queue is
 * flushed, then we write the close frame ourselves and wait, reading and
 * discarding, for the peer's answer; an lws timeout kills the connection
 * if that takes more than CLOSE_GRACE_S. send_close_frame() says why lws's
 * own close path is not used.
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
#define TX_CHUNK_BYTES     (256 * 1024)
#define SWEEP_INTERVAL_MS  500   /* resolution of the ping and idle rules */
#define CLOSE_GRACE_S      5     /* after a close request, kill if still open */
#define LWS_VALIDITY_NEVER 65535 /* seconds: lws's own ping and hangup, disabled */

/* The opcode lws writes close frames with (no longer in its public enum). */
#define LWS_WRITE_CLOSE ((enum lws_write_protocol)4)

/* lws 4.1 does not report a pong with an empty payload: ping with one. */
#define PING_PAYLOAD "tessera"

#define RATE_LIMITED_ERROR                                                                         \
    "{\"type\":\"error\",\"code\":\"rate_limited\",\"message\":\"too many messages; slow down\"}"

static const lws_retry_bo_t LWS_VALIDITY_POLICY = {
    .secs_since_valid_ping = LWS_VALIDITY_NEVER,
    .secs_since_valid_hangup = LWS_VALIDITY_NEVER,
};

transport_limits transport_default_limits(void)
{
    transport_limits limits = {
        .max_message_bytes = 16 * 1024,
        .max_http_body_bytes = 256 * 1024,
        .messages_per_second = 20,
        .message_burst = 40,
        .rate_strikes_to_close = 20,
        .connections_per_ip = 32,
        .send_queue_bytes = 1024 * 1024,
        .send_queue_max_bytes = 8 * 1024 * 1024,
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

/* The listener's callback: the per-address limit, then lws takes the fd.
 * The address's count is held by the wsi (its opaque user data) until lws
 * frees it (forget_socket), so it covers HTTP requests and handshakes in
 * progress, not only open websockets. */
static void admit(void *context, int fd, const char *address)
{
    transport *t = context;
    address_count *entry;
    if (address_counts_acquire(t->addresses, address, &entry) < 0) {
        log_error_limited("refusing connection from %s: out of memory", address);
        close(fd);
        return;
    }
    int count = address_count_value(entry);
    if (count > t->limits.connections_per_ip) {
        log_warn_limited("refusing connection from %s: it has %d connections already", address,
                         count - 1);
        address_counts_release(t->addresses, entry);
        close(fd);
        return;
    }
    struct lws *wsi = lws_adopt_socket_vhost(t->vhost, fd);
    if (!wsi) { /* lws closed the fd */
        log_error_limited("lws could not adopt a connection from %s", address);
        address_counts_release(t->addresses, entry);
        return;
    }
    lws_set_opaque_user_data(wsi, entry);
}

/* LWS_CALLBACK_WSI_DESTROY: lws freed a socket it adopted and closed its
 * descriptor, so the address has one connection less and a listener
 * paused for want of descriptors may accept again. */
static void forget_socket(transport *t, struct lws *wsi)
{
    address_count *entry = lws_get_opaque_user_data(wsi);
    if (!entry)
        return;
    lws_set_opaque_user_data(wsi, NULL);
    address_counts_release(t->addresses, entry);
    if (t->listener)
        listener_descriptor_freed(t->listener);
}

/* The peer's address as admit() saw it. */
static const char *peer_address_of(struct lws *wsi)
{
    const address_count *entry = lws_get_opaque_user_data(wsi);
    return entry ? address_count_address(entry) : "unknown";
}

/* ---- websocket connections ---------------------------------------------- */

static unsigned long long id_of(const connection *c)
{
    return (unsigned long long)c->id;
}

/* Stops or resumes reading `c` as its queue passes send_queue_bytes. */
static void update_reading(transport *t, connection *c)
{
    bool should_pause = c->queued_bytes > t->limits.send_queue_bytes && !c->is_closing;
    if (should_pause == c->is_reading_paused)
        return;
    c->is_reading_paused = should_pause;
    int flags = should_pause ? 0 : 1;
    /* From outside this wsi's own callback lws would defer the change to
     * its next service, which a paused wsi may never get. */
    if (c->socket != t->serviced_socket)
        flags |= LWS_RXFLOW_REASON_FLAG_PROCESS_NOW;
    lws_rx_flow_control(c->socket, flags);
}

/* Asks lws for a WRITEABLE callback unless one is on its way. Each request
 * re-arms the socket's poll in lws's libuv glue (uv_poll_start, which
 * costs an epoll_ctl or two even when nothing changes), so a connection
 * asks once per batch of messages, not once per message. */
static void request_writable(connection *c)
{
    if (c->is_writable_requested)
        return;
    c->is_writable_requested = true;
    lws_callback_on_writable(c->socket);
}

/* Asks for a close with `code` once the queue is written. */
static void start_close(transport *t, connection *c, int code, const char *reason)
{
    if (c->is_closing)
        return;
    c->is_closing = true;
    c->close_code = code;
    snprintf(c->close_reason, sizeof(c->close_reason), "%s", reason);
    update_reading(t, c); /* read again, to see the peer's close answer */
    request_writable(c);
    lws_set_timeout(c->socket, PENDING_TIMEOUT_USER_OK, CLOSE_GRACE_S);
}

/* Appends a connection id to a list of connections to flush: 0, or -1
 * out of memory. */
static int remember(struct connection_ids *list, uint64_t id)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 64;
        uint64_t *grown = realloc(list->ids, capacity * sizeof(*grown));
        if (!grown)
            return -1;
        list->ids = grown;
        list->capacity = capacity;
    }
    list->ids[list->count++] = id;
    return 0;
}

/* Marks `c` for the flush at the end of this turn of the loop, which
 * writes everything queued to it in one send, straight away. Only a
 * connection the kernel would not take more from waits for WRITEABLE:
 * asking lws for it costs two epoll_ctl calls (its libuv glue stops and
 * starts the poll), more than the send itself. */
static void mark_dirty(transport *t, connection *c)
{
    if (c->is_dirty || c->is_writable_requested)
        return;
    if (remember(&t->dirty, c->id) != 0) {
        request_writable(c); /* the slow way still works */
        return;
    }
    c->is_dirty = true;
}

static void flush_waiting(uv_timer_t *timer);

/* Marks `c` for the flush TRANSPORT_SOON_MS from the first message that
 * can wait; a flush of `c` before then takes its messages along. */
static void mark_waiting(transport *t, connection *c)
{
    if (c->is_waiting || c->is_dirty || c->is_writable_requested)
        return;
    if (remember(&t->waiting, c->id) != 0) {
        mark_dirty(t, c);
        return;
    }
    c->is_waiting = true;
    if (!uv_is_active((uv_handle_t *)&t->soon_timer))
        uv_timer_start(&t->soon_timer, flush_waiting, TRANSPORT_SOON_MS, 0);
}

static int enqueue(transport *t, connection *c, const char *text, size_t length, bool can_wait)
{
    if (c->queued_bytes + length > t->limits.send_queue_max_bytes) {
        log_warn_limited("dropping connection %llu: send queue over %zu bytes (reader too slow)",
                         id_of(c), t->limits.send_queue_max_bytes);
        connection_clear_queue(c);
        start_close(t, c, TRANSPORT_CLOSE_TRY_AGAIN, "reader too slow");
        return -ENOBUFS;
    }
    if (connection_push(c, text, length) < 0)
        return -ENOMEM;
    if (can_wait)
        mark_waiting(t, c);
    else
        mark_dirty(t, c);
    update_reading(t, c);
    return 0;
}

/* Decides on an upgrade request: nonzero refuses it, and lws then drops
 * the connection without an answer. (An HTTP error answer would be nicer,
 * but lws 4.1 calls LWS_CALLBACK_HTTP_CONFIRM_UPGRADE before it gives the
 * connection our per-session data, so there is nowhere to keep one.) The
 * per-address limit was applied at accept (admit). */
static int filter_websocket(transport *t, struct lws *wsi)
{
    if (!t->is_shutting_down)
        return 0;
    log_info_limited("refusing websocket from %s: shutting down", peer_address_of(wsi));
    return 1;
}

static int open_websocket(transport *t, struct lws *wsi, struct session *session)
{
    const char *ip = peer_address_of(wsi);
    connection *c;
    if (connection_new(t->last_id + 1, ip, LWS_PRE, uv_now(t->loop), &t->limits, &c) < 0)
        return -1;
    if (id_table_put(&t->connections, c->id, c) != 0) {
        connection_free(c);
        return -1;
    }
    t->last_id++;
    c->socket = wsi;
    session->connection = c;
    log_debug("connection %llu open from %s", id_of(c), ip);
    if (!t->are_callbacks_detached && t->callbacks.on_open)
        t->callbacks.on_open(t->callbacks.context, c->id, ip);
    return 0;
}

/* Once every connection is closed, or at the deadline, ends a shutdown. */
static void finish_shutdown(transport *t)
{
    void (*done)(void *) = t->shutdown_done;
    if (!done)
        return;
    t->shutdown_done = NULL;
    t->are_callbacks_detached = true;
    uv_timer_stop(&t->shutdown_timer);
    done(t->shutdown_context);
}

static void close_websocket(transport *t, struct session *session)
{
    connection *c = session->connection;
    if (!c)
        return;
    session->connection = NULL;
    id_table_remove(&t->connections, c->id);
    log_debug("connection %llu closed", id_of(c));
    if (!t->are_callbacks_detached && t->callbacks.on_close)
        t->callbacks.on_close(t->callbacks.context, c->id);
    connection_free(c);
    if (t->is_shutting_down && t->connections.count == 0)
        finish_shutdown(t);
}

/* Closes `c` for breaking a rule; the rest of its input is discarded. */
static void refuse(transport *t, connection *c, int code, const char *reason)
{
    log_info_limited("closing connection %llu: %s (%d)", id_of(c), reason, code);
    start_close(t, c, code, reason);
}

/* A complete message: spend a credit on it, or refuse it. */
static void deliver(transport *t, connection *c)
{
    connection_verdict verdict = connection_take_credit(c, uv_now(t->loop), &t->limits);
    if (verdict == CONNECTION_DELIVER) {
        if (!t->is_shutting_down && !t->are_callbacks_detached && t->callbacks.on_message)
            t->callbacks.on_message(t->callbacks.context, c->id, c->message, c->message_length);
        connection_reset_message(c);
        return;
    }
    connection_reset_message(c);
    if (enqueue(t, c, RATE_LIMITED_ERROR, sizeof(RATE_LIMITED_ERROR) - 1, false) < 0)
        return;
    if (verdict == CONNECTION_REFUSE_AND_CLOSE) {
        log_info_limited("closing connection %llu: %d messages in a row over the rate limit",
                         id_of(c), c->strikes);
        start_close(t, c, TRANSPORT_CLOSE_POLICY, "rate limit exceeded");
    }
}

static int receive(transport *t, struct lws *wsi, connection *c, const char *data, size_t length)
{
    c->last_heard_ms = uv_now(t->loop);
    if (c->is_closing)
        return 0;
    int rc = lws_frame_is_binary(wsi)
                 ? -EPROTO
                 : connection_append(c, data, length, lws_remaining_packet_payload(wsi),
                                     t->limits.max_message_bytes);
    if (rc == 0 && lws_is_final_fragment(wsi))
        deliver(t, c);
    if (rc == 0)
        return 0;
    connection_reset_message(c);
    if (rc == -EPROTO)
        refuse(t, c, TRANSPORT_CLOSE_UNSUPPORTED, "binary messages are not supported");
    else if (rc == -EMSGSIZE)
        refuse(t, c, TRANSPORT_CLOSE_TOO_BIG, "message too big");
    else
        refuse(t, c, TRANSPORT_CLOSE_INTERNAL_ERROR, "out of memory");
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
static int send_close_frame(struct lws *wsi, connection *c)
{
    unsigned char frame[LWS_PRE + 2 + CONNECTION_REASON_SIZE];
    size_t reason_length = strlen(c->close_reason);
    frame[LWS_PRE] = (unsigned char)(c->close_code >> 8);
    frame[LWS_PRE + 1] = (unsigned char)(c->close_code & 0xff);
    memcpy(frame + LWS_PRE + 2, c->close_reason, reason_length);
    c->is_close_sent = true;
    log_debug("connection %llu: close frame sent (%d)", id_of(c), c->close_code);
    return lws_write(wsi, frame + LWS_PRE, 2 + reason_length, LWS_WRITE_CLOSE) < 0 ? -1 : 0;
}

/* Writes the due ping and queued messages while the kernel takes them.
 * The first write needs no check: lws calls WRITEABLE when the socket can
 * take one write (and buffers whatever the kernel refuses of it); each
 * further one asks lws_send_pipe_choked, which costs a poll(2). */
/* Room in t->batch for a send of `length` bytes after LWS_PRE. */
static int reserve_batch(transport *t, size_t length)
{
    size_t wanted = LWS_PRE + (length > TX_CHUNK_BYTES ? length : TX_CHUNK_BYTES);
    if (wanted <= t->batch_capacity)
        return 0;
    unsigned char *grown = realloc(t->batch, wanted);
    if (!grown)
        return -1;
    t->batch = grown;
    t->batch_capacity = wanted;
    return 0;
}

/* Writes queued messages, framed by us, as few sends as fit in a batch:
 * lws_write frames one message per call and lws sends each at once, so
 * game.moved and game.state would cost a send each. The frames are whole
 * and unmasked, so lws's raw path (which buffers what the kernel does not
 * take and asks for WRITEABLE again) carries them as they are. */
static int write_frames(transport *t, struct lws *wsi, connection *c)
{
    size_t first = connection_front(c)->length + CONNECTION_FRAME_HEADER_MAX;
    if (reserve_batch(t, first) < 0)
        return -1;
    unsigned char *start = t->batch + LWS_PRE;
    size_t length = connection_pack_frames(c, start, t->batch_capacity - LWS_PRE);
    return lws_write(wsi, start, length, LWS_WRITE_RAW) < 0 ? -1 : 0;
}

static int write_queue(transport *t, struct lws *wsi, connection *c)
{
    bool is_first_write = true;
    c->is_writable_requested = false;
    if (c->is_ping_due) {
        unsigned char ping[LWS_PRE + sizeof(PING_PAYLOAD)];
        memcpy(ping + LWS_PRE, PING_PAYLOAD, sizeof(PING_PAYLOAD) - 1);
        c->is_ping_due = false;
        is_first_write = false;
        if (lws_write(wsi, ping + LWS_PRE, sizeof(PING_PAYLOAD) - 1, LWS_WRITE_PING) < 0)
            return -1;
    }
    while (connection_front(c) && (is_first_write || !lws_send_pipe_choked(wsi))) {
        is_first_write = false;
        if (write_frames(t, wsi, c) < 0)
            return -1;
    }
    update_reading(t, c);
    if (connection_front(c) || (c->is_closing && lws_send_pipe_choked(wsi))) {
        request_writable(c);
        return 0;
    }
    if (c->is_closing && !c->is_close_sent)
        return send_close_frame(wsi, c);
    return 0;
}

/* Writes `c`'s queue now if the kernel takes it (one send of whole frames;
 * lws keeps what a partial send left and asks for WRITEABLE itself), else
 * leaves it to WRITEABLE. A failed send kills the connection. */
static void flush_connection(transport *t, connection *c)
{
    c->is_dirty = false;
    c->is_waiting = false;
    if (!connection_front(c) || c->is_writable_requested)
        return;
    if (c->is_closing || lws_send_pipe_choked(c->socket)) {
        request_writable(c);
        return;
    }
    if (write_frames(t, c->socket, c) < 0) {
        log_info_limited("connection %llu: send failed; closing it", id_of(c));
        c->is_closing = true;
        connection_clear_queue(c);
        lws_set_timeout(c->socket, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        return;
    }
    update_reading(t, c);
    if (connection_front(c))
        request_writable(c); /* more than one batch: the rest as the kernel takes it */
}

/* Flushes the connections of `list` that are still open and still marked
 * (`is_marked`: a connection flushed meanwhile has nothing left to say). */
static void flush_list(transport *t, struct connection_ids *list, bool waiting)
{
    for (size_t i = 0; i < list->count; i++) {
        connection *c = id_table_get(&t->connections, list->ids[i]);
        if (c && (waiting ? c->is_waiting : c->is_dirty))
            flush_connection(t, c);
    }
    list->count = 0;
}

static void flush(uv_check_t *check)
{
    transport *t = check->data;
    flush_list(t, &t->dirty, false);
}

static void flush_waiting(uv_timer_t *timer)
{
    transport *t = timer->data;
    flush_list(t, &t->waiting, true);
}

/* The sweep's rules for one connection: idle close, slow drop, ping. */
static void check_liveness(transport *t, connection *c, uint64_t now_ms)
{
    uint64_t silent_ms = now_ms - c->last_heard_ms;
    uint64_t idle_ms = (uint64_t)t->limits.idle_timeout_s * 1000;
    uint64_t ping_ms = (uint64_t)t->limits.ping_interval_s * 1000;
    if (idle_ms > 0 && silent_ms >= idle_ms && c->is_reading_paused) {
        log_warn_limited("dropping connection %llu: reader too slow (%zu bytes queued for %d s)",
                         id_of(c), c->queued_bytes, t->limits.idle_timeout_s);
        c->is_closing = true;
        lws_set_timeout(c->socket, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        return;
    }
    if (idle_ms > 0 && silent_ms >= idle_ms) {
        log_info_limited("closing connection %llu: silent for %d s", id_of(c),
                         t->limits.idle_timeout_s);
        start_close(t, c, TRANSPORT_CLOSE_GOING_AWAY, "idle timeout");
        return;
    }
    if (ping_ms > 0 && silent_ms >= ping_ms && now_ms - c->last_ping_ms >= ping_ms) {
        c->last_ping_ms = now_ms;
        c->is_ping_due = true;
        request_writable(c);
    }
}

static void visit_for_liveness(void *value, void *context)
{
    connection *c = value;
    transport *t = context;
    if (!c->is_closing)
        check_liveness(t, c, uv_now(t->loop));
}

/* Nothing a visit does closes a connection at once (lws closes later, on
 * its own service), so the table does not change during the walk. */
static void sweep(uv_timer_t *timer)
{
    transport *t = timer->data;
    id_table_each(&t->connections, visit_for_liveness, t);
}

/* ---- lws callback ---------------------------------------------------------- */

static int dispatch(transport *t, struct lws *wsi, enum lws_callback_reasons reason,
                    struct session *session, void *in, size_t length)
{
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return filter_websocket(t, wsi);
    case LWS_CALLBACK_ESTABLISHED:
        return open_websocket(t, wsi, session);
    case LWS_CALLBACK_RECEIVE:
        return session->connection ? receive(t, wsi, session->connection, in, length) : -1;
    case LWS_CALLBACK_RECEIVE_PONG:
        if (session->connection)
            session->connection->last_heard_ms = uv_now(t->loop);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return session->connection ? write_queue(t, wsi, session->connection) : 0;
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* After our close frame this is the answer: close without echoing. */
        return session->connection && session->connection->is_close_sent ? -1 : 0;
    case LWS_CALLBACK_CLOSED:
        close_websocket(t, session);
        return 0;
    case LWS_CALLBACK_HTTP:
        return http_begin(t, wsi, session, in);
    case LWS_CALLBACK_HTTP_BODY:
        return http_receive_body(session->http, in, length);
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        return http_complete_body(t, session->http);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return http_write(t, wsi, session);
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
    case LWS_CALLBACK_CLOSED_HTTP:
        http_exchange_free(t, session);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, session, in, length);
    }
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t length)
{
    transport *t = lws_context_user(lws_get_context(wsi));
    if (t && reason == LWS_CALLBACK_WSI_DESTROY)
        forget_socket(t, wsi);
    if (!t || !user)
        return lws_callback_http_dummy(wsi, reason, user, in, length);
    struct lws *outer_socket = t->serviced_socket;
    t->serviced_socket = wsi;
    int rc = dispatch(t, wsi, reason, user, in, length);
    t->serviced_socket = outer_socket;
    return rc;
}

static const struct lws_protocols PROTOCOLS[] = {
    {PROTOCOL_NAME, callback, sizeof(struct session), RX_CHUNK_BYTES, 0, NULL, TX_CHUNK_BYTES},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* ---- life cycle ---------------------------------------------------------- */

static void on_handle_closed(uv_handle_t *handle)
{
    transport *t = handle->data;
    t->open_timers--;
}

static void note_closing_handle(uv_handle_t *handle, void *any_closing)
{
    if (uv_is_closing(handle))
        *(bool *)any_closing = true;
}

/* Runs the loop without blocking until our timers and every handle lws
 * started closing are closed; the app's live handles are left alone. */
static void run_until_closed(transport *t)
{
    bool any_closing;
    do {
        uv_run(t->loop, UV_RUN_NOWAIT);
        any_closing = false;
        uv_walk(t->loop, note_closing_handle, &any_closing);
    } while (t->open_timers > 0 || any_closing);
}

/* The foreign-loop teardown of DESIGN.md: the first destroy closes every
 * connection and starts closing lws's uv handles, the loop runs until they
 * are closed, and only the second destroy frees the context. */
static void destroy_context(transport *t)
{
    lws_context_destroy(t->context);
    run_until_closed(t);
    lws_context_destroy(t->context);
    t->context = NULL;
}

/* The lws context and its one vhost, which has no listening socket: it
 * adopts the connections our listener accepts. */
static int create_context(transport *t)
{
    struct lws_context_creation_info info;
    void *foreign_loops[1] = {t->loop};
    memset(&info, 0, sizeof(info));
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_VALIDATE_UTF8 |
                   LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    info.foreign_loops = foreign_loops;
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = PROTOCOLS;
    info.user = t;
    info.timeout_secs_ah_idle = (unsigned int)t->limits.handshake_timeout_s;
    info.retry_and_idle_policy = &LWS_VALIDITY_POLICY;
    info.gid = -1;
    info.uid = -1;
    t->context = lws_create_context(&info);
    if (!t->context)
        return -ENOMEM;
    /* The vhost is created apart: when the default vhost of
     * lws_create_context fails, lws 4.1 with a foreign loop frees memory
     * holding uv handles that are still on our loop. */
    t->vhost = lws_create_vhost(t->context, &info);
    if (!t->vhost) {
        destroy_context(t);
        return -ENOMEM;
    }
    return 0;
}

int transport_new(uv_loop_t *loop, const char *bind_address, int port,
                  const transport_limits *limits, const transport_callbacks *callbacks,
                  transport **out)
{
    transport *t = calloc(1, sizeof(*t));
    if (!t)
        return -ENOMEM;
    t->loop = loop;
    t->limits = *limits;
    t->callbacks = *callbacks;
    lws_set_log_level(LLL_ERR | LLL_WARN, emit_lws_log);
    int rc = http_exchanges_init(t);
    if (rc == 0)
        rc = address_counts_new(NULL, &t->addresses);
    if (rc < 0) {
        http_exchanges_free(t);
        free(t);
        return rc;
    }
    rc = create_context(t);
    if (rc == 0)
        rc = listener_new(loop, bind_address, port, admit, t, &t->listener);
    if (rc < 0) {
        if (t->context)
            destroy_context(t);
        address_counts_free(t->addresses);
        http_exchanges_free(t);
        free(t);
        return rc;
    }
    uv_timer_init(loop, &t->sweep_timer);
    uv_timer_init(loop, &t->shutdown_timer);
    uv_check_init(loop, &t->flush_check);
    uv_timer_init(loop, &t->soon_timer);
    t->sweep_timer.data = t;
    t->shutdown_timer.data = t;
    t->flush_check.data = t;
    t->soon_timer.data = t;
    t->open_timers = 4;
    uv_timer_start(&t->sweep_timer, sweep, SWEEP_INTERVAL_MS, SWEEP_INTERVAL_MS);
    uv_check_start(&t->flush_check, flush);
    *out = t;
    return 0;
}

int transport_port(const transport *t)
{
    return listener_port(t->listener);
}

int transport_connection_count(const transport *t)
{
    return (int)t->connections.count;
}

int transport_send(transport *t, uint64_t connection_id, const char *text, size_t length)
{
    connection *c = id_table_get(&t->connections, connection_id);
    if (!c || c->is_closing)
        return -ENOENT;
    return enqueue(t, c, text, length, false);
}

int transport_send_soon(transport *t, uint64_t connection_id, const char *text, size_t length)
{
    connection *c = id_table_get(&t->connections, connection_id);
    if (!c || c->is_closing)
        return -ENOENT;
    return enqueue(t, c, text, length, true);
}

void transport_grant(transport *t, uint64_t connection_id, int messages)
{
    connection *c = id_table_get(&t->connections, connection_id);
    if (c)
        connection_grant(c, messages);
}

void transport_close(transport *t, uint64_t connection_id, int code, const char *reason)
{
    connection *c = id_table_get(&t->connections, connection_id);
    if (c)
        start_close(t, c, code, reason ? reason : "");
}

static void on_shutdown_deadline(uv_timer_t *timer)
{
    transport *t = timer->data;
    if (t->connections.count > 0)
        log_warn("shutdown: %zu connections still open at the deadline", t->connections.count);
    finish_shutdown(t);
}

static void close_for_shutdown(void *value, void *context)
{
    start_close(context, value, TRANSPORT_CLOSE_GOING_AWAY, "server shutting down");
}

void transport_shutdown(transport *t, int timeout_ms, void (*done)(void *context), void *context)
{
    if (t->is_shutting_down)
        return;
    t->is_shutting_down = true;
    t->shutdown_done = done;
    t->shutdown_context = context;
    log_info("shutdown: closing %zu connections", t->connections.count);
    id_table_each(&t->connections, close_for_shutdown, t); /* closes later: see sweep() */
    uv_timer_start(&t->shutdown_timer, on_shutdown_deadline,
                   t->connections.count > 0 ? (uint64_t)timeout_ms : 0, 0);
}

static void free_connection(void *value, void *context)
{
    (void)context;
    connection_free(value);
}

void transport_free(transport *t)
{
    if (!t)
        return;
    t->are_callbacks_detached = true;
    t->shutdown_done = NULL;
    uv_close((uv_handle_t *)&t->sweep_timer, on_handle_closed);
    uv_close((uv_handle_t *)&t->shutdown_timer, on_handle_closed);
    uv_close((uv_handle_t *)&t->flush_check, on_handle_closed);
    uv_close((uv_handle_t *)&t->soon_timer, on_handle_closed);
    listener_free(t->listener);
    t->listener = NULL;
    destroy_context(t); /* runs the loop until our timers and the listener are closed too */
    id_table_each(&t->connections, free_connection, NULL);
    id_table_clear(&t->connections);
    address_counts_free(t->addresses);
    http_exchanges_free(t);
    free(t->batch);
    free(t->dirty.ids);
    free(t->waiting.ids);
    free(t);
}

/* ws_client.h -- many websocket client connections on one libuv loop.
 *
 * The load generator's side of the websocket: RFC 6455 client framing
 * written directly on libuv TCP handles, not libwebsockets. lws 4.1's
 * client parses received frames one byte at a time; with a game.moves
 * reply of ~18 KB per Duo move that was 62% of the load generator's CPU
 * (perf, 50 rooms), more than the server spent per move. Here a frame is
 * parsed in place in the read buffer and handed over without a copy.
 *
 * Above this module a connection is a `ws_peer` and a message a complete
 * text. Sending writes at once when the socket takes it (uv_try_write) and
 * queues the rest. Fragments are reassembled; pings are answered; a close
 * frame is answered and ends the peer. It is a benchmark client that trusts
 * its server: the handshake checks the 101 status only, not
 * Sec-WebSocket-Accept.
 *
 * Lifetimes: a peer exists from ws_client_connect until on_close (called
 * exactly once, whether the connection failed, was closed by the server or
 * by ws_peer_close); it must not be used after. ws_client_free closes the
 * peers still open without calling on_close. */
#ifndef TESSERA_BENCH_WS_CLIENT_H
#define TESSERA_BENCH_WS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

typedef struct ws_client ws_client;
typedef struct ws_peer ws_peer;

typedef struct ws_client_callbacks {
    void (*on_open)(void *user);
    void (*on_message)(void *user, const char *text, size_t length);
    /* `was_open`: false when the connection never opened; `why` says why
     * it ended, or "" for a close we asked for */
    void (*on_close)(void *user, bool was_open, const char *why);
} ws_client_callbacks;

/* Creates the client on `loop`, to connect to `host`:`port` (an IPv4
 * address) with request path `path`; 0 or a negative uv error. */
int ws_client_new(uv_loop_t *loop, const char *host, int port, const char *path,
                  const ws_client_callbacks *callbacks, ws_client **out);

/* Starts a connection whose callbacks receive `user`; binds its socket to
 * `local_address` (an IPv4 address) unless NULL. 0 or a negative uv error;
 * on success the peer is reported by on_open or on_close later, never from
 * inside this call. */
int ws_client_connect(ws_client *client, const char *local_address, void *user, ws_peer **out);

/* Writes into `out` (at least 16 bytes) the local address of connection
 * number `index` when connections are spread over `count` addresses:
 * 127.0.0.1 to 127.0.0.count, in turn. */
void ws_client_local_address(int index, int count, char *out);

/* Queues one text message (copied); 0 or -errno. */
int ws_peer_send(ws_peer *peer, const char *text, size_t length);

/* Closes the connection; on_close follows. */
void ws_peer_close(ws_peer *peer);

/* Connections not yet closed. */
int ws_client_open_count(const ws_client *client);

/* Closes every connection and frees the client; the loop is run until
 * their handles are closed. No callback is called any more. */
void ws_client_free(ws_client *client);

#endif

/* ws_client.c -- RFC 6455 client framing on libuv TCP (see ws_client.h).
 *
 * Reading: libuv reads into the end of the peer's buffer; process_input()
 * first looks for the end of the handshake answer, then walks every whole
 * frame in the buffer and moves the incomplete tail to the front. An
 * unfragmented text frame is handed to on_message straight from the
 * buffer; fragments are gathered in `message` first.
 *
 * Writing: a frame (with the mask every client frame must carry) is built
 * in one buffer and offered to uv_try_write; what the kernel does not take
 * at once goes out with uv_write, which keeps the order (libuv refuses a
 * try_write while a write is queued).
 *
 * Ending: every way a peer ends goes through end_peer, which closes the
 * handle; the peer is freed, and on_close called, in the close callback,
 * so a peer stays valid for the rest of any callback that ended it. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/ws_client.h"

#define READ_CHUNK        65536
#define HANDSHAKE_MAX     8192
#define MAX_MESSAGE_BYTES (64u << 20)
#define SMALL_FRAME_BYTES 1024 /* frames up to this are built on the stack */
#define CLOSE_NORMAL      1000

enum {
    OPCODE_CONTINUATION = 0x0,
    OPCODE_TEXT = 0x1,
    OPCODE_BINARY = 0x2,
    OPCODE_CLOSE = 0x8,
    OPCODE_PING = 0x9,
    OPCODE_PONG = 0xa,
};

typedef enum peer_state {
    PEER_CONNECTING,
    PEER_HANDSHAKING,
    PEER_OPEN,
    PEER_ENDED,
} peer_state;

struct ws_peer {
    uv_tcp_t tcp;
    uv_connect_t connect_request;
    ws_client *client;
    void *user;
    peer_state state;
    bool was_open;
    char *input; /* bytes read and not yet parsed */
    size_t input_length, input_capacity;
    char *message; /* fragments of a message in progress */
    size_t message_length, message_capacity;
    bool has_fragments;
    char why[128];
    ws_peer *previous, *next; /* every peer not yet freed */
};

struct ws_client {
    uv_loop_t *loop;
    ws_client_callbacks callbacks;
    struct sockaddr_in server_address;
    char handshake[512];
    size_t handshake_length;
    uint32_t mask_seed;
    ws_peer *peers;
    int peer_count;
    bool is_freeing;
};

struct write_request {
    uv_write_t request;
    ws_peer *peer;
    char bytes[];
};

/* ---- ending --------------------------------------------------------------- */

static void on_closed(uv_handle_t *handle)
{
    ws_peer *peer = handle->data;
    ws_client *client = peer->client;
    if (peer->previous)
        peer->previous->next = peer->next;
    else
        client->peers = peer->next;
    if (peer->next)
        peer->next->previous = peer->previous;
    client->peer_count--;
    if (!client->is_freeing && client->callbacks.on_close)
        client->callbacks.on_close(peer->user, peer->was_open, peer->why);
    free(peer->input);
    free(peer->message);
    free(peer);
}

static void end_peer(ws_peer *peer, const char *why)
{
    if (peer->state == PEER_ENDED)
        return;
    peer->state = PEER_ENDED;
    snprintf(peer->why, sizeof(peer->why), "%s", why);
    uv_close((uv_handle_t *)&peer->tcp, on_closed);
}

/* ---- writing -------------------------------------------------------------- */

static void on_written(uv_write_t *request, int status)
{
    struct write_request *w = (struct write_request *)request;
    if (status < 0 && status != UV_ECANCELED)
        end_peer(w->peer, uv_strerror(status));
    free(w);
}

static int write_bytes(ws_peer *peer, const char *bytes, size_t length)
{
    uv_buf_t buffer = uv_buf_init((char *)bytes, (unsigned int)length);
    int written = uv_try_write((uv_stream_t *)&peer->tcp, &buffer, 1);
    if (written < 0 && written != UV_EAGAIN) {
        end_peer(peer, uv_strerror(written));
        return written;
    }
    size_t done = written > 0 ? (size_t)written : 0;
    if (done == length)
        return 0;
    struct write_request *w = malloc(sizeof(*w) + length - done);
    if (!w) {
        end_peer(peer, "out of memory");
        return UV_ENOMEM;
    }
    w->peer = peer;
    memcpy(w->bytes, bytes + done, length - done);
    buffer = uv_buf_init(w->bytes, (unsigned int)(length - done));
    int rc = uv_write(&w->request, (uv_stream_t *)&peer->tcp, &buffer, 1, on_written);
    if (rc < 0) {
        free(w);
        end_peer(peer, uv_strerror(rc));
    }
    return rc;
}

/* xorshift32: masks need not be secret here, only present. */
static uint32_t next_mask(ws_client *client)
{
    uint32_t x = client->mask_seed;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return client->mask_seed = x;
}

static size_t frame_header(unsigned char *out, int opcode, size_t length, uint32_t mask)
{
    size_t n = 0;
    out[n++] = (unsigned char)(0x80 | opcode);
    if (length < 126) {
        out[n++] = (unsigned char)(0x80 | length);
    } else if (length <= 0xffff) {
        out[n++] = 0x80 | 126;
        out[n++] = (unsigned char)(length >> 8);
        out[n++] = (unsigned char)length;
    } else {
        out[n++] = 0x80 | 127;
        for (int shift = 56; shift >= 0; shift -= 8)
            out[n++] = (unsigned char)((uint64_t)length >> shift);
    }
    memcpy(out + n, &mask, 4);
    return n + 4;
}

static int send_frame(ws_peer *peer, int opcode, const char *payload, size_t length)
{
    unsigned char small[SMALL_FRAME_BYTES + 14];
    unsigned char *frame = length <= SMALL_FRAME_BYTES ? small : malloc(length + 14);
    if (!frame)
        return UV_ENOMEM;
    uint32_t mask = next_mask(peer->client);
    size_t header = frame_header(frame, opcode, length, mask);
    const unsigned char *key = frame + header - 4;
    for (size_t i = 0; i < length; i++)
        frame[header + i] = (unsigned char)payload[i] ^ key[i & 3];
    int rc = write_bytes(peer, (const char *)frame, header + length);
    if (frame != small)
        free(frame);
    return rc;
}

/* ---- reading -------------------------------------------------------------- */

static void deliver(ws_peer *peer, const char *text, size_t length)
{
    ws_client *client = peer->client;
    if (peer->state == PEER_OPEN && !client->is_freeing && client->callbacks.on_message)
        client->callbacks.on_message(peer->user, text, length);
}

static int gather(ws_peer *peer, const char *data, size_t length)
{
    size_t needed = peer->message_length + length;
    if (needed > peer->message_capacity) {
        size_t capacity = peer->message_capacity ? peer->message_capacity : 4096;
        while (capacity < needed)
            capacity *= 2;
        char *grown = realloc(peer->message, capacity);
        if (!grown)
            return UV_ENOMEM;
        peer->message = grown;
        peer->message_capacity = capacity;
    }
    memcpy(peer->message + peer->message_length, data, length);
    peer->message_length += length;
    return 0;
}

static void on_data_frame(ws_peer *peer, bool is_final, int opcode, const char *data, size_t length)
{
    if (opcode != OPCODE_CONTINUATION && is_final && !peer->has_fragments) {
        deliver(peer, data, length);
        return;
    }
    if (gather(peer, data, length) < 0) {
        end_peer(peer, "out of memory");
        return;
    }
    peer->has_fragments = !is_final;
    if (is_final) {
        deliver(peer, peer->message, peer->message_length);
        peer->message_length = 0;
    }
}

static void on_close_frame(ws_peer *peer, const unsigned char *data, size_t length)
{
    int code = length >= 2 ? (data[0] << 8) | data[1] : 1005;
    char why[128];
    snprintf(why, sizeof(why), "close %d %.*s", code, (int)(length > 2 ? length - 2 : 0),
             (const char *)data + 2);
    send_frame(peer, OPCODE_CLOSE, (const char *)data, length >= 2 ? 2 : 0);
    end_peer(peer, why);
}

static void on_frame(ws_peer *peer, unsigned char first, unsigned char *data, size_t length)
{
    int opcode = first & 0x0f;
    bool is_final = (first & 0x80) != 0;
    if (opcode == OPCODE_TEXT || opcode == OPCODE_BINARY || opcode == OPCODE_CONTINUATION)
        on_data_frame(peer, is_final, opcode, (const char *)data, length);
    else if (opcode == OPCODE_PING)
        send_frame(peer, OPCODE_PONG, (const char *)data, length);
    else if (opcode == OPCODE_CLOSE)
        on_close_frame(peer, data, length);
}

/* Parses one frame at `at`; its size, 0 if incomplete, -1 if malformed. */
static long parse_frame(ws_peer *peer, unsigned char *at, size_t available)
{
    if (available < 2)
        return 0;
    bool is_masked = (at[1] & 0x80) != 0;
    uint64_t length = at[1] & 0x7f;
    size_t header = 2;
    if (length == 126) {
        if (available < 4)
            return 0;
        length = ((uint64_t)at[2] << 8) | at[3];
        header = 4;
    } else if (length == 127) {
        if (available < 10)
            return 0;
        length = 0;
        for (int i = 2; i < 10; i++)
            length = (length << 8) | at[i];
        header = 10;
    }
    if (length > MAX_MESSAGE_BYTES)
        return -1;
    size_t key_at = header;
    header += is_masked ? 4 : 0;
    if (available < header + length)
        return 0;
    for (uint64_t i = 0; is_masked && i < length; i++)
        at[header + i] ^= at[key_at + (i & 3)];
    on_frame(peer, at[0], at + header, (size_t)length);
    return (long)(header + length);
}

/* The end of the HTTP header block (its "\r\n\r\n"), or NULL. */
static const char *find_header_end(const char *text, size_t length)
{
    for (size_t i = 0; i + 4 <= length; i++) {
        if (memcmp(text + i, "\r\n\r\n", 4) == 0)
            return text + i;
    }
    return NULL;
}

/* The handshake answer; the number of bytes it took, 0 if incomplete. */
static long parse_handshake(ws_peer *peer)
{
    const char *end = find_header_end(peer->input, peer->input_length);
    if (!end) {
        if (peer->input_length > HANDSHAKE_MAX)
            end_peer(peer, "handshake answer too long");
        return 0;
    }
    if (strncmp(peer->input, "HTTP/1.1 101", 12) != 0) {
        char why[128];
        const char *line_end = memchr(peer->input, '\r', peer->input_length);
        snprintf(why, sizeof(why), "handshake refused: %.*s",
                 (int)(line_end ? line_end - peer->input : 0), peer->input);
        end_peer(peer, why);
        return 0;
    }
    peer->state = PEER_OPEN;
    peer->was_open = true;
    if (!peer->client->is_freeing && peer->client->callbacks.on_open)
        peer->client->callbacks.on_open(peer->user);
    return end + 4 - peer->input;
}

static void process_input(ws_peer *peer)
{
    size_t at = 0;
    if (peer->state == PEER_HANDSHAKING) {
        long used = parse_handshake(peer);
        if (used <= 0)
            return;
        at = (size_t)used;
    }
    while (peer->state == PEER_OPEN) {
        long used = parse_frame(peer, (unsigned char *)peer->input + at, peer->input_length - at);
        if (used < 0)
            end_peer(peer, "malformed frame");
        if (used <= 0)
            break;
        at += (size_t)used;
    }
    memmove(peer->input, peer->input + at, peer->input_length - at);
    peer->input_length -= at;
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
    ws_peer *peer = handle->data;
    (void)suggested;
    if (peer->input_capacity - peer->input_length < READ_CHUNK / 4) {
        size_t capacity = peer->input_length + READ_CHUNK;
        char *grown = realloc(peer->input, capacity);
        if (!grown) {
            *buffer = uv_buf_init(NULL, 0);
            return;
        }
        peer->input = grown;
        peer->input_capacity = capacity;
    }
    *buffer = uv_buf_init(peer->input + peer->input_length,
                          (unsigned int)(peer->input_capacity - peer->input_length));
}

static void on_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
    ws_peer *peer = stream->data;
    (void)buffer;
    if (count < 0) {
        end_peer(peer, count == UV_EOF ? "closed by the server" : uv_strerror((int)count));
        return;
    }
    peer->input_length += (size_t)count;
    process_input(peer);
}

static void on_connect(uv_connect_t *request, int status)
{
    ws_peer *peer = request->data;
    if (status < 0) {
        end_peer(peer, uv_strerror(status));
        return;
    }
    if (peer->state != PEER_CONNECTING)
        return;
    peer->state = PEER_HANDSHAKING;
    uv_tcp_nodelay(&peer->tcp, 1);
    int rc = uv_read_start((uv_stream_t *)&peer->tcp, on_alloc, on_read);
    if (rc < 0)
        end_peer(peer, uv_strerror(rc));
    else
        write_bytes(peer, peer->client->handshake, peer->client->handshake_length);
}

/* ---- the API -------------------------------------------------------------- */

int ws_client_new(uv_loop_t *loop, const char *host, int port, const char *path,
                  const ws_client_callbacks *callbacks, ws_client **out)
{
    ws_client *client = calloc(1, sizeof(*client));
    if (!client)
        return UV_ENOMEM;
    int rc = uv_ip4_addr(host, port, &client->server_address);
    int length = snprintf(client->handshake, sizeof(client->handshake),
                          "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                          "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                          "Sec-WebSocket-Version: 13\r\n\r\n",
                          path, host, port);
    if (rc < 0 || length <= 0 || (size_t)length >= sizeof(client->handshake)) {
        free(client);
        return rc < 0 ? rc : UV_EINVAL;
    }
    client->handshake_length = (size_t)length;
    client->loop = loop;
    client->callbacks = *callbacks;
    client->mask_seed = 0x9e3779b9u;
    *out = client;
    return 0;
}

static int bind_local(ws_peer *peer, const char *local_address)
{
    struct sockaddr_in local;
    int rc = uv_ip4_addr(local_address, 0, &local);
    return rc < 0 ? rc : uv_tcp_bind(&peer->tcp, (const struct sockaddr *)&local, 0);
}

int ws_client_connect(ws_client *client, const char *local_address, void *user, ws_peer **out)
{
    ws_peer *peer = calloc(1, sizeof(*peer));
    if (!peer)
        return UV_ENOMEM;
    int rc = uv_tcp_init(client->loop, &peer->tcp);
    if (rc < 0) {
        free(peer);
        return rc;
    }
    peer->client = client;
    peer->user = user;
    peer->tcp.data = peer;
    peer->connect_request.data = peer;
    peer->next = client->peers;
    if (client->peers)
        client->peers->previous = peer;
    client->peers = peer;
    client->peer_count++;
    rc = local_address ? bind_local(peer, local_address) : 0;
    if (rc == 0)
        rc = uv_tcp_connect(&peer->connect_request, &peer->tcp,
                            (const struct sockaddr *)&client->server_address, on_connect);
    if (rc < 0) {
        end_peer(peer, uv_strerror(rc));
        return rc;
    }
    *out = peer;
    return 0;
}

void ws_client_local_address(int index, int count, char *out)
{
    unsigned int last_byte = 1 + (unsigned int)(index % (count > 0 ? count : 1)) % 254;
    snprintf(out, 16, "127.0.0.%u", last_byte);
}

int ws_peer_send(ws_peer *peer, const char *text, size_t length)
{
    if (peer->state != PEER_OPEN)
        return UV_ENOTCONN;
    return send_frame(peer, OPCODE_TEXT, text, length);
}

void ws_peer_close(ws_peer *peer)
{
    if (peer->state == PEER_OPEN) {
        unsigned char code[2] = {CLOSE_NORMAL >> 8, CLOSE_NORMAL & 0xff};
        send_frame(peer, OPCODE_CLOSE, (const char *)code, sizeof(code));
    }
    end_peer(peer, "");
}

int ws_client_open_count(const ws_client *client)
{
    return client->peer_count;
}

void ws_client_free(ws_client *client)
{
    if (!client)
        return;
    client->is_freeing = true;
    for (ws_peer *peer = client->peers; peer; peer = peer->next)
        end_peer(peer, "");
    while (client->peers)
        uv_run(client->loop, UV_RUN_ONCE);
    free(client);
}

/* connection.c -- reassembly, credits and the send queue.
 *
 * Reassembly checks the cap against what the frame header announces
 * (`still_expected`), not only against what has arrived, so a message that
 * will be too big is refused on its first piece: nothing over the cap is
 * ever buffered. The buffer grows to the announced size at once and is
 * kept between messages (it is at most max_message_bytes).
 *
 * The send queue's memory is counted twice: queued_bytes is the texts, the
 * per-connection limits' measure; *all_queued is what the allocations
 * take, the measure of the transport's budget for all queues together.
 *
 * Credits are a token bucket in floating point: `messages_per_second`
 * credits per second, at most `message_burst` banked, one per message. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/connection.h"

int connection_new(uint64_t id, const char *peer_ip, size_t headroom, uint64_t now_ms,
                   const transport_limits *limits, size_t *all_queued, connection **out)
{
    connection *peer = calloc(1, sizeof(*peer));
    if (!peer)
        return -ENOMEM;
    peer->id = id;
    snprintf(peer->peer_ip, sizeof(peer->peer_ip), "%s", peer_ip);
    peer->headroom = headroom;
    peer->all_queued = all_queued;
    peer->credits = limits->message_burst;
    peer->credits_updated_ms = now_ms;
    peer->last_heard_ms = now_ms;
    peer->last_ping_ms = now_ms;
    *out = peer;
    return 0;
}

void connection_free(connection *peer)
{
    if (!peer)
        return;
    connection_clear_queue(peer);
    free(peer->message);
    free(peer);
}

int connection_append(connection *peer, const char *data, size_t length, size_t still_expected,
                      size_t max_bytes)
{
    size_t needed = peer->message_length + length + still_expected;
    if (needed > max_bytes)
        return -EMSGSIZE;
    if (needed + 1 > peer->message_capacity) {
        char *grown = realloc(peer->message, needed + 1);
        if (!grown)
            return -ENOMEM;
        peer->message = grown;
        peer->message_capacity = needed + 1;
    }
    memcpy(peer->message + peer->message_length, data, length);
    peer->message_length += length;
    peer->message[peer->message_length] = '\0';
    return 0;
}

void connection_reset_message(connection *peer)
{
    peer->message_length = 0;
}

void connection_grant(connection *peer, int messages)
{
    peer->granted += messages;
    if (peer->granted > CONNECTION_GRANT_MAX)
        peer->granted = CONNECTION_GRANT_MAX;
}

connection_verdict connection_take_credit(connection *peer, uint64_t now_ms,
                                          const transport_limits *limits)
{
    if (peer->granted > 0) {
        peer->granted--;
        peer->strikes = 0;
        return CONNECTION_DELIVER;
    }
    double elapsed_s = (double)(now_ms - peer->credits_updated_ms) / 1000.0;
    peer->credits += elapsed_s * limits->messages_per_second;
    if (peer->credits > limits->message_burst)
        peer->credits = limits->message_burst;
    peer->credits_updated_ms = now_ms;
    if (peer->credits >= 1.0) {
        peer->credits -= 1.0;
        peer->strikes = 0;
        return CONNECTION_DELIVER;
    }
    peer->strikes++;
    if (peer->strikes >= limits->rate_strikes_to_close)
        return CONNECTION_REFUSE_AND_CLOSE;
    return CONNECTION_REFUSE;
}

size_t connection_frame_cost(const connection *peer, size_t length)
{
    return sizeof(struct connection_frame) + peer->headroom + length;
}

int connection_push(connection *peer, const char *text, size_t length)
{
    struct connection_frame *frame = malloc(sizeof(*frame) + peer->headroom + length);
    if (!frame)
        return -ENOMEM;
    frame->next = NULL;
    frame->length = length;
    memcpy(frame->bytes + peer->headroom, text, length);
    if (peer->queue_tail)
        peer->queue_tail->next = frame;
    else
        peer->queue_head = frame;
    peer->queue_tail = frame;
    peer->queued_bytes += length;
    *peer->all_queued += connection_frame_cost(peer, length);
    return 0;
}

struct connection_frame *connection_front(const connection *peer)
{
    return peer->queue_head;
}

void connection_pop(connection *peer)
{
    struct connection_frame *frame = peer->queue_head;
    if (!frame)
        return;
    peer->queue_head = frame->next;
    if (!peer->queue_head)
        peer->queue_tail = NULL;
    peer->queued_bytes -= frame->length;
    *peer->all_queued -= connection_frame_cost(peer, frame->length);
    free(frame);
}

/* A final text frame's header for a payload of `length` bytes: its size. */
static size_t put_frame_header(unsigned char *out, size_t length)
{
    out[0] = 0x81; /* FIN, text */
    if (length < 126) {
        out[1] = (unsigned char)length;
        return 2;
    }
    if (length < 65536) {
        out[1] = 126;
        out[2] = (unsigned char)(length >> 8);
        out[3] = (unsigned char)length;
        return 4;
    }
    out[1] = 127;
    for (int i = 0; i < 8; i++)
        out[2 + i] = (unsigned char)((uint64_t)length >> (56 - 8 * i));
    return 10;
}

size_t connection_pack_frames(connection *peer, unsigned char *out, size_t capacity)
{
    size_t used = 0;
    struct connection_frame *frame;
    while ((frame = peer->queue_head) &&
           used + CONNECTION_FRAME_HEADER_MAX + frame->length <= capacity) {
        used += put_frame_header(out + used, frame->length);
        memcpy(out + used, frame->bytes + peer->headroom, frame->length);
        used += frame->length;
        connection_pop(peer);
    }
    return used;
}

unsigned char *connection_frame_in_place(connection *peer, size_t *length)
{
    struct connection_frame *frame = peer->queue_head;
    unsigned char header[CONNECTION_FRAME_HEADER_MAX];
    size_t header_length = put_frame_header(header, frame->length);
    unsigned char *start = frame->bytes + peer->headroom - header_length;
    memcpy(start, header, header_length);
    *length = header_length + frame->length;
    return start;
}

void connection_clear_queue(connection *peer)
{
    while (peer->queue_head)
        connection_pop(peer);
}

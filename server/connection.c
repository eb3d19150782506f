/* connection.c -- reassembly, credits and the send queue.
 *
 * Reassembly checks the cap against what the frame header announces
 * (`still_expected`), not only against what has arrived, so a message that
 * will be too big is refused on its first piece: nothing over the cap is
 * ever buffered. The buffer grows to the announced size at once and is
 * kept between messages (it is at most max_message_bytes).
 *
 * Credits are a token bucket in floating point: `messages_per_second`
 * credits per second, at most `message_burst` banked, one per message. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/connection.h"

int connection_new(uint64_t id, const char *peer_ip, size_t headroom, uint64_t now_ms,
                   const transport_limits *limits, connection **out)
{
    connection *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->id = id;
    snprintf(c->peer_ip, sizeof(c->peer_ip), "%s", peer_ip);
    c->headroom = headroom;
    c->credits = limits->message_burst;
    c->credits_updated_ms = now_ms;
    c->last_heard_ms = now_ms;
    c->last_ping_ms = now_ms;
    *out = c;
    return 0;
}

void connection_free(connection *c)
{
    if (!c)
        return;
    connection_clear_queue(c);
    free(c->message);
    free(c);
}

int connection_append(connection *c, const char *data, size_t length, size_t still_expected,
                      size_t max_bytes)
{
    size_t needed = c->message_length + length + still_expected;
    if (needed > max_bytes)
        return -EMSGSIZE;
    if (needed + 1 > c->message_capacity) {
        char *grown = realloc(c->message, needed + 1);
        if (!grown)
            return -ENOMEM;
        c->message = grown;
        c->message_capacity = needed + 1;
    }
    memcpy(c->message + c->message_length, data, length);
    c->message_length += length;
    c->message[c->message_length] = '\0';
    return 0;
}

void connection_reset_message(connection *c)
{
    c->message_length = 0;
}

void connection_grant(connection *c, int messages)
{
    c->granted += messages;
    if (c->granted > CONNECTION_GRANT_MAX)
        c->granted = CONNECTION_GRANT_MAX;
}

connection_verdict connection_take_credit(connection *c, uint64_t now_ms,
                                          const transport_limits *limits)
{
    if (c->granted > 0) {
        c->granted--;
        c->strikes = 0;
        return CONNECTION_DELIVER;
    }
    double elapsed_s = (double)(now_ms - c->credits_updated_ms) / 1000.0;
    c->credits += elapsed_s * limits->messages_per_second;
    if (c->credits > limits->message_burst)
        c->credits = limits->message_burst;
    c->credits_updated_ms = now_ms;
    if (c->credits >= 1.0) {
        c->credits -= 1.0;
        c->strikes = 0;
        return CONNECTION_DELIVER;
    }
    c->strikes++;
    if (c->strikes >= limits->rate_strikes_to_close)
        return CONNECTION_REFUSE_AND_CLOSE;
    return CONNECTION_REFUSE;
}

int connection_push(connection *c, const char *text, size_t length)
{
    struct connection_frame *frame = malloc(sizeof(*frame) + c->headroom + length);
    if (!frame)
        return -ENOMEM;
    frame->next = NULL;
    frame->length = length;
    memcpy(frame->bytes + c->headroom, text, length);
    if (c->queue_tail)
        c->queue_tail->next = frame;
    else
        c->queue_head = frame;
    c->queue_tail = frame;
    c->queued_bytes += length;
    return 0;
}

struct connection_frame *connection_front(const connection *c)
{
    return c->queue_head;
}

void connection_pop(connection *c)
{
    struct connection_frame *frame = c->queue_head;
    if (!frame)
        return;
    c->queue_head = frame->next;
    if (!c->queue_head)
        c->queue_tail = NULL;
    c->queued_bytes -= frame->length;
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

size_t connection_pack_frames(connection *c, unsigned char *out, size_t capacity)
{
    size_t used = 0;
    struct connection_frame *frame;
    while ((frame = c->queue_head) &&
           used + CONNECTION_FRAME_HEADER_MAX + frame->length <= capacity) {
        used += put_frame_header(out + used, frame->length);
        memcpy(out + used, frame->bytes + c->headroom, frame->length);
        used += frame->length;
        connection_pop(c);
    }
    return used;
}

void connection_clear_queue(connection *c)
{
    while (c->queue_head)
        connection_pop(c);
}

/* connection.h -- the transport's state for one websocket connection.
 *
 * Private to the transport (transport.c is its only user), and split out
 * because these are the rules worth testing alone, with no socket: the
 * reassembly of a fragmented message under a size cap, the credit bucket
 * that rate-limits messages, and the outbound queue, whose memory every
 * connection adds to one counter the transport holds for its send budget
 * (send_queue_budget_bytes). (The transport finds
 * connections by id in util/id_table, the project's one hash map.) No lws
 * type appears here; the lws handle is an opaque `socket`.
 *
 * The struct is open to the transport, which sets the flags and the
 * timestamps itself; the functions keep the invariants of the buffers.
 * Times are milliseconds of the loop's clock (uv_now). */
#ifndef TESSERA_CONNECTION_H
#define TESSERA_CONNECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/transport.h"

#define CONNECTION_IP_SIZE     64
#define CONNECTION_REASON_SIZE 64

/* One queued outbound message, with `headroom` bytes before the text for
 * the websocket frame header lws writes in place. */
struct connection_frame {
    struct connection_frame *next;
    size_t length;
    unsigned char bytes[]; /* headroom, then the text */
};

typedef struct connection {
    uint64_t id;
    void *socket; /* the lws handle; lws owns it */
    char peer_ip[CONNECTION_IP_SIZE];

    /* Inbound: the message being reassembled (NUL-terminated) and credits. */
    char *message;
    size_t message_length, message_capacity;
    double credits;
    uint64_t credits_updated_ms;
    int strikes;            /* refused messages in a row */
    int granted;            /* messages the server asked for (a turn began): free of credit */
    uint64_t last_heard_ms; /* last frame or pong received */
    uint64_t last_ping_ms;

    /* Outbound. */
    struct connection_frame *queue_head, *queue_tail;
    size_t queued_bytes; /* the texts' bytes */
    size_t headroom;
    size_t *all_queued;  /* the transport's send budget counter (connection_new) */
    size_t lws_buffered; /* of the last send, what lws may still hold (transport.c) */

    bool is_reading_paused;     /* rx flow control is on: the queue is too long */
    bool is_writable_requested; /* a WRITEABLE callback is on its way */
    bool is_dirty;              /* queued since the last flush: written at the turn's end */
    bool is_waiting;            /* holds messages that can wait: written when soon_timer fires */
    bool is_ping_due;
    bool is_closing;        /* close requested: input is discarded, sends refused */
    bool is_close_sent;     /* our close frame is out: waiting for the peer's */
    bool is_close_received; /* the peer sent a close frame (its own, or its answer to ours) */
    int close_code;
    char close_reason[CONNECTION_REASON_SIZE];
} connection;

typedef enum connection_verdict {
    CONNECTION_DELIVER,         /* a credit was taken: hand the message on */
    CONNECTION_REFUSE,          /* no credit: answer rate_limited */
    CONNECTION_REFUSE_AND_CLOSE /* no credit, strike limit reached: close 1008 */
} connection_verdict;

/* A connection with a full credit bucket. Its queue adds the cost of each
 * message (connection_frame_cost) to *all_queued while the message is
 * queued; the counter is shared by all connections and must outlive them.
 * 0 and *out, or -ENOMEM. */
int connection_new(uint64_t id, const char *peer_ip, size_t headroom, uint64_t now_ms,
                   const transport_limits *limits, size_t *all_queued, connection **out);

/* Frees the connection, its message and its queue. NULL is allowed. */
void connection_free(connection *peer);

/* Appends a received piece of the current message; `still_expected` more
 * bytes of the same frame are announced. 0, -EMSGSIZE (nothing appended)
 * when the message would exceed `max_bytes`, or -ENOMEM. */
int connection_append(connection *peer, const char *data, size_t length, size_t still_expected,
                      size_t max_bytes);

/* Forgets the current message (after delivery or refusal). */
void connection_reset_message(connection *peer);

/* Refills the credit bucket up to `now_ms` and takes one credit if any. */
connection_verdict connection_take_credit(connection *peer, uint64_t now_ms,
                                          const transport_limits *limits);

/* Lets the next `messages` messages through without spending credits: the
 * server asked for them (a seat's turn began: game.moves, then game.move).
 * Grants do not pile up past CONNECTION_GRANT_MAX. */
#define CONNECTION_GRANT_MAX 4
void connection_grant(connection *peer, int messages);

/* The memory a queued message of `length` bytes takes: the text, the
 * headroom and the frame's own fields. */
size_t connection_frame_cost(const connection *peer, size_t length);

/* Queues a copy of `text`. 0 or -ENOMEM. */
int connection_push(connection *peer, const char *text, size_t length);

/* The oldest queued frame, or NULL; its text starts at bytes + headroom. */
struct connection_frame *connection_front(const connection *peer);

/* Drops the oldest queued frame. */
void connection_pop(connection *peer);

/* The longest websocket frame header: 2 bytes, 2 more for a 16-bit length,
 * or 8 more for a 64-bit one (a server's frames carry no mask). */
#define CONNECTION_FRAME_HEADER_MAX 10

/* Moves queued messages, oldest first, into `out` as complete websocket
 * text frames, header and payload, as many whole ones as fit in
 * `capacity` bytes: the bytes written (0 if even the first does not fit).
 * Several messages then leave in one send instead of one send each. */
size_t connection_pack_frames(connection *peer, unsigned char *out, size_t capacity);

/* A frame at least this long leaves from its own buffer, framed in
 * place, instead of being copied into a batch first (a Duo move list is
 * 18 KB, and lws copies what the kernel does not take anyway). */
#define CONNECTION_IN_PLACE_MIN 4096

/* The oldest queued message framed in its own buffer, its header written
 * into the headroom right before the text: where the frame starts, and
 * its bytes in *length. The headroom must hold the header and the room a
 * writer needs before it (connection_new). Pop it once it is written. */
unsigned char *connection_frame_in_place(connection *peer, size_t *length);

/* Drops every queued frame. */
void connection_clear_queue(connection *peer);

#endif

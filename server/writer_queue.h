/* writer_queue.h -- which waiting batches a connection of the writer takes
 * next.
 *
 * The writer (store_writer.h) stores on one connection, or on several at
 * once (PostgreSQL). Submitted batches wait in one queue, in the order
 * submitted, and a connection that is free takes a group of them to store
 * in one transaction, by each batch's order (storage/store_port.h):
 *   - a room's batch (STORE_ORDER_ROOM) at once: its room has no other
 *     batch in flight, so nothing needs to come first;
 *   - the lobby's own (STORE_ORDER_SUBMITTED) after every earlier one: not
 *     while another connection stores one, never past one still waiting;
 *   - a batch after all (STORE_ORDER_AFTER_ALL) once every batch submitted
 *     before it is stored or in the same group before it; the lobby's own
 *     after it wait for it.
 * A free connection takes at most its share of what waits, so under light
 * load each room's batch has a connection to itself and a slow commit
 * holds up only the batches that share its group. With one connection this
 * is the order submitted. Pure: the caller holds the writer's lock. */
#ifndef TESSERA_WRITER_QUEUE_H
#define TESSERA_WRITER_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "storage/store_port.h"
#include "util/fifo.h"

/* One submitted batch on its way to a connection and back. */
typedef struct writer_job {
    fifo_link link;
    store_batch *batch;
    store_done *done;
    void *done_context;
    uint64_t number; /* in the order submitted, from 1 */
    int rc;
} writer_job;

/* The batches waiting, in the order submitted. */
typedef struct writer_queue {
    fifo waiting;
    int count;
} writer_queue;

/* What the writer's other connections are storing now. */
typedef struct writer_flight {
    bool has_lobby_batch; /* a batch that is not a room's */
    uint64_t oldest;      /* the number of the oldest batch; 0 for none */
} writer_flight;

/* Appends `job`, the newest submitted. */
void writer_queue_push(writer_queue *queue, writer_job *job);

/* Takes out of `queue` the group a free connection stores next, in the
 * order submitted, into `group`: at most `limit` batches. How many; 0
 * when none may go now (they wait for `others`). */
int writer_queue_take(writer_queue *queue, writer_flight others, writer_job **group, int limit);

/* What a connection storing `group` (`count` batches, as taken) has in
 * flight. */
writer_flight writer_queue_flight_of(writer_job *const *group, int count);

#endif

/* writer_queue.c -- which waiting batches a connection of the writer takes
 * next (writer_queue.h). */
#include "server/writer_queue.h"

void writer_queue_push(writer_queue *queue, writer_job *job)
{
    fifo_push(&queue->waiting, &job->link);
    queue->count++;
}

/* Whether `job` may join the group now. `is_lobby_held`: a lobby batch
 * may not (another connection stores one, or one waits before it);
 * `is_any_left`: a batch before it stays waiting. */
static bool may_go(const writer_job *job, writer_flight others, bool is_lobby_held,
                   bool is_any_left)
{
    switch (job->batch->order) {
    case STORE_ORDER_ROOM:
        return true;
    case STORE_ORDER_AFTER_ALL:
        return !is_lobby_held && !is_any_left &&
               (others.oldest == 0 || others.oldest > job->number);
    case STORE_ORDER_SUBMITTED:
    default:
        return !is_lobby_held;
    }
}

int writer_queue_take(writer_queue *queue, writer_flight others, writer_job **group, int limit)
{
    fifo left = {0};
    bool is_lobby_held = others.has_lobby_batch, is_any_left = false;
    int count = 0;
    fifo_link *link;
    while (count < limit && (link = fifo_pop(&queue->waiting)) != NULL) {
        writer_job *job = FIFO_ITEM(link, writer_job, link);
        if (may_go(job, others, is_lobby_held, is_any_left)) {
            group[count++] = job;
            continue;
        }
        fifo_push(&left, link);
        is_any_left = true;
        if (job->batch->order != STORE_ORDER_ROOM)
            is_lobby_held = true; /* the lobby's later batches come after it */
    }
    if (!fifo_is_empty(&queue->waiting) && !fifo_is_empty(&left)) { /* the rest, after it */
        left.tail->next = queue->waiting.head;
        left.tail = queue->waiting.tail;
    }
    if (!fifo_is_empty(&left))
        queue->waiting = left;
    queue->count -= count;
    return count;
}

writer_flight writer_queue_flight_of(writer_job *const *group, int count)
{
    writer_flight flight = {.oldest = count > 0 ? group[0]->number : 0};
    for (int i = 0; i < count; i++)
        if (group[i]->batch->order != STORE_ORDER_ROOM)
            flight.has_lobby_batch = true;
    return flight;
}

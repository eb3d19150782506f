/* store_writer.c -- the store port on a thread of its own (store_writer.h).
 *
 * Two lists under one mutex carry the batches: `submitted` from the loop
 * to the thread, `answered` back. The thread takes every batch waiting at
 * once, stores each in its own transaction, and knocks on the loop
 * (uv_async_send, which coalesces knocks); the loop then runs the
 * answers' `done` callbacks in the order the batches were submitted. A
 * batch's job is allocated on the loop and freed there, onto a free list
 * that a steady stream of moves reuses. */
#include "server/store_writer.h"

#include <stdlib.h>

#include "util/fifo.h"

/* One submitted batch on its way to the thread and back. */
struct writer_job {
    fifo_link link;
    store_batch *batch;
    store_done *done;
    void *done_context;
    int rc;
};

struct store_writer {
    uv_loop_t *loop;
    store *db; /* the thread's alone while it runs */
    uv_thread_t thread;
    uv_mutex_t lock;
    uv_cond_t has_work;    /* signalled on a submission or a stop */
    uv_cond_t has_answers; /* signalled on an answer (store_writer_flush waits on it) */
    fifo submitted;        /* under lock */
    fifo answered;         /* under lock */
    bool is_stopping;      /* under lock */
    store_figures figures; /* under lock: the connection's, after the last batch */
    uv_async_t knock;      /* the thread wakes the loop with it */
    bool is_knock_closed;  /* loop only */
    int outstanding;       /* loop only: submitted and not yet answered */
    fifo free_jobs;        /* loop only */
};

static void writer_thread(void *argument)
{
    store_writer *writer = argument;
    uv_mutex_lock(&writer->lock);
    for (;;) {
        while (fifo_is_empty(&writer->submitted) && !writer->is_stopping)
            uv_cond_wait(&writer->has_work, &writer->lock);
        if (fifo_is_empty(&writer->submitted))
            break; /* stopping, with nothing left to store */
        fifo work = writer->submitted;
        writer->submitted = (fifo){0};
        uv_mutex_unlock(&writer->lock);
        fifo done = {0};
        fifo_link *link;
        while ((link = fifo_pop(&work)) != NULL) {
            struct writer_job *job = FIFO_ITEM(link, struct writer_job, link);
            job->rc = store_batch_apply(writer->db, job->batch);
            fifo_push(&done, link);
        }
        uv_mutex_lock(&writer->lock);
        while ((link = fifo_pop(&done)) != NULL)
            fifo_push(&writer->answered, link);
        store_figures_read(writer->db, &writer->figures);
        uv_cond_signal(&writer->has_answers);
        uv_async_send(&writer->knock);
    }
    uv_mutex_unlock(&writer->lock);
}

/* Runs the `done` of every answered batch, on the loop. An answer may
 * submit again; those batches are answered on a later knock. */
static void deliver_answers(store_writer *writer)
{
    uv_mutex_lock(&writer->lock);
    fifo answers = writer->answered;
    writer->answered = (fifo){0};
    uv_mutex_unlock(&writer->lock);
    fifo_link *link;
    while ((link = fifo_pop(&answers)) != NULL) {
        struct writer_job *job = FIFO_ITEM(link, struct writer_job, link);
        writer->outstanding--;
        job->done(job->done_context, job->rc, job->batch);
        fifo_push(&writer->free_jobs, &job->link);
    }
}

static void on_knock(uv_async_t *knock)
{
    deliver_answers(knock->data);
}

static int writer_submit(void *context, store_batch *batch, store_done *done, void *done_context)
{
    store_writer *writer = context;
    struct writer_job *job = FIFO_ITEM(fifo_pop(&writer->free_jobs), struct writer_job, link);
    if (!job && !(job = malloc(sizeof(*job))))
        return STORE_E_NOMEM; /* refused at once: `done` will not run */
    *job = (struct writer_job){.batch = batch, .done = done, .done_context = done_context};
    writer->outstanding++;
    uv_mutex_lock(&writer->lock);
    fifo_push(&writer->submitted, &job->link);
    uv_cond_signal(&writer->has_work);
    uv_mutex_unlock(&writer->lock);
    return STORE_OK;
}

static void on_knock_closed(uv_handle_t *handle)
{
    store_writer *writer = handle->data;
    writer->is_knock_closed = true;
}

/* Closes the loop handle, runs the loop until it is closed, and frees the
 * writer's own parts (not its connection). */
static void writer_free(store_writer *writer)
{
    uv_close((uv_handle_t *)&writer->knock, on_knock_closed);
    while (!writer->is_knock_closed)
        uv_run(writer->loop, UV_RUN_ONCE);
    fifo_link *link;
    while ((link = fifo_pop(&writer->free_jobs)) != NULL)
        free(FIFO_ITEM(link, struct writer_job, link));
    uv_cond_destroy(&writer->has_answers);
    uv_cond_destroy(&writer->has_work);
    uv_mutex_destroy(&writer->lock);
    free(writer);
}

int store_writer_start(uv_loop_t *loop, store *db, store_writer **out)
{
    store_writer *writer = calloc(1, sizeof(*writer));
    if (!writer)
        return STORE_E_NOMEM;
    writer->loop = loop;
    writer->db = db;
    store_figures_read(db, &writer->figures);
    int made = 0; /* how many of the four below were made, in order */
    if (uv_mutex_init(&writer->lock) != 0)
        goto out;
    made++;
    if (uv_cond_init(&writer->has_work) != 0)
        goto out;
    made++;
    if (uv_cond_init(&writer->has_answers) != 0)
        goto out;
    made++;
    if (uv_async_init(loop, &writer->knock, on_knock) != 0)
        goto out;
    made++;
    writer->knock.data = writer;
    if (uv_thread_create(&writer->thread, writer_thread, writer) != 0)
        goto out;
    *out = writer;
    return STORE_OK;
out:
    if (made == 4) {
        writer_free(writer); /* `db` stays the caller's */
        return STORE_E_IO;
    }
    if (made > 2)
        uv_cond_destroy(&writer->has_answers);
    if (made > 1)
        uv_cond_destroy(&writer->has_work);
    if (made > 0)
        uv_mutex_destroy(&writer->lock);
    free(writer);
    return STORE_E_IO;
}

store_port store_writer_port(store_writer *writer)
{
    return (store_port){writer, writer_submit};
}

void store_writer_figures(store_writer *writer, store_figures *out)
{
    uv_mutex_lock(&writer->lock);
    *out = writer->figures;
    uv_mutex_unlock(&writer->lock);
}

void store_writer_flush(store_writer *writer)
{
    while (writer->outstanding > 0) {
        uv_mutex_lock(&writer->lock);
        while (fifo_is_empty(&writer->answered))
            uv_cond_wait(&writer->has_answers, &writer->lock);
        uv_mutex_unlock(&writer->lock);
        deliver_answers(writer);
    }
}

void store_writer_close(store_writer *writer)
{
    if (!writer)
        return;
    store_writer_flush(writer);
    uv_mutex_lock(&writer->lock);
    writer->is_stopping = true;
    uv_cond_signal(&writer->has_work);
    uv_mutex_unlock(&writer->lock);
    uv_thread_join(&writer->thread);
    store_close(writer->db);
    writer_free(writer);
}

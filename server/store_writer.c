/* store_writer.c -- the store port on a thread of its own (store_writer.h).
 *
 * Two lists under one mutex carry the batches: `submitted` from the loop
 * to the thread, `answered` back. The loop gathers a turn's submissions
 * and hands them over together: when the server says the turn's messages
 * are read (store_writer_hand_over, before the turn's sends), else just
 * before it next polls (a uv_prepare_t, active only while some wait): one
 * lock and at most one wake-up of the thread for them all. The thread takes the batches waiting (up
 * to GROUP_MAX) and stores them with one commit, each batch still all or nothing on its own
 * (store_batches_apply: a group commit), then answers them together with one knock on the loop
 * (uv_async_send); the loop runs the answers' `done` callbacks in the order the batches were
 * submitted. A batch's job is allocated on the loop and freed there, onto a free list that a steady
 * stream of moves reuses. */
#include "server/store_writer.h"

#include <stdlib.h>

#include "util/fifo.h"

/* How often an idle writer on a database server asks it whether it is
 * there (store_ping), so /healthz knows and a dropped connection is made
 * again before the next move needs it. */
#define PING_EVERY_NS (5ULL * 1000 * 1000 * 1000)
/* How often the checkpointer copies the WAL into the database file. */
#define CHECKPOINT_EVERY_NS (200ULL * 1000 * 1000)
/* At most this many batches share a commit: the first of them waits for
 * the others to be stored before it is answered. */
#define GROUP_MAX 64
/* A WAL this long (in pages) is started over by the writer itself, once:
 * the checkpointer never catches up with a writer that never pauses. */
#define WAL_RESTART_FRAMES 20000

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
    store *db;           /* the writer thread's alone while it runs */
    store *checkpointer; /* the checkpointer thread's alone while it runs */
    uv_thread_t thread;
    uv_thread_t checkpoint_thread;
    uv_mutex_t lock;
    uv_cond_t has_work;         /* signalled on a submission or a stop */
    uv_cond_t has_answers;      /* signalled on an answer (store_writer_flush waits on it) */
    fifo submitted;             /* under lock */
    fifo answered;              /* under lock */
    bool is_stopping;           /* under lock */
    bool is_wal_long;           /* under lock: the writer starts the WAL over */
    int reach;                  /* under lock: 0, or STORE_E_IO while the server is unreachable */
    uv_cond_t stops;            /* signalled on a stop (the checkpointer's sleep) */
    store_figures figures;      /* under lock: the connection's, after the last batch */
    uv_async_t knock;           /* the thread wakes the loop with it */
    bool is_knock_closed;       /* loop only */
    fifo pending;               /* loop only: submitted, not yet handed over */
    uv_prepare_t before_poll;   /* hands `pending` over; active while it is not empty */
    bool is_before_poll_closed; /* loop only */
    int outstanding;            /* loop only: submitted and not yet answered */
    fifo free_jobs;             /* loop only */
};

/* Stores a group of jobs with one commit (store_batches_apply): 0, or
 * STORE_E_IO when the database could not be reached for it. */
static int store_group(store_writer *writer, struct writer_job **group, int count)
{
    store_batch *batches[GROUP_MAX];
    int rcs[GROUP_MAX];
    for (int i = 0; i < count; i++)
        batches[i] = group[i]->batch;
    store_batches_apply(writer->db, batches, count, rcs);
    int reach = STORE_OK;
    for (int i = 0; i < count; i++) {
        group[i]->rc = rcs[i];
        if (rcs[i] == STORE_E_IO)
            reach = STORE_E_IO;
    }
    return reach;
}

static void writer_thread(void *argument)
{
    store_writer *writer = argument;
    uv_mutex_lock(&writer->lock);
    for (;;) {
        while (fifo_is_empty(&writer->submitted) && !writer->is_stopping) {
            if (writer->checkpointer) { /* a file: nothing to ask while idle */
                uv_cond_wait(&writer->has_work, &writer->lock);
                continue;
            }
            if (uv_cond_timedwait(&writer->has_work, &writer->lock, PING_EVERY_NS) != UV_ETIMEDOUT)
                continue;
            uv_mutex_unlock(&writer->lock);
            int rc = store_ping(writer->db);
            uv_mutex_lock(&writer->lock);
            writer->reach = rc == STORE_E_IO ? rc : STORE_OK;
        }
        if (fifo_is_empty(&writer->submitted))
            break; /* stopping, with nothing left to store */
        struct writer_job *group[GROUP_MAX];
        int count = 0;
        fifo_link *link;
        while (count < GROUP_MAX && (link = fifo_pop(&writer->submitted)) != NULL)
            group[count++] = FIFO_ITEM(link, struct writer_job, link);
        uv_mutex_unlock(&writer->lock);
        int reach = store_group(writer, group, count);
        uv_mutex_lock(&writer->lock);
        writer->reach = reach;
        for (int i = 0; i < count; i++)
            fifo_push(&writer->answered, &group[i]->link);
        store_figures_read(writer->db, &writer->figures);
        uv_cond_signal(&writer->has_answers);
        bool is_wal_long = writer->is_wal_long;
        writer->is_wal_long = false;
        uv_mutex_unlock(&writer->lock);
        uv_async_send(&writer->knock);
        int frames;
        if (is_wal_long) /* a failure leaves it to the next time */
            store_checkpoint(writer->db, true, &frames);
        uv_mutex_lock(&writer->lock);
    }
    uv_mutex_unlock(&writer->lock);
}

/* The checkpointer: every CHECKPOINT_EVERY_NS it copies the WAL into the
 * database file and syncs it (the copying and the syncing the writer's
 * commits would otherwise wait for), and tells the writer when the WAL
 * has grown too long. */
static void checkpoint_thread(void *argument)
{
    store_writer *writer = argument;
    uv_mutex_lock(&writer->lock);
    while (!writer->is_stopping) {
        uv_cond_timedwait(&writer->stops, &writer->lock, CHECKPOINT_EVERY_NS);
        if (writer->is_stopping)
            break;
        uv_mutex_unlock(&writer->lock);
        int frames = 0;
        int rc = store_checkpoint(writer->checkpointer, false, &frames);
        uv_mutex_lock(&writer->lock);
        writer->is_wal_long = rc == STORE_OK && frames >= WAL_RESTART_FRAMES;
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

void store_writer_hand_over(store_writer *writer)
{
    uv_prepare_stop(&writer->before_poll);
    if (fifo_is_empty(&writer->pending))
        return;
    uv_mutex_lock(&writer->lock);
    fifo_link *link;
    while ((link = fifo_pop(&writer->pending)) != NULL)
        fifo_push(&writer->submitted, link);
    uv_cond_signal(&writer->has_work);
    uv_mutex_unlock(&writer->lock);
}

static void on_before_poll(uv_prepare_t *before_poll)
{
    store_writer_hand_over(before_poll->data);
}

static int writer_submit(void *context, store_batch *batch, store_done *done, void *done_context)
{
    store_writer *writer = context;
    struct writer_job *job = FIFO_ITEM(fifo_pop(&writer->free_jobs), struct writer_job, link);
    if (!job && !(job = malloc(sizeof(*job))))
        return STORE_E_NOMEM; /* refused at once: `done` will not run */
    *job = (struct writer_job){.batch = batch, .done = done, .done_context = done_context};
    writer->outstanding++;
    fifo_push(&writer->pending, &job->link);
    uv_prepare_start(&writer->before_poll, on_before_poll); /* a no-op when already started */
    return STORE_OK;
}

static void on_knock_closed(uv_handle_t *handle)
{
    store_writer *writer = handle->data;
    writer->is_knock_closed = true;
}

static void on_before_poll_closed(uv_handle_t *handle)
{
    store_writer *writer = handle->data;
    writer->is_before_poll_closed = true;
}

/* Closes the loop handles, runs the loop until they are closed, and frees
 * the writer's own parts (not its connection). */
static void writer_free(store_writer *writer)
{
    uv_close((uv_handle_t *)&writer->knock, on_knock_closed);
    uv_close((uv_handle_t *)&writer->before_poll, on_before_poll_closed);
    while (!writer->is_knock_closed || !writer->is_before_poll_closed)
        uv_run(writer->loop, UV_RUN_ONCE);
    fifo_link *link;
    while ((link = fifo_pop(&writer->free_jobs)) != NULL)
        free(FIFO_ITEM(link, struct writer_job, link));
    uv_cond_destroy(&writer->stops);
    uv_cond_destroy(&writer->has_answers);
    uv_cond_destroy(&writer->has_work);
    uv_mutex_destroy(&writer->lock);
    free(writer);
}

/* Stops both threads (their work done) and waits for the writer. */
static void stop_writer(store_writer *writer)
{
    uv_mutex_lock(&writer->lock);
    writer->is_stopping = true;
    uv_cond_signal(&writer->has_work);
    uv_cond_signal(&writer->stops);
    uv_mutex_unlock(&writer->lock);
    uv_thread_join(&writer->thread);
}

int store_writer_start(uv_loop_t *loop, store *db, store *checkpointer, store_writer **out)
{
    int rc = store_checkpoint_elsewhere(db);
    if (rc != STORE_OK)
        return rc;
    store_writer *writer = calloc(1, sizeof(*writer));
    if (!writer)
        return STORE_E_NOMEM;
    writer->loop = loop;
    writer->db = db;
    writer->checkpointer = checkpointer;
    store_figures_read(db, &writer->figures);
    int made = 0; /* how many of the five below were made, in order */
    if (uv_mutex_init(&writer->lock) != 0)
        goto out;
    made++;
    if (uv_cond_init(&writer->has_work) != 0)
        goto out;
    made++;
    if (uv_cond_init(&writer->has_answers) != 0)
        goto out;
    made++;
    if (uv_cond_init(&writer->stops) != 0)
        goto out;
    made++;
    if (uv_async_init(loop, &writer->knock, on_knock) != 0)
        goto out;
    made++;
    writer->knock.data = writer;
    (void)uv_prepare_init(loop, &writer->before_poll); /* libuv: always 0 */
    writer->before_poll.data = writer;
    if (uv_thread_create(&writer->thread, writer_thread, writer) != 0)
        goto out;
    if (checkpointer &&
        uv_thread_create(&writer->checkpoint_thread, checkpoint_thread, writer) != 0) {
        stop_writer(writer);
        goto out;
    }
    *out = writer;
    return STORE_OK;
out:
    if (made == 5) {
        writer_free(writer); /* `db` and `checkpointer` stay the caller's */
        return STORE_E_IO;
    }
    if (made > 3)
        uv_cond_destroy(&writer->stops);
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

int store_writer_reach(store_writer *writer)
{
    uv_mutex_lock(&writer->lock);
    int reach = writer->reach;
    uv_mutex_unlock(&writer->lock);
    return reach;
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
        store_writer_hand_over(writer);
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
    stop_writer(writer);
    if (writer->checkpointer)
        uv_thread_join(&writer->checkpoint_thread);
    store_close(writer->checkpointer);
    store_close(writer->db); /* the last connection to close checkpoints what is left */
    writer_free(writer);
}

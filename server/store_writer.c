/* store_writer.c -- the store port on threads of their own (store_writer.h).
 *
 * Two lists under one mutex carry the batches: the queue from the loop to
 * the connections' threads (writer_queue.h says which batches a free one
 * may take), and `answered` back. The loop gathers a turn's submissions
 * and hands them over together: when the server says the turn's messages
 * are read (store_writer_hand_over, before the turn's sends), else just
 * before it next polls (a uv_prepare_t, active only while some wait): one
 * lock and one wake-up for them all. The thread woken takes its share of
 * the batches waiting (up to GROUP_MAX), wakes another while some are
 * left, and stores its share with one
 * commit, each batch still all or nothing on its own (store_batches_apply:
 * a group commit), then answers them together with one knock on the loop
 * (uv_async_send); the loop runs the answers' `done` callbacks in the
 * order the groups were stored. A batch a deadlock undid is stored again.
 * A batch's job is allocated on the loop and freed there, onto a free list
 * that a steady stream of moves reuses. */
#include "server/store_writer.h"

#include <stdlib.h>

#include "server/writer_queue.h"
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
/* On a database server, a batch a deadlock undid (STORE_E_BUSY:
 * PostgreSQL broke a cycle of waits between two connections by undoing its
 * transaction) is stored again, this many times at most. (SQLite's busy
 * answer comes after its busy timeout was waited out: it is final.) */
#define BUSY_RETRIES 3

/* One connection and the thread that stores on it. */
struct writer_connection {
    store_writer *writer;
    store *db; /* its thread's alone while it runs */
    uv_thread_t thread;
    writer_flight flight;   /* under lock: the group it stores now */
    uint64_t checked_drops; /* under lock: the writer's `drops` when it last knew it was there */
    store_figures figures;  /* under lock: the connection's, after its last group */
};

struct store_writer {
    uv_loop_t *loop;
    struct writer_connection *connections;
    int connection_count;
    int started;         /* threads started, each of connections[0 .. started - 1] */
    store *checkpointer; /* the checkpointer thread's alone while it runs */
    uv_thread_t checkpoint_thread;
    uv_mutex_t lock;
    uv_cond_t has_work;       /* wakes one free thread (all at a stop) */
    uv_cond_t has_answers;    /* signalled on an answer (store_writer_flush waits on it) */
    writer_queue queue;       /* under lock */
    int reach;                /* under lock: the last group's or ping's outcome, 0 or STORE_E_IO */
    uint64_t drops;           /* under lock: how often a connection found the database gone */
    fifo answered;            /* under lock */
    bool is_stopping;         /* under lock */
    bool is_wal_long;         /* under lock: the writer starts the WAL over */
    uv_cond_t stops;          /* signalled on a stop (the checkpointer's sleep) */
    uv_async_t knock;         /* the threads wake the loop with it */
    bool is_knock_closed;     /* loop only */
    fifo pending;             /* loop only: submitted, not yet handed over */
    uint64_t submitted;       /* loop only: batches submitted so far (their numbers) */
    uv_prepare_t before_poll; /* hands `pending` over; active while it is not empty */
    bool is_before_poll_closed; /* loop only */
    int outstanding;            /* loop only: submitted and not yet answered */
    fifo free_jobs;             /* loop only */
};

/* Stores a group of jobs with one commit (store_batches_apply), and again,
 * up to `retries` times, those a deadlock undid. */
static void store_group(store *db, writer_job **group, int count, int retries)
{
    store_batch *batches[GROUP_MAX];
    int rcs[GROUP_MAX], left[GROUP_MAX]; /* left: the indexes in `group` still to store */
    for (int i = 0; i < count; i++)
        left[i] = i;
    for (int attempt = 0; count > 0 && attempt <= retries; attempt++) {
        for (int i = 0; i < count; i++)
            batches[i] = group[left[i]]->batch;
        store_batches_apply(db, batches, count, rcs);
        int busy = 0;
        for (int i = 0; i < count; i++) {
            group[left[i]]->rc = rcs[i];
            if (rcs[i] == STORE_E_BUSY)
                left[busy++] = left[i];
        }
        count = busy;
    }
}

/* Whether any job of `group` could not reach the database. */
static int reach_of(writer_job *const *group, int count)
{
    for (int i = 0; i < count; i++)
        if (group[i]->rc == STORE_E_IO)
            return STORE_E_IO;
    return STORE_OK;
}

/* Whether the writer stores on a database server (PostgreSQL), which it
 * asks whether it is there and whose deadlocks it retries; a SQLite file
 * has a checkpointer instead. */
static bool is_on_server(const store_writer *writer)
{
    return !writer->checkpointer;
}

/* Takes the group `connection` stores next (under the lock): how many, 0
 * when none may go now. Its share is what waits over the connections
 * free (those storing nothing, itself among them), so a burst is spread
 * over them. */
static int take_group(store_writer *writer, struct writer_connection *connection,
                      writer_job **group)
{
    if (writer->queue.count == 0)
        return 0;
    writer_flight others = {0};
    int free_count = 1;
    for (int i = 0; i < writer->connection_count; i++) {
        const writer_flight *flight = &writer->connections[i].flight;
        if (&writer->connections[i] == connection)
            continue;
        if (flight->oldest == 0) {
            free_count++;
            continue;
        }
        others.has_lobby_batch |= flight->has_lobby_batch;
        if (others.oldest == 0 || flight->oldest < others.oldest)
            others.oldest = flight->oldest;
    }
    int share = (writer->queue.count + free_count - 1) / free_count;
    return writer_queue_take(&writer->queue, others, group, share < GROUP_MAX ? share : GROUP_MAX);
}

/* Sets the writer's reach from a connection's latest outcome (under the
 * lock): a connection that found the database gone makes the others ask
 * before their next group. */
static void note_reach(store_writer *writer, struct writer_connection *connection, int reach)
{
    writer->reach = reach;
    if (reach == STORE_E_IO)
        writer->drops++;
    connection->checked_drops = writer->drops;
}

/* Asks the database whether it is there (the lock held, released while
 * asking). A connection the server dropped since it was last used (a
 * database restart) fails the first question without knowing; it is made
 * again for the second, so only a server that is gone answers STORE_E_IO
 * -- and a group after a restart is not refused for a stale connection. */
static void ping(store_writer *writer, struct writer_connection *connection)
{
    uv_mutex_unlock(&writer->lock);
    int rc = store_ping(connection->db);
    if (rc == STORE_E_IO)
        rc = store_ping(connection->db);
    uv_mutex_lock(&writer->lock);
    note_reach(writer, connection, rc == STORE_E_IO ? rc : STORE_OK);
}

/* Waits (under the lock) until there may be work; on a database server an
 * idle connection asks whether it is there every PING_EVERY_NS. */
static void wait_for_work(store_writer *writer, struct writer_connection *connection)
{
    if (!is_on_server(writer)) { /* a file: nothing to ask while idle */
        uv_cond_wait(&writer->has_work, &writer->lock);
        return;
    }
    if (uv_cond_timedwait(&writer->has_work, &writer->lock, PING_EVERY_NS) != UV_ETIMEDOUT)
        return;
    ping(writer, connection);
}

static void connection_thread(void *argument)
{
    struct writer_connection *connection = argument;
    store_writer *writer = connection->writer;
    uv_mutex_lock(&writer->lock);
    for (;;) {
        writer_job *group[GROUP_MAX];
        int count = take_group(writer, connection, group);
        if (count == 0) {
            if (writer->is_stopping && writer->queue.count == 0)
                break; /* nothing left to store */
            wait_for_work(writer, connection);
            continue;
        }
        connection->flight = writer_queue_flight_of(group, count);
        if (writer->queue.count > 0)
            uv_cond_signal(&writer->has_work); /* another free connection takes what is left */
        if (is_on_server(writer) && connection->checked_drops != writer->drops)
            ping(writer, connection); /* another found the database server gone */
        uv_mutex_unlock(&writer->lock);
        store_group(connection->db, group, count, is_on_server(writer) ? BUSY_RETRIES : 0);
        uv_mutex_lock(&writer->lock);
        connection->flight = (writer_flight){0};
        note_reach(writer, connection, reach_of(group, count));
        for (int i = 0; i < count; i++)
            fifo_push(&writer->answered, &group[i]->link);
        store_figures_read(connection->db, &connection->figures);
        uv_cond_signal(&writer->has_answers);
        if (writer->is_stopping) /* those waiting for this group leave once all is stored */
            uv_cond_broadcast(&writer->has_work);
        bool is_wal_long = writer->is_wal_long;
        writer->is_wal_long = false;
        uv_mutex_unlock(&writer->lock);
        uv_async_send(&writer->knock);
        int frames;
        if (is_wal_long) /* a failure leaves it to the next time */
            store_checkpoint(connection->db, true, &frames);
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
        writer_job *job = FIFO_ITEM(link, writer_job, link);
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
        writer_queue_push(&writer->queue, FIFO_ITEM(link, writer_job, link));
    uv_cond_signal(&writer->has_work); /* which wakes another if it leaves some */
    uv_mutex_unlock(&writer->lock);
}

static void on_before_poll(uv_prepare_t *before_poll)
{
    store_writer_hand_over(before_poll->data);
}

static int writer_submit(void *context, store_batch *batch, store_done *done, void *done_context)
{
    store_writer *writer = context;
    writer_job *job = FIFO_ITEM(fifo_pop(&writer->free_jobs), writer_job, link);
    if (!job && !(job = malloc(sizeof(*job))))
        return STORE_E_NOMEM; /* refused at once: `done` will not run */
    *job = (writer_job){
        .batch = batch, .done = done, .done_context = done_context, .number = ++writer->submitted};
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

/* Frees a writer with no loop handle open and no thread running: its lock
 * and conditions, its parts (not its connections). */
static void writer_destroy(store_writer *writer)
{
    fifo_link *link;
    while ((link = fifo_pop(&writer->free_jobs)) != NULL)
        free(FIFO_ITEM(link, writer_job, link));
    uv_cond_destroy(&writer->stops);
    uv_cond_destroy(&writer->has_answers);
    uv_cond_destroy(&writer->has_work);
    uv_mutex_destroy(&writer->lock);
    free(writer->connections);
    free(writer);
}

/* Closes the loop handles, runs the loop until they are closed, and frees
 * the writer (not its connections). */
static void writer_free(store_writer *writer)
{
    uv_close((uv_handle_t *)&writer->knock, on_knock_closed);
    uv_close((uv_handle_t *)&writer->before_poll, on_before_poll_closed);
    while (!writer->is_knock_closed || !writer->is_before_poll_closed)
        uv_run(writer->loop, UV_RUN_ONCE);
    writer_destroy(writer);
}

/* Stops the threads (their work done) and waits for the connections'. */
static void stop_writer(store_writer *writer)
{
    uv_mutex_lock(&writer->lock);
    writer->is_stopping = true;
    uv_cond_broadcast(&writer->has_work);
    uv_cond_signal(&writer->stops);
    uv_mutex_unlock(&writer->lock);
    for (int i = 0; i < writer->started; i++)
        uv_thread_join(&writer->connections[i].thread);
}

/* Starts a thread per connection, and the checkpointer's: whether all
 * started (those that did are stopped again when not). */
static bool start_threads(store_writer *writer)
{
    for (; writer->started < writer->connection_count; writer->started++) {
        struct writer_connection *connection = &writer->connections[writer->started];
        if (uv_thread_create(&connection->thread, connection_thread, connection) != 0)
            break;
    }
    if (writer->started == writer->connection_count &&
        (!writer->checkpointer ||
         uv_thread_create(&writer->checkpoint_thread, checkpoint_thread, writer) == 0))
        return true;
    stop_writer(writer);
    return false;
}

/* A writer of `count` connections with its lock and conditions, or NULL
 * (out of memory, or of what the system gives). */
static store_writer *writer_new(uv_loop_t *loop, store *const *connections, int count,
                                store *checkpointer)
{
    store_writer *writer = calloc(1, sizeof(*writer));
    if (!writer || !(writer->connections = calloc((size_t)count, sizeof(*writer->connections)))) {
        free(writer);
        return NULL;
    }
    writer->loop = loop;
    writer->connection_count = count;
    writer->checkpointer = checkpointer;
    for (int i = 0; i < count; i++) {
        writer->connections[i] = (struct writer_connection){.writer = writer, .db = connections[i]};
        store_figures_read(connections[i], &writer->connections[i].figures);
    }
    if (uv_mutex_init(&writer->lock) != 0)
        goto no_lock;
    if (uv_cond_init(&writer->has_work) != 0)
        goto no_has_work;
    if (uv_cond_init(&writer->has_answers) != 0)
        goto no_has_answers;
    if (uv_cond_init(&writer->stops) != 0)
        goto no_stops;
    return writer;
no_stops:
    uv_cond_destroy(&writer->has_answers);
no_has_answers:
    uv_cond_destroy(&writer->has_work);
no_has_work:
    uv_mutex_destroy(&writer->lock);
no_lock:
    free(writer->connections);
    free(writer);
    return NULL;
}

int store_writer_start(uv_loop_t *loop, store *const *connections, int count, store *checkpointer,
                       store_writer **out)
{
    if (count < 1 || count > STORE_WRITER_CONNECTIONS_MAX || (checkpointer && count != 1))
        return STORE_E_INVALID;
    for (int i = 0; i < count; i++) {
        int rc = store_checkpoint_elsewhere(connections[i]);
        if (rc != STORE_OK)
            return rc;
    }
    store_writer *writer = writer_new(loop, connections, count, checkpointer);
    if (!writer)
        return STORE_E_NOMEM;
    if (uv_async_init(loop, &writer->knock, on_knock) != 0) {
        writer_destroy(writer);
        return STORE_E_IO;
    }
    writer->knock.data = writer;
    (void)uv_prepare_init(loop, &writer->before_poll); /* libuv: always 0 */
    writer->before_poll.data = writer;
    if (!start_threads(writer)) {
        writer_free(writer); /* the connections stay the caller's */
        return STORE_E_IO;
    }
    *out = writer;
    return STORE_OK;
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
    *out = (store_figures){0};
    uv_mutex_lock(&writer->lock);
    for (int i = 0; i < writer->connection_count; i++)
        store_figures_add(out, &writer->connections[i].figures);
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
    for (int i = 0; i < writer->connection_count; i++)
        store_close(writer->connections[i].db); /* the last to close checkpoints what is left */
    writer_free(writer);
}

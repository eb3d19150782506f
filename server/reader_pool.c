/* reader_pool.c -- read-only connections on libuv's thread pool (see
 * reader_pool.h).
 *
 * The free connections are a stack and the waiting jobs a FIFO list, both
 * touched only on the loop: a job takes a connection when it starts and,
 * when it is done, hands it straight to the oldest waiting job, or back to
 * the stack. */
#include <errno.h>
#include <stdlib.h>

#include "server/log.h"
#include "server/reader_pool.h"

struct reader_pool {
    uv_loop_t *loop;
    int max_waiting;
    store **readers; /* every connection, for closing */
    int reader_count;
    store **free_readers; /* a stack */
    int free_count;
    reader_pool_job *waiting_first, *waiting_last;
    int waiting_count;
    int jobs_in_flight; /* running or waiting */
};

static void run_job(uv_work_t *work)
{
    reader_pool_job *job = work->data;
    job->run(job, job->reader);
}

static int start_job(struct reader_pool *pool, reader_pool_job *job, store *reader);

/* The connection goes to the oldest waiting job, or back on the stack. A
 * waiting job that libuv refuses is done with its error and the next one
 * tried. */
static void release_reader(struct reader_pool *pool, store *reader)
{
    reader_pool_job *next;
    while ((next = pool->waiting_first)) {
        pool->waiting_first = next->next_waiting;
        if (!pool->waiting_first)
            pool->waiting_last = NULL;
        pool->waiting_count--;
        int rc = start_job(pool, next, reader);
        if (rc == 0)
            return;
        pool->jobs_in_flight--;
        next->done(next, rc);
    }
    pool->free_readers[pool->free_count++] = reader;
}

static void job_done(uv_work_t *work, int status)
{
    reader_pool_job *job = work->data;
    struct reader_pool *pool = job->pool;
    (void)status; /* jobs are never cancelled: the job and its reader come back here */
    release_reader(pool, job->reader);
    pool->jobs_in_flight--;
    job->done(job, 0);
}

/* Queues the job on the thread pool with `reader`: 0, or libuv's error
 * (the job then still holds nothing). */
static int start_job(struct reader_pool *pool, reader_pool_job *job, store *reader)
{
    job->reader = reader;
    job->work.data = job;
    int rc = uv_queue_work(pool->loop, &job->work, run_job, job_done);
    if (rc != 0)
        log_error("uv_queue_work: %s", uv_strerror(rc));
    return rc;
}

int reader_pool_submit(struct reader_pool *pool, reader_pool_job *job)
{
    job->pool = pool;
    job->next_waiting = NULL;
    if (pool->free_count == 0) {
        if (pool->waiting_count >= pool->max_waiting)
            return -EBUSY;
        if (pool->waiting_last)
            pool->waiting_last->next_waiting = job;
        else
            pool->waiting_first = job;
        pool->waiting_last = job;
        pool->waiting_count++;
    } else {
        int rc = start_job(pool, job, pool->free_readers[pool->free_count - 1]);
        if (rc != 0)
            return rc;
        pool->free_count--;
    }
    pool->jobs_in_flight++;
    return 0;
}

int reader_pool_new(uv_loop_t *loop, const char *db_path, int readers, int max_waiting,
                    struct reader_pool **out)
{
    *out = NULL;
    struct reader_pool *pool = calloc(1, sizeof(*pool));
    if (!pool)
        return STORE_E_NOMEM;
    pool->loop = loop;
    pool->max_waiting = max_waiting;
    pool->readers = calloc((size_t)readers, sizeof(*pool->readers));
    pool->free_readers = calloc((size_t)readers, sizeof(*pool->free_readers));
    int rc = pool->readers && pool->free_readers ? STORE_OK : STORE_E_NOMEM;
    if (rc == STORE_OK && readers < 1)
        rc = STORE_E_INVALID;
    for (int i = 0; rc == STORE_OK && i < readers; i++) {
        rc = store_open_reader(db_path, &pool->readers[i]);
        if (rc == STORE_OK) {
            pool->free_readers[pool->free_count++] = pool->readers[i];
            pool->reader_count++;
        }
    }
    if (rc != STORE_OK) {
        char shown[256];
        store_path_for_log(db_path, shown, sizeof(shown));
        log_error("cannot open the database %s for reads: %s", shown, store_strerror(rc));
        reader_pool_free(pool);
        return rc;
    }
    *out = pool;
    return STORE_OK;
}

int reader_pool_cursor_key(struct reader_pool *pool, unsigned char key[STORE_CURSOR_KEY_BYTES])
{
    return store_read_cursor_key(pool->readers[0], key);
}

int reader_pool_jobs_in_flight(const struct reader_pool *pool)
{
    return pool ? pool->jobs_in_flight : 0;
}

void reader_pool_free(struct reader_pool *pool)
{
    if (!pool)
        return;
    for (int i = 0; i < pool->reader_count; i++)
        store_close(pool->readers[i]);
    free(pool->readers);
    free(pool->free_readers);
    free(pool);
}

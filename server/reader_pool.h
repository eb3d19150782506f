/* reader_pool.h -- read-only database connections used on libuv's thread
 * pool, so that the loop never waits on a read.
 *
 * The pool owns a few read-only connections (storage/store_read.h). A job
 * takes a free one, runs on a worker thread with it, and is done on the
 * loop; with every connection busy, jobs wait in a queue on the loop,
 * first come first served, and past `max_waiting` of them a job is
 * refused at once. A connection is only ever used by the one job holding
 * it, and all the bookkeeping happens on the loop, so there is no lock.
 * The history API (http_history.c) and the bot-account routes
 * (http_accounts.c) read through one pool. */
#ifndef TESSERA_READER_POOL_H
#define TESSERA_READER_POOL_H

#include <uv.h>

#include "storage/store_read.h"

struct reader_pool;
struct reader_pool_job;

/* Runs on a worker thread with `reader`, which the job alone holds. */
typedef void reader_pool_run(struct reader_pool_job *job, store *reader);

/* On the loop, once: status 0 after `run`, or libuv's error when the job
 * could not be started after waiting (`run` did not happen). */
typedef void reader_pool_done(struct reader_pool_job *job, int status);

/* A job, embedded in its owner's struct; the pool's fields are private. */
typedef struct reader_pool_job {
    reader_pool_run *run;
    reader_pool_done *done;
    /* the pool's */
    uv_work_t work;
    struct reader_pool *pool;
    store *reader;
    struct reader_pool_job *next_waiting;
} reader_pool_job;

/* Opens `readers` read-only connections to the database at `db_path`
 * (which the server's writer has already created and migrated); at most
 * `max_waiting` jobs wait for one. 0 and *out, or a store_error after
 * logging why. */
int reader_pool_new(uv_loop_t *loop, const char *db_path, int readers, int max_waiting,
                    struct reader_pool **out);

/* Starts `job` (its run and done set), or queues it: 0, and `done` is
 * called later; or -EBUSY (too many waiting) or libuv's error, and it is
 * not. */
int reader_pool_submit(struct reader_pool *pool, reader_pool_job *job);

/* The database's cursor key, read through the first connection: 0, or a
 * store_error. Only before any job is submitted. */
int reader_pool_cursor_key(struct reader_pool *pool, unsigned char key[STORE_CURSOR_KEY_BYTES]);

/* Jobs running or waiting. */
int reader_pool_jobs_in_flight(const struct reader_pool *pool);

/* Closes the connections; no job may be in flight. NULL is allowed. */
void reader_pool_free(struct reader_pool *pool);

#endif

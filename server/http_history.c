/* http_history.c -- history requests through the reader pool (see
 * http_history.h).
 *
 * The free connections are a stack and the waiting requests a FIFO list,
 * both touched only on the loop: a job takes a connection when it starts
 * and, when it is done, hands it straight to the oldest waiting job, or
 * back to the stack. The worker does all the reading and encoding; the
 * loop only moves the finished bytes to the transport. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history/history.h"
#include "server/http_error.h"
#include "server/http_history.h"
#include "server/log.h"

struct history_job {
    uv_work_t work;
    struct http_history *owner;
    uint64_t exchange;
    history_request request;
    store *reader;
    transport_http_response answer;
    char path[128]; /* for the log */
    struct history_job *next_waiting;
};

struct http_history {
    uv_loop_t *loop;
    struct transport *transport;
    int64_t min_games;
    unsigned char cursor_key[STORE_CURSOR_KEY_BYTES]; /* the database's, read once at start */
    store **readers;                                  /* every connection, for closing */
    int reader_count;
    store **free_readers; /* a stack */
    int free_count;
    struct history_job *waiting_first, *waiting_last;
    int waiting_count;
    int jobs_in_flight; /* running or waiting */
};

static int64_t epoch_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void run_job(uv_work_t *work)
{
    struct history_job *job = work->data;
    history_result result;
    history_run(job->reader, &job->request, &result);
    job->answer.body = history_render(&result, &job->answer.status, &job->answer.content_type,
                                      &job->answer.body_length);
}

static int start_job(struct http_history *history, struct history_job *job, store *reader);
static void finish_job(struct http_history *history, struct history_job *job);

/* The connection goes to the oldest waiting job, or back on the stack. A
 * waiting job that libuv refuses is answered 503 and the next one tried. */
static void release_reader(struct http_history *history, store *reader)
{
    struct history_job *next;
    while ((next = history->waiting_first)) {
        history->waiting_first = next->next_waiting;
        if (!history->waiting_first)
            history->waiting_last = NULL;
        history->waiting_count--;
        if (start_job(history, next, reader) == 0)
            return;
        http_error_respond(&next->answer, next->path, 503, "unavailable",
                           "the server cannot take this request now");
        finish_job(history, next);
    }
    history->free_readers[history->free_count++] = reader;
}

/* Sends the job's answer (or drops it: no transport, or the client left)
 * and frees the job. */
static void finish_job(struct http_history *history, struct history_job *job)
{
    if (job->answer.status >= 500)
        log_warn("history GET %s -> %d", job->path, job->answer.status);
    if (history->transport)
        transport_http_respond(history->transport, job->exchange, &job->answer);
    else
        free(job->answer.body);
    history->jobs_in_flight--;
    free(job);
}

static void job_done(uv_work_t *work, int status)
{
    struct history_job *job = work->data;
    struct http_history *history = job->owner;
    (void)status; /* jobs are never cancelled: the answer and the reader come back here */
    release_reader(history, job->reader);
    finish_job(history, job);
}

/* Queues the job on the thread pool with `reader`: 0, or libuv's error
 * (the job then still holds nothing). */
static int start_job(struct http_history *history, struct history_job *job, store *reader)
{
    job->reader = reader;
    job->work.data = job;
    int rc = uv_queue_work(history->loop, &job->work, run_job, job_done);
    if (rc != 0)
        log_error("uv_queue_work: %s", uv_strerror(rc));
    return rc;
}

static void enqueue(struct http_history *history, struct history_job *job)
{
    job->next_waiting = NULL;
    if (history->waiting_last)
        history->waiting_last->next_waiting = job;
    else
        history->waiting_first = job;
    history->waiting_last = job;
    history->waiting_count++;
}

static void answer_history(void *context, const transport_http_request *request,
                           transport_http_response *response)
{
    struct http_history *history = context;
    history_settings settings = {history->min_games, epoch_ms(), history->cursor_key};
    history_result error;
    struct history_job *job = calloc(1, sizeof(*job));
    if (!job) {
        http_error_respond(response, request->path, 500, "internal",
                           "the server ran out of memory");
        return;
    }
    if (history_parse(request->path, request->query, &settings, &job->request, &error) != 0) {
        http_error_respond(response, request->path, error.status, error.failure.code,
                           error.failure.message);
        free(job);
        return;
    }
    if (history->free_count == 0 && history->waiting_count >= HTTP_HISTORY_MAX_WAITING) {
        http_error_respond(response, request->path, 503, "unavailable",
                           "too many history requests at once; try again shortly");
        free(job);
        return;
    }
    job->owner = history;
    job->exchange = request->exchange;
    snprintf(job->path, sizeof(job->path), "%s", request->path);
    if (history->free_count == 0) {
        enqueue(history, job);
    } else if (start_job(history, job, history->free_readers[history->free_count - 1]) == 0) {
        history->free_count--;
    } else {
        http_error_respond(response, request->path, 503, "unavailable",
                           "the server cannot take this request now");
        free(job);
        return;
    }
    response->is_deferred = true;
    history->jobs_in_flight++;
}

int http_history_new(uv_loop_t *loop, const char *db_path, int readers, int64_t min_games,
                     struct http_history **out)
{
    *out = NULL;
    struct http_history *history = calloc(1, sizeof(*history));
    if (!history)
        return STORE_E_NOMEM;
    history->loop = loop;
    history->min_games = min_games;
    history->readers = calloc((size_t)readers, sizeof(*history->readers));
    history->free_readers = calloc((size_t)readers, sizeof(*history->free_readers));
    int rc = history->readers && history->free_readers ? STORE_OK : STORE_E_NOMEM;
    for (int i = 0; rc == STORE_OK && i < readers; i++) {
        rc = store_open_reader(db_path, &history->readers[i]);
        if (rc == STORE_OK) {
            history->free_readers[history->free_count++] = history->readers[i];
            history->reader_count++;
        }
    }
    if (rc == STORE_OK)
        rc = readers > 0 ? store_read_cursor_key(history->readers[0], history->cursor_key)
                         : STORE_E_INVALID;
    if (rc != STORE_OK) {
        log_error("cannot open the database %s for history reads: %s", db_path, store_strerror(rc));
        http_history_free(history);
        return rc;
    }
    *out = history;
    return STORE_OK;
}

int http_history_add_routes(struct http_history *history, http_routes *routes)
{
    static const char *const PATHS[] = {"/api/games",
                                        "/api/games/*",
                                        "/api/players/*",
                                        "/api/leaderboards/blokus",
                                        "/api/leaderboards/reef",
                                        "/api/tournaments",
                                        "/api/tournaments/*"};
    for (size_t i = 0; i < sizeof(PATHS) / sizeof(PATHS[0]); i++) {
        int rc = http_routes_add(routes, "GET", PATHS[i], answer_history, history);
        if (rc != 0)
            return rc;
    }
    return 0;
}

void http_history_attach(struct http_history *history, struct transport *transport)
{
    history->transport = transport;
}

int http_history_jobs_in_flight(const struct http_history *history)
{
    return history ? history->jobs_in_flight : 0;
}

void http_history_free(struct http_history *history)
{
    if (!history)
        return;
    for (int i = 0; i < history->reader_count; i++)
        store_close(history->readers[i]);
    free(history->readers);
    free(history->free_readers);
    free(history);
}

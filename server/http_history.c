/* http_history.c -- history requests through the reader pool (see
 * http_history.h). The worker does all the reading and encoding; the loop
 * only moves the finished bytes to the transport. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history/history.h"
#include "server/http_error.h"
#include "server/http_history.h"
#include "server/log.h"

struct history_job {
    reader_pool_job job; /* first: the pool's job is this one */
    struct http_history *owner;
    uint64_t exchange;
    history_request request;
    transport_http_response answer;
    char path[128]; /* for the log */
};

struct http_history {
    struct reader_pool *readers;
    struct transport *transport;
    int64_t min_games;
    unsigned char cursor_key[STORE_CURSOR_KEY_BYTES]; /* the database's, read once at start */
    int jobs_in_flight;                               /* running or waiting */
};

static int64_t epoch_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void run_job(reader_pool_job *base, store *reader)
{
    struct history_job *job = (struct history_job *)base;
    history_result result;
    history_run(reader, &job->request, &result);
    job->answer.body = history_render(&result, &job->answer.status, &job->answer.content_type,
                                      &job->answer.body_length);
}

/* Sends the job's answer (or drops it: no transport, or the client left)
 * and frees the job; one that could not start is answered 503. */
static void job_done(reader_pool_job *base, int status)
{
    struct history_job *job = (struct history_job *)base;
    struct http_history *history = job->owner;
    if (status != 0)
        http_error_respond(&job->answer, job->path, 503, "unavailable",
                           "the server cannot take this request now");
    if (job->answer.status >= 500)
        log_warn("history GET %s -> %d", job->path, job->answer.status);
    http_response_send(history->transport, job->exchange, &job->answer);
    history->jobs_in_flight--;
    free(job);
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
    job->owner = history;
    job->exchange = request->exchange;
    job->job = (reader_pool_job){.run = run_job, .done = job_done};
    snprintf(job->path, sizeof(job->path), "%s", request->path);
    int rc = reader_pool_submit(history->readers, &job->job);
    if (rc != 0) {
        http_error_respond(response, request->path, 503, "unavailable",
                           rc == -EBUSY ? "too many requests at once; try again shortly"
                                        : "the server cannot take this request now");
        free(job);
        return;
    }
    response->is_deferred = true;
    history->jobs_in_flight++;
}

int http_history_new(struct reader_pool *readers, int64_t min_games, struct http_history **out)
{
    *out = NULL;
    struct http_history *history = calloc(1, sizeof(*history));
    if (!history)
        return STORE_E_NOMEM;
    history->readers = readers;
    history->min_games = min_games;
    int rc = reader_pool_cursor_key(readers, history->cursor_key);
    if (rc != STORE_OK) {
        log_error("cannot read the database's cursor key: %s", store_strerror(rc));
        free(history);
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
    free(history);
}

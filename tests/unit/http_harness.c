/* http_harness.c -- REST routes driven as the server drives them (see
 * http_harness.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/http_harness.h"

#define MAX_ANSWERS 64

static char db_path[64];
static store *db;
static uv_loop_t loop;
static struct reader_pool *readers;
static uint64_t dispatched; /* requests so far; request i is exchange i + 1 */

/* The answers the transport got, by exchange. */
static struct {
    uint64_t exchange;
    transport_http_response response;
    bool is_taken;
} answers[MAX_ANSWERS];
static int answer_count;

/* Any non-NULL pointer stands for the transport. */
struct transport *http_harness_transport(void)
{
    return (struct transport *)&loop;
}

int transport_http_respond(struct transport *transport, uint64_t exchange,
                           transport_http_response *response)
{
    if (transport != http_harness_transport() || answer_count == MAX_ANSWERS) {
        fprintf(stderr, "http_harness: an answer for an unknown transport, or too many\n");
        abort();
    }
    answers[answer_count].exchange = exchange;
    answers[answer_count].is_taken = false;
    answers[answer_count++].response = *response;
    response->body = NULL;
    return 0;
}

static int answer_of(uint64_t exchange)
{
    for (int i = 0; i < answer_count; i++)
        if (answers[i].exchange == exchange && !answers[i].is_taken)
            return i;
    return -1;
}

bool http_harness_answer(int index, transport_http_response *answer)
{
    int found = answer_of((uint64_t)index + 1);
    memset(answer, 0, sizeof(*answer));
    if (found < 0)
        return false;
    *answer = answers[found].response;
    answers[found].is_taken = true;
    return true;
}

int http_harness_open(void)
{
    snprintf(db_path, sizeof(db_path), "/tmp/tessera-http-harness-%d.db", (int)getpid());
    unlink(db_path);
    dispatched = 0;
    answer_count = 0;
    int rc = store_open(db_path, false, &db);
    if (rc == STORE_OK)
        rc = uv_loop_init(&loop) == 0 ? STORE_OK : STORE_E_IO;
    if (rc == STORE_OK)
        rc = reader_pool_new(&loop, db_path, 2, 8, &readers);
    return rc;
}

store *http_harness_db(void)
{
    return db;
}

uv_loop_t *http_harness_loop(void)
{
    return &loop;
}

struct reader_pool *http_harness_readers(void)
{
    return readers;
}

void http_harness_dispatch(http_routes *routes, const char *method, const char *path,
                           const char *authorization, const char *body, size_t length,
                           transport_http_response *answer)
{
    url_query query = {NULL, 0};
    int index = (int)dispatched++;
    transport_http_request request = {method,      path,       &query,        body,  length,
                                      "127.0.0.1", dispatched, authorization, false, ""};
    memset(answer, 0, sizeof(*answer));
    http_routes_dispatch(routes, &request, answer);
    if (!answer->is_deferred)
        return;
    while (answer_of(dispatched) < 0 && reader_pool_jobs_in_flight(readers) > 0)
        uv_run(&loop, UV_RUN_ONCE);
    http_harness_answer(index, answer);
}

void http_harness_close(void)
{
    for (int i = 0; i < answer_count; i++)
        if (!answers[i].is_taken)
            free(answers[i].response.body);
    answer_count = 0;
    reader_pool_free(readers);
    readers = NULL;
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    store_close(db);
    db = NULL;
    unlink(db_path);
}

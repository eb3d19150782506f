/* fake_host.c -- the lobby host used by the lobby tests. */
#include "tests/unit/fake_host.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct fake_host host;

static void host_send(void *context, uint64_t connection, const char *text, size_t length,
                      bool can_wait)
{
    (void)context;
    (void)can_wait; /* the fake delivers everything at once */
    json_t *message = json_loadb(text, length, 0, NULL);
    assert_non_null(message);
    assert_true(json_is_string(json_object_get(message, "type")));
    assert_true(connection < FAKE_HOST_CONNECTIONS);
    json_array_append_new(host.inbox[connection], message);
}

static void host_close(void *context, uint64_t connection, const char *reason)
{
    (void)context;
    (void)reason;
    host.is_closed[connection] = true;
}

static int64_t host_now(void *context)
{
    (void)context;
    return host.now;
}

static int host_queue(void *context, lobby_job *job)
{
    (void)context;
    if (host.is_queue_refusing)
        return -EAGAIN;
    assert_true(host.job_count < FAKE_HOST_JOBS);
    host.jobs[host.job_count++] = job;
    return 0;
}

static void host_random(void *context, void *buffer, size_t length)
{
    (void)context;
    for (size_t i = 0; i < length; i++)
        ((unsigned char *)buffer)[i] = (unsigned char)rng_next(&host.random);
}

/* Log lines must be printable one-liners; the tests keep nothing else of them. */
static void host_grant(void *context, uint64_t connection, int messages)
{
    (void)context;
    assert_true(connection < FAKE_HOST_CONNECTIONS);
    host.granted[connection] += messages;
}

static void host_log(void *context, const char *line)
{
    (void)context;
    assert_non_null(line);
    assert_null(strchr(line, '\n'));
    if (getenv("FAKE_HOST_LOG"))
        fprintf(stderr, "log: %s\n", line);
}

const lobby_host FAKE_HOST = {NULL,       host_send,   host_close, host_now,
                              host_queue, host_random, host_grant, host_log};

void fake_host_reset(uint64_t seed)
{
    memset(&host, 0, sizeof(host));
    host.now = 1700000000000;
    host.random = rng_seeded(seed);
    for (int i = 0; i < FAKE_HOST_CONNECTIONS; i++)
        host.inbox[i] = json_array();
}

void fake_host_release(void)
{
    for (int i = 0; i < FAKE_HOST_CONNECTIONS; i++)
        json_decref(host.inbox[i]);
}

int fake_host_run_jobs(int limit)
{
    int ran = 0;
    while (host.job_count > 0 && ran < limit) {
        lobby_job *job = host.jobs[0];
        memmove(host.jobs, host.jobs + 1, sizeof(host.jobs[0]) * (size_t)--host.job_count);
        job->work(job);
        job->done(job);
        ran++;
    }
    return ran;
}

static void take_restored(void *context, int rc)
{
    *(int *)context = rc;
}

int fake_host_restore(struct lobby *lobby)
{
    int restored = INT_MIN; /* stays so if lobby_restore did not end before returning */
    lobby_restore(lobby, take_restored, &restored);
    return restored;
}

/* lobby_bus.c -- a listener thread for the lobby's notices (lobby_bus.h).
 *
 * The thread waits in poll() on the listening connection's socket and on
 * a pipe the loop writes to when the bus stops; what it hears it queues
 * under a mutex and wakes the loop with a uv_async (one wake for however
 * many notices). While the server cannot be reached it tries again every
 * RETRY_MS. A loop too busy to take the notices, which pile up past
 * QUEUE_MAX, loses them and is told as after a reconnect, so the others
 * tell everything again. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lobby/lobby.h"
#include "server/lobby_bus.h"
#include "server/log.h"
#include "storage/store_listen.h"

#define RETRY_MS  1000
#define QUEUE_MAX 10000

struct lobby_bus {
    struct lobby *lobby;
    char *url;
    uv_thread_t thread;
    bool is_thread_started;
    int stop_pipe[2]; /* the loop writes a byte to [1] to stop the thread */
    uv_async_t wake;  /* the thread wakes the loop */
    bool is_wake_open, is_wake_closed;
    uv_mutex_t lock; /* guards what follows */
    char **heard;    /* notices for the loop, in order */
    int count, capacity;
    bool has_connected; /* (again) since the loop last looked */
};

/* Queues a copy of `notice` for the loop (thread side, under the lock). */
static void queue_notice(void *context, const char *notice)
{
    struct lobby_bus *bus = context;
    char *copy = strdup(notice);
    if (bus->count == bus->capacity && bus->capacity < QUEUE_MAX) {
        int capacity = bus->capacity ? 2 * bus->capacity : 64;
        char **grown = realloc(bus->heard, (size_t)capacity * sizeof(*grown));
        if (grown) {
            bus->heard = grown;
            bus->capacity = capacity;
        }
    }
    if (!copy || bus->count == bus->capacity) {
        free(copy);
        bus->has_connected = true; /* lost: have everything told again */
        return;
    }
    bus->heard[bus->count++] = copy;
}

/* Waits for the socket `fd` (-1: none) to be readable, or the stop pipe,
 * at most `timeout_ms` (-1: no limit): whether the bus is stopping. */
static bool wait_for(struct lobby_bus *bus, int fd, int timeout_ms)
{
    struct pollfd fds[2] = {{.fd = bus->stop_pipe[0], .events = POLLIN},
                            {.fd = fd, .events = POLLIN}};
    int rc;
    do
        rc = poll(fds, fd >= 0 ? 2 : 1, timeout_ms);
    while (rc < 0 && errno == EINTR);
    return fds[0].revents != 0;
}

/* Connects, telling the loop when it did; NULL while it cannot. */
static store_listener *connect_listener(struct lobby_bus *bus, bool *is_down_logged)
{
    store_listener *listener;
    char why[STORE_WHY_SIZE];
    int rc = store_listener_open(bus->url, &listener, why);
    if (rc != STORE_OK) {
        if (!*is_down_logged)
            log_warn("lobby notices: cannot listen: %s%s%s", store_strerror(rc), why[0] ? ": " : "",
                     why);
        *is_down_logged = true;
        return NULL;
    }
    if (*is_down_logged)
        log_info("lobby notices: listening again");
    *is_down_logged = false;
    uv_mutex_lock(&bus->lock);
    bus->has_connected = true;
    uv_mutex_unlock(&bus->lock);
    uv_async_send(&bus->wake);
    return listener;
}

static void run_thread(void *argument)
{
    struct lobby_bus *bus = argument;
    store_listener *listener = NULL;
    bool is_down_logged = false;
    for (;;) {
        if (!listener && !(listener = connect_listener(bus, &is_down_logged))) {
            if (wait_for(bus, -1, RETRY_MS))
                break;
            continue;
        }
        if (wait_for(bus, store_listener_socket(listener), -1))
            break;
        uv_mutex_lock(&bus->lock);
        int rc = store_listener_read(listener, queue_notice, bus);
        bool has_news = bus->count > 0 || bus->has_connected;
        uv_mutex_unlock(&bus->lock);
        if (has_news)
            uv_async_send(&bus->wake);
        if (rc != STORE_OK) {
            log_warn("lobby notices: the connection was lost; connecting again");
            store_listener_close(listener);
            listener = NULL;
        }
    }
    store_listener_close(listener);
}

/* The loop's side: hands the queued notices to the lobby. */
static void on_wake(uv_async_t *handle)
{
    struct lobby_bus *bus = handle->data;
    uv_mutex_lock(&bus->lock);
    char **heard = bus->heard;
    int count = bus->count;
    bool has_connected = bus->has_connected;
    bus->heard = NULL;
    bus->count = bus->capacity = 0;
    bus->has_connected = false;
    uv_mutex_unlock(&bus->lock);
    if (has_connected)
        lobby_listings_connected(bus->lobby);
    for (int i = 0; i < count; i++) {
        lobby_listings_heard(bus->lobby, heard[i]);
        free(heard[i]);
    }
    free(heard);
}

static void on_wake_closed(uv_handle_t *handle)
{
    struct lobby_bus *bus = handle->data;
    bus->is_wake_closed = true;
}

int lobby_bus_start(uv_loop_t *loop, const char *url, struct lobby *lobby, lobby_bus **out)
{
    *out = NULL;
    struct lobby_bus *bus = calloc(1, sizeof(*bus));
    if (!bus)
        return -ENOMEM;
    bus->lobby = lobby;
    bus->stop_pipe[0] = bus->stop_pipe[1] = -1;
    int rc = uv_mutex_init(&bus->lock);
    if (rc != 0) {
        free(bus);
        return rc;
    }
    bus->url = strdup(url);
    rc = bus->url ? 0 : -ENOMEM;
    if (rc == 0 && pipe(bus->stop_pipe) != 0)
        rc = -errno;
    if (rc == 0)
        rc = uv_async_init(loop, &bus->wake, on_wake);
    bus->is_wake_open = rc == 0;
    bus->wake.data = bus;
    if (rc == 0)
        rc = uv_thread_create(&bus->thread, run_thread, bus);
    bus->is_thread_started = rc == 0;
    if (rc != 0) {
        lobby_bus_stop(bus);
        return rc;
    }
    *out = bus;
    return 0;
}

void lobby_bus_stop(lobby_bus *bus)
{
    if (!bus)
        return;
    if (bus->is_thread_started) {
        ssize_t written;
        do
            written = write(bus->stop_pipe[1], "", 1);
        while (written < 0 && errno == EINTR);
        uv_thread_join(&bus->thread);
    }
    if (bus->is_wake_open) {
        uv_close((uv_handle_t *)&bus->wake, on_wake_closed);
        while (!bus->is_wake_closed)
            uv_run(bus->wake.loop, UV_RUN_ONCE);
    }
    for (int i = 0; i < bus->count; i++)
        free(bus->heard[i]);
    free(bus->heard);
    for (int i = 0; i < 2; i++)
        if (bus->stop_pipe[i] >= 0)
            close(bus->stop_pipe[i]);
    uv_mutex_destroy(&bus->lock);
    free(bus->url);
    free(bus);
}

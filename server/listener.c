/* listener.c -- our own accept loop on a uv_poll_t (see listener.h).
 *
 * A uv_poll_t on a socket we create, rather than a uv_tcp_t, because the
 * accepted descriptor goes to lws, which wants a bare fd it owns: a
 * uv_tcp_t would keep the fd for itself. libuv's poll is level-triggered,
 * so one wake accepts at most ACCEPTS_PER_WAKE connections and leaves the
 * rest for the next turn of the loop, where timers and other sockets get
 * their share first.
 *
 * accept() errors fall in three kinds. EAGAIN: the backlog is empty.
 * Errors of one connection (it was reset while queued, or Linux passing on
 * a network error of the new socket): skip it and go on. Anything else,
 * EMFILE and ENFILE first: retrying at once would fail again, so pause
 * (listener.h). Accepting and closing with a spare descriptor would also
 * stop the spin, but would turn away every client while full; pausing
 * lets the backlog hold them until a descriptor is back. */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/listener.h"
#include "server/log.h"

#define ACCEPTS_PER_WAKE 64
#define ADDRESS_SIZE     INET6_ADDRSTRLEN

struct listener {
    uv_loop_t *loop;
    int fd;
    int port;
    uv_poll_t poll;
    uv_timer_t retry_timer;
    int open_handles; /* closing in listener_free; freed at zero */
    bool is_paused;
    bool is_closing;
    listener_accept_cb on_accept;
    void *context;
};

/* Fills `storage` from an IP literal; its size, or -EINVAL. */
static int parse_address(const char *address, int port, struct sockaddr_storage *storage)
{
    memset(storage, 0, sizeof(*storage));
    struct sockaddr_in *v4 = (struct sockaddr_in *)storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)storage;
    if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        return (int)sizeof(*v4);
    }
    if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        return (int)sizeof(*v6);
    }
    return -EINVAL;
}

/* The port a bound socket got (the one asked for, or the kernel's pick). */
static int bound_port(int fd)
{
    struct sockaddr_storage storage;
    socklen_t size = sizeof(storage);
    if (getsockname(fd, (struct sockaddr *)&storage, &size) < 0)
        return -errno;
    if (storage.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&storage)->sin6_port);
    return ntohs(((struct sockaddr_in *)&storage)->sin_port);
}

/* A non-blocking socket listening on address:port; the fd, or -errno. */
static int open_listening_socket(const char *address, int port)
{
    struct sockaddr_storage storage;
    int size = parse_address(address, port, &storage);
    if (size < 0)
        return size;
    int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int yes = 1; /* restart at once on a port whose old connections linger in TIME_WAIT */
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes)) < 0 ||
        bind(fd, (struct sockaddr *)&storage, (socklen_t)size) < 0 || listen(fd, SOMAXCONN) < 0) {
        int rc = -errno;
        close(fd);
        return rc;
    }
    return fd;
}

/* The text form of a peer; an IPv4 client of a dual-stack socket is shown
 * (and counted) as the IPv4 address it is. */
static void format_peer(const struct sockaddr_storage *peer, char *out, size_t size)
{
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)peer;
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)peer;
    const char *text = NULL;
    if (peer->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr))
        text = inet_ntop(AF_INET, &v6->sin6_addr.s6_addr[12], out, (socklen_t)size);
    else if (peer->ss_family == AF_INET6)
        text = inet_ntop(AF_INET6, &v6->sin6_addr, out, (socklen_t)size);
    else if (peer->ss_family == AF_INET)
        text = inet_ntop(AF_INET, &v4->sin_addr, out, (socklen_t)size);
    if (!text)
        snprintf(out, size, "unknown");
}

static void hand_over(struct listener *listener, int fd, const struct sockaddr_storage *peer)
{
    char address[ADDRESS_SIZE];
    format_peer(peer, address, sizeof(address));
    int yes = 1; /* small game messages go out at once, as lws's own listener sets it */
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes)) < 0)
        log_warn_limited("TCP_NODELAY on a connection from %s: %s", address, strerror(errno));
    listener->on_accept(listener->context, fd, address);
}

/* Errors that concern one queued connection only (accept(2), "Error
 * handling"): the next one may be fine. */
static bool is_error_of_one_connection(int error)
{
    switch (error) {
    case EINTR:
    case ECONNABORTED:
    case EPROTO:
    case EPERM:
    case ENETDOWN:
    case ENOPROTOOPT:
    case EHOSTDOWN:
    case ENONET:
    case EHOSTUNREACH:
    case ENETUNREACH:
        return true;
    default:
        return false;
    }
}

static void on_readable(uv_poll_t *poll, int status, int events);
static void on_retry(uv_timer_t *timer);

static void resume(struct listener *listener)
{
    if (!listener->is_paused || listener->is_closing)
        return;
    int rc = uv_poll_start(&listener->poll, UV_READABLE, on_readable);
    if (rc < 0) {
        log_error_limited("cannot poll the listening socket: %s", uv_strerror(rc));
        uv_timer_start(&listener->retry_timer, on_retry, LISTENER_RETRY_MS, 0);
        return;
    }
    listener->is_paused = false;
    uv_timer_stop(&listener->retry_timer);
}

static void on_retry(uv_timer_t *timer)
{
    resume(timer->data);
}

static void pause_accepting(struct listener *listener, const char *cause)
{
    log_warn_limited("not accepting connections: %s; paused until a descriptor is freed", cause);
    if (!listener->is_paused)
        uv_poll_stop(&listener->poll);
    listener->is_paused = true;
    uv_timer_start(&listener->retry_timer, on_retry, LISTENER_RETRY_MS, 0);
}

static void on_readable(uv_poll_t *poll, int status, int events)
{
    struct listener *listener = poll->data;
    (void)events;
    if (status < 0) {
        pause_accepting(listener, uv_strerror(status));
        return;
    }
    for (int accepted = 0; accepted < ACCEPTS_PER_WAKE; accepted++) {
        struct sockaddr_storage peer;
        socklen_t size = sizeof(peer);
        int fd =
            accept4(listener->fd, (struct sockaddr *)&peer, &size, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            hand_over(listener, fd, &peer);
            continue;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return;
        if (is_error_of_one_connection(errno))
            continue;
        pause_accepting(listener, strerror(errno));
        return;
    }
}

int listener_new(uv_loop_t *loop, const char *address, int port, listener_accept_cb on_accept,
                 void *context, struct listener **out)
{
    struct listener *listener = calloc(1, sizeof(*listener));
    if (!listener)
        return -ENOMEM;
    int fd = open_listening_socket(address, port);
    int rc = fd < 0 ? fd : bound_port(fd);
    if (rc >= 0) {
        listener->port = rc;
        rc = uv_poll_init_socket(loop, &listener->poll, fd);
    }
    if (rc < 0) {
        if (fd >= 0)
            close(fd);
        free(listener);
        return rc;
    }
    listener->fd = fd;
    listener->loop = loop;
    listener->on_accept = on_accept;
    listener->context = context;
    listener->poll.data = listener;
    uv_timer_init(loop, &listener->retry_timer);
    listener->retry_timer.data = listener;
    listener->open_handles = 2;
    listener->is_paused = true; /* until the first resume starts the poll */
    resume(listener);
    *out = listener;
    return 0;
}

int listener_port(const struct listener *listener)
{
    return listener->port;
}

bool listener_is_paused(const struct listener *listener)
{
    return listener->is_paused;
}

void listener_descriptor_freed(struct listener *listener)
{
    resume(listener);
}

static void on_handle_closed(uv_handle_t *handle)
{
    struct listener *listener = handle->data;
    if (--listener->open_handles > 0)
        return;
    close(listener->fd);
    free(listener);
}

void listener_free(struct listener *listener)
{
    if (!listener)
        return;
    listener->is_closing = true;
    uv_close((uv_handle_t *)&listener->poll, on_handle_closed);
    uv_close((uv_handle_t *)&listener->retry_timer, on_handle_closed);
}

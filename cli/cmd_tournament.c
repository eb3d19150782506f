/* cmd_tournament.c -- `tessera tournament cancel ID`: the operator cancels a
 * running tournament from the shell.
 *
 * A running tournament lives in the server's memory as much as in the
 * database (its games are rooms with players in them), so the command
 * does not write the database behind the server's back: it asks the
 * running server, as the admin, with DELETE /api/tournaments/ID on the
 * address and port the server listens on, found from the same settings
 * (`--config`, TESSERA_*, flags) and authorized by the `admin_key`
 * setting. The server's answer is printed; the exit status is 0 when it
 * cancelled the tournament, or (several instances) sent the cancellation
 * on to the instance running it (202). */
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "server/config.h"

extern char **environ;

/* How long the server may take to answer. */
#define ANSWER_TIMEOUT_S 10

static void usage(FILE *out)
{
    fprintf(out, "usage: tessera tournament cancel ID [--config FILE] [--port N] [--bind ADDRESS]\n"
                 "                                 [--admin-key KEY]\n\n"
                 "Asks the running server (at the bind address and port of its settings,\n"
                 "127.0.0.1 for a wildcard bind) to cancel running tournament ID, as the\n"
                 "admin: its games under way end without a result (aborted, unrated), no\n"
                 "further game starts, finished games keep their results and ratings.\n"
                 "Needs the admin_key setting (--admin-key, TESSERA_ADMIN_KEY or the config\n"
                 "file). Exit status 0 when the server cancelled it, or sent the\n"
                 "cancellation on to the instance running it (several instances).\n");
}

/* The address to reach a server bound to `bind`: a wildcard means this
 * host. */
static const char *reach_address(const char *bind)
{
    if (strcmp(bind, "0.0.0.0") == 0 || bind[0] == '\0')
        return "127.0.0.1";
    if (strcmp(bind, "::") == 0)
        return "::1";
    return bind;
}

/* A connected socket to host:port, or -1 with the reason printed. */
static int connect_to(const char *host, int port)
{
    char service[16];
    snprintf(service, sizeof(service), "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST};
    struct addrinfo *found = NULL;
    int rc = getaddrinfo(host, service, &hints, &found);
    if (rc != 0) {
        fprintf(stderr, "tournament: bad address %s: %s\n", host, gai_strerror(rc));
        return -1;
    }
    int fd = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
    struct timeval timeout = {ANSWER_TIMEOUT_S, 0};
    if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) != 0 ||
                    connect(fd, found->ai_addr, found->ai_addrlen) != 0)) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(found);
    if (fd < 0)
        fprintf(stderr, "tournament: cannot reach the server at %s port %d\n", host, port);
    return fd;
}

/* Sends the whole request: 0, or -1. */
static int send_all(int fd, const char *text, size_t length)
{
    while (length > 0) {
        ssize_t sent = send(fd, text, length, MSG_NOSIGNAL);
        if (sent <= 0)
            return -1;
        text += sent;
        length -= (size_t)sent;
    }
    return 0;
}

/* Reads the answer to its end (the request asked the server to close):
 * its length, or -1. */
static ssize_t read_answer(int fd, char *answer, size_t size)
{
    size_t length = 0;
    while (length + 1 < size) {
        ssize_t got = recv(fd, answer + length, size - 1 - length, 0);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        length += (size_t)got;
    }
    answer[length] = '\0';
    return (ssize_t)length;
}

static int cancel(const server_config *config, long long id)
{
    if (!config->admin_key[0]) {
        fprintf(stderr, "tournament: the admin_key setting is needed to ask the server\n");
        return 1;
    }
    const char *host = reach_address(config->bind_address);
    int fd = connect_to(host, config->port);
    if (fd < 0)
        return 1;
    char request[512], answer[4096];
    int length = snprintf(request, sizeof(request),
                          "DELETE /api/tournaments/%lld HTTP/1.1\r\nHost: %s\r\n"
                          "Authorization: Bearer %s\r\nContent-Length: 0\r\n"
                          "Connection: close\r\n\r\n",
                          id, host, config->admin_key);
    bool is_sent = length > 0 && (size_t)length < sizeof(request) &&
                   send_all(fd, request, (size_t)length) == 0;
    ssize_t got = is_sent ? read_answer(fd, answer, sizeof(answer)) : -1;
    close(fd);
    int status = 0;
    if (got <= 0 || sscanf(answer, "HTTP/1.1 %d", &status) != 1) {
        fprintf(stderr, "tournament: no answer from the server at %s port %d\n", host,
                config->port);
        return 1;
    }
    const char *body = strstr(answer, "\r\n\r\n");
    bool is_done = status == 200 || status == 202;
    fprintf(is_done ? stdout : stderr, "%s\n", body ? body + 4 : answer);
    return is_done ? 0 : 1;
}

int cmd_tournament(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    char *end = NULL;
    long long id = argc >= 3 ? strtoll(argv[2], &end, 10) : 0;
    if (argc < 3 || strcmp(argv[1], "cancel") != 0 || !end || *end || id < 1) {
        usage(stderr);
        return 2;
    }
    /* The settings are found as `tessera serve` finds them; the loader
     * reads the flags that follow its argv[0], here ID. */
    server_config config;
    char error[256];
    int rc = server_config_load(&config, argc - 2, argv + 2, environ, error, sizeof(error));
    if (rc != SERVER_CONFIG_OK) {
        fprintf(stderr, "tournament: %s\n",
                rc == SERVER_CONFIG_HELP ? "see tessera tournament --help" : error);
        return 2;
    }
    return cancel(&config, id);
}

/* load_idle.c -- open, hello, wait for welcome, stay (see load_idle.h).
 *
 * Connections are started in a window of IN_FLIGHT: each welcome or
 * failure starts the next one. Starting ten thousand at once would only
 * overflow the server's listen backlog and turn the measurement into a
 * retry storm. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/load_idle.h"
#include "bench/ws_client.h"

#define IN_FLIGHT          256
#define MAX_PRINTED_ERRORS 5

struct member {
    load_idle *idle;
    int index;
    ws_peer *peer;
    bool is_done; /* welcomed or failed */
};

struct load_idle {
    load_idle_config config;
    ws_client *client;
    struct member *members;
    int started, welcomed, failed;
    bool is_ready, is_freeing;
};

static void start_next(load_idle *idle);

static void finish_one(struct member *m, bool is_welcomed)
{
    load_idle *idle = m->idle;
    if (m->is_done)
        return;
    m->is_done = true;
    if (is_welcomed)
        idle->welcomed++;
    else
        idle->failed++;
    start_next(idle);
    if (!idle->is_ready && idle->welcomed + idle->failed == idle->config.connections) {
        idle->is_ready = true;
        idle->config.on_ready(idle->config.context);
    }
}

static void start_next(load_idle *idle)
{
    while (!idle->is_freeing && idle->started < idle->config.connections &&
           idle->started - idle->welcomed - idle->failed < IN_FLIGHT) {
        struct member *m = &idle->members[idle->started++];
        char address[16];
        ws_client_local_address(m->index, idle->config.local_addresses, address);
        if (ws_client_connect(idle->client, address, m, &m->peer) < 0)
            finish_one(m, false);
    }
}

static void on_open(void *user)
{
    struct member *m = user;
    char text[96];
    int length = snprintf(text, sizeof(text), "{\"type\":\"hello\",\"name\":\"idle-%d\",\"id\":1}",
                          m->index);
    if (ws_peer_send(m->peer, text, (size_t)length) < 0)
        finish_one(m, false);
}

static void on_message(void *user, const char *text, size_t length)
{
    struct member *m = user;
    if (length > 18 && strncmp(text, "{\"type\":\"welcome\"", 17) == 0)
        finish_one(m, true);
}

static void on_close(void *user, bool was_open, const char *why)
{
    struct member *m = user;
    m->peer = NULL;
    if (m->idle->failed < MAX_PRINTED_ERRORS)
        fprintf(stderr, "tessera-load: idle connection %d %s%s%s\n", m->index,
                was_open ? "closed by the server" : "failed", why[0] ? ": " : "", why);
    if (m->is_done && !m->idle->is_freeing) /* lost after the welcome */
        m->idle->welcomed--, m->idle->failed++;
    finish_one(m, false);
}

int load_idle_new(uv_loop_t *loop, const load_idle_config *config, load_idle **out)
{
    if (config->connections < 1 || config->local_addresses < 1 || config->local_addresses > 254)
        return -EINVAL;
    load_idle *idle = calloc(1, sizeof(*idle));
    if (!idle)
        return -ENOMEM;
    idle->config = *config;
    idle->members = calloc((size_t)config->connections, sizeof(*idle->members));
    ws_client_callbacks callbacks = {on_open, on_message, on_close};
    int rc = idle->members
                 ? ws_client_new(loop, config->host, config->port, "/ws", &callbacks, &idle->client)
                 : -ENOMEM;
    if (rc < 0) {
        free(idle->members);
        free(idle);
        return rc;
    }
    for (int i = 0; i < config->connections; i++) {
        idle->members[i].idle = idle;
        idle->members[i].index = i;
    }
    start_next(idle);
    *out = idle;
    return 0;
}

int load_idle_welcomed(const load_idle *idle)
{
    return idle->welcomed;
}

int load_idle_failed(const load_idle *idle)
{
    return idle->failed;
}

void load_idle_free(load_idle *idle)
{
    if (!idle)
        return;
    idle->is_freeing = true;
    ws_client_free(idle->client);
    free(idle->members);
    free(idle);
}

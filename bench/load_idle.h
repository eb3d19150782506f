/* load_idle.h -- many signed-in connections that do nothing.
 *
 * Opens `connections` websockets, at most IN_FLIGHT at a time; each says
 * hello and, once welcomed, stays silent. When every connection is welcomed
 * (or has failed), `on_ready` is called once. Sockets are bound to the
 * local addresses 127.0.0.1 .. 127.0.0.K in turn (K = local_addresses),
 * so that neither the client's ephemeral ports nor a per-address limit is
 * the ceiling. */
#ifndef TESSERA_BENCH_LOAD_IDLE_H
#define TESSERA_BENCH_LOAD_IDLE_H

#include <uv.h>

typedef struct load_idle load_idle;

typedef struct load_idle_config {
    const char *host;
    int port;
    int connections;
    int local_addresses; /* 1 to 254 */
    void (*on_ready)(void *context);
    void *context;
} load_idle_config;

/* Starts connecting; 0 or -errno. */
int load_idle_new(uv_loop_t *loop, const load_idle_config *config, load_idle **out);

/* Connections welcomed so far, and connections that failed or closed. */
int load_idle_welcomed(const load_idle *idle);
int load_idle_failed(const load_idle *idle);

/* Closes every connection and frees everything. */
void load_idle_free(load_idle *idle);

#endif

/* metrics.h -- GET /metrics: the server's figures in Prometheus' text
 * format (version 0.0.4), from the counters each layer keeps. */
#ifndef TESSERA_METRICS_H
#define TESSERA_METRICS_H

#include <stddef.h>

#include "lobby/lobby_stats.h"
#include "protocol/protocol.h"
#include "server/transport.h"
#include "storage/store.h"
#include "util/histogram.h"

typedef struct metrics_sources {
    const char *version;
    double uptime_s;
    int connections; /* websockets open now */
    const transport_stats *transport;
    const lobby_stats *lobby;
    const store_figures *store;
    const histogram *messages; /* [PROTOCOL_TYPE_COUNT]: handling time by message type */
} metrics_sources;

/* The exposition text (malloc'd, *length bytes), or NULL when out of memory. */
char *metrics_render(const metrics_sources *sources, size_t *length);

#endif

/* metrics.h -- GET /metrics: the server's figures in Prometheus' text
 * format (version 0.0.4), from the counters each layer keeps. */
#ifndef TESSERA_METRICS_H
#define TESSERA_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "lobby/lobby_stats.h"
#include "protocol/protocol.h"
#include "server/transport.h"
#include "storage/store.h"
#include "util/histogram.h"

/* The process's own figures, under the names every Prometheus client
 * library exports (process_*), so standard dashboards and alerts work. */
typedef struct metrics_process {
    double cpu_seconds;        /* user and system time of every thread */
    uint64_t resident_bytes;   /* resident set size */
    uint64_t virtual_bytes;    /* address space */
    uint64_t open_fds;         /* descriptors open now */
    uint64_t max_fds;          /* RLIMIT_NOFILE, the soft limit */
    double start_time_seconds; /* when the process started, since the Unix epoch */
} metrics_process;

/* Reads the figures of the calling process from /proc/self and the
 * kernel's limits. 0, or a negative errno when they cannot be read
 * (-ENOENT without /proc). */
int metrics_process_read(metrics_process *out);

typedef struct metrics_sources {
    const char *version;
    double uptime_s;
    int connections; /* websockets open now */
    const transport_stats *transport;
    const lobby_stats *lobby;
    const store_figures *store;
    int database_reads;             /* reads on the reader pool, running or waiting */
    const histogram *messages;      /* [PROTOCOL_TYPE_COUNT]: handling time by message type */
    const metrics_process *process; /* NULL: unknown, its families are left out */
} metrics_sources;

/* The exposition text (malloc'd, *length bytes), or NULL when out of memory. */
char *metrics_render(const metrics_sources *sources, size_t *length);

#endif

/* load_options.h -- the command line of tessera-load.
 *
 * One run is one scenario: games against tessera (the default), the same
 * pattern against the echo server (--echo), or idle connections (--idle).
 * The target is a server tessera-load starts itself (--tessera PATH or
 * --echo-server PATH, on a free port, with a temporary database) or one
 * already running (--url, and --server-pid for its CPU and memory).
 * --history adds REST queries of the history API at a steady rate
 * (load_history.h), against a database from bench/gen_history_db that
 * the started server serves (--db). */
#ifndef TESSERA_BENCH_LOAD_OPTIONS_H
#define TESSERA_BENCH_LOAD_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench/load_stats.h"

#define LOAD_MAX_SERVER_ARGS 32

/* tessera's default --connections-per-ip, which automatic spreading over
 * local addresses stays under. */
#define LOAD_CONNECTIONS_PER_ADDRESS 32

typedef struct load_options {
    const char *tessera_path;     /* start this tessera binary */
    const char *echo_server_path; /* start this echo server (implies is_echo) */
    char host[64];                /* with --url */
    int port;                     /* with --url; 0 when starting a server */
    pid_t server_pid;             /* with --url: the process to measure, or 0 */
    bool is_echo;
    bool has_default_limits; /* do not raise the started tessera's limits */
    const char *mode;        /* "duo" or "4p" */
    int rooms;               /* 0: no games (with --history only) */
    int spectators;
    double duration_s, warmup_s;
    double rate; /* total moves/s; 0: as fast as allowed */
    int idle_connections;
    int local_addresses;   /* 0: enough for LOAD_CONNECTIONS_PER_ADDRESS each */
    double report_every_s; /* 0: no progress lines */
    uint64_t echo_sizes[LOAD_SIZE_KINDS];
    const char *db_path;     /* the started tessera serves this database (kept) */
    double history_rate;     /* history requests/s; 0: none */
    int history_players;     /* players the database was generated with */
    int history_connections; /* keep-alive connections for them, at most */
    const char *server_args[LOAD_MAX_SERVER_ARGS];
    int server_arg_count;
} load_options;

/* Fills `options` from argv. 0; 1 when --help was printed; 2 after a usage
 * error was printed to stderr. */
int load_options_parse(int argc, char **argv, load_options *options);

#endif

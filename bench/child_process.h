/* child_process.h -- start a server program and learn its port.
 *
 * Both `tessera serve` and bench/echo_server print
 * "listening on http://ADDRESS:PORT" as their first stdout line once they
 * accept connections; child_start waits for that line (bounded), so the
 * caller never sleeps to synchronize. The child gets a raised open-file
 * limit before exec (setrlimit in the forked child: as root this can
 * exceed the parent's hard limit), inherits stderr, where the servers
 * log, and gets SIGTERM if the load generator dies first. */
#ifndef TESSERA_BENCH_CHILD_PROCESS_H
#define TESSERA_BENCH_CHILD_PROCESS_H

#include <stdint.h>
#include <sys/types.h>

typedef struct child_process {
    pid_t pid;
    int port;
} child_process;

/* Runs argv[0] with `argv` (NULL-terminated) and an open-file limit of at
 * least `fd_limit`, and waits up to 10 s for its listening line.
 * 0 or -errno (the child is stopped again on failure). */
int child_start(char *const argv[], uint64_t fd_limit, child_process *out);

/* SIGTERM, then waits up to 10 s (then SIGKILL). Returns the exit status
 * (0 for a clean exit), or -1 if it had to be killed or died of a signal. */
int child_stop(child_process *child);

#endif

/* proc_stats.h -- CPU time and memory of a process, from /proc.
 *
 * The load generator charges the server's CPU to the moves it made by
 * reading utime + stime of the server process before and after a run, and
 * follows its resident memory (VmRSS). Its own CPU comes from getrusage,
 * so the report can show that the client is not the bottleneck. */
#ifndef TESSERA_BENCH_PROC_STATS_H
#define TESSERA_BENCH_PROC_STATS_H

#include <stdint.h>
#include <sys/types.h>

/* User + system CPU time of process `pid` in microseconds (clock-tick
 * resolution, usually 10 ms); 0, or -errno if it cannot be read. */
int proc_stats_cpu_us(pid_t pid, uint64_t *out);

/* Resident set size of process `pid` in KiB; 0, or -errno. */
int proc_stats_rss_kib(pid_t pid, uint64_t *out);

/* User + system CPU time of the calling process, in microseconds. */
uint64_t proc_stats_self_cpu_us(void);

/* Raises the calling process's open-file limit to at least `wanted`
 * (the hard limit too, which needs root); 0, or -errno. */
int proc_stats_raise_fd_limit(uint64_t wanted);

#endif

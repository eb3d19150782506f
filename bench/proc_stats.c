/* proc_stats.c -- /proc/PID/stat, /proc/PID/status and getrusage.
 *
 * /proc/PID/stat's second field is the command name in parentheses and
 * may itself hold spaces or parentheses, so the fields are counted from
 * the last ')'. utime and stime are fields 14 and 15, in clock ticks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench/proc_stats.h"

static int read_file(const char *path, char *buffer, size_t size)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return -errno;
    size_t length = fread(buffer, 1, size - 1, file);
    int failed = ferror(file);
    fclose(file);
    if (failed)
        return -EIO;
    buffer[length] = '\0';
    return 0;
}

int proc_stats_cpu_us(pid_t pid, uint64_t *out)
{
    char path[64], text[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int rc = read_file(path, text, sizeof(text));
    if (rc < 0)
        return rc;
    const char *after_name = strrchr(text, ')');
    unsigned long long user_ticks, system_ticks;
    /* After ")": state(3) ppid pgrp session tty tpgid flags minflt cminflt
     * majflt cmajflt(12) utime(14) stime(15). */
    if (!after_name ||
        sscanf(after_name + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
               &user_ticks, &system_ticks) != 2)
        return -EPROTO;
    long ticks_per_second = sysconf(_SC_CLK_TCK);
    *out = (user_ticks + system_ticks) * 1000000ULL / (unsigned long long)ticks_per_second;
    return 0;
}

int proc_stats_rss_kib(pid_t pid, uint64_t *out)
{
    char path[64], text[4096];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    int rc = read_file(path, text, sizeof(text));
    if (rc < 0)
        return rc;
    const char *line = strstr(text, "\nVmRSS:");
    unsigned long long kib;
    if (!line || sscanf(line + 7, " %llu", &kib) != 1)
        return -EPROTO;
    *out = kib;
    return 0;
}

uint64_t proc_stats_self_cpu_us(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (uint64_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000ULL +
           (uint64_t)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

int proc_stats_raise_fd_limit(uint64_t wanted)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) < 0)
        return -errno;
    if (limit.rlim_cur >= wanted)
        return 0;
    if (limit.rlim_max < wanted)
        limit.rlim_max = wanted;
    limit.rlim_cur = wanted;
    return setrlimit(RLIMIT_NOFILE, &limit) < 0 ? -errno : 0;
}

/* child_process.c -- fork, exec, read one line, and stop (see the header).
 *
 * The stdout pipe is read with poll() until a newline or the deadline,
 * one read at a time: the listening line is the first thing the servers
 * print, and nothing they print later matters here, so the pipe is closed
 * once the line is in (both servers ignore SIGPIPE). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/child_process.h"

#define START_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS  10000

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void exec_child(char *const argv[], uint64_t fd_limit, int stdout_fd)
{
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* no orphaned server if we die */
    struct rlimit limit = {(rlim_t)fd_limit, (rlim_t)fd_limit};
    struct rlimit current;
    if (getrlimit(RLIMIT_NOFILE, &current) == 0 && current.rlim_cur < fd_limit &&
        setrlimit(RLIMIT_NOFILE, &limit) < 0)
        fprintf(stderr, "tessera-load: cannot raise the server's open-file limit to %llu: %s\n",
                (unsigned long long)fd_limit, strerror(errno));
    dup2(stdout_fd, STDOUT_FILENO);
    close(stdout_fd);
    execv(argv[0], argv);
    fprintf(stderr, "tessera-load: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Reads until the first newline; 0 with the line in `line`, or -errno. */
static int read_first_line(int fd, char *line, size_t size)
{
    size_t length = 0;
    long long deadline = now_ms() + START_TIMEOUT_MS;
    while (length + 1 < size) {
        struct pollfd waiting = {fd, POLLIN, 0};
        long long left = deadline - now_ms();
        if (left <= 0 || poll(&waiting, 1, (int)left) <= 0)
            return -ETIMEDOUT;
        ssize_t got = read(fd, line + length, 1);
        if (got <= 0)
            return -EPIPE;
        if (line[length] == '\n') {
            line[length] = '\0';
            return 0;
        }
        length++;
    }
    return -EOVERFLOW;
}

static int parse_port(const char *line)
{
    const char *prefix = "listening on http://";
    if (strncmp(line, prefix, strlen(prefix)) != 0)
        return -EPROTO;
    const char *colon = strrchr(line, ':');
    int port = colon ? atoi(colon + 1) : 0;
    return port > 0 ? port : -EPROTO;
}

int child_start(char *const argv[], uint64_t fd_limit, child_process *out)
{
    int pipe_fds[2];
    if (pipe(pipe_fds) < 0)
        return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int error = errno;
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return -error;
    }
    if (pid == 0) {
        close(pipe_fds[0]);
        exec_child(argv, fd_limit, pipe_fds[1]);
    }
    close(pipe_fds[1]);
    char line[256];
    int rc = read_first_line(pipe_fds[0], line, sizeof(line));
    close(pipe_fds[0]);
    int port = rc < 0 ? rc : parse_port(line);
    child_process child = {pid, port};
    if (port < 0) {
        child_stop(&child);
        return port;
    }
    *out = child;
    return 0;
}

int child_stop(child_process *child)
{
    if (child->pid <= 0)
        return -1;
    kill(child->pid, SIGTERM);
    long long deadline = now_ms() + STOP_TIMEOUT_MS;
    int status = 0;
    pid_t done;
    while ((done = waitpid(child->pid, &status, WNOHANG)) == 0 && now_ms() < deadline)
        usleep(10000);
    if (done == 0) {
        kill(child->pid, SIGKILL);
        waitpid(child->pid, &status, 0);
        child->pid = 0;
        return -1;
    }
    child->pid = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

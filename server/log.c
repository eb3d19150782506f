/* log.c -- formatting and writing log lines (see log.h).
 *
 * A line is formatted into a stack buffer and handed to one write(2), not
 * to stdio: standard error is unbuffered, and fprintf would issue several
 * writes per line that other threads could split. Over-long messages are
 * cut and marked with "...".
 *
 * Rate-limited sites keep their state in a static log_limit at the call
 * site (the macro declares it), so a limit costs nothing until used and
 * no table of sites is needed. Sites may fire from the thread pool too,
 * so the decision is taken under one mutex; the line itself is written
 * outside it. The clock is CLOCK_MONOTONIC: a clock adjustment must not
 * open or shut the gate. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/log.h"

#define LINE_SIZE   2048
#define SUFFIX_SIZE 64

static const char *const LEVEL_NAMES[] = {"error", "warn", "info", "debug"};

static log_level current_level = LOG_LEVEL_INFO;
static pthread_mutex_t limit_lock = PTHREAD_MUTEX_INITIALIZER;

void log_set_level(log_level level)
{
    current_level = level;
}

int log_is_enabled(log_level level)
{
    return level <= current_level;
}

int log_level_parse(const char *name, log_level *out)
{
    for (int level = LOG_LEVEL_ERROR; level <= LOG_LEVEL_DEBUG; level++) {
        if (strcmp(name, LEVEL_NAMES[level]) == 0) {
            *out = (log_level)level;
            return 0;
        }
    }
    return -1;
}

const char *log_level_name(log_level level)
{
    return LEVEL_NAMES[level];
}

/* "2024-05-01T12:34:56.789Z" into `out`; returns its length. */
static int format_timestamp(char *out, size_t size)
{
    struct timespec now;
    struct tm utc;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &utc);
    size_t length = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &utc);
    return (int)length + snprintf(out + length, size - length, ".%03ldZ", now.tv_nsec / 1000000);
}

/* Formats and writes one line; `suffix` ("" for none) ends the message. */
static void write_line(log_level level, const char *suffix, const char *format, va_list arguments)
{
    char line[LINE_SIZE];
    int length = format_timestamp(line, sizeof(line));
    length += snprintf(line + length, sizeof(line) - (size_t)length, " %s ", LEVEL_NAMES[level]);
    /* room is kept for the suffix and the newline */
    size_t capacity = sizeof(line) - 1 - strlen(suffix);
    int message_length = vsnprintf(line + length, capacity - (size_t)length, format, arguments);
    if (message_length < 0)
        return;
    if ((size_t)message_length >= capacity - (size_t)length) {
        length = (int)capacity - 1;
        memcpy(line + length - 3, "...", 3);
    } else {
        length += message_length;
    }
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r'))
        length--;
    /* What clients send (a request path, a name) may reach a line: no
     * control byte gets through to split it or to drive a terminal. */
    for (int i = 0; i < length; i++)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            line[i] = ' ';
    memcpy(line + length, suffix, strlen(suffix));
    length += (int)strlen(suffix);
    line[length++] = '\n';
    ssize_t written = write(STDERR_FILENO, line, (size_t)length);
    (void)written; /* nowhere to report a failure to log */
}

void log_write(log_level level, const char *format, ...)
{
    if (!log_is_enabled(level))
        return;
    va_list arguments;
    va_start(arguments, format);
    write_line(level, "", format, arguments);
    va_end(arguments);
}

int log_limit_admit(log_limit *limit, uint64_t now_ms, uint64_t *suppressed)
{
    if (limit->has_written && now_ms - limit->last_written_ms < LOG_LIMIT_INTERVAL_MS) {
        limit->suppressed++;
        return 0;
    }
    *suppressed = limit->suppressed;
    limit->suppressed = 0;
    limit->last_written_ms = now_ms;
    limit->has_written = 1;
    return 1;
}

static uint64_t monotonic_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

void log_write_limited(log_limit *limit, log_level level, const char *format, ...)
{
    if (!log_is_enabled(level))
        return;
    uint64_t suppressed = 0;
    pthread_mutex_lock(&limit_lock);
    int is_admitted = log_limit_admit(limit, monotonic_ms(), &suppressed);
    pthread_mutex_unlock(&limit_lock);
    if (!is_admitted)
        return;
    char suffix[SUFFIX_SIZE] = "";
    if (suppressed > 0)
        snprintf(suffix, sizeof(suffix), " (%llu similar lines suppressed)",
                 (unsigned long long)suppressed);
    va_list arguments;
    va_start(arguments, format);
    write_line(level, suffix, format, arguments);
    va_end(arguments);
}

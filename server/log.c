/* log.c -- formatting and writing log lines (see log.h).
 *
 * A line is formatted into a stack buffer and handed to one write(2), not
 * to stdio: standard error is unbuffered, and fprintf would issue several
 * writes per line that other threads could split. Over-long messages are
 * cut and marked with "...". */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/log.h"

#define LINE_SIZE 2048

static const char *const LEVEL_NAMES[] = {"error", "warn", "info", "debug"};

static log_level current_level = LOG_LEVEL_INFO;

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

void log_write(log_level level, const char *format, ...)
{
    if (!log_is_enabled(level))
        return;
    char line[LINE_SIZE];
    int length = format_timestamp(line, sizeof(line));
    length += snprintf(line + length, sizeof(line) - (size_t)length, " %s ", LEVEL_NAMES[level]);
    size_t capacity = sizeof(line) - 1; /* one byte stays free for the newline */
    va_list arguments;
    va_start(arguments, format);
    int message_length = vsnprintf(line + length, capacity - (size_t)length, format, arguments);
    va_end(arguments);
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
    for (int i = 0; i < length; i++)
        if (line[i] == '\n' || line[i] == '\r')
            line[i] = ' ';
    line[length++] = '\n';
    ssize_t written = write(STDERR_FILENO, line, (size_t)length);
    (void)written; /* nowhere to report a failure to log */
}

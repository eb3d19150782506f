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
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/log.h"
#include "util/utf8.h"

#define LINE_SIZE   2048
#define SUFFIX_SIZE 64

static const char *const LEVEL_NAMES[] = {"error", "warn", "info", "debug"};
static const char *const FORMAT_NAMES[] = {"text", "json"};

static log_level current_level = LOG_LEVEL_INFO;
static log_format current_format = LOG_FORMAT_TEXT;
static pthread_mutex_t limit_lock = PTHREAD_MUTEX_INITIALIZER;

void log_set_level(log_level level)
{
    current_level = level;
}

void log_set_format(log_format format)
{
    current_format = format;
}

/* The index of `name` in `names` (`count` of them), or -1. */
static int index_of(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

int log_format_parse(const char *name, log_format *out)
{
    int format = index_of(FORMAT_NAMES, LOG_FORMAT_JSON + 1, name);
    if (format < 0)
        return -EINVAL;
    *out = (log_format)format;
    return 0;
}

const char *log_format_name(log_format format)
{
    return FORMAT_NAMES[format];
}

int log_is_enabled(log_level level)
{
    return level <= current_level;
}

int log_level_parse(const char *name, log_level *out)
{
    int level = index_of(LEVEL_NAMES, LOG_LEVEL_DEBUG + 1, name);
    if (level < 0)
        return -EINVAL;
    *out = (log_level)level;
    return 0;
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

/* The message into `out` (cut with "..." when too long, `suffix`
 * appended), with no control byte left: what clients send (a request path,
 * a name) may reach a line, and nothing gets through to split it or to
 * drive a terminal. Returns its length. */
static int format_message(char *out, size_t size, const char *suffix, const char *format,
                          va_list arguments)
{
    size_t capacity = size - strlen(suffix);
    int length = vsnprintf(out, capacity, format, arguments);
    if (length < 0)
        length = 0;
    if ((size_t)length >= capacity) {
        length = (int)capacity - 1;
        memcpy(out + length - 3, "...", 3);
    }
    while (length > 0 && (out[length - 1] == '\n' || out[length - 1] == '\r'))
        length--;
    for (int i = 0; i < length; i++)
        if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
            out[i] = ' ';
    memcpy(out + length, suffix, strlen(suffix) + 1);
    return length + (int)strlen(suffix);
}

/* `text` as the inside of a JSON string into `out`: quotes and
 * backslashes escaped, a byte that is not UTF-8 turned into '?'. Returns
 * the length written, cut to fit. */
static int json_escape(char *out, int size, const char *text)
{
    int length = 0;
    const unsigned char *in = (const unsigned char *)text;
    int left = (int)strlen(text);
    while (left > 0 && length < size - 7) {
        int sequence = utf8_sequence_length(in, (size_t)left);
        if (sequence == 0) {
            out[length++] = '?';
            sequence = 1;
        } else if (*in == '"' || *in == '\\') {
            out[length++] = '\\';
            out[length++] = (char)*in;
        } else {
            memcpy(out + length, in, (size_t)sequence);
            length += sequence;
        }
        in += sequence;
        left -= sequence;
    }
    return length;
}

/* Appends `"key":"value"` (escaped) to a JSON line being built. */
static int json_field(char *line, int length, int size, const char *key, const char *value)
{
    length += snprintf(line + length, (size_t)(size - length), ",\"%s\":\"", key);
    if (length >= size - 2)
        return size - 2;
    length += json_escape(line + length, size - 2 - length, value);
    line[length++] = '"';
    return length;
}

/* The opening of a JSON line, `{"ts":"...","level":"..."`; its length. */
static int json_open(char *line, int size, log_level level)
{
    char timestamp[40];
    format_timestamp(timestamp, sizeof(timestamp));
    return snprintf(line, (size_t)size, "{\"ts\":\"%s\",\"level\":\"%s\"", timestamp,
                    LEVEL_NAMES[level]);
}

/* Ends a line (`}` in JSON) and writes it in one write(2). */
static void emit(char *line, int length, bool is_json)
{
    if (is_json)
        line[length++] = '}';
    line[length++] = '\n';
    ssize_t written = write(STDERR_FILENO, line, (size_t)length);
    (void)written; /* nowhere to report a failure to log */
}

/* Formats and writes one line; `suffix` ("" for none) ends the message. */
static void write_line(log_level level, const char *suffix, const char *format, va_list arguments)
{
    char message[LINE_SIZE / 2], line[LINE_SIZE];
    format_message(message, sizeof(message), suffix, format, arguments);
    int length;
    if (current_format == LOG_FORMAT_JSON) {
        length = json_open(line, LINE_SIZE - 2, level);
        length = json_field(line, length, LINE_SIZE - 2, "msg", message);
    } else {
        length = format_timestamp(line, sizeof(line));
        length += snprintf(line + length, sizeof(line) - (size_t)length, " %s %s",
                           LEVEL_NAMES[level], message);
        if (length > LINE_SIZE - 2)
            length = LINE_SIZE - 2;
    }
    emit(line, length, current_format == LOG_FORMAT_JSON);
}

void log_http(const log_http_fields *fields)
{
    if (!log_is_enabled(LOG_LEVEL_INFO))
        return;
    if (current_format != LOG_FORMAT_JSON) {
        log_write(LOG_LEVEL_INFO, "http %s %s %s -> %d in %.1f ms from %s", fields->request_id,
                  fields->method, fields->path, fields->status, fields->duration_ms, fields->peer);
        return;
    }
    char line[LINE_SIZE];
    int size = LINE_SIZE - 2;
    int length = json_open(line, size, LOG_LEVEL_INFO);
    length = json_field(line, length, size, "msg", "http");
    length = json_field(line, length, size, "request_id", fields->request_id);
    length = json_field(line, length, size, "method", fields->method);
    length = json_field(line, length, size, "path", fields->path);
    length += snprintf(line + length, (size_t)(size - length),
                       ",\"status\":%d,\"duration_ms\":%.3f", fields->status, fields->duration_ms);
    if (length > size)
        length = size;
    length = json_field(line, length, size, "peer", fields->peer);
    emit(line, length, true);
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

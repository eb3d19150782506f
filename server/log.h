/* log.h -- one line per event on standard error.
 *
 * In the text format (the default) every line reads
 * `2024-05-01T12:34:56.789Z info message`: a UTC timestamp with
 * milliseconds, the level, and the printf-formatted message with any
 * newline in it turned into a space, so a log stays one event per line for
 * grep and journald. In the JSON format (`--log-format json`) every line is
 * one object, `{"ts":"2024-05-01T12:34:56.789Z","level":"info","msg":"..."}`,
 * and an HTTP request's line carries its fields too (log_http). Lines below the current level are
 * skipped before formatting. The level is process-wide, like the stream itself; each line is
 * written with a single write so threads do not interleave.
 *
 * A site that can fire in a storm (a failing accept, a peer sending
 * garbage in a loop) logs through the *_limited macros: each such site
 * writes at most one line per LOG_LIMIT_INTERVAL_MS, and the first line
 * after a quiet spell says how many were suppressed before it, so the log
 * shows that the storm happened and how big it was without being it. */
#ifndef TESSERA_LOG_H
#define TESSERA_LOG_H

#include <stdint.h>

#define LOG_LIMIT_INTERVAL_MS 1000

typedef enum log_level {
    LOG_LEVEL_ERROR = 0,
    LOG_LEVEL_WARN = 1,
    LOG_LEVEL_INFO = 2,
    LOG_LEVEL_DEBUG = 3
} log_level;

typedef enum log_format { LOG_FORMAT_TEXT = 0, LOG_FORMAT_JSON = 1 } log_format;

/* The rate limit of one log site; zero-initialised (static) before use. */
typedef struct log_limit {
    uint64_t last_written_ms; /* monotonic time of the last line written */
    uint64_t suppressed;      /* lines dropped since then */
    int has_written;
} log_limit;

/* Lines of a level above `level` are dropped from now on (default: info). */
void log_set_level(log_level level);

/* Lines are written as text (default) or as JSON objects from now on. */
void log_set_format(log_format format);

/* Parses "text" or "json". 0, or -EINVAL for anything else. */
int log_format_parse(const char *name, log_format *out);

/* The name log_format_parse accepts for `format`. */
const char *log_format_name(log_format format);

/* True when a line of `level` would be written. */
int log_is_enabled(log_level level);

/* Parses "error", "warn", "info" or "debug". 0, or -EINVAL for anything
 * else. */
int log_level_parse(const char *name, log_level *out);

/* The name log_level_parse accepts for `level`. */
const char *log_level_name(log_level level);

/* Writes one line at `level` if enabled; use the macros below. */
void log_write(log_level level, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The rule of a limited site, on plain values: a line at `now_ms` is
 * written (1) when none was in the last LOG_LIMIT_INTERVAL_MS, with
 * *suppressed set to the lines dropped since the previous one and the
 * count reset; otherwise it is counted and dropped (0). Not locked:
 * log_write_limited calls it under the log's lock. */
int log_limit_admit(log_limit *limit, uint64_t now_ms, uint64_t *suppressed);

/* log_write under the rate limit of the site `limit`; a line that follows
 * suppressed ones ends with "(N similar lines suppressed)". Use the
 * *_limited macros, which give each call site its own limit. */
void log_write_limited(log_limit *limit, log_level level, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* One answered HTTP request, at info: the request id (also sent to the
 * client as X-Request-Id), method, path, status, time to the answer and
 * peer. Text: `http 3f9a01c2-17 GET /api/games -> 200 in 0.4 ms from
 * 127.0.0.1`; JSON: those as fields of the line's object. */
typedef struct log_http_fields {
    const char *request_id;
    const char *method;
    const char *path;
    int status;
    double duration_ms;
    const char *peer;
} log_http_fields;

void log_http(const log_http_fields *fields);

#define log_error(...) log_write(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_write(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...)  log_write(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_write(LOG_LEVEL_DEBUG, __VA_ARGS__)

#define LOG_LIMITED_AT_SITE(level, ...)                                                            \
    do {                                                                                           \
        static log_limit site_limit;                                                               \
        log_write_limited(&site_limit, level, __VA_ARGS__);                                        \
    } while (0)
#define log_error_limited(...) LOG_LIMITED_AT_SITE(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn_limited(...)  LOG_LIMITED_AT_SITE(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info_limited(...)  LOG_LIMITED_AT_SITE(LOG_LEVEL_INFO, __VA_ARGS__)

#endif

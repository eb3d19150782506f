/* log.h -- one line per event on standard error.
 *
 * Every line reads `2024-05-01T12:34:56.789Z info message`: a UTC
 * timestamp with milliseconds, the level, and the printf-formatted message
 * with any newline in it turned into a space, so a log stays one event per
 * line for grep and journald. Lines below the current level are skipped
 * before formatting. The level is process-wide, like the stream itself;
 * each line is written with a single write so threads do not interleave. */
#ifndef TESSERA_LOG_H
#define TESSERA_LOG_H

typedef enum log_level {
    LOG_LEVEL_ERROR = 0,
    LOG_LEVEL_WARN = 1,
    LOG_LEVEL_INFO = 2,
    LOG_LEVEL_DEBUG = 3
} log_level;

/* Lines of a level above `level` are dropped from now on (default: info). */
void log_set_level(log_level level);

/* True when a line of `level` would be written. */
int log_is_enabled(log_level level);

/* Parses "error", "warn", "info" or "debug". 0, or -1 for anything else. */
int log_level_parse(const char *name, log_level *out);

/* The name log_level_parse accepts for `level`. */
const char *log_level_name(log_level level);

/* Writes one line at `level` if enabled; use the macros below. */
void log_write(log_level level, const char *format, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_write(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_write(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...)  log_write(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_write(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif

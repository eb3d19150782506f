/* metrics.c -- the Prometheus text of metrics.h.
 *
 * Every family is written with its HELP and TYPE lines, then its samples;
 * a histogram's buckets are cumulative, end with le="+Inf" equal to its
 * count, and carry _sum and _count. Label values are our own fixed names
 * (game kinds, statuses, error codes, message types), so none needs
 * escaping. Message types appear once they have been seen.
 *
 * The process figures come from /proc/self like those of the official
 * client libraries: stat for the memory sizes and the start time (in clock
 * ticks after boot, plus the boot time of /proc/stat), the fd folder for
 * the open descriptors; the CPU time from getrusage, which counts every
 * thread to the microsecond. */
#include <errno.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "server/metrics.h"

struct text {
    char *data;
    size_t length, capacity;
    bool is_broken; /* an allocation failed: the render returns NULL */
};

static void append(struct text *text, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void append(struct text *text, const char *format, ...)
{
    if (text->is_broken)
        return;
    for (;;) {
        va_list args;
        va_start(args, format);
        size_t room = text->capacity - text->length;
        int written = vsnprintf(text->data ? text->data + text->length : NULL, room, format, args);
        va_end(args);
        if (written < 0) {
            text->is_broken = true;
            return;
        }
        if ((size_t)written < room) {
            text->length += (size_t)written;
            return;
        }
        size_t capacity = text->capacity ? text->capacity * 2 : 16384;
        while (capacity < text->length + (size_t)written + 1)
            capacity *= 2;
        char *grown = realloc(text->data, capacity);
        if (!grown) {
            text->is_broken = true;
            return;
        }
        text->data = grown;
        text->capacity = capacity;
    }
}

static void family(struct text *text, const char *name, const char *type, const char *help)
{
    append(text, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A family of one unlabelled sample. %.15g writes every integer below
 * 10^15 exactly, and fractions (seconds) to the microsecond and beyond. */
static void single(struct text *text, const char *name, const char *type, const char *help,
                   double value)
{
    family(text, name, type, help);
    append(text, "%s %.15g\n", name, value);
}

/* The samples of one histogram; `labels` is "" or `key="value",`. */
static void histogram_samples(struct text *text, const char *name, const char *labels,
                              const histogram *values)
{
    uint64_t cumulative = 0;
    for (int i = 0; i < HISTOGRAM_BUCKETS; i++) {
        cumulative += values->buckets[i];
        append(text, "%s_bucket{%sle=\"%g\"} %llu\n", name, labels, HISTOGRAM_BOUNDS_S[i],
               (unsigned long long)cumulative);
    }
    append(text, "%s_bucket{%sle=\"+Inf\"} %llu\n", name, labels,
           (unsigned long long)values->count);
    /* _sum and _count take the labels without the trailing comma, and no
     * braces at all when there are none. */
    int bare = (int)strlen(labels) - 1;
    const char *open = bare > 0 ? "{" : "", *close = bare > 0 ? "}" : "";
    bare = bare > 0 ? bare : 0;
    append(text, "%s_sum%s%.*s%s %.6f\n", name, open, bare, labels, close, values->sum_s);
    append(text, "%s_count%s%.*s%s %llu\n", name, open, bare, labels, close,
           (unsigned long long)values->count);
}

/* A counter family with one sample per game kind. */
static void per_kind(struct text *text, const char *name, const char *help,
                     const uint64_t values[LOBBY_KIND_COUNT])
{
    family(text, name, "counter", help);
    for (int kind = 0; kind < LOBBY_KIND_COUNT; kind++)
        append(text, "%s{game=\"%s\",mode=\"%s\"} %llu\n", name, LOBBY_KIND_GAMES[kind],
               LOBBY_KIND_MODES[kind], (unsigned long long)values[kind]);
}

static void server_figures(struct text *text, const metrics_sources *sources)
{
    family(text, "tessera_build_info", "gauge", "The running version (value 1).");
    append(text, "tessera_build_info{version=\"%s\"} 1\n", sources->version);
    single(text, "tessera_uptime_seconds", "gauge", "Seconds since the server started.",
           (double)(long long)sources->uptime_s);
    single(text, "tessera_connections", "gauge", "Websocket connections open now.",
           sources->connections);
}

static void process_figures(struct text *text, const metrics_process *process)
{
    single(text, "process_cpu_seconds_total", "counter", "User and system CPU time, in seconds.",
           process->cpu_seconds);
    single(text, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
           (double)process->resident_bytes);
    single(text, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
           (double)process->virtual_bytes);
    single(text, "process_open_fds", "gauge", "Open file descriptors.", (double)process->open_fds);
    single(text, "process_max_fds", "gauge", "Maximum number of open file descriptors.",
           (double)process->max_fds);
    single(text, "process_start_time_seconds", "gauge",
           "Start time of the process since the Unix epoch, in seconds.",
           process->start_time_seconds);
}

static void transport_figures(struct text *text, const transport_stats *stats)
{
    single(text, "tessera_websockets_opened_total", "counter", "Websocket connections opened.",
           stats->websockets_opened);
    single(text, "tessera_messages_total", "counter", "Websocket messages received and handled.",
           stats->messages);
    single(text, "tessera_send_queue_bytes", "gauge",
           "Memory of the messages not yet sent to clients, all connections together "
           "(capped by send-queue-budget-bytes).",
           stats->send_queue_bytes);
    const struct {
        const char *limit;
        uint64_t value;
    } hits[] = {
        {"connections_per_ip", stats->refused_per_ip},
        {"connection_rate", stats->refused_rate},
        {"message_rate", stats->rate_limited},
        {"message_rate_close", stats->rate_closed},
        {"message_size", stats->too_big},
        {"binary_message", stats->binary},
        {"slow_reader", stats->slow_dropped},
        {"idle", stats->idle_closed},
        {"http_rate", stats->http_rate_limited},
        {"origin", stats->origin_refused},
        {"slow_request", stats->slow_requests},
    };
    family(text, "tessera_limit_hits_total", "counter",
           "Requests refused or connections closed by a limit.");
    for (size_t i = 0; i < sizeof(hits) / sizeof(hits[0]); i++)
        append(text, "tessera_limit_hits_total{limit=\"%s\"} %llu\n", hits[i].limit,
               (unsigned long long)hits[i].value);
    family(text, "tessera_http_responses_total", "counter", "HTTP answers by status class.");
    for (int status_class = 1; status_class <= 5; status_class++)
        append(text, "tessera_http_responses_total{class=\"%dxx\"} %llu\n", status_class,
               (unsigned long long)stats->http_responses[status_class]);
}

static void lobby_figures(struct text *text, const lobby_stats *stats)
{
    family(text, "tessera_rooms", "gauge", "Rooms hosted now, by game kind and status.");
    for (int kind = 0; kind < LOBBY_KIND_COUNT; kind++)
        for (int status = 0; status < LOBBY_STATUS_COUNT; status++)
            append(text, "tessera_rooms{game=\"%s\",mode=\"%s\",status=\"%s\"} %d\n",
                   LOBBY_KIND_GAMES[kind], LOBBY_KIND_MODES[kind], LOBBY_STATUS_NAMES[status],
                   stats->rooms[kind][status]);
    single(text, "tessera_players", "gauge", "Players known to this process.",
           (unsigned long long)stats->players);
    single(text, "tessera_quick_play_waiting", "gauge", "Players in the quick-play queue.",
           (unsigned long long)stats->queue_waiting);
    single(text, "tessera_tournaments_running", "gauge", "Tournaments being played.",
           (unsigned long long)stats->tournaments_running);
    single(text, "tessera_jobs_in_flight", "gauge", "Bot searches and password hashes on workers.",
           (unsigned long long)stats->jobs_in_flight);
    const lobby_counters *counters = &stats->counters;
    per_kind(text, "tessera_games_started_total", "Games started.", counters->games_started);
    per_kind(text, "tessera_games_finished_total", "Games played to their end.",
             counters->games_finished);
    per_kind(text, "tessera_games_aborted_total", "Games ended without a result.",
             counters->games_aborted);
    per_kind(text, "tessera_moves_total", "Moves, passes and resignations stored.",
             counters->actions);
    family(text, "tessera_errors_total", "counter",
           "Error replies of the lobby, by code (refusals of the transport's limits are "
           "tessera_limit_hits_total).");
    for (int code = 1; code < LOBBY_ERROR_CODES; code++)
        append(text, "tessera_errors_total{code=\"%s\"} %llu\n", protocol_error_name(-code),
               (unsigned long long)counters->errors[code]);
    family(text, "tessera_bot_move_seconds", "histogram",
           "Built-in bot moves, from the search's start to the move played.");
    histogram_samples(text, "tessera_bot_move_seconds", "", &counters->bot_move);
}

static void latency_figures(struct text *text, const metrics_sources *sources)
{
    family(text, "tessera_message_seconds", "histogram",
           "Handling of a websocket message, stores and sends included, by type "
           "(type=\"game.move\" is the move latency).");
    for (int type = 0; type < PROTOCOL_TYPE_COUNT; type++) {
        if (sources->messages[type].count == 0)
            continue;
        char labels[64];
        snprintf(labels, sizeof(labels), "type=\"%s\",", protocol_type_name((protocol_type)type));
        histogram_samples(text, "tessera_message_seconds", labels, &sources->messages[type]);
    }
    family(text, "tessera_sqlite_commit_seconds", "histogram",
           "Write transactions, from BEGIN to the end of COMMIT.");
    histogram_samples(text, "tessera_sqlite_commit_seconds", "", &sources->store->commits);
    single(text, "tessera_sqlite_commit_failures_total", "counter",
           "Commits that failed and were rolled back.", sources->store->commit_failures);
    single(text, "tessera_database_reads_in_flight", "gauge",
           "Reads off the loop (REST history, bot accounts, who sent a REST request), running "
           "or waiting for a connection.",
           (unsigned long long)sources->database_reads);
}

char *metrics_render(const metrics_sources *sources, size_t *length)
{
    struct text text = {NULL, 0, 0, false};
    server_figures(&text, sources);
    if (sources->process)
        process_figures(&text, sources->process);
    transport_figures(&text, sources->transport);
    lobby_figures(&text, sources->lobby);
    latency_figures(&text, sources);
    if (text.is_broken) {
        free(text.data);
        return NULL;
    }
    *length = text.length;
    return text.data;
}

/* The descriptors in /proc/self/fd, less the one reading it. */
static int count_open_fds(uint64_t *count)
{
    DIR *folder = opendir("/proc/self/fd");
    if (!folder)
        return -errno;
    *count = 0;
    for (struct dirent *entry = readdir(folder); entry; entry = readdir(folder))
        if (entry->d_name[0] != '.' && atoi(entry->d_name) != dirfd(folder))
            (*count)++;
    closedir(folder);
    return 0;
}

/* The kernel's boot time, from the btime line of /proc/stat. */
static int read_boot_time(long long *boot_time)
{
    FILE *file = fopen("/proc/stat", "r");
    if (!file)
        return -errno;
    char line[256];
    int found = -EIO;
    while (found < 0 && fgets(line, sizeof(line), file))
        if (sscanf(line, "btime %lld", boot_time) == 1)
            found = 0;
    fclose(file);
    return found;
}

/* Fields 22-24 of /proc/self/stat: start time in ticks after boot, virtual
 * size in bytes, resident size in pages. The fields are counted after the
 * command name's closing parenthesis, as the name may hold spaces. */
static int read_stat(unsigned long long *start_ticks, unsigned long long *virtual_bytes,
                     unsigned long long *resident_pages)
{
    FILE *file = fopen("/proc/self/stat", "r");
    if (!file)
        return -errno;
    char line[1024];
    bool is_read = fgets(line, sizeof(line), file) != NULL;
    fclose(file);
    const char *after_name = is_read ? strrchr(line, ')') : NULL;
    if (!after_name)
        return -EIO;
    /* ") state ppid ... " : state is field 3, the start time field 22. */
    int matched = sscanf(after_name + 1,
                         " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
                         "%*d %llu %llu %llu",
                         start_ticks, virtual_bytes, resident_pages);
    return matched == 3 ? 0 : -EIO;
}

int metrics_process_read(metrics_process *out)
{
    unsigned long long start_ticks, virtual_bytes, resident_pages;
    long long boot_time;
    struct rusage usage;
    struct rlimit limit;
    long ticks_per_second = sysconf(_SC_CLK_TCK), page_size = sysconf(_SC_PAGESIZE);
    int rc = read_stat(&start_ticks, &virtual_bytes, &resident_pages);
    if (rc == 0)
        rc = read_boot_time(&boot_time);
    if (rc == 0)
        rc = count_open_fds(&out->open_fds);
    if (rc == 0 && (getrusage(RUSAGE_SELF, &usage) < 0 || getrlimit(RLIMIT_NOFILE, &limit) < 0))
        rc = -errno;
    if (rc == 0 && (ticks_per_second <= 0 || page_size <= 0))
        rc = -EINVAL;
    if (rc != 0)
        return rc;
    out->cpu_seconds = (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    out->resident_bytes = (uint64_t)resident_pages * (uint64_t)page_size;
    out->virtual_bytes = virtual_bytes;
    out->max_fds = limit.rlim_cur;
    out->start_time_seconds = (double)boot_time + (double)start_ticks / (double)ticks_per_second;
    return 0;
}

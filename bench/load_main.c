/* load_main.c -- tessera-load: drive a server, then print what it cost.
 *
 * The process: parse the options, raise the open-file limit, start the
 * target server if asked (child_process), run one scenario on one libuv
 * loop, stop the server, print a report and one RESULT line of key=value
 * pairs for scripts (bench/run_server_bench.sh reads it).
 *
 * A game scenario has a warm-up (connections, hellos, the first rooms),
 * then a measured window: the server's CPU time (from /proc), this
 * process's CPU time (getrusage) and the move counters are read at both
 * ends, and the server's RSS is sampled every SAMPLE_MS in between for its
 * maximum. Moves, round trips and sizes are counted only inside the
 * window. After it, the games are resigned and the loop runs DRAIN_MS
 * more so those messages leave before the connections close, and, with
 * --history, until every request of the window is answered (at most
 * DRAIN_MAX_MS: a slow server's answers still count, a lost one does not
 * hold the run forever).
 *
 * With --history, load_history queries the history API at its own
 * steady rate alongside the games (or alone, --games 0) on the same loop,
 * counting only while the window is open; its report gives latency
 * percentiles per route and one RESULT line per route.
 *
 * The idle scenario reads the server's RSS before connecting and
 * SETTLE_MS after the last welcome, and divides the growth by the number
 * of connections. Everything is single-threaded: the report shows the
 * load generator's own CPU per move, which is how to tell that it was not
 * the bottleneck. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "bench/child_process.h"
#include "bench/load_echo.h"
#include "bench/load_game.h"
#include "bench/load_history.h"
#include "bench/load_idle.h"
#include "bench/load_options.h"
#include "bench/proc_stats.h"

#define SAMPLE_MS          250
#define DRAIN_MS           300
#define DRAIN_MAX_MS       10000
#define SETTLE_MS          1000
#define FD_HEADROOM        1024
#define GENEROUS_LIMIT     "1000000"
#define MAX_ARGS           (LOAD_MAX_SERVER_ARGS + 34)
#define TEMP_DIR_TEMPLATE  "/tmp/tessera-load-XXXXXX"
#define SERVER_CONNECTIONS 200 /* fd headroom for a server in a game run */
#define HISTORY_SEED       7   /* the history queries' choices */

/* Readings at one end of the measured window. */
struct snapshot {
    uint64_t wall_ns;
    uint64_t server_cpu_us, self_cpu_us;
    uint64_t rss_kib;
    uint64_t moves;
};

struct run {
    load_options options;
    uv_loop_t loop;
    pid_t server_pid;    /* 0: not measured */
    int local_addresses; /* the option, or the automatic choice */
    pacer pacer;
    bool has_pacer;
    load_stats stats;
    load_game *game;
    load_echo *echo;
    load_idle *idle;
    load_history *history;
    uv_timer_t phase_timer, sample_timer, report_timer;
    struct snapshot start, end, last_report;
    uint64_t rss_max_kib;
    uint64_t idle_rss_before_kib, idle_rss_after_kib, idle_connect_ns;
    uint64_t drained_ms; /* time waited after the window */
};

static void read_snapshot(const struct run *r, struct snapshot *s)
{
    s->wall_ns = uv_hrtime();
    s->self_cpu_us = proc_stats_self_cpu_us();
    s->moves = r->stats.moves;
    s->server_cpu_us = s->rss_kib = 0;
    if (r->server_pid) {
        proc_stats_cpu_us(r->server_pid, &s->server_cpu_us);
        proc_stats_rss_kib(r->server_pid, &s->rss_kib);
    }
}

/* ---- the game scenarios ------------------------------------------------- */

static void on_sample(uv_timer_t *timer)
{
    struct run *r = timer->data;
    uint64_t rss;
    if (r->server_pid && proc_stats_rss_kib(r->server_pid, &rss) == 0 && rss > r->rss_max_kib)
        r->rss_max_kib = rss;
}

static void on_report(uv_timer_t *timer)
{
    struct run *r = timer->data;
    struct snapshot now;
    read_snapshot(r, &now);
    double seconds = (double)(now.wall_ns - r->last_report.wall_ns) / 1e9;
    printf("progress  t=%5.0f s  %7.0f moves/s  server RSS %llu KiB  games finished %llu\n",
           (double)(now.wall_ns - r->start.wall_ns) / 1e9,
           (double)(now.moves - r->last_report.moves) / seconds, (unsigned long long)now.rss_kib,
           (unsigned long long)r->stats.games_finished);
    fflush(stdout);
    r->last_report = now;
}

/* Requests of the window that have had no answer yet. */
static uint64_t history_unanswered(const struct run *r)
{
    const load_history_stats *s = load_history_stats_of(r->history);
    uint64_t answered = 0;
    for (int route = 0; route < LOAD_HISTORY_ROUTES; route++)
        answered += s->answers[route] + s->not_found[route] + s->errors[route];
    return s->due - answered;
}

/* Every DRAIN_MS after the window: ends the run once nothing is owed. */
static void on_drain_check(uv_timer_t *timer)
{
    struct run *r = timer->data;
    r->drained_ms += DRAIN_MS;
    if (!r->history || history_unanswered(r) == 0 || r->drained_ms >= DRAIN_MAX_MS) {
        uv_timer_stop(timer);
        uv_stop(timer->loop);
    }
}

static void on_window_end(uv_timer_t *timer)
{
    struct run *r = timer->data;
    read_snapshot(r, &r->end);
    r->stats.is_measuring = false;
    uv_timer_stop(&r->sample_timer);
    uv_timer_stop(&r->report_timer);
    pacer_stop(&r->pacer);
    if (r->game)
        load_game_stop(r->game);
    if (r->echo)
        load_echo_stop(r->echo);
    if (r->history)
        load_history_stop(r->history);
    uv_timer_start(&r->phase_timer, on_drain_check, DRAIN_MS, DRAIN_MS);
}

static void on_window_start(uv_timer_t *timer)
{
    struct run *r = timer->data;
    read_snapshot(r, &r->start);
    r->last_report = r->start;
    r->rss_max_kib = r->start.rss_kib;
    r->stats.is_measuring = true;
    uv_timer_start(&r->sample_timer, on_sample, SAMPLE_MS, SAMPLE_MS);
    if (r->options.report_every_s > 0) {
        uint64_t every_ms = (uint64_t)(r->options.report_every_s * 1000);
        uv_timer_start(&r->report_timer, on_report, every_ms, every_ms);
    }
    uv_timer_start(&r->phase_timer, on_window_end, (uint64_t)(r->options.duration_s * 1000), 0);
}

/* The history queries (--history), from the same host and port. */
static int start_history(struct run *r, const char *host, int port)
{
    const load_options *o = &r->options;
    load_history_config config = {
        host, port, o->history_rate, o->history_players, o->history_connections, HISTORY_SEED};
    return load_history_new(&r->loop, &config, &r->stats, &r->history);
}

static int start_drivers(struct run *r, const char *host, int port)
{
    const load_options *o = &r->options;
    int rc = pacer_init(&r->pacer, &r->loop, o->rate);
    if (rc < 0)
        return rc;
    r->has_pacer = true;
    if (o->history_rate > 0 && (rc = start_history(r, host, port)) < 0)
        return rc;
    if (o->rooms == 0)
        return 0;
    if (!o->is_echo) {
        load_game_config config = {host,          port,          o->mode,           o->rooms,
                                   o->spectators, r->server_pid, r->local_addresses};
        return load_game_new(&r->loop, &config, &r->pacer, &r->stats, &r->game);
    }
    load_echo_config config = {host,     port,          strcmp(o->mode, "4p") == 0 ? 4 : 2,
                               o->rooms, o->spectators, r->local_addresses,
                               {0}};
    memcpy(config.sizes, o->echo_sizes, sizeof(config.sizes));
    return load_echo_new(&r->loop, &config, &r->pacer, &r->stats, &r->echo);
}

/* ---- the idle scenario --------------------------------------------------- */

static void on_settled(uv_timer_t *timer)
{
    struct run *r = timer->data;
    if (r->server_pid)
        proc_stats_rss_kib(r->server_pid, &r->idle_rss_after_kib);
    read_snapshot(r, &r->end);
    uv_stop(&r->loop);
}

static void on_idle_ready(void *context)
{
    struct run *r = context;
    r->idle_connect_ns = uv_hrtime() - r->start.wall_ns;
    uv_timer_start(&r->phase_timer, on_settled, SETTLE_MS, 0);
}

static int start_idle(struct run *r, const char *host, int port)
{
    if (r->server_pid)
        proc_stats_rss_kib(r->server_pid, &r->idle_rss_before_kib);
    read_snapshot(r, &r->start);
    load_idle_config config = {host,          port, r->options.idle_connections, r->local_addresses,
                               on_idle_ready, r};
    return load_idle_new(&r->loop, &config, &r->idle);
}

/* ---- reports ------------------------------------------------------------------ */

static double per_move(uint64_t amount, uint64_t moves)
{
    return moves ? (double)amount / (double)moves : 0;
}

static void print_game_report(const struct run *r)
{
    const load_options *o = &r->options;
    const load_stats *s = &r->stats;
    double seconds = (double)(r->end.wall_ns - r->start.wall_ns) / 1e9;
    uint64_t moves = r->end.moves - r->start.moves;
    uint64_t server_us = r->end.server_cpu_us - r->start.server_cpu_us;
    uint64_t self_us = r->end.self_cpu_us - r->start.self_cpu_us;
    const histogram *h = &s->round_trip_us;
    int lost = r->game ? load_game_lost_connections(r->game) : load_echo_lost_connections(r->echo);
    uint64_t p50 = histogram_percentile(h, 0.50), p95 = histogram_percentile(h, 0.95);
    uint64_t p99 = histogram_percentile(h, 0.99);
    uint64_t sizes[LOAD_SIZE_KINDS];
    for (int k = 0; k < LOAD_SIZE_KINDS; k++)
        sizes[k] = load_stats_mean_size(s, (load_size_kind)k);

    printf("target          %s, mode %s, %d rooms x (%d seats + %d spectators), %s\n",
           o->is_echo ? "echo server" : "tessera", o->mode, o->rooms,
           strcmp(o->mode, "4p") == 0 ? 4 : 2, o->spectators, o->rate > 0 ? "paced" : "max speed");
    if (o->rate > 0)
        printf("pacing          %.0f moves/s asked\n", o->rate);
    printf("moves           %llu in %.2f s = %.0f moves/s (games finished: %llu)\n",
           (unsigned long long)moves, seconds, (double)moves / seconds,
           (unsigned long long)s->games_finished);
    printf("round trip      p50 %.3f ms  p95 %.3f ms  p99 %.3f ms  max %.3f ms\n", p50 / 1e3,
           p95 / 1e3, p99 / 1e3, h->maximum / 1e3);
    printf("server CPU      %.1f us/move (%.0f%% of one core)\n", per_move(server_us, moves),
           100.0 * server_us / 1e6 / seconds);
    if (s->in_play_moves)
        printf("server CPU      %.1f us/move in play (first state to game.over, %llu moves)\n",
               per_move(s->in_play_server_cpu_us, s->in_play_moves),
               (unsigned long long)s->in_play_moves);
    printf("load generator  %.1f us/move (%.0f%% of one core)\n", per_move(self_us, moves),
           100.0 * self_us / 1e6 / seconds);
    printf("server RSS      start %llu KiB, end %llu KiB, max %llu KiB\n",
           (unsigned long long)r->start.rss_kib, (unsigned long long)r->end.rss_kib,
           (unsigned long long)r->rss_max_kib);
    printf("problems        %llu errors, %llu rate_limited, %d connections lost\n",
           (unsigned long long)s->errors, (unsigned long long)s->rate_limited, lost);
    if (!o->is_echo)
        printf("mean sizes      game.moves %llu -> %llu, game.move %llu, game.moved %llu, "
               "game.state %llu bytes\n",
               (unsigned long long)sizes[0], (unsigned long long)sizes[1],
               (unsigned long long)sizes[2], (unsigned long long)sizes[3],
               (unsigned long long)sizes[4]);
    printf("RESULT kind=%s mode=%s rooms=%d spectators=%d rate=%.0f seconds=%.2f moves=%llu "
           "moves_per_s=%.0f p50_us=%llu p95_us=%llu p99_us=%llu max_us=%llu "
           "server_cpu_us_per_move=%.1f in_play_cpu_us_per_move=%.1f "
           "client_cpu_us_per_move=%.1f server_cpu_percent=%.0f "
           "client_cpu_percent=%.0f rss_start_kib=%llu rss_end_kib=%llu rss_max_kib=%llu "
           "games=%llu errors=%llu rate_limited=%llu lost=%d sizes=%llu,%llu,%llu,%llu,%llu\n",
           o->is_echo ? "echo" : "tessera", o->mode, o->rooms, o->spectators, o->rate, seconds,
           (unsigned long long)moves, (double)moves / seconds, (unsigned long long)p50,
           (unsigned long long)p95, (unsigned long long)p99, (unsigned long long)h->maximum,
           per_move(server_us, moves), per_move(s->in_play_server_cpu_us, s->in_play_moves),
           per_move(self_us, moves), 100.0 * server_us / 1e6 / seconds,
           100.0 * self_us / 1e6 / seconds, (unsigned long long)r->start.rss_kib,
           (unsigned long long)r->end.rss_kib, (unsigned long long)r->rss_max_kib,
           (unsigned long long)s->games_finished, (unsigned long long)s->errors,
           (unsigned long long)s->rate_limited, lost, (unsigned long long)sizes[0],
           (unsigned long long)sizes[1], (unsigned long long)sizes[2], (unsigned long long)sizes[3],
           (unsigned long long)sizes[4]);
}

static void print_idle_report(const struct run *r)
{
    int welcomed = load_idle_welcomed(r->idle), failed = load_idle_failed(r->idle);
    int64_t growth = (int64_t)r->idle_rss_after_kib - (int64_t)r->idle_rss_before_kib;
    double per_connection = welcomed ? (double)growth * 1024.0 / welcomed : 0;
    printf("idle            %d connections signed in (%d failed) in %.2f s, from %d address(es)\n",
           welcomed, failed, r->idle_connect_ns / 1e9, r->local_addresses);
    printf("server RSS      before %llu KiB, after %llu KiB: %.0f bytes per connection\n",
           (unsigned long long)r->idle_rss_before_kib, (unsigned long long)r->idle_rss_after_kib,
           per_connection);
    printf("RESULT kind=idle connections=%d failed=%d rss_before_kib=%llu rss_after_kib=%llu "
           "bytes_per_connection=%.0f connect_seconds=%.2f\n",
           welcomed, failed, (unsigned long long)r->idle_rss_before_kib,
           (unsigned long long)r->idle_rss_after_kib, per_connection, r->idle_connect_ns / 1e9);
}

static void print_history_route(const char *name, const histogram *sent, const histogram *due,
                                uint64_t answers, uint64_t not_found, uint64_t errors,
                                uint64_t bytes)
{
    uint64_t p50 = histogram_percentile(sent, 0.50), p99 = histogram_percentile(sent, 0.99);
    uint64_t due_p99 = histogram_percentile(due, 0.99);
    uint64_t mean_bytes = answers ? bytes / answers : 0;
    printf("  %-18s %8llu %6llu %6llu %8.2f %8.2f %8.2f %8.2f %10llu\n", name,
           (unsigned long long)answers, (unsigned long long)not_found, (unsigned long long)errors,
           p50 / 1e3, p99 / 1e3, sent->maximum / 1e3, due_p99 / 1e3,
           (unsigned long long)mean_bytes);
    printf("RESULT kind=history route=%s answers=%llu not_found=%llu errors=%llu p50_us=%llu "
           "p99_us=%llu max_us=%llu due_p99_us=%llu mean_bytes=%llu\n",
           name, (unsigned long long)answers, (unsigned long long)not_found,
           (unsigned long long)errors, (unsigned long long)p50, (unsigned long long)p99,
           (unsigned long long)sent->maximum, (unsigned long long)due_p99,
           (unsigned long long)mean_bytes);
}

/* Per route and overall: answers, latencies, mean body size. */
static void print_history_report(const struct run *r)
{
    const load_history_stats *s = load_history_stats_of(r->history);
    double seconds = (double)(r->end.wall_ns - r->start.wall_ns) / 1e9;
    uint64_t answers = 0, not_found = 0, errors = 0, bytes = 0;
    for (int route = 0; route < LOAD_HISTORY_ROUTES; route++) {
        answers += s->answers[route], not_found += s->not_found[route];
        errors += s->errors[route], bytes += s->bytes[route];
    }
    uint64_t unanswered = history_unanswered(r);
    printf("history         %.0f requests/s asked: %llu due in %.2f s (%.1f/s); sent after their "
           "due time by p99 %.2f ms, max %.2f ms; %llu unanswered at the end\n",
           r->options.history_rate, (unsigned long long)s->due, seconds, s->due / seconds,
           histogram_percentile(&s->send_lag_us, 0.99) / 1e3, s->send_lag_us.maximum / 1e3,
           (unsigned long long)unanswered);
    printf("  latency (ms) from sending a request to its whole answer, and p99 from its due "
           "time:\n");
    printf("  %-18s %8s %6s %6s %8s %8s %8s %8s %10s\n", "route", "200", "404", "errors", "p50",
           "p99", "max", "due p99", "mean bytes");
    for (int route = 0; route < LOAD_HISTORY_ROUTES; route++)
        print_history_route(load_history_route_name((load_history_route)route),
                            &s->latency_us[route], &s->due_latency_us[route], s->answers[route],
                            s->not_found[route], s->errors[route], s->bytes[route]);
    print_history_route("all", &s->all_latency_us, &s->all_due_latency_us, answers, not_found,
                        errors, bytes);
    printf("RESULT kind=history_run rate=%.0f seconds=%.2f due=%llu unanswered=%llu "
           "send_lag_p99_us=%llu send_lag_max_us=%llu failed=%d\n",
           r->options.history_rate, seconds, (unsigned long long)s->due,
           (unsigned long long)unanswered,
           (unsigned long long)histogram_percentile(&s->send_lag_us, 0.99),
           (unsigned long long)s->send_lag_us.maximum, load_history_has_failed(r->history));
}

/* ---- the server --------------------------------------------------------------- */

/* Builds the argv of the server to start; `db_path` is used for tessera
 * (the --db option's, or a temporary one). */
static void server_argv(const load_options *o, const char *db_path, const char **argv)
{
    int n = 0;
    if (o->echo_server_path) {
        argv[n++] = o->echo_server_path;
    } else {
        const char *base[] = {
            o->tessera_path, "serve", "--port", "0", "--db", o->db_path ? o->db_path : db_path,
            "--log-level",   "warn"};
        for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
            argv[n++] = base[i];
        const char *generous[] = {"--rate",       GENEROUS_LIMIT,      "--burst",
                                  GENEROUS_LIMIT, "--http-rate",       GENEROUS_LIMIT,
                                  "--http-burst", GENEROUS_LIMIT,      "--connections-per-ip",
                                  GENEROUS_LIMIT, "--connection-rate", GENEROUS_LIMIT,
                                  "--max-rooms",  GENEROUS_LIMIT,      "--guests-per-address",
                                  GENEROUS_LIMIT};
        for (size_t i = 0; !o->has_default_limits && i < sizeof(generous) / sizeof(*generous); i++)
            argv[n++] = generous[i];
    }
    for (int i = 0; i < o->server_arg_count; i++)
        argv[n++] = o->server_args[i];
    argv[n] = NULL;
}

static void print_command(const char *const *argv)
{
    printf("server          ");
    for (int i = 0; argv[i]; i++)
        printf("%s%s", i ? " " : "", argv[i]);
    printf("\n");
}

static void remove_temp_dir(const char *dir)
{
    const char *suffixes[] = {"", "-wal", "-shm"};
    char path[256];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/t.db%s", dir, suffixes[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* ---- main ------------------------------------------------------------------------ */

static uint64_t connections_needed(const load_options *o)
{
    if (o->idle_connections)
        return (uint64_t)o->idle_connections;
    int seats = strcmp(o->mode, "4p") == 0 ? 4 : 2;
    uint64_t history = o->history_rate > 0 ? (uint64_t)o->history_connections : 0;
    return (uint64_t)o->rooms * (uint64_t)(seats + o->spectators) + history;
}

/* Enough local addresses for LOAD_CONNECTIONS_PER_ADDRESS connections each. */
static int local_addresses_for(const load_options *o)
{
    uint64_t count =
        (connections_needed(o) + LOAD_CONNECTIONS_PER_ADDRESS - 1) / LOAD_CONNECTIONS_PER_ADDRESS;
    return count < 1 ? 1 : count > 254 ? 254 : (int)count;
}

static int run_loop(struct run *r, const char *host, int port)
{
    uv_timer_init(&r->loop, &r->phase_timer);
    uv_timer_init(&r->loop, &r->sample_timer);
    uv_timer_init(&r->loop, &r->report_timer);
    r->phase_timer.data = r->sample_timer.data = r->report_timer.data = r;
    int rc;
    if (r->options.idle_connections) {
        rc = start_idle(r, host, port);
    } else {
        rc = start_drivers(r, host, port);
        if (rc == 0)
            uv_timer_start(&r->phase_timer, on_window_start, (uint64_t)(r->options.warmup_s * 1000),
                           0);
    }
    if (rc == 0)
        uv_run(&r->loop, UV_RUN_DEFAULT);
    else
        fprintf(stderr, "tessera-load: cannot start the clients: %s\n", strerror(-rc));
    return rc;
}

static void free_run(struct run *r)
{
    load_game_free(r->game);
    load_echo_free(r->echo);
    load_idle_free(r->idle);
    load_history_free(r->history);
    if (r->has_pacer)
        pacer_stop(&r->pacer);
    uv_close((uv_handle_t *)&r->phase_timer, NULL);
    uv_close((uv_handle_t *)&r->sample_timer, NULL);
    uv_close((uv_handle_t *)&r->report_timer, NULL);
    uv_run(&r->loop, UV_RUN_DEFAULT);
    uv_loop_close(&r->loop);
}

static int start_server(const load_options *o, char *temp_dir, child_process *child)
{
    char db_path[128];
    const char *argv[MAX_ARGS];
    if (o->tessera_path && !o->db_path && !mkdtemp(temp_dir)) {
        fprintf(stderr, "tessera-load: cannot create %s: %s\n", temp_dir, strerror(errno));
        return -errno;
    }
    snprintf(db_path, sizeof(db_path), "%s/t.db", temp_dir);
    server_argv(o, db_path, argv);
    print_command(argv);
    int rc = child_start((char *const *)argv, connections_needed(o) + FD_HEADROOM, child);
    if (rc < 0)
        fprintf(stderr, "tessera-load: cannot start %s: %s\n", argv[0], strerror(-rc));
    return rc;
}

int main(int argc, char **argv)
{
    static struct run r; /* large (the histogram): not on the stack */
    int rc = load_options_parse(argc, argv, &r.options);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    signal(SIGPIPE, SIG_IGN);
    const load_options *o = &r.options;
    if (proc_stats_raise_fd_limit(connections_needed(o) + FD_HEADROOM) < 0)
        fprintf(stderr, "tessera-load: cannot raise the open-file limit; run as root for --idle\n");

    child_process child = {0, 0};
    char temp_dir[] = TEMP_DIR_TEMPLATE;
    bool has_child = !o->port;
    if (has_child && start_server(o, temp_dir, &child) < 0)
        return 1;
    r.server_pid = has_child ? child.pid : o->server_pid;
    int port = has_child ? child.port : o->port;

    r.local_addresses = o->local_addresses ? o->local_addresses : local_addresses_for(o);
    uv_loop_init(&r.loop);
    rc = run_loop(&r, o->host, port);
    if (rc == 0 && o->idle_connections)
        print_idle_report(&r);
    else if (rc == 0 && (r.game || r.echo))
        print_game_report(&r);
    if (rc == 0 && r.history)
        print_history_report(&r);
    free_run(&r);
    if (has_child && child_stop(&child) != 0)
        fprintf(stderr, "tessera-load: the server did not exit cleanly\n");
    if (o->tessera_path && !o->db_path)
        remove_temp_dir(temp_dir);
    return rc == 0 ? 0 : 1;
}

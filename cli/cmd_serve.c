/* cmd_serve.c -- `tessera serve`: the game server process.
 *
 * This file owns the process-level things: the configuration, the libuv
 * loop, and the signals. Everything else is the app (storage, lobby) and
 * the transport (sockets); their order of life is fixed by app.h.
 *
 * Stopping is two-phase because uv_run cannot be re-entered: the first
 * SIGINT or SIGTERM starts a graceful shutdown (app_shutdown tells the
 * clients, transport_shutdown flushes and closes their connections within
 * SHUTDOWN_TIMEOUT_MS) whose completion stops the loop; then, outside
 * uv_run, the app and the transport are freed (transport_free runs the
 * loop itself to let lws close its handles), the signal handles are closed
 * and the loop is run empty before uv_loop_close; a handle someone forgot
 * is closed with a warning rather than left to hang the exit. A second
 * signal during the shutdown is ignored: the deadline bounds it anyway.
 *
 * SIGHUP, which daemons often take as "reopen your log" or "reload", is
 * ignored with a log line saying so: the log is standard error (journald or
 * docker hold the file, so there is nothing to reopen), and settings are
 * read at start only, so a changed config needs a restart (a graceful one:
 * games are stored and rebuilt). Its default action, ending the process
 * without a word, is what a stray `kill -HUP` must not do. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "cli/commands.h"
#include "lobby/lobby.h"
#include "server/app.h"
#include "server/config.h"
#include "server/log.h"
#include "server/transport.h"

#define SHUTDOWN_TIMEOUT_MS 4000 /* the process is gone within 5 s */

extern char **environ;

struct server {
    uv_loop_t loop;
    uv_signal_t signals[2];
    uv_signal_t hangup;
    struct app *app;
    struct transport *transport;
    bool is_stopping;
};

static const int STOP_SIGNALS[2] = {SIGINT, SIGTERM};

static void on_shutdown_done(void *context)
{
    struct server *server = context;
    uv_stop(&server->loop);
}

static void on_signal(uv_signal_t *handle, int signal_number)
{
    struct server *server = handle->data;
    if (server->is_stopping) {
        log_info("%s: already shutting down", strsignal(signal_number));
        return;
    }
    server->is_stopping = true;
    log_info("%s: shutting down", strsignal(signal_number));
    app_shutdown(server->app);
    transport_shutdown(server->transport, SHUTDOWN_TIMEOUT_MS, on_shutdown_done, server);
}

static void on_hangup(uv_signal_t *handle, int signal_number)
{
    (void)handle;
    log_info("%s: ignored; the log is standard error (nothing to reopen) and settings are read "
             "at start only: restart the server to apply a changed config",
             strsignal(signal_number));
}

static void watch_signals(struct server *server)
{
    for (int i = 0; i < 2; i++) {
        uv_signal_init(&server->loop, &server->signals[i]);
        server->signals[i].data = server;
        uv_signal_start(&server->signals[i], on_signal, STOP_SIGNALS[i]);
    }
    uv_signal_init(&server->loop, &server->hangup);
    uv_signal_start(&server->hangup, on_hangup, SIGHUP);
}

static void announce(const server_config *config, int port)
{
    bool is_ipv6 = strchr(config->bind_address, ':') != NULL;
    printf("listening on http://%s%s%s:%d\n", is_ipv6 ? "[" : "", config->bind_address,
           is_ipv6 ? "]" : "", port);
    fflush(stdout);
    log_info("listening on http://%s%s%s:%d", is_ipv6 ? "[" : "", config->bind_address,
             is_ipv6 ? "]" : "", port);
}

/* A handle still open at exit would make the last uv_run wait forever:
 * close it, and say so, since whoever opened it forgot to. */
static void close_forgotten_handle(uv_handle_t *handle, void *unused)
{
    (void)unused;
    if (uv_is_closing(handle))
        return;
    log_warn("closing a %s handle left open at exit", uv_handle_type_name(handle->type));
    uv_close(handle, NULL);
}

/* Creates the app and the transport; 0, or the exit status after logging. */
static int start(struct server *server, const server_config *config)
{
    int rc = server_config_make_db_folder(config);
    if (rc < 0) {
        log_error("cannot create the folder of %s: %s", config->db_path, strerror(-rc));
        return 1;
    }
    if (app_new(&server->loop, config, &server->app) < 0)
        return 1;
    transport_callbacks callbacks = app_transport_callbacks(server->app);
    rc = transport_new(&server->loop, config->bind_address, config->port, &config->limits,
                       &callbacks, &server->transport);
    if (rc < 0) {
        log_error("cannot listen on %s:%d: %s", config->bind_address, config->port, strerror(-rc));
        return 1;
    }
    app_attach(server->app, server->transport);
    return 0;
}

/* libuv's pool (4 threads unless UV_THREADPOOL_SIZE says otherwise) runs
 * the bot searches, the password hashes, the Reef API's replays and the
 * history reads: size it for all the bots, all the hashes and every
 * history connection at once, plus one, so a full house of searches and
 * sign-ins never holds up an HTTP answer (nor sign-ins a bot's move). The
 * pool reads the variable when it starts, at the first job. */
static void size_workers(const server_config *config)
{
    int needed =
        config->bot_jobs + lobby_default_config().password_jobs + config->history_readers + 1;
    if (getenv("UV_THREADPOOL_SIZE") || needed <= 4)
        return;
    char threads[16];
    snprintf(threads, sizeof(threads), "%d", needed);
    setenv("UV_THREADPOOL_SIZE", threads, 0);
}

/* The outgoing frames of a move (a Duo move list is 18 KB, a 4-player
 * opening's 120 KB) are allocated and freed on every move. glibc gives
 * the top of its heap back to the kernel whenever 128 KB lie free there,
 * and takes it back at the next move a page fault at a time (4.5% of the
 * loop's time under load, bench/run_server_bench.sh). Up to 16 MB stay;
 * and since setting that also fixes glibc's mmap threshold at 128 KB,
 * blocks up to 1 MB stay on the heap rather than being mapped anew. */
static void keep_freed_memory(void)
{
    if (mallopt(M_MMAP_THRESHOLD, 1 << 20) != 1 || mallopt(M_TRIM_THRESHOLD, 16 << 20) != 1)
        log_warn("could not tune the heap: freed memory goes back to the kernel at once");
}

int cmd_serve(int argc, char **argv)
{
    server_config config;
    char error[512];
    int rc = server_config_load(&config, argc, argv, environ, error, sizeof(error));
    if (rc == SERVER_CONFIG_HELP) {
        server_config_print_usage(stdout);
        return 0;
    }
    if (rc < 0) {
        fprintf(stderr, "tessera serve: %s\n(tessera serve --help lists the options)\n", error);
        return 2;
    }
    log_set_level(config.log_level);
    log_set_format(config.log_format);
    signal(SIGPIPE, SIG_IGN);
    size_workers(&config);
    keep_freed_memory();

    struct server server;
    memset(&server, 0, sizeof(server));
    uv_loop_init(&server.loop);
    int status = start(&server, &config);
    if (status == 0) {
        watch_signals(&server); /* before the announcement, which invites signals */
        announce(&config, transport_port(server.transport));
        uv_run(&server.loop, UV_RUN_DEFAULT);
    }
    if (server.app)
        app_free(server.app);
    transport_free(server.transport);
    for (int i = 0; status == 0 && i < 2; i++)
        uv_close((uv_handle_t *)&server.signals[i], NULL);
    if (status == 0)
        uv_close((uv_handle_t *)&server.hangup, NULL);
    uv_walk(&server.loop, close_forgotten_handle, NULL);
    uv_run(&server.loop, UV_RUN_DEFAULT);
    uv_loop_close(&server.loop);
    if (status == 0)
        log_info("stopped");
    return status;
}

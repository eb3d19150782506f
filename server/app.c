/* app.c -- the running server: the lobby and the store on the transport.
 *
 * The app is the lobby's host: it turns lobby sends into transport sends,
 * runs bot jobs on libuv's thread pool, ticks the lobby every 100 ms for
 * clocks and grace periods, and gives it a clock that is wall time at
 * start-up advanced by the loop's monotonic time (so a clock adjustment
 * never makes a move look negative or a timeout fire early). HTTP routes
 * are registered here; the route table does the matching. A Reef action
 * (or a run submitted to the leaderboards) replays the client's whole
 * history, milliseconds for a long run, so it runs on the thread pool and
 * is answered later (a submitted run once the store has answered its
 * commit); app_free waits for those jobs as for the bot jobs, before the
 * transport they answer through is freed. The history API (http_history.c) does the same with its
 * own pool of read-only connections.
 *
 * /healthz checks storage with a write: a small file created beside the
 * database, written and removed. It fails where a commit needing new space
 * fails (a full or read-only file system, an I/O error), even while no one
 * plays, and passes again as soon as writes do, which a remembered commit
 * result would not. It runs on the loop like the lobby's commits, and costs
 * less than one: a few metadata operations, never an fsync. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lobby/lobby.h"
#include "protocol/error_json.h"
#include "protocol/game_json.h"
#include "protocol/reef_api.h"
#include "server/app.h"
#include "server/http_accounts.h"
#include "server/http_static.h"
#include "server/http_tournaments.h"
#include "server/http_error.h"
#include "server/http_history.h"
#include "server/reader_pool.h"
#include "server/http_routes.h"
#include "server/lobby_bus.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/store_writer.h"

#define TICK_MS             100
#define READERS_MAX_WAITING 256 /* reads that may wait for a connection before 503 */
#define PROBE_SUFFIX        ".healthz-probe"
#define PROBE_TEXT          "tessera storage probe: a write /healthz makes and removes\n"
#define PROBE_PATH_SIZE     (SERVER_CONFIG_PATH_SIZE + sizeof(PROBE_SUFFIX))

struct app {
    uv_loop_t *loop;
    store_writer *writer; /* the lobby's records, committed on a thread of its own */
    store_port port;      /* the writer's */
    struct lobby *lobby;
    lobby_bus *bus; /* several instances: the notices they send each other */
    struct transport *transport;
    http_routes *routes;
    struct reader_pool *readers;          /* reads off the loop: history, bot accounts */
    struct http_history *history;         /* the history API's jobs */
    struct http_accounts *accounts;       /* the bot account routes' state */
    struct http_tournaments *tournaments; /* POST /api/tournaments */
    struct http_static *web;              /* the browser client's files */
    char probe_path[PROBE_PATH_SIZE];     /* the database's path and PROBE_SUFFIX */
    bool is_database_server;              /* PostgreSQL: /healthz asks the writer, not the disk */
    uv_timer_t tick;
    bool is_tick_open;   /* initialised: must be closed before freeing */
    bool is_tick_closed; /* its close callback has run */
    uint64_t started_loop_ms;
    int64_t started_epoch_ms;
    int reef_jobs_in_flight;                 /* Reef actions on the thread pool */
    histogram messages[PROTOCOL_TYPE_COUNT]; /* handling time by message type (/metrics) */
};

/* A Reef action or run submission on its way through the thread pool;
 * `body` is a copy, as the request's strings live only during on_http. */
struct reef_job {
    uv_work_t request;
    struct app *app;
    uint64_t exchange;
    char *body;
    size_t body_length;
    bool is_submission;
    bool is_verified; /* a submission whose run replayed: `run` is set */
    reef_api_run run;
    reef_api_response answer;
};

/* A lobby job on its way through the thread pool. */
struct pool_job {
    uv_work_t request;
    lobby_job *job;
};

static void host_send(void *context, uint64_t connection, const char *text, size_t length,
                      bool can_wait)
{
    struct app *app = context;
    if (app->transport && can_wait)
        transport_send_soon(app->transport, connection, text, length);
    else if (app->transport)
        transport_send(app->transport, connection, text, length);
}

static void host_close(void *context, uint64_t connection, const char *reason)
{
    struct app *app = context;
    if (app->transport)
        transport_close(app->transport, connection, TRANSPORT_CLOSE_NORMAL, reason);
}

static void host_grant(void *context, uint64_t connection, int messages)
{
    struct app *app = context;
    if (app->transport)
        transport_grant(app->transport, connection, messages);
}

static int64_t host_now(void *context)
{
    struct app *app = context;
    return app->started_epoch_ms + (int64_t)(uv_now(app->loop) - app->started_loop_ms);
}

static void pool_work(uv_work_t *request)
{
    struct pool_job *pooled = request->data;
    pooled->job->work(pooled->job);
}

static void pool_done(uv_work_t *request, int status)
{
    struct pool_job *pooled = request->data;
    (void)status; /* jobs are never cancelled: done() must always run */
    pooled->job->done(pooled->job);
    free(pooled);
}

static int host_queue_work(void *context, lobby_job *job)
{
    struct app *app = context;
    struct pool_job *pooled = malloc(sizeof(*pooled));
    if (!pooled) {
        log_error("out of memory queueing a bot move");
        return -ENOMEM;
    }
    pooled->request.data = pooled;
    pooled->job = job;
    int rc = uv_queue_work(app->loop, &pooled->request, pool_work, pool_done);
    if (rc != 0) {
        log_error("uv_queue_work: %s", uv_strerror(rc));
        free(pooled);
        return rc;
    }
    return 0;
}

static void host_random_bytes(void *context, void *buffer, size_t length)
{
    (void)context;
    int rc = uv_random(NULL, NULL, buffer, length, 0, NULL);
    if (rc != 0) {
        /* getrandom cannot fail on Linux >= 3.17 once seeded; refuse to go
         * on with guessable tokens rather than fall back to a weak source */
        log_error("uv_random: %s", uv_strerror(rc));
        abort();
    }
}

static void host_log(void *context, const char *line)
{
    (void)context;
    log_info("%s", line);
}

static void on_tick(uv_timer_t *timer)
{
    struct app *app = timer->data;
    lobby_tick(app->lobby);
}

static void on_open(void *context, uint64_t connection, const char *peer_ip)
{
    struct app *app = context;
    log_debug("connection %llu from %s", (unsigned long long)connection, peer_ip);
    if (lobby_connect(app->lobby, connection, peer_ip) != 0) {
        log_error("out of memory accepting connection %llu from %s; closing it",
                  (unsigned long long)connection, peer_ip);
        transport_close(app->transport, connection, TRANSPORT_CLOSE_INTERNAL_ERROR,
                        "out of memory");
    }
}

/* Each message is timed from its arrival to the end of its handling
 * (its stores and sends included): by type, the latency /metrics shows. */
static void on_message(void *context, uint64_t connection, const char *text, size_t length)
{
    struct app *app = context;
    uint64_t start_ns = uv_hrtime();
    int type = lobby_message(app->lobby, connection, text, length);
    if (type >= 0 && type < PROTOCOL_TYPE_COUNT)
        histogram_observe(&app->messages[type], (double)(uv_hrtime() - start_ns) / 1e9);
}

static void on_close(void *context, uint64_t connection)
{
    struct app *app = context;
    lobby_disconnect(app->lobby, connection);
}

static void on_http(void *context, const transport_http_request *request,
                    transport_http_response *response)
{
    struct app *app = context;
    http_routes_dispatch(app->routes, request, response);
}

/* Writes and removes the probe file; 0, or -errno of the step that failed
 * (`step` names it). A probe left by a crash is removed first: truncating
 * it instead would free the very space the write then reuses. */
static int probe_storage(const char *path, const char **step)
{
    *step = "remove";
    if (unlink(path) < 0 && errno != ENOENT)
        return -errno;
    *step = "create";
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    *step = "write";
    ssize_t written = write(fd, PROBE_TEXT, strlen(PROBE_TEXT));
    int rc = written == (ssize_t)strlen(PROBE_TEXT) ? 0 : written < 0 ? -errno : -ENOSPC;
    if (close(fd) < 0 && rc == 0) {
        *step = "close";
        rc = -errno;
    }
    if (unlink(path) < 0 && rc == 0) {
        *step = "remove";
        rc = -errno;
    }
    return rc;
}

static void health_info(void *context, http_health_info *info)
{
    struct app *app = context;
    info->uptime_s = (long long)(uv_now(app->loop) - app->started_loop_ms) / 1000;
    info->rooms = lobby_room_count(app->lobby);
    info->connections = app->transport ? transport_connection_count(app->transport) : 0;
    if (app->is_database_server) {
        if (store_writer_reach(app->writer) == STORE_E_IO)
            snprintf(info->problem, sizeof(info->problem),
                     "storage: the database server cannot be reached; moves are refused");
        if (info->problem[0])
            log_warn_limited("healthz: %s", info->problem);
        return;
    }
    const char *step;
    int rc = probe_storage(app->probe_path, &step);
    if (rc == 0)
        return;
    snprintf(info->problem, sizeof(info->problem),
             "storage: cannot %s a file beside the database (%.300s): %s; moves may be refused",
             step, app->probe_path, strerror(-rc));
    log_warn_limited("healthz: %s", info->problem);
}

static int64_t epoch_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Opens the configured database, saying why not in the log. */
static int open_database(const server_config *config, store **out)
{
    char why[STORE_WHY_SIZE], shown[SERVER_CONFIG_PATH_SIZE];
    store_name_sessions(config->instance); /* before the first session opens */
    int rc = store_open_why(config->db_path, config->db_synchronous_full, out, why);
    if (rc != STORE_OK) {
        store_path_for_log(config->db_path, shown, sizeof(shown));
        log_error("cannot open the database %s: %s%s%s", shown, store_strerror(rc),
                  why[0] ? ": " : "", why);
    }
    return rc;
}

/* The writer threads and, on SQLite, its checkpointer, on connections of
 * their own to the same database: db-writers of them on PostgreSQL, one
 * on SQLite. */
static int start_writer(struct app *app, const server_config *config)
{
    store *connections[STORE_WRITER_CONNECTIONS_MAX] = {0}, *checkpointer = NULL;
    bool is_postgres = store_path_is_postgres(config->db_path);
    int count = is_postgres ? config->db_writers : 1, rc = STORE_OK;
    for (int i = 0; rc == STORE_OK && i < count; i++)
        rc = open_database(config, &connections[i]);
    if (rc == STORE_OK && !is_postgres)
        rc = open_database(config, &checkpointer);
    if (rc == STORE_OK)
        rc = store_writer_start(app->loop, connections, count, checkpointer, &app->writer);
    if (rc != STORE_OK) {
        store_close(checkpointer);
        for (int i = 0; i < count; i++)
            store_close(connections[i]);
    }
    if (rc != STORE_OK) {
        log_error("cannot start the database writer: %s", store_strerror(rc));
        return rc;
    }
    app->port = store_writer_port(app->writer);
    return 0;
}

static void take_restored(void *context, int rc)
{
    int *restored = context;
    *restored = rc;
}

/* Rebuilds what the last run left unfinished, the loop running until the
 * writer has answered (nobody is served yet): the games restored, or a
 * store error. */
static int restore(struct app *app)
{
    int restored = INT_MIN;
    lobby_restore(app->lobby, take_restored, &restored);
    while (restored == INT_MIN)
        uv_run(app->loop, UV_RUN_ONCE);
    return restored;
}

static int open_lobby(struct app *app, const server_config *config)
{
    /* Opened once to create or migrate the schema, then closed: the loop
     * keeps no connection (the writer, the listener and the reader pool
     * have their own). */
    store *schema = NULL;
    int rc = open_database(config, &schema);
    store_close(schema);
    if (rc != 0)
        return rc;
    lobby_host host = {app,        host_send,       host_close,
                       host_now,   host_queue_work, host_random_bytes,
                       host_grant, host_log};
    lobby_config lobby_settings = lobby_default_config();
    lobby_settings.reconnect_grace_ms = (int64_t)config->reconnect_grace_s * 1000;
    lobby_settings.bot_think_ms = (uint32_t)config->bot_think_ms;
    lobby_settings.finished_room_ttl_ms = (int64_t)config->finished_room_ttl_s * 1000;
    lobby_settings.max_rooms = config->max_rooms;
    lobby_settings.bot_jobs = config->bot_jobs;
    lobby_settings.max_rooms_per_player = config->max_rooms_per_player;
    lobby_settings.max_tournaments = config->max_tournaments;
    lobby_settings.tournament_reserve = config->tournament_reserve;
    lobby_settings.tournaments_per_account = config->tournaments_per_account;
    lobby_settings.tournament_rooms_per_account = config->tournament_rooms_per_account;
    lobby_settings.tournament_share = config->tournament_share;
    lobby_settings.queue_window = config->queue_window;
    lobby_settings.queue_widen_ms = (int64_t)config->queue_widen_s * 1000;
    lobby_settings.queue_fill_ms = (int64_t)config->queue_fill_s * 1000;
    char problem[200];
    if (arena_parse_list(config->arenas, lobby_settings.arenas, &lobby_settings.arena_count,
                         problem, sizeof(problem)) != 0) {
        log_error("arenas: %s", problem); /* the setting was checked when read: a bug */
        return -1;
    }
    lobby_settings.failures_per_name = config->failures_per_name;
    lobby_settings.failures_per_address = config->failures_per_address;
    lobby_settings.registrations_per_address = config->registrations_per_address;
    lobby_settings.guests_per_address = config->guests_per_address;
    lobby_settings.guest_ttl_ms = (int64_t)config->guest_ttl_s * 1000;
    lobby_settings.instance = config->instance;
    lobby_settings.lease_ms = config->lease_ms;
    lobby_settings.shares_lobby = config->instance && store_path_is_postgres(config->db_path);
    rc = start_writer(app, config);
    if (rc != 0)
        return rc;
    rc = lobby_new(&host, &app->port, &lobby_settings, &app->lobby);
    if (rc != 0)
        return rc;
    rc = restore(app);
    if (rc < 0) {
        log_error("cannot restore unfinished games: %s", store_strerror(rc));
        return rc;
    }
    char shown[SERVER_CONFIG_PATH_SIZE];
    store_path_for_log(config->db_path, shown, sizeof(shown));
    log_info("database %s open; %d unfinished game%s restored", shown, rc, rc == 1 ? "" : "s");
    rc = lobby_settings.shares_lobby
             ? lobby_bus_start(app->loop, config->db_path, app->lobby, &app->bus)
             : 0;
    if (rc != 0)
        log_error("cannot start listening to the other instances: %s", uv_strerror(rc));
    return rc;
}

/* Hands a Reef API answer to the transport, which owns the body after. */
static void reef_api_respond(reef_api_response *answer, transport_http_response *response)
{
    response->status = answer->status;
    response->content_type = "application/json";
    response->body = answer->body;
    response->body_length = answer->body ? strlen(answer->body) : 0;
}

static void reef_init_route(void *context, const transport_http_request *request,
                            transport_http_response *response)
{
    (void)context;
    reef_api_response answer;
    reef_api_init(request->query, &answer);
    reef_api_respond(&answer, response);
}

static void reef_job_work(uv_work_t *request)
{
    struct reef_job *job = request->data;
    if (job->is_submission)
        job->is_verified =
            reef_api_submission(job->body, job->body_length, &job->run, &job->answer) == 0;
    else
        reef_api_action(job->body, job->body_length, &job->answer);
}

/* Hands the job's answer to the transport (or drops it if the client
 * left: transport_http_respond frees it then) and frees the job. */
static void reef_job_answer(struct reef_job *job)
{
    if (!job->answer.body) {
        job->answer.status = 500;
        job->answer.body =
            error_json_render(ERROR_JSON_NESTED, "internal", "the server ran out of memory", NULL);
    }
    transport_http_response response;
    memset(&response, 0, sizeof(response));
    reef_api_respond(&job->answer, &response);
    http_response_send(job->app->transport, job->exchange, &response);
    job->app->reef_jobs_in_flight--;
    reef_api_run_clear(&job->run);
    free(job->body);
    free(job);
}

/* The lobby's answer to a verified run: 201 {run, player, seed, score,
 * turns} (200 and the stored run when that player had already submitted
 * it), or the error in the Reef API's shape (401 unauthorized, 503
 * storage_error: nothing was stored). */
static void on_run_stored(void *context, const lobby_reef_stored *stored,
                          const protocol_failure *failure)
{
    struct reef_job *job = context;
    if (stored) {
        char seed[24];
        snprintf(seed, sizeof(seed), "%" PRIu64, job->run.seed);
        json_t *reply = json_pack("{s:I, s:s, s:s, s:I, s:I}", "run", (json_int_t)stored->run_id,
                                  "player", stored->player_name, "seed", seed, "score",
                                  (json_int_t)job->run.score, "turns", (json_int_t)job->run.turns);
        job->answer.status = stored->is_repeat ? 200 : 201;
        job->answer.body = reply ? json_dumps(reply, JSON_COMPACT) : NULL;
        json_decref(reply);
    } else {
        job->answer.status = failure->code == PROTOCOL_E_UNAUTHORIZED ? 401 : 503;
        job->answer.body = error_json_render(ERROR_JSON_NESTED, protocol_error_name(failure->code),
                                             failure->message, NULL);
    }
    reef_job_answer(job);
}

/* Back on the loop: a verified run is stored for whoever its token names,
 * and answered when the store has answered; anything else is answered
 * now. */
static void reef_job_done(uv_work_t *request, int status)
{
    struct reef_job *job = request->data;
    (void)status; /* never cancelled: the job must always be answered */
    if (!job->is_verified) {
        reef_job_answer(job);
        return;
    }
    lobby_reef_run run = {job->run.seed, job->run.score, job->run.history_json, host_now(job->app)};
    lobby_reef_run_submit(job->app->lobby, job->run.token, &run, on_run_stored, job);
}

/* Queues a Reef action or submission on the thread pool. */
static void queue_reef_job(struct app *app, bool is_submission,
                           const transport_http_request *request, transport_http_response *response)
{
    struct reef_job *job = calloc(1, sizeof(*job));
    char *body = malloc(request->body_length + 1);
    if (!job || !body) {
        free(job);
        free(body);
        http_error_respond(response, request->path, 500, "internal",
                           "the server ran out of memory");
        return;
    }
    memcpy(body, request->body, request->body_length + 1);
    *job = (struct reef_job){.app = app,
                             .exchange = request->exchange,
                             .body = body,
                             .body_length = request->body_length,
                             .is_submission = is_submission};
    job->request.data = job;
    int rc = uv_queue_work(app->loop, &job->request, reef_job_work, reef_job_done);
    if (rc != 0) {
        log_error("uv_queue_work: %s", uv_strerror(rc));
        free(body);
        free(job);
        http_error_respond(response, request->path, 503, "unavailable",
                           "the server cannot take this request now");
        return;
    }
    app->reef_jobs_in_flight++;
    response->is_deferred = true;
}

static void reef_action_route(void *context, const transport_http_request *request,
                              transport_http_response *response)
{
    queue_reef_job(context, false, request, response);
}

static void reef_submit_route(void *context, const transport_http_request *request,
                              transport_http_response *response)
{
    queue_reef_job(context, true, request, response);
}

static void blokus_pieces_route(void *context, const transport_http_request *request,
                                transport_http_response *response)
{
    (void)context;
    (void)request;
    http_response_json(response, 200, game_json_blokus_orientations());
}

static void metrics_route(void *context, const transport_http_request *request,
                          transport_http_response *response)
{
    struct app *app = context;
    transport_stats transport;
    lobby_stats lobby;
    store_figures storage;
    transport_stats_read(app->transport, &transport);
    lobby_stats_read(app->lobby, &lobby);
    store_writer_figures(app->writer, &storage);
    metrics_process process;
    metrics_sources sources = {
        .version = TESSERA_VERSION,
        .uptime_s = (double)(uv_now(app->loop) - app->started_loop_ms) / 1000.0,
        .connections = transport_connection_count(app->transport),
        .transport = &transport,
        .lobby = &lobby,
        .store = &storage,
        .database_reads = reader_pool_jobs_in_flight(app->readers),
        .messages = app->messages,
        .process = metrics_process_read(&process) == 0 ? &process : NULL,
    };
    response->body = metrics_render(&sources, &response->body_length);
    if (!response->body) {
        http_error_respond(response, request->path, 500, "internal", "out of memory");
        return;
    }
    response->status = 200;
    response->content_type = "text/plain; version=0.0.4; charset=utf-8";
    response->cache_control = "no-store";
}

static int add_routes(struct app *app, const server_config *config)
{
    int rc = http_routes_new(&app->routes);
    if (rc == 0)
        rc = http_accounts_new(app->readers, &app->port, config->admin_key,
                               config->max_bots_per_account, &app->accounts);
    if (rc == 0)
        rc = http_accounts_add_routes(app->routes, app->accounts);
    if (rc == 0)
        rc = http_static_new(config->web_dir, &app->web);
    if (rc == 0)
        rc = http_static_add_routes(app->routes, app->web);
    if (rc == 0)
        rc = http_tournaments_new(app->lobby, app->accounts, &app->tournaments);
    if (rc == 0)
        rc = http_tournaments_add_routes(app->routes, app->tournaments);
    if (rc == 0)
        rc = http_routes_add_health(app->routes, health_info, app);
    if (rc == 0)
        rc = http_routes_add(app->routes, "GET", "/metrics", metrics_route, app);
    if (rc == 0)
        rc = http_routes_add(app->routes, "GET", "/api/games/blokus/pieces", blokus_pieces_route,
                             NULL);
    if (rc == 0)
        rc = http_routes_add(app->routes, "GET", "/api/games/reef-builder/init", reef_init_route,
                             NULL);
    if (rc == 0)
        rc = http_routes_add(app->routes, "POST", "/api/games/reef-builder/action",
                             reef_action_route, app);
    if (rc == 0)
        rc = http_routes_add(app->routes, "POST", "/api/games/reef-builder/submit",
                             reef_submit_route, app);
    if (rc == 0)
        rc = http_history_add_routes(app->history, app->routes);
    return rc;
}

int app_new(uv_loop_t *loop, const server_config *config, struct app **out)
{
    struct app *app = calloc(1, sizeof(*app));
    if (!app)
        return -1;
    app->loop = loop;
    app->started_loop_ms = uv_now(loop);
    app->started_epoch_ms = epoch_ms();
    snprintf(app->probe_path, sizeof(app->probe_path), "%s%s", config->db_path, PROBE_SUFFIX);
    app->is_database_server = store_path_is_postgres(config->db_path);
    int rc = open_lobby(app, config);
    if (rc == 0)
        rc = reader_pool_new(loop, config->db_path, config->history_readers, READERS_MAX_WAITING,
                             &app->readers);
    if (rc == 0)
        rc = http_history_new(app->readers, config->leaderboard_min_games, &app->history);
    if (rc == 0)
        rc = add_routes(app, config);
    if (rc == 0)
        rc = uv_timer_init(loop, &app->tick);
    app->is_tick_open = rc == 0;
    app->tick.data = app;
    if (rc == 0)
        rc = uv_timer_start(&app->tick, on_tick, TICK_MS, TICK_MS);
    if (rc != 0) {
        app_free(app);
        return rc < 0 ? rc : -1;
    }
    *out = app;
    return 0;
}

/* The turn's moves go to the writer before the loop sends the turn's
 * answers, so their commit overlaps the sending. */
static void on_turn_end(void *context)
{
    struct app *app = context;
    if (app->writer)
        store_writer_hand_over(app->writer);
}

transport_callbacks app_transport_callbacks(struct app *app)
{
    transport_callbacks callbacks = {app, on_open, on_message, on_close, on_http, on_turn_end};
    return callbacks;
}

void app_attach(struct app *app, struct transport *transport)
{
    app->transport = transport;
    http_history_attach(app->history, transport);
    if (app->accounts)
        http_accounts_attach(app->accounts, transport);
    if (app->tournaments)
        http_tournaments_attach(app->tournaments, transport);
}

void app_shutdown(struct app *app)
{
    lobby_shutdown(app->lobby);
    uv_timer_stop(&app->tick);
}

/* Running bot jobs were told to stop (lobby_shutdown); their results are
 * dropped, but their memory is the lobby's, so wait for them. Reef jobs
 * (a submitted run until its commit is answered) point at the app: their
 * answers still go out, the transport being freed only after the app. */
static void wait_for_jobs(struct app *app)
{
    while ((app->lobby && lobby_jobs_in_flight(app->lobby) > 0) || app->reef_jobs_in_flight > 0 ||
           reader_pool_jobs_in_flight(app->readers) > 0 ||
           http_history_jobs_in_flight(app->history) > 0 ||
           (app->accounts && http_accounts_in_flight(app->accounts) > 0))
        uv_run(app->loop, UV_RUN_ONCE);
}

static void on_tick_closed(uv_handle_t *handle)
{
    struct app *app = handle->data;
    app->is_tick_closed = true;
}

void app_free(struct app *app)
{
    if (!app)
        return;
    if (app->lobby)
        lobby_shutdown(app->lobby); /* bot jobs still running come back to nothing */
    lobby_bus_stop(app->bus);
    wait_for_jobs(app);
    app->transport = NULL;
    if (app->history)
        http_history_attach(app->history, NULL);
    if (app->accounts)
        http_accounts_attach(app->accounts, NULL);
    if (app->tournaments)
        http_tournaments_attach(app->tournaments, NULL);
    if (app->is_tick_open) {
        uv_close((uv_handle_t *)&app->tick, on_tick_closed);
        while (!app->is_tick_closed)
            uv_run(app->loop, UV_RUN_ONCE);
    }
    store_writer_close(app->writer); /* every answer reaches the lobby before it goes */
    lobby_free(app->lobby);
    http_history_free(app->history);
    http_routes_free(app->routes);
    http_tournaments_free(app->tournaments);
    http_static_free(app->web);
    http_accounts_free(app->accounts);
    reader_pool_free(app->readers);
    free(app);
}

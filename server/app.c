/* app.c -- the running server: the lobby and the store on the transport.
 *
 * The app is the lobby's host: it turns lobby sends into transport sends,
 * runs bot jobs on libuv's thread pool, ticks the lobby every 100 ms for
 * clocks and grace periods, and gives it a clock that is wall time at
 * start-up advanced by the loop's monotonic time (so a clock adjustment
 * never makes a move look negative or a timeout fire early). HTTP routes
 * are registered here; the route table does the matching. A Reef action
 * replays the client's whole history, milliseconds for a long run, so it
 * runs on the thread pool and is answered later; app_free waits for those
 * jobs as for the bot jobs, before the transport they answer through is
 * freed. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lobby/lobby.h"
#include "protocol/game_json.h"
#include "protocol/reef_api.h"
#include "server/app.h"
#include "server/http_error.h"
#include "server/http_routes.h"
#include "server/log.h"

#define TICK_MS 100

struct app {
    uv_loop_t *loop;
    store *db;
    store_api store;
    struct lobby *lobby;
    transport *transport;
    http_routes *routes;
    uv_timer_t tick;
    bool is_tick_open;   /* initialised: must be closed before freeing */
    bool is_tick_closed; /* its close callback has run */
    uint64_t started_loop_ms;
    int64_t started_epoch_ms;
    int reef_jobs_in_flight; /* Reef actions on the thread pool */
};

/* A Reef action on its way through the thread pool; `body` is a copy, as
 * the request's strings live only during on_http. */
struct reef_job {
    uv_work_t request;
    struct app *app;
    uint64_t exchange;
    char *body;
    size_t body_length;
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
    struct app *a = context;
    if (a->transport && can_wait)
        transport_send_soon(a->transport, connection, text, length);
    else if (a->transport)
        transport_send(a->transport, connection, text, length);
}

static void host_close(void *context, uint64_t connection, const char *reason)
{
    struct app *a = context;
    if (a->transport)
        transport_close(a->transport, connection, TRANSPORT_CLOSE_NORMAL, reason);
}

static void host_grant(void *context, uint64_t connection, int messages)
{
    struct app *a = context;
    if (a->transport)
        transport_grant(a->transport, connection, messages);
}

static int64_t host_now(void *context)
{
    struct app *a = context;
    return a->started_epoch_ms + (int64_t)(uv_now(a->loop) - a->started_loop_ms);
}

static void pool_work(uv_work_t *request)
{
    struct pool_job *p = request->data;
    p->job->work(p->job);
}

static void pool_done(uv_work_t *request, int status)
{
    struct pool_job *p = request->data;
    (void)status; /* jobs are never cancelled: done() must always run */
    p->job->done(p->job);
    free(p);
}

static int host_queue_work(void *context, lobby_job *job)
{
    struct app *a = context;
    struct pool_job *p = malloc(sizeof(*p));
    if (!p) {
        log_error("out of memory queueing a bot move");
        return -1;
    }
    p->request.data = p;
    p->job = job;
    int rc = uv_queue_work(a->loop, &p->request, pool_work, pool_done);
    if (rc != 0) {
        log_error("uv_queue_work: %s", uv_strerror(rc));
        free(p);
        return -1;
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
    struct app *a = timer->data;
    lobby_tick(a->lobby);
}

static void on_open(void *context, uint64_t connection, const char *peer_ip)
{
    struct app *a = context;
    log_debug("connection %llu from %s", (unsigned long long)connection, peer_ip);
    if (lobby_connect(a->lobby, connection) != 0) {
        log_error("out of memory accepting connection %llu from %s; closing it",
                  (unsigned long long)connection, peer_ip);
        transport_close(a->transport, connection, TRANSPORT_CLOSE_INTERNAL_ERROR, "out of memory");
    }
}

static void on_message(void *context, uint64_t connection, const char *text, size_t length)
{
    struct app *a = context;
    lobby_message(a->lobby, connection, text, length);
}

static void on_close(void *context, uint64_t connection)
{
    struct app *a = context;
    log_debug("connection %llu closed", (unsigned long long)connection);
    lobby_disconnect(a->lobby, connection);
}

static void on_http(void *context, const transport_http_request *request,
                    transport_http_response *response)
{
    struct app *a = context;
    http_routes_dispatch(a->routes, request, response);
}

static void health_info(void *context, http_health_info *info)
{
    struct app *a = context;
    info->uptime_s = (long long)(uv_now(a->loop) - a->started_loop_ms) / 1000;
    info->rooms = lobby_room_count(a->lobby);
    info->connections = a->transport ? transport_connection_count(a->transport) : 0;
}

static int64_t epoch_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static int open_lobby(struct app *a, const server_config *config)
{
    int rc = store_open(config->db_path, config->db_synchronous_full, &a->db);
    if (rc != 0) {
        log_error("cannot open the database %s: %s", config->db_path, store_strerror(rc));
        return rc;
    }
    lobby_host host = {a,          host_send,       host_close,
                       host_now,   host_queue_work, host_random_bytes,
                       host_grant, host_log};
    lobby_config lobby_settings = lobby_default_config();
    lobby_settings.reconnect_grace_ms = (int64_t)config->reconnect_grace_s * 1000;
    lobby_settings.bot_think_ms = (uint32_t)config->bot_think_ms;
    lobby_settings.finished_room_ttl_ms = (int64_t)config->finished_room_ttl_s * 1000;
    lobby_settings.max_rooms = config->max_rooms;
    lobby_settings.bot_jobs = config->bot_jobs;
    lobby_settings.max_rooms_per_player = config->max_rooms_per_player;
    a->store = store_api_of(a->db);
    rc = lobby_new(&host, &a->store, &lobby_settings, &a->lobby);
    if (rc != 0)
        return rc;
    rc = lobby_restore(a->lobby);
    if (rc < 0) {
        log_error("cannot restore unfinished games: %s", store_strerror(rc));
        return rc;
    }
    log_info("database %s open; %d unfinished game%s restored", config->db_path, rc,
             rc == 1 ? "" : "s");
    return 0;
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

static void reef_action_work(uv_work_t *request)
{
    struct reef_job *job = request->data;
    reef_api_action(job->body, job->body_length, &job->answer);
}

/* Back on the loop: the answer goes out, or is dropped if the client left
 * (transport_http_respond frees it then). */
static void reef_action_done(uv_work_t *request, int status)
{
    struct reef_job *job = request->data;
    (void)status; /* never cancelled: the job must always be freed here */
    transport_http_response response;
    memset(&response, 0, sizeof(response));
    reef_api_respond(&job->answer, &response);
    if (job->app->transport)
        transport_http_respond(job->app->transport, job->exchange, &response);
    else
        free(response.body);
    job->app->reef_jobs_in_flight--;
    free(job->body);
    free(job);
}

static void reef_action_route(void *context, const transport_http_request *request,
                              transport_http_response *response)
{
    struct app *a = context;
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
    *job = (struct reef_job){
        .app = a, .exchange = request->exchange, .body = body, .body_length = request->body_length};
    job->request.data = job;
    int rc = uv_queue_work(a->loop, &job->request, reef_action_work, reef_action_done);
    if (rc != 0) {
        log_error("uv_queue_work: %s", uv_strerror(rc));
        free(body);
        free(job);
        http_error_respond(response, request->path, 503, "unavailable",
                           "the server cannot take this request now");
        return;
    }
    a->reef_jobs_in_flight++;
    response->is_deferred = true;
}

static void blokus_pieces_route(void *context, const transport_http_request *request,
                                transport_http_response *response)
{
    (void)context;
    (void)request;
    http_response_json(response, 200, game_json_blokus_orientations());
}

static int add_routes(struct app *a)
{
    int rc = http_routes_new(&a->routes);
    if (rc == 0)
        rc = http_routes_add_health(a->routes, health_info, a);
    if (rc == 0)
        rc = http_routes_add(a->routes, "GET", "/api/games/blokus/pieces", blokus_pieces_route,
                             NULL);
    if (rc == 0)
        rc = http_routes_add(a->routes, "GET", "/api/games/reef-builder/init", reef_init_route,
                             NULL);
    if (rc == 0)
        rc = http_routes_add(a->routes, "POST", "/api/games/reef-builder/action", reef_action_route,
                             a);
    return rc;
}

int app_new(uv_loop_t *loop, const server_config *config, app **out)
{
    struct app *a = calloc(1, sizeof(*a));
    if (!a)
        return -1;
    a->loop = loop;
    a->started_loop_ms = uv_now(loop);
    a->started_epoch_ms = epoch_ms();
    int rc = open_lobby(a, config);
    if (rc == 0)
        rc = add_routes(a);
    if (rc == 0)
        rc = uv_timer_init(loop, &a->tick);
    a->is_tick_open = rc == 0;
    a->tick.data = a;
    if (rc == 0)
        rc = uv_timer_start(&a->tick, on_tick, TICK_MS, TICK_MS);
    if (rc != 0) {
        app_free(a);
        return rc < 0 ? rc : -1;
    }
    *out = a;
    return 0;
}

transport_callbacks app_transport_callbacks(app *a)
{
    transport_callbacks callbacks = {a, on_open, on_message, on_close, on_http};
    return callbacks;
}

void app_attach(app *a, transport *t)
{
    a->transport = t;
}

void app_shutdown(app *a)
{
    lobby_shutdown(a->lobby);
    uv_timer_stop(&a->tick);
}

/* Running bot jobs were told to stop (lobby_shutdown); their results are
 * dropped, but their memory is the lobby's, so wait for them. Reef jobs
 * point at the app: their answers still go out, the transport being freed
 * only after the app. */
static void wait_for_jobs(struct app *a)
{
    while ((a->lobby && lobby_jobs_in_flight(a->lobby) > 0) || a->reef_jobs_in_flight > 0)
        uv_run(a->loop, UV_RUN_ONCE);
}

static void on_tick_closed(uv_handle_t *handle)
{
    struct app *a = handle->data;
    a->is_tick_closed = true;
}

void app_free(app *a)
{
    if (!a)
        return;
    if (a->lobby)
        lobby_shutdown(a->lobby); /* bot jobs still running come back to nothing */
    wait_for_jobs(a);
    a->transport = NULL;
    if (a->is_tick_open) {
        uv_close((uv_handle_t *)&a->tick, on_tick_closed);
        while (!a->is_tick_closed)
            uv_run(a->loop, UV_RUN_ONCE);
    }
    lobby_free(a->lobby);
    store_close(a->db);
    http_routes_free(a->routes);
    free(a);
}

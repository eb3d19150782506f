/* fuzz_live.c -- the real server, driven over loopback TCP.
 *
 * The other harnesses stop at pure functions; this one feeds bytes to the
 * transport itself. The first input starts the server in the process the
 * way `tessera serve` does (server_config_init, app_new, transport_new on
 * 127.0.0.1 port 0, app_attach: the same calls as cli/cmd_serve.c, on a loop
 * of the harness's own), with a fresh database in a temporary folder and
 * limits small enough for the fuzzer to reach (a 2 KiB message, a 2 KiB
 * body); the server lives on across inputs, as a real one would. The
 * harness is the clients: up to four TCP connections, each plain HTTP or
 * upgraded to a websocket, and it runs the server's loop itself between
 * its own reads and writes, so one thread does both and the coverage the
 * fuzzer sees is the server's.
 *
 * An input is a list of operations, each an operation byte (the low three
 * bits the kind, the next two the connection) and a length byte, then
 * that many payload bytes:
 *   raw      the payload as it is, on the connection (opened if need be)
 *   request  an HTTP request built from the payload: method, route (every
 *            route of the server), framing (a right Content-Length, none,
 *            0 with no body, short, long, repeated, malformed, chunked),
 *            headers (Connection: close, HTTP/1.0, Authorization with the
 *            admin key or junk, Origin, X-Forwarded-For, a path suffix)
 *            and a body (the payload, a route's own body with the payload
 *            spliced in and the last Reef state, JSON nested deep, or
 *            invalid UTF-8 in a JSON string)
 *   upgrade  a websocket handshake, right or with a header wrong
 *   text     the payload as one masked text frame (after a handshake)
 *   frame    a masked frame with the opcode and flags the payload gives
 *            (binary, ping, close, fragments)
 *   message  a protocol message from a table (hello, rooms, bots, moves
 *            with a legal move the server listed, queues, accounts,
 *            tournaments), naming the last room and token the server sent
 *   wait     runs the server until the connections are quiet
 *   close    closes the connection (a reset, or a half close)
 *
 * What must hold after every input (FUZZ_REQUIRE aborts otherwise, and
 * ASan/UBSan report anything else):
 * - every HTTP answer is whole: a status line, exactly one Content-Length,
 *   a body of that length, the next answer right after it, nothing cut at
 *   the end; an error is JSON in the shape of its path (http_error_shape),
 *   with a code and a message, except the 403 lws writes itself for the
 *   requests http_exchange.c lists; JSON successes parse; no 500;
 * - every request the harness framed correctly is answered (within 2 s);
 * - every websocket message from the server is JSON with a type, every
 *   error has a code and a message; the server never masks or sends binary;
 * - after the input, GET /healthz on a new connection answers 200 within
 *   LIVE_HEALTHZ_MS (100 ms, or FUZZ_LIVE_HEALTHZ_MS from the environment)
 *   of the loop's time (require_health says why not wall time). */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "server/app.h"
#include "server/config.h"
#include "server/http_error.h"
#include "server/log.h"
#include "server/transport.h"
#include "tests/fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LIVE_CLIENTS      4            /* connections an input drives */
#define LIVE_HEALTH       LIVE_CLIENTS /* the slot of the /healthz check */
#define LIVE_IN_MAX       (8 << 20)    /* bytes kept from one connection */
#define LIVE_PENDING      32           /* framed requests tracked per connection */
#define LIVE_PATH_SIZE    512
#define LIVE_ANSWER_MS    2000                        /* a framed request is answered by then */
#define LIVE_HEALTHZ_MS   100                         /* the spec's bound for /healthz */
#define LIVE_QUIET_ROUNDS 1                           /* rounds without bytes that make "quiet" */
#define LIVE_ROUND_MS     1                           /* the poll of one quiet round */
#define LIVE_ADMIN_KEY    "fuzz-admin-key-0123456789" /* in live.dict too */
#define LIVE_BODY_MAX     2048                        /* the server's max_http_body_bytes here */

struct client {
    int fd; /* -1: not open */
    bool is_websocket;
    bool is_eof;           /* the server closed it (or reset it) */
    bool is_unpredictable; /* bytes were sent whose answers cannot be counted */
    bool was_head_sent;    /* a HEAD not framed here: answers without bodies, unparseable */
    bool will_close;       /* a request asked for the close: nothing is answered after */
    int expected;          /* framed requests that must be answered */
    int body_at;           /* the count of them up to the last one with a body */
    /* A body over LIVE_BODY_MAX went: the server answers 413 from its
     * headers, then reads the body to its end and discards it, so a request
     * written after it -- even once the 413 is in -- may reach the server
     * with the body's tail, pipelined behind it, and close the connection. */
    bool has_long_body;
    int answered;
    char paths[LIVE_PENDING][LIVE_PATH_SIZE]; /* of the framed requests, in order */
    bool is_head[LIVE_PENDING];
    int path_count;
    char *in; /* received, from `parsed` on not yet understood */
    size_t in_length, in_capacity, parsed;
    char *message; /* a fragmented websocket message being reassembled */
    size_t message_length, message_capacity;
    char *out; /* to write, from out_sent on */
    size_t out_length, out_capacity, out_sent;
};

static struct live {
    uv_loop_t loop;
    struct app *app;
    struct transport *transport;
    int port;
    char folder[64];
    char db_path[128];
    int healthz_ms;
    bool is_traced; /* FUZZ_LIVE_TRACE=1: every byte each way on stderr */
    struct client clients[LIVE_CLIENTS + 1];
    char room[32];  /* the last room id the server named */
    char token[80]; /* the last token a welcome gave */
    char move[256]; /* the first legal move the last game.moves listed */
    int ply;
    char reef_state[8192]; /* the last Reef API state answered */
    char reef_action[128]; /* and the first legal action it listed */
} * live;

static void remove_folder(void)
{
    static const char *const SUFFIXES[] = {"", "-wal", "-shm", "-journal"};
    char path[160];
    for (size_t i = 0; i < sizeof(SUFFIXES) / sizeof(SUFFIXES[0]); i++) {
        snprintf(path, sizeof(path), "%s%s", live->db_path, SUFFIXES[i]);
        unlink(path);
    }
    rmdir(live->folder);
}

/* The server as `tessera serve` assembles it (cli/cmd_serve.c's start()). */
static void live_start(void)
{
    live = calloc(1, sizeof(*live));
    FUZZ_REQUIRE(live != NULL);
    for (int i = 0; i <= LIVE_CLIENTS; i++)
        live->clients[i].fd = -1;
    snprintf(live->folder, sizeof(live->folder), "/tmp/tessera-fuzz-live-XXXXXX");
    FUZZ_REQUIRE(mkdtemp(live->folder) != NULL);
    snprintf(live->db_path, sizeof(live->db_path), "%s/tessera.db", live->folder);
    atexit(remove_folder);
    const char *bound = getenv("FUZZ_LIVE_HEALTHZ_MS");
    live->healthz_ms = bound ? atoi(bound) : LIVE_HEALTHZ_MS;
    live->is_traced = getenv("FUZZ_LIVE_TRACE") != NULL;
    signal(SIGPIPE, SIG_IGN);

    server_config config;
    server_config_init(&config);
    snprintf(config.bind_address, sizeof(config.bind_address), "127.0.0.1");
    config.port = 0;
    snprintf(config.db_path, sizeof(config.db_path), "%s", live->db_path);
    snprintf(config.admin_key, sizeof(config.admin_key), "%s", LIVE_ADMIN_KEY);
    config.log_level = live->is_traced ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR;
    config.bot_think_ms = 5;
    config.reconnect_grace_s = 1;
    config.finished_room_ttl_s = 1;
    config.history_readers = 1;
    /* small enough to reach with a short input */
    config.limits.max_message_bytes = 2048;
    config.limits.max_http_body_bytes = LIVE_BODY_MAX;
    /* the harness is one address making hundreds of connections a second */
    config.limits.connections_per_ip = 64;
    config.limits.connection_rate = 1000000;
    config.limits.http_requests_per_second = 1000000;
    config.limits.http_burst = 1000000;
    log_set_level(config.log_level);

    FUZZ_REQUIRE(uv_loop_init(&live->loop) == 0);
    FUZZ_REQUIRE(app_new(&live->loop, &config, &live->app) == 0);
    transport_callbacks callbacks = app_transport_callbacks(live->app);
    FUZZ_REQUIRE(transport_new(&live->loop, config.bind_address, config.port, &config.limits,
                               &callbacks, &live->transport) == 0);
    app_attach(live->app, live->transport);
    live->port = transport_port(live->transport);
}

static int64_t now_ms(void)
{
    return (int64_t)(uv_hrtime() / 1000000);
}

/* ---- the clients' sockets ------------------------------------------------- */

static void client_open(struct client *client)
{
    client->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    FUZZ_REQUIRE(client->fd >= 0);
    /* a reset at close: no TIME_WAIT, so the ports last a long run */
    struct linger linger = {1, 0};
    setsockopt(client->fd, SOL_SOCKET, SO_LINGER, &linger, sizeof(linger));
    int one = 1;
    setsockopt(client->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(live->port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = connect(client->fd, (struct sockaddr *)&address, sizeof(address));
    FUZZ_REQUIRE(rc == 0 || errno == EINPROGRESS);
}

static void client_reset(struct client *client)
{
    if (client->fd >= 0)
        close(client->fd);
    free(client->in);
    free(client->message);
    free(client->out);
    memset(client, 0, sizeof(*client));
    client->fd = -1;
}

static void append(char **buffer, size_t *length, size_t *capacity, const void *bytes, size_t count)
{
    if (count == 0)
        return;
    if (*length + count > *capacity) {
        size_t grown = *capacity ? *capacity : 4096;
        while (grown < *length + count)
            grown *= 2;
        char *bigger = realloc(*buffer, grown);
        FUZZ_REQUIRE(bigger != NULL);
        *buffer = bigger;
        *capacity = grown;
    }
    memcpy(*buffer + *length, bytes, count);
    *length += count;
}

/* An answer cut off by the close is not whole. */
static void require_no_cut_answer(const struct client *client)
{
    FUZZ_REQUIRE(!client->is_eof || client->is_websocket || client->parsed == client->in_length ||
                 client->was_head_sent);
}

/* Writing to a connection the server closed opens a new one. */
static void client_write(struct client *client, const void *bytes, size_t count)
{
    if (client->is_eof) {
        require_no_cut_answer(client);
        client_reset(client);
    }
    if (client->fd < 0)
        client_open(client);
    append(&client->out, &client->out_length, &client->out_capacity, bytes, count);
}

static void client_flush(struct client *client)
{
    while (client->fd >= 0 && !client->is_eof && client->out_sent < client->out_length) {
        ssize_t sent = send(client->fd, client->out + client->out_sent,
                            client->out_length - client->out_sent, MSG_NOSIGNAL);
        if (sent > 0 && live->is_traced)
            fprintf(stderr, ">>> client %d: %.*s\n", (int)(client - live->clients), (int)sent,
                    client->out + client->out_sent);
        if (sent > 0) {
            client->out_sent += (size_t)sent;
            continue;
        }
        if (sent < 0 && (errno == EAGAIN || errno == ENOTCONN || errno == EINTR))
            return;
        client->out_sent = client->out_length; /* the server went away: nothing to write to */
    }
}

/* ---- what the server answers ---------------------------------------------- */

static const char *find_bytes(const char *haystack, size_t length, const char *needle)
{
    size_t count = strlen(needle);
    for (size_t i = 0; i + count <= length; i++)
        if (memcmp(haystack + i, needle, count) == 0)
            return haystack + i;
    return NULL;
}

/* The value of header `name` in `head` (up to the blank line); NULL if absent,
 * and *count how many times it occurs. */
static const char *header_value(const char *head, size_t length, const char *name, int *count)
{
    const char *value = NULL;
    size_t name_length = strlen(name);
    *count = 0;
    for (const char *line = head; line < head + length;) {
        const char *end = find_bytes(line, (size_t)(head + length - line), "\r\n");
        if (!end)
            break;
        if ((size_t)(end - line) > name_length && strncasecmp(line, name, name_length) == 0 &&
            line[name_length] == ':') {
            (*count)++;
            value = line + name_length + 1;
            while (*value == ' ')
                value++;
        }
        line = end + 2;
    }
    return value;
}

/* Remembers what later messages may name: a room, a token, a legal move. */
static void note_message(json_t *message)
{
    const char *type = json_string_value(json_object_get(message, "type"));
    json_t *room = json_object_get(message, "room");
    const char *room_id =
        json_is_object(room) ? json_string_value(json_object_get(room, "id")) : NULL;
    if (!room_id)
        room_id = json_string_value(room);
    if (room_id && strlen(room_id) < sizeof(live->room))
        snprintf(live->room, sizeof(live->room), "%s", room_id);
    const char *token = json_string_value(json_object_get(message, "token"));
    if (token && strlen(token) < sizeof(live->token))
        snprintf(live->token, sizeof(live->token), "%s", token);
    json_t *moves = json_object_get(message, "moves");
    if (strcmp(type, "game.moves") == 0 && json_array_size(moves) > 0) {
        char *move = json_dumps(json_array_get(moves, 0), JSON_COMPACT);
        if (move && strlen(move) < sizeof(live->move)) {
            snprintf(live->move, sizeof(live->move), "%s", move);
            live->ply = (int)json_integer_value(json_object_get(message, "ply"));
        }
        free(move);
    }
}

/* Remembers a Reef API answer's state and first legal action, for the
 * next action or submission to carry on from. */
static void note_reef_answer(const char *body, size_t length)
{
    json_t *root = json_loadb(body, length, 0, NULL);
    char *state = json_dumps(json_object_get(root, "state"), JSON_COMPACT);
    char *action =
        json_dumps(json_array_get(json_object_get(root, "legalActions"), 0), JSON_COMPACT);
    if (state && strlen(state) < sizeof(live->reef_state))
        snprintf(live->reef_state, sizeof(live->reef_state), "%s", state);
    if (action && strlen(action) < sizeof(live->reef_action))
        snprintf(live->reef_action, sizeof(live->reef_action), "%s", action);
    free(state);
    free(action);
    json_decref(root);
}

static void check_message(const char *text, size_t length)
{
    json_t *message = json_loadb(text, length, 0, NULL);
    FUZZ_REQUIRE(json_is_object(message));
    const char *type = json_string_value(json_object_get(message, "type"));
    FUZZ_REQUIRE(type && *type);
    if (strcmp(type, "error") == 0)
        fuzz_require_error(text, length, 0);
    note_message(message);
    json_decref(message);
}

/* One websocket frame from `client->parsed`; false when it is not all in. */
static bool parse_frame(struct client *client)
{
    const unsigned char *frame = (const unsigned char *)client->in + client->parsed;
    size_t available = client->in_length - client->parsed, header = 2;
    if (available < 2)
        return false;
    FUZZ_REQUIRE((frame[1] & 0x80) == 0); /* a server never masks */
    uint64_t length = frame[1] & 0x7f;
    if (length >= 126) {
        size_t bytes = length == 126 ? 2 : 8;
        if (available < 2 + bytes)
            return false;
        length = 0;
        for (size_t i = 0; i < bytes; i++)
            length = length << 8 | frame[2 + i];
        header += bytes;
    }
    if (available - header < length)
        return false;
    int opcode = frame[0] & 0x0f;
    bool is_final = (frame[0] & 0x80) != 0;
    FUZZ_REQUIRE(opcode != 2); /* the server sends text only */
    if (opcode == 0 || opcode == 1) {
        append(&client->message, &client->message_length, &client->message_capacity, frame + header,
               (size_t)length);
        if (is_final) {
            check_message(client->message, client->message_length);
            client->message_length = 0;
        }
    }
    client->parsed += header + (size_t)length;
    return true;
}

static bool is_lws_refusal(int status, const char *content_type)
{
    /* http_exchange.c: lws answers a malformed escape or a method it does
     * not know itself, 403 with its own HTML page -- with the page's body
     * even to a HEAD, and closes the connection after it */
    return status == 403 && content_type && strncmp(content_type, "text/html", 9) == 0;
}

/* One HTTP answer from `client->parsed`; false when it is not all in. */
static bool parse_answer(struct client *client)
{
    const char *head = client->in + client->parsed;
    size_t available = client->in_length - client->parsed;
    bool is_tracked = client->answered < client->path_count && client->paths[client->answered][0];
    if (!is_tracked && client->was_head_sent) {
        /* an answer to a HEAD that the harness did not frame has no body:
         * where the next answer starts is unknown, so the rest goes unread */
        client->parsed = client->in_length;
        return false;
    }
    const char *blank = find_bytes(head, available, "\r\n\r\n");
    if (!blank)
        return false;
    size_t head_length = (size_t)(blank - head) + 4;
    FUZZ_REQUIRE(head_length > 12 &&
                 (strncmp(head, "HTTP/1.1 ", 9) == 0 || strncmp(head, "HTTP/1.0 ", 9) == 0));
    int status = atoi(head + 9);
    FUZZ_REQUIRE(status >= 100 && status <= 599);
    FUZZ_REQUIRE(status != 500); /* only for memory running out */
    if (status == 101) {
        client->is_websocket = true;
        client->parsed += head_length;
        return true;
    }
    if (status < 200) { /* 100 Continue: the answer follows */
        client->parsed += head_length;
        return true;
    }
    int count, type_count;
    const char *length_text = header_value(head, head_length, "Content-Length", &count);
    const char *content_type = header_value(head, head_length, "Content-Type", &type_count);
    FUZZ_REQUIRE(count == 1);
    char *end;
    unsigned long long length = strtoull(length_text, &end, 10);
    FUZZ_REQUIRE(end != length_text && (*end == '\r' || *end == ' '));
    bool is_head = client->answered < client->path_count && client->is_head[client->answered] &&
                   !is_lws_refusal(status, content_type);
    if (is_head)
        length = 0;
    if (available - head_length < length)
        return false;
    const char *body = head + head_length;
    const char *path = client->answered < client->path_count ? client->paths[client->answered] : "";
    bool is_json = content_type && strncmp(content_type, "application/json", 16) == 0;
    if (!is_head && status >= 400 && !is_lws_refusal(status, content_type)) {
        FUZZ_REQUIRE(is_json);
        if (*path) {
            fuzz_require_error(body, (size_t)length, http_error_shape(path) == ERROR_JSON_NESTED);
        } else { /* an answer to raw bytes: whichever shape it has, whole */
            json_t *root = json_loadb(body, (size_t)length, 0, NULL);
            bool is_nested = json_is_object(json_object_get(root, "error"));
            json_decref(root);
            fuzz_require_error(body, (size_t)length, is_nested);
        }
    } else if (!is_head && is_json) {
        json_t *root = json_loadb(body, (size_t)length, 0, NULL);
        FUZZ_REQUIRE(root != NULL);
        json_decref(root);
        if (strncmp(path, HTTP_ERROR_REEF_API_PREFIX, strlen(HTTP_ERROR_REEF_API_PREFIX)) == 0)
            note_reef_answer(body, (size_t)length);
    }
    if (is_lws_refusal(status, content_type))
        client->will_close = true; /* what was pipelined after it goes unanswered */
    client->answered++;
    client->parsed += head_length + (size_t)length;
    return true;
}

static void client_parse(struct client *client)
{
    while (client->parsed < client->in_length &&
           (client->is_websocket ? parse_frame(client) : parse_answer(client)))
        ;
}

/* Reads what is there; true if anything came. */
static bool client_read(struct client *client)
{
    bool got = false;
    while (client->fd >= 0 && !client->is_eof) {
        char buffer[65536];
        ssize_t count = recv(client->fd, buffer, sizeof(buffer), 0);
        if (count > 0) {
            if (live->is_traced)
                fprintf(stderr, "<<< client %d: %.*s\n", (int)(client - live->clients), (int)count,
                        buffer);
            if (client->in_length + (size_t)count <= LIVE_IN_MAX)
                append(&client->in, &client->in_length, &client->in_capacity, buffer,
                       (size_t)count);
            got = true;
            continue;
        }
        if (count < 0 && (errno == EAGAIN || errno == EINTR || errno == ENOTCONN))
            break;
        client->is_eof = true; /* closed, or reset */
        got = true;
    }
    client_parse(client);
    return got;
}

/* The server's turn, then the clients': one poll of at most `wait_ms` on
 * the loop's backend and the clients' sockets. True if a client got bytes. */
static bool pump(int wait_ms)
{
    struct pollfd fds[LIVE_CLIENTS + 2];
    nfds_t count = 0;
    fds[count++] = (struct pollfd){.fd = uv_backend_fd(&live->loop), .events = POLLIN};
    for (int i = 0; i <= LIVE_CLIENTS; i++) {
        struct client *client = &live->clients[i];
        if (client->fd >= 0 && !client->is_eof)
            fds[count++] = (struct pollfd){
                .fd = client->fd,
                .events = POLLIN | (client->out_sent < client->out_length ? POLLOUT : 0)};
    }
    int timeout = uv_backend_timeout(&live->loop);
    if (timeout < 0 || timeout > wait_ms)
        timeout = wait_ms;
    poll(fds, count, timeout);
    uv_run(&live->loop, UV_RUN_NOWAIT);
    bool got = false;
    for (int i = 0; i <= LIVE_CLIENTS; i++) {
        client_flush(&live->clients[i]);
        got |= client_read(&live->clients[i]);
    }
    return got;
}

/* Runs until no client has got a byte for LIVE_QUIET_ROUNDS rounds. */
static void pump_until_quiet(void)
{
    int64_t deadline = now_ms() + LIVE_ANSWER_MS;
    for (int quiet = 0; quiet < LIVE_QUIET_ROUNDS && now_ms() < deadline;)
        quiet = pump(LIVE_ROUND_MS) ? 0 : quiet + 1;
}

static bool is_waiting(const struct client *client)
{
    return client->fd >= 0 && !client->is_eof &&
           (client->answered < client->expected || client->out_sent < client->out_length);
}

/* ---- what the harness sends ----------------------------------------------- */

static const char *const METHODS[] = {"GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"};

/* Every route of the server (app.c and the modules it calls), with a few
 * queries and the paths just beside them. */
static const char *const ROUTES[] = {
    "/healthz",
    "/metrics",
    "/",
    "/web/app.js",
    "/web/nope.js",
    "/web/../../etc/passwd",
    "/api/games/blokus/pieces",
    "/api/games/reef-builder/init",
    "/api/games/reef-builder/init?seed=7&mode=solo",
    "/api/games/reef-builder/action",
    "/api/games/reef-builder/submit",
    "/api/games/reef-builder/nope",
    "/api/games",
    "/api/games?player=bot:greedy&limit=2",
    "/api/games?cursor=00000000000000000000000000000000",
    "/api/games/1",
    "/api/games/1/moves",
    "/api/players/guest",
    "/api/players/bot:greedy",
    "/api/leaderboards/blokus?mode=duo",
    "/api/leaderboards/reef?period=day",
    "/api/tournaments",
    "/api/tournaments/1",
    "/api/bots",
    "/api/bots/fuzzbot/key",
    "/api/replays/1",
    "/ws",
    "/nope",
};

/* Bodies a route would take, for the payload to be spliced into. */
static const char *const BODIES[] = {
    "",
    "{}",
    "{\"name\":\"fuzzbot\"}",
    "{\"state\":%S,\"action\":%A}",
    "{\"token\":\"%T\",\"state\":%S}",
    ("{\"name\":\"t\",\"game\":\"blokus\",\"mode\":\"duo\",\"format\":\"swiss\",\"rounds\":1,"
     "\"participants\":[{\"bot\":\"greedy\"},{\"bot\":\"random\"}]}"),
};

/* Content-Length values that must all be refused (400). */
static const char *const BAD_LENGTHS[] = {"5x",  "-1", "+5",  "0x10",
                                          "1 2", "",   "1,1", "99999999999999999999999"};

enum framing {
    FRAME_RIGHT,     /* Content-Length is the body's */
    FRAME_NONE,      /* no Content-Length: 411 for a POST, PUT, PATCH */
    FRAME_ZERO,      /* Content-Length: 0 and no body */
    FRAME_SHORT,     /* one byte fewer than sent: the rest starts a request */
    FRAME_LONG,      /* more than is sent: the server waits for the rest */
    FRAME_TWICE,     /* two Content-Length headers: 400 */
    FRAME_MALFORMED, /* 400 */
    FRAME_CHUNKED,   /* Transfer-Encoding: chunked: 411 */
    FRAME_COUNT
};

enum body_kind { BODY_PAYLOAD, BODY_TEMPLATE, BODY_DEEP, BODY_BAD_UTF8, BODY_COUNT };

#define HEADER_CLOSE   0x01
#define HEADER_ADMIN   0x02
#define HEADER_JUNK    0x04
#define HEADER_HTTP10  0x08
#define HEADER_ORIGIN  0x10
#define HEADER_FORWARD 0x20
#define HEADER_EXPECT  0x40
#define HEADER_SUFFIX  0x80

struct text {
    char *bytes;
    size_t length, capacity;
};

static void text_add(struct text *text, const void *bytes, size_t count)
{
    append(&text->bytes, &text->length, &text->capacity, bytes, count);
}

static void text_printf(struct text *text, const char *format, const char *value)
{
    char line[LIVE_PATH_SIZE + 64];
    int count = snprintf(line, sizeof(line), format, value);
    text_add(text, line, (size_t)count < sizeof(line) ? (size_t)count : sizeof(line) - 1);
}

/* `template` with what the server said last put in: %R the room, %T the
 * token, %M and %P the first legal move game.moves listed and its ply,
 * %S the Reef API's last state and %A its first legal action. */
static void expand(struct text *text, const char *template)
{
    char ply[16];
    snprintf(ply, sizeof(ply), "%d", live->ply);
    for (const char *at = template; *at; at++) {
        const char *value = NULL;
        if (at[0] == '%' && at[1] == 'R')
            value = live->room;
        else if (at[0] == '%' && at[1] == 'T')
            value = live->token;
        else if (at[0] == '%' && at[1] == 'M')
            value = *live->move ? live->move : "{}";
        else if (at[0] == '%' && at[1] == 'P')
            value = ply;
        else if (at[0] == '%' && at[1] == 'S')
            value = *live->reef_state ? live->reef_state : "{}";
        else if (at[0] == '%' && at[1] == 'A')
            value = *live->reef_action ? live->reef_action : "{}";
        if (value) {
            text_add(text, value, strlen(value));
            at++;
        } else {
            text_add(text, at, 1);
        }
    }
}

static void build_body(struct text *body, int kind, const uint8_t *payload, size_t size)
{
    switch (kind) {
    case BODY_PAYLOAD:
        text_add(body, payload, size);
        break;
    case BODY_TEMPLATE: { /* a route's body with the payload where the last value ends */
        expand(body, BODIES[size ? payload[0] % (sizeof(BODIES) / sizeof(BODIES[0])) : 0]);
        if (body->length > 1 && size > 1) {
            char last = body->bytes[--body->length];
            text_add(body, payload + 1, size - 1);
            text_add(body, &last, 1);
        }
        break;
    }
    case BODY_DEEP: { /* nested past any sane depth, maybe past the body limit */
        size_t depth = 1 + (size ? payload[0] : 0) * 8u;
        for (size_t i = 0; i < depth; i++)
            text_add(body, size > 1 && payload[1] & 1 ? "{\"a\":" : "[",
                     size > 1 && payload[1] & 1 ? 5 : 1);
        for (size_t i = 0; i < depth; i++)
            text_add(body, size > 1 && payload[1] & 1 ? "}" : "]", 1);
        break;
    }
    default: /* bytes that are not UTF-8 inside a JSON string */
        text_add(body, "{\"name\":\"", 9);
        text_add(body, "\xc3\x28\xff", 3);
        text_add(body, payload, size);
        text_add(body, "\"}", 2);
        break;
    }
}

/* An HTTP request from payload: method, route, framing and body kind,
 * header bits, then (with HEADER_SUFFIX) a suffix length and the suffix,
 * then the body's bytes. */
static void send_request(struct client *client, const uint8_t *payload, size_t size)
{
    uint8_t choice[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < 4 && i < size; i++)
        choice[i] = payload[i];
    payload += size < 4 ? size : 4;
    size -= size < 4 ? size : 4;
    const char *method = METHODS[choice[0] % (sizeof(METHODS) / sizeof(METHODS[0]))];
    int framing = choice[2] % FRAME_COUNT;
    int body_kind = (choice[2] / FRAME_COUNT) % BODY_COUNT;
    int headers = choice[3];
    char path[LIVE_PATH_SIZE];
    snprintf(path, sizeof(path), "%s", ROUTES[choice[1] % (sizeof(ROUTES) / sizeof(ROUTES[0]))]);
    bool is_clean = true; /* every byte is one the request line carries as it is */
    if (headers & HEADER_SUFFIX && size > 0) {
        size_t suffix = payload[0] < size - 1 ? payload[0] : size - 1;
        size_t at = strlen(path);
        for (size_t i = 0; i < suffix && at + 1 < sizeof(path); i++) {
            uint8_t byte = payload[1 + i];
            is_clean &= byte > 0x20 && byte < 0x7f;
            path[at++] = (char)byte;
        }
        path[at] = '\0';
        payload += 1 + suffix;
        size -= 1 + suffix;
    }
    struct text body = {0};
    build_body(&body, body_kind, payload, size);
    bool is_body_method =
        strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0 || strcmp(method, "PATCH") == 0;
    if (framing == FRAME_NONE && !is_body_method)
        body.length = 0; /* a GET's body without a length would be the next request */

    struct text request = {0};
    text_printf(&request, "%s ", method);
    text_add(&request, path, strlen(path));
    text_printf(&request, " HTTP/1.%s\r\nHost: 127.0.0.1\r\n", headers & HEADER_HTTP10 ? "0" : "1");
    if (headers & HEADER_CLOSE)
        text_printf(&request, "Connection: %s\r\n", "close");
    if (headers & HEADER_ADMIN)
        text_printf(&request, "Authorization: Bearer %s\r\n", LIVE_ADMIN_KEY);
    if (headers & HEADER_JUNK)
        text_printf(&request, "Authorization: %s\r\n", "Bearer tsk_0000000000000000\x01");
    if (headers & HEADER_ORIGIN)
        text_printf(&request, "Origin: %s\r\n", "http://evil.example");
    if (headers & HEADER_FORWARD)
        text_printf(&request, "X-Forwarded-For: %s\r\n", "203.0.113.9, 10.0.0.1");
    if (headers & HEADER_EXPECT)
        text_printf(&request, "Expect: %s\r\n", "100-continue");
    char number[32];
    switch (framing) {
    case FRAME_RIGHT:
        if (body.length == 0 && !is_body_method)
            break; /* a GET as clients write it */
        /* fall through */
    case FRAME_TWICE:
        snprintf(number, sizeof(number), "%zu", body.length);
        text_printf(&request, "Content-Length: %s\r\n", number);
        if (framing == FRAME_TWICE)
            text_printf(&request, "Content-Length: %s\r\n", number);
        break;
    case FRAME_ZERO:
        text_printf(&request, "Content-Length: %s\r\n", "0");
        body.length = 0;
        break;
    case FRAME_SHORT:
    case FRAME_LONG:
        snprintf(number, sizeof(number), "%zu",
                 framing == FRAME_SHORT ? (body.length ? body.length - 1 : 0) : body.length + 7);
        text_printf(&request, "Content-Length: %s\r\n", number);
        break;
    case FRAME_MALFORMED:
        text_printf(&request, "Content-Length: %s\r\n",
                    BAD_LENGTHS[body.length % (sizeof(BAD_LENGTHS) / sizeof(BAD_LENGTHS[0]))]);
        break;
    case FRAME_CHUNKED:
        text_printf(&request, "Transfer-Encoding: %s\r\n", "chunked");
        break;
    default:
        break;
    }
    text_add(&request, "\r\n", 2);
    if (framing == FRAME_CHUNKED) {
        snprintf(number, sizeof(number), "%zx\r\n", body.length);
        text_add(&request, number, strlen(number));
        text_add(&request, body.bytes, body.length);
        text_add(&request, "\r\n0\r\n\r\n", 7);
    } else {
        text_add(&request, body.bytes, body.length);
    }
    client_write(client, request.bytes, request.length);

    /* Which answers can be counted: a request framed right (or refused for
     * its framing, which answers it and closes) on a connection whose
     * earlier bytes were all framed too. A long body is never complete;
     * a short one leaves bytes that start a request of their own. */
    /* http_exchange.c: pipelining with a body closes the connection, and
     * the answer in hand may not come either */
    bool has_body = is_body_method || framing != FRAME_RIGHT || body.length > 0;
    if (client->answered < client->body_at || client->has_long_body ||
        (has_body && client->answered < client->expected)) {
        client->is_unpredictable = true;
        client->will_close = true;
    }
    bool is_answered = is_clean && framing != FRAME_LONG && !client->is_unpredictable &&
                       !client->will_close && !client->is_websocket && (strcmp(path, "/ws") != 0);
    if (is_answered && client->path_count < LIVE_PENDING) {
        /* lws normalises a path ("/a/../b"), which may move it out of the
         * Reef API's prefix: a suffixed path's shape is not known here */
        snprintf(client->paths[client->path_count], LIVE_PATH_SIZE, "%s",
                 headers & HEADER_SUFFIX ? "" : path);
        client->is_head[client->path_count++] = strcmp(method, "HEAD") == 0;
        client->expected++;
        if (has_body)
            client->body_at = client->expected;
    } else {
        client->is_unpredictable = true;
        client->was_head_sent |= strcmp(method, "HEAD") == 0;
    }
    if (framing == FRAME_SHORT && body.length > 0)
        client->is_unpredictable = true;
    client->has_long_body |= body.length + 7 > LIVE_BODY_MAX; /* FRAME_LONG announces 7 more */
    if (headers & (HEADER_CLOSE | HEADER_HTTP10) || framing == FRAME_TWICE ||
        framing == FRAME_MALFORMED || framing == FRAME_CHUNKED ||
        (framing == FRAME_NONE && is_body_method))
        client->will_close = true;
    free(body.bytes);
    free(request.bytes);
}

/* A websocket handshake, right unless the payload's first byte spoils a part. */
static void send_upgrade(struct client *client, const uint8_t *payload, size_t size)
{
    client_reset(client);
    int spoil = size ? payload[0] % 8 : 0;
    struct text request = {0};
    text_printf(&request, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                spoil == 1 ? "/ws?x=%zz" : "/ws");
    if (spoil != 2)
        text_printf(&request, "Upgrade: %s\r\n", "websocket");
    text_printf(&request, "Connection: %s\r\n", spoil == 3 ? "keep-alive" : "Upgrade");
    if (spoil != 4)
        text_printf(&request, "Sec-WebSocket-Key: %s\r\n", "dGhlIHNhbXBsZSBub25jZQ==");
    text_printf(&request, "Sec-WebSocket-Version: %s\r\n", spoil == 5 ? "8" : "13");
    if (spoil == 6)
        text_printf(&request, "Sec-WebSocket-Protocol: %s\r\n", "nope");
    if (spoil == 7)
        text_printf(&request, "Origin: %s\r\n", "http://evil.example");
    text_add(&request, "\r\n", 2);
    client_write(client, request.bytes, request.length);
    free(request.bytes);
    if (spoil != 0)
        client->is_unpredictable = true;
    /* the frames that follow need the 101 first */
    int64_t deadline = now_ms() + LIVE_ANSWER_MS;
    while (!client->is_websocket && !client->is_eof && client->answered == 0 && now_ms() < deadline)
        pump(LIVE_ROUND_MS);
}

static void send_frame(struct client *client, uint8_t first, const void *bytes, size_t size)
{
    if (client->fd < 0 || client->is_eof)
        send_upgrade(client, NULL, 0);
    static const uint8_t MASK[4] = {0x37, 0xfa, 0x21, 0x3d};
    uint8_t header[14];
    size_t header_length = 2;
    header[0] = first;
    if (size < 126) {
        header[1] = (uint8_t)(0x80 | size);
    } else {
        header[1] = 0x80 | 126;
        header[2] = (uint8_t)(size >> 8);
        header[3] = (uint8_t)size;
        header_length = 4;
    }
    memcpy(header + header_length, MASK, 4);
    header_length += 4;
    client_write(client, header, header_length);
    uint8_t *masked = malloc(size + 1);
    FUZZ_REQUIRE(masked != NULL);
    for (size_t i = 0; i < size; i++)
        masked[i] = ((const uint8_t *)bytes)[i] ^ MASK[i % 4];
    client_write(client, masked, size);
    free(masked);
    if (!client->is_websocket)
        client->is_unpredictable = true;
}

/* Protocol messages, expanded by expand(). */
static const char *const MESSAGES[] = {
    "{\"type\":\"hello\",\"name\":\"ann\",\"id\":1}",
    "{\"type\":\"hello\",\"name\":\"bob\",\"id\":1}",
    "{\"type\":\"hello\",\"token\":\"%T\",\"id\":1}",
    "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"duo\",\"id\":2}",
    ("{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"4p\",\"clock\":{\"initial_ms\":"
     "60000,"
     "\"increment_ms\":1000},\"id\":2}"),
    "{\"type\":\"room.create\",\"game\":\"reef-builder\",\"mode\":\"race\",\"id\":2}",
    "{\"type\":\"room.join\",\"room\":\"%R\",\"seat\":0,\"id\":3}",
    "{\"type\":\"room.join\",\"room\":\"%R\",\"seat\":1,\"id\":3}",
    "{\"type\":\"room.join\",\"room\":\"%R\",\"as\":\"spectator\",\"id\":3}",
    "{\"type\":\"room.add_bot\",\"room\":\"%R\",\"seat\":1,\"bot\":\"greedy\",\"id\":4}",
    "{\"type\":\"room.add_bot\",\"room\":\"%R\",\"seat\":1,\"bot\":\"random\",\"id\":4}",
    "{\"type\":\"room.start\",\"room\":\"%R\",\"id\":5}",
    "{\"type\":\"game.moves\",\"room\":\"%R\",\"id\":6}",
    "{\"type\":\"game.move\",\"room\":\"%R\",\"ply\":%P,\"action\":%M,\"id\":7}",
    "{\"type\":\"game.resign\",\"room\":\"%R\",\"id\":8}",
    "{\"type\":\"room.leave\",\"room\":\"%R\",\"id\":9}",
    "{\"type\":\"rooms.list\",\"id\":10}",
    "{\"type\":\"queue.join\",\"game\":\"blokus\",\"mode\":\"duo\",\"id\":11}",
    "{\"type\":\"queue.leave\",\"id\":12}",
    ("{\"type\":\"account.register\",\"name\":\"fuzzacct\",\"password\":\"correct horse battery\","
     "\"id\":13}"),
    "{\"type\":\"hello\",\"name\":\"fuzzacct\",\"password\":\"correct horse battery\",\"id\":1}",
    ("{\"type\":\"tournament.create\",\"name\":\"t\",\"game\":\"blokus\",\"mode\":\"duo\","
     "\"format\":"
     "\"swiss\",\"rounds\":1,\"participants\":[{\"bot\":\"greedy\"},{\"bot\":\"random\"}],\"id\":"
     "14}"),
    "{\"type\":\"tournament.watch\",\"tournament\":1,\"id\":15}",
    "{\"type\":\"ping\",\"id\":16}",
};

static void send_message(struct client *client, const uint8_t *payload, size_t size)
{
    const char *template =
        MESSAGES[size ? payload[0] % (sizeof(MESSAGES) / sizeof(MESSAGES[0])) : 0];
    struct text message = {0};
    expand(&message, template);
    send_frame(client, 0x81, message.bytes, message.length);
    free(message.bytes);
}

enum operation { OP_RAW, OP_REQUEST, OP_UPGRADE, OP_TEXT, OP_FRAME, OP_MESSAGE, OP_WAIT, OP_CLOSE };

static void run_operation(int kind, struct client *client, const uint8_t *payload, size_t size)
{
    switch (kind) {
    case OP_RAW:
        client_write(client, payload, size);
        if (!client->is_websocket) {
            client->is_unpredictable = true;
            client->was_head_sent |= find_bytes((const char *)payload, size, "HEAD") != NULL;
        }
        break;
    case OP_REQUEST:
        send_request(client, payload, size);
        break;
    case OP_UPGRADE:
        send_upgrade(client, payload, size);
        break;
    case OP_TEXT:
        send_frame(client, 0x81, payload, size);
        break;
    case OP_FRAME: /* the first byte is FIN, RSV and the opcode */
        send_frame(client, size ? payload[0] : 0x82, size ? payload + 1 : payload,
                   size ? size - 1 : 0);
        break;
    case OP_MESSAGE:
        send_message(client, payload, size);
        pump_until_quiet(); /* the reply names the room the next message may need */
        break;
    case OP_WAIT:
        pump_until_quiet();
        break;
    default:
        if (client->fd >= 0 && size && payload[0] & 1) {
            /* lws closes at the end of the input, answered or not */
            shutdown(client->fd, SHUT_WR);
            client->is_unpredictable = true;
        } else if (client->fd >= 0)
            client_reset(client);
        break;
    }
}

/* ---- after each input ----------------------------------------------------- */

static void require_answers(void)
{
    int64_t deadline = now_ms() + LIVE_ANSWER_MS;
    bool waiting = true;
    while (waiting && now_ms() < deadline) {
        pump(LIVE_ROUND_MS);
        waiting = false;
        for (int i = 0; i < LIVE_CLIENTS; i++)
            waiting |= is_waiting(&live->clients[i]);
    }
    pump_until_quiet();
    for (int i = 0; i < LIVE_CLIENTS; i++) {
        struct client *client = &live->clients[i];
        if (client->answered < client->expected && !client->will_close && !client->is_unpredictable)
            fprintf(stderr, "fuzz_live: client %d: %d of %d requests answered; the next: %s%s\n", i,
                    client->answered, client->expected,
                    client->answered < client->path_count ? client->paths[client->answered] : "?",
                    client->is_eof ? " (closed)" : "");
        /* a framed request unanswered; with the connection closed early, the
         * answers before the close must still be there */
        FUZZ_REQUIRE(client->answered >= client->expected || client->will_close ||
                     client->is_unpredictable);
        FUZZ_REQUIRE(client->answered >= client->expected || client->is_eof ||
                     client->is_unpredictable);
        require_no_cut_answer(client);
    }
}

/* CPU time of this thread, which runs the server's loop: what the loop
 * spent, whatever else the machine was doing meanwhile. */
static int64_t loop_cpu_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* /healthz on a new connection answers 200 within healthz_ms. A loop busy
 * with work of the server's is what the bound is for: it is judged on the
 * loop thread's CPU time, so a machine loaded by other processes (which
 * delays every thread alike) is reported but is no failure. An answer that
 * does not come at all within LIVE_ANSWER_MS is one. */
static void require_health(void)
{
    struct client *client = &live->clients[LIVE_HEALTH];
    static const char REQUEST[] = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    int64_t started = now_ms(), started_cpu = loop_cpu_ms();
    client_write(client, REQUEST, sizeof(REQUEST) - 1);
    snprintf(client->paths[0], LIVE_PATH_SIZE, "/healthz");
    client->path_count = 1;
    client->expected = 1;
    while (client->answered == 0 && !client->is_eof && now_ms() - started <= LIVE_ANSWER_MS)
        pump(LIVE_ROUND_MS);
    int64_t took = now_ms() - started, busy = loop_cpu_ms() - started_cpu;
    if (took > live->healthz_ms)
        fprintf(stderr, "fuzz_live: /healthz took %lld ms (the loop busy for %lld ms of them)\n",
                (long long)took, (long long)busy);
    FUZZ_REQUIRE(client->answered == 1);
    FUZZ_REQUIRE(strncmp(client->in, "HTTP/1.1 200 ", 13) == 0);
    FUZZ_REQUIRE(busy <= live->healthz_ms);
    client_reset(client);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!live)
        live_start();
    while (size >= 2) {
        int kind = data[0] & 7;
        struct client *client = &live->clients[(data[0] >> 3) % LIVE_CLIENTS];
        size_t length = data[1] < size - 2 ? data[1] : size - 2;
        run_operation(kind, client, data + 2, length);
        pump(0);
        data += 2 + length;
        size -= 2 + length;
    }
    require_answers();
    require_health();
    for (int i = 0; i < LIVE_CLIENTS; i++)
        client_reset(&live->clients[i]);
    return 0;
}

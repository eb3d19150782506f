/* echo_server.c -- the transport floor that tessera's move rate is compared to.
 *
 * A bare websocket server: libwebsockets 4.1 on a libuv loop as a foreign
 * loop, set up the way server/transport.c sets up tessera (the same
 * context options, a vhost created apart, the same per-connection queue
 * written on WRITEABLE while the kernel takes more, the same two-step
 * context teardown on SIGINT/SIGTERM). It prints
 * "listening on http://127.0.0.1:PORT" like `tessera serve`.
 *
 * What it measures: the cost of moving tessera's per-move frames through
 * lws, libuv and the kernel, and nothing else. It holds no game, no JSON,
 * no database. `tessera-load --echo` drives it with the same clients as a
 * real run and the same message pattern per move: the mover sends a frame
 * of the size of game.moves and gets one of the size of its reply, then a
 * frame of the size of game.move, after which the mover and every other
 * member of its group get frames of the sizes of game.moved and
 * game.state. The frames say what to send back, in plain text:
 *
 *   join G                      join group G (one per room); answered "j"
 *   send G SELF OTHERS  ...     SELF and OTHERS are comma lists of TAG:SIZE
 *                               (or "-"): send each listed frame, of SIZE
 *                               bytes starting with TAG, to the sender
 *                               (SELF) or to every other member of G
 *                               (OTHERS). The request is padded with spaces
 *                               to the size of the message it stands for.
 *
 * Each reply is a fresh buffer per recipient, as tessera copies a message
 * into each member's queue. So "echo moves/s" is what the same machine can
 * do when a move costs only its frames: tessera's moves/s divided by it
 * says how much of the budget the game itself (decode, rules, SQLite
 * commit, encode) takes.
 *
 * usage: echo_server [--port N]   (default 0: a free port) */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libwebsockets.h>
#include <uv.h>

#define PROTOCOL_NAME  "echo"
#define REQUEST_SIZE   1024 /* requests are short; longer ones close the connection */
#define MAX_REPLY_SIZE (1 << 20)
#define MAX_GROUP      1000000

struct frame {
    struct frame *next;
    size_t length;
    unsigned char bytes[]; /* LWS_PRE, then the payload */
};

struct member {
    struct lws *wsi;
    struct frame *head, *tail;
    char request[REQUEST_SIZE];
    size_t request_length;
    int group; /* -1 before join */
};

struct group {
    struct member **members;
    int count, capacity;
};

static struct {
    uv_loop_t loop;
    uv_signal_t signals[2];
    struct lws_context *context;
    struct group *groups;
    int group_count;
} server;

static void enqueue(struct member *m, const char *tag, size_t length)
{
    size_t tag_length = strlen(tag);
    if (length < tag_length)
        length = tag_length;
    struct frame *f = malloc(sizeof(*f) + LWS_PRE + length);
    if (!f)
        return;
    f->next = NULL;
    f->length = length;
    memcpy(f->bytes + LWS_PRE, tag, tag_length);
    memset(f->bytes + LWS_PRE + tag_length, 'x', length - tag_length);
    if (m->tail)
        m->tail->next = f;
    else
        m->head = f;
    m->tail = f;
    lws_callback_on_writable(m->wsi);
}

static struct group *find_group(int index, bool should_create)
{
    if (index < 0 || index >= MAX_GROUP)
        return NULL;
    if (index >= server.group_count) {
        if (!should_create)
            return NULL;
        int count = index + 1 > server.group_count * 2 ? index + 1 : server.group_count * 2;
        struct group *grown = realloc(server.groups, (size_t)count * sizeof(*grown));
        if (!grown)
            return NULL;
        memset(grown + server.group_count, 0,
               (size_t)(count - server.group_count) * sizeof(*grown));
        server.groups = grown;
        server.group_count = count;
    }
    return &server.groups[index];
}

static int join(struct member *m, int index)
{
    struct group *g = find_group(index, true);
    if (!g || m->group >= 0)
        return -1;
    if (g->count == g->capacity) {
        int capacity = g->capacity ? g->capacity * 2 : 4;
        struct member **grown = realloc(g->members, (size_t)capacity * sizeof(*grown));
        if (!grown)
            return -1;
        g->members = grown;
        g->capacity = capacity;
    }
    g->members[g->count++] = m;
    m->group = index;
    enqueue(m, "j", 1);
    return 0;
}

static void leave(struct member *m)
{
    struct group *g = find_group(m->group, false);
    for (int i = 0; g && i < g->count; i++) {
        if (g->members[i] == m) {
            g->members[i] = g->members[--g->count];
            break;
        }
    }
    m->group = -1;
}

/* Sends each TAG:SIZE of `list` ("-" for none) to `to`; -1 if malformed. */
static int send_list(const char *list, struct member *to)
{
    if (strcmp(list, "-") == 0)
        return 0;
    char copy[REQUEST_SIZE];
    snprintf(copy, sizeof(copy), "%s", list);
    char *saved, *item = strtok_r(copy, ",", &saved);
    for (; item; item = strtok_r(NULL, ",", &saved)) {
        char *colon = strchr(item, ':');
        long size = colon ? strtol(colon + 1, NULL, 10) : -1;
        if (!colon || size < 1 || size > MAX_REPLY_SIZE)
            return -1;
        *colon = '\0';
        enqueue(to, item, (size_t)size);
    }
    return 0;
}

static int handle_send(struct member *m, int index, const char *self, const char *others)
{
    struct group *g = find_group(index, false);
    if (!g || m->group != index || send_list(self, m) < 0)
        return -1;
    for (int i = 0; i < g->count; i++) {
        if (g->members[i] != m && send_list(others, g->members[i]) < 0)
            return -1;
    }
    return 0;
}

/* One complete request; -1 closes the connection. */
static int handle_request(struct member *m)
{
    char command[8], self[REQUEST_SIZE], others[REQUEST_SIZE];
    int index;
    m->request[m->request_length] = '\0';
    int fields = sscanf(m->request, "%7s %d %1023s %1023s", command, &index, self, others);
    if (fields == 2 && strcmp(command, "join") == 0)
        return join(m, index);
    if (fields == 4 && strcmp(command, "send") == 0)
        return handle_send(m, index, self, others);
    return -1;
}

static int receive(struct lws *wsi, struct member *m, const char *in, size_t length)
{
    if (m->request_length + length >= REQUEST_SIZE)
        return -1;
    memcpy(m->request + m->request_length, in, length);
    m->request_length += length;
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi) > 0)
        return 0;
    int rc = handle_request(m);
    m->request_length = 0;
    return rc;
}

static int write_queue(struct lws *wsi, struct member *m)
{
    while (m->head && !lws_send_pipe_choked(wsi)) {
        struct frame *f = m->head;
        if (lws_write(wsi, f->bytes + LWS_PRE, f->length, LWS_WRITE_TEXT) < 0)
            return -1;
        m->head = f->next;
        if (!m->head)
            m->tail = NULL;
        free(f);
    }
    if (m->head)
        lws_callback_on_writable(wsi);
    return 0;
}

static void close_member(struct member *m)
{
    leave(m);
    while (m->head) {
        struct frame *next = m->head->next;
        free(m->head);
        m->head = next;
    }
    m->tail = NULL;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t length)
{
    struct member *m = user;
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED:
        m->wsi = wsi;
        m->group = -1;
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return receive(wsi, m, in, length);
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return write_queue(wsi, m);
    case LWS_CALLBACK_CLOSED:
        close_member(m);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, length);
    }
}

static const struct lws_protocols PROTOCOLS[] = {
    {PROTOCOL_NAME, callback, sizeof(struct member), 16384, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static const lws_retry_bo_t VALIDITY_NEVER = {
    .secs_since_valid_ping = 65535,
    .secs_since_valid_hangup = 65535,
};

static void note_closing_handle(uv_handle_t *handle, void *any_closing)
{
    if (uv_is_closing(handle))
        *(bool *)any_closing = true;
}

/* docs/ARCHITECTURE.md, "Foreign-loop teardown": destroy, let lws's handles
 * close, destroy again (which frees). */
static void destroy_context(void)
{
    lws_context_destroy(server.context);
    bool any_closing;
    do {
        uv_run(&server.loop, UV_RUN_NOWAIT);
        any_closing = false;
        uv_walk(&server.loop, note_closing_handle, &any_closing);
    } while (any_closing);
    lws_context_destroy(server.context);
    server.context = NULL;
}

static void on_signal(uv_signal_t *handle, int signal_number)
{
    (void)handle;
    (void)signal_number;
    uv_stop(&server.loop);
}

static int create_context(int port)
{
    struct lws_context_creation_info info;
    void *foreign_loops[1] = {&server.loop};
    memset(&info, 0, sizeof(info));
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND |
                   LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
                   LWS_SERVER_OPTION_DISABLE_IPV6;
    info.foreign_loops = foreign_loops;
    info.iface = "127.0.0.1";
    info.port = port;
    info.protocols = PROTOCOLS;
    info.retry_and_idle_policy = &VALIDITY_NEVER;
    info.gid = -1;
    info.uid = -1;
    server.context = lws_create_context(&info);
    if (!server.context)
        return -1;
    struct lws_vhost *vhost = lws_create_vhost(server.context, &info);
    if (!vhost) {
        destroy_context();
        return -1;
    }
    printf("listening on http://127.0.0.1:%d\n", lws_get_vhost_listen_port(vhost));
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    int port = 0;
    if (argc == 3 && strcmp(argv[1], "--port") == 0)
        port = atoi(argv[2]);
    else if (argc != 1) {
        fprintf(stderr, "usage: echo_server [--port N]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    lws_set_log_level(LLL_ERR, NULL);
    uv_loop_init(&server.loop);
    if (create_context(port) < 0) {
        fprintf(stderr, "echo_server: cannot listen on port %d\n", port);
        uv_loop_close(&server.loop);
        return 1;
    }
    const int stop_signals[2] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        uv_signal_init(&server.loop, &server.signals[i]);
        uv_signal_start(&server.signals[i], on_signal, stop_signals[i]);
    }
    uv_run(&server.loop, UV_RUN_DEFAULT);
    destroy_context();
    for (int i = 0; i < 2; i++)
        uv_close((uv_handle_t *)&server.signals[i], NULL);
    uv_run(&server.loop, UV_RUN_DEFAULT);
    uv_loop_close(&server.loop);
    for (int i = 0; i < server.group_count; i++)
        free(server.groups[i].members);
    free(server.groups);
    return 0;
}

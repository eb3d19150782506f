/* http_client.c -- keep-alive HTTP/1.1 GETs on libuv TCP (see
 * http_client.h).
 *
 * Every request goes into the waiting list first; dispatch() then hands
 * the oldest to an idle connection, or opens a connection for it while
 * fewer than the maximum are open, and is run again whenever a connection
 * comes free or closes. Reading appends to the connection's buffer (grown
 * in on_alloc, as ws_client does) until the header block and
 * Content-Length bytes of body are in; the answer is handed over straight
 * from the buffer.
 *
 * Ending: every way a connection ends goes through end_connection, which
 * fails (or, once, retries) the request it carried and closes the handle;
 * the connection is freed in the close callback. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench/http_client.h"

#define READ_CHUNK      65536
#define MAX_HEADER      16384
#define MAX_REQUEST     2048
#define NO_CONTENT_SIZE ((size_t)-1)

typedef enum connection_state {
    CONNECTION_CONNECTING,
    CONNECTION_IDLE,
    CONNECTION_BUSY,
    CONNECTION_ENDED,
} connection_state;

struct request {
    struct request *next;
    http_client_callback callback;
    void *user;
    bool is_retry;
    size_t length;
    char text[]; /* the request's bytes */
};

struct connection {
    uv_tcp_t tcp;
    uv_connect_t connect_request;
    http_client *client;
    connection_state state;
    struct request *request; /* in flight, or NULL */
    int answers;             /* answered on this connection so far */
    char *input;             /* bytes of the answer read so far */
    size_t input_length, input_capacity;
    struct connection *previous, *next;
};

struct http_client {
    uv_loop_t *loop;
    struct sockaddr_in server;
    char host[64];
    int max_connections;
    int connection_count;
    struct connection *connections;
    struct request *waiting_first, *waiting_last;
    bool is_freeing;
};

struct write_request {
    uv_write_t request;
    struct connection *connection;
    char bytes[];
};

static void dispatch(http_client *client);

/* ---- requests ----------------------------------------------------------- */

static void push_back(http_client *client, struct request *request)
{
    request->next = NULL;
    if (client->waiting_last)
        client->waiting_last->next = request;
    else
        client->waiting_first = request;
    client->waiting_last = request;
}

static void push_front(http_client *client, struct request *request)
{
    request->next = client->waiting_first;
    client->waiting_first = request;
    if (!client->waiting_last)
        client->waiting_last = request;
}

static struct request *pop_front(http_client *client)
{
    struct request *request = client->waiting_first;
    client->waiting_first = request->next;
    if (!client->waiting_first)
        client->waiting_last = NULL;
    return request;
}

/* Calls the request's callback (unless the client is being freed) and
 * frees it. */
static void answer(http_client *client, struct request *request, const http_answer *result)
{
    if (!client->is_freeing)
        request->callback(request->user, result);
    free(request);
}

static void fail(http_client *client, struct request *request, const char *why)
{
    http_answer result = {0, NULL, 0, why};
    answer(client, request, &result);
}

/* ---- ending ------------------------------------------------------------- */

static void on_closed(uv_handle_t *handle)
{
    struct connection *c = handle->data;
    http_client *client = c->client;
    if (c->previous)
        c->previous->next = c->next;
    else
        client->connections = c->next;
    if (c->next)
        c->next->previous = c->previous;
    client->connection_count--;
    free(c->input);
    free(c);
    if (!client->is_freeing)
        dispatch(client);
}

/* Ends `c`; its request is sent again once if the server closed a reused
 * connection before answering (a keep-alive timeout), else failed. */
static void end_connection(struct connection *c, const char *why)
{
    if (c->state == CONNECTION_ENDED)
        return;
    c->state = CONNECTION_ENDED;
    struct request *request = c->request;
    c->request = NULL;
    uv_close((uv_handle_t *)&c->tcp, on_closed);
    if (!request)
        return;
    bool is_stale = c->answers > 0 && c->input_length == 0 && !request->is_retry;
    if (is_stale && !c->client->is_freeing) {
        request->is_retry = true;
        push_front(c->client, request);
    } else {
        fail(c->client, request, why);
    }
}

/* ---- writing ------------------------------------------------------------ */

static void on_written(uv_write_t *request, int status)
{
    struct write_request *w = (struct write_request *)request;
    if (status < 0 && status != UV_ECANCELED)
        end_connection(w->connection, uv_strerror(status));
    free(w);
}

static void send_request(struct connection *c, struct request *request)
{
    c->request = request;
    c->state = CONNECTION_BUSY;
    c->input_length = 0;
    uv_buf_t buffer = uv_buf_init(request->text, (unsigned int)request->length);
    int written = uv_try_write((uv_stream_t *)&c->tcp, &buffer, 1);
    if (written < 0 && written != UV_EAGAIN) {
        end_connection(c, uv_strerror(written));
        return;
    }
    size_t done = written > 0 ? (size_t)written : 0;
    if (done == request->length)
        return;
    struct write_request *w = malloc(sizeof(*w) + request->length - done);
    if (!w) {
        end_connection(c, "out of memory");
        return;
    }
    w->connection = c;
    memcpy(w->bytes, request->text + done, request->length - done);
    buffer = uv_buf_init(w->bytes, (unsigned int)(request->length - done));
    int rc = uv_write(&w->request, (uv_stream_t *)&c->tcp, &buffer, 1, on_written);
    if (rc < 0) {
        free(w);
        end_connection(c, uv_strerror(rc));
    }
}

/* ---- reading ------------------------------------------------------------ */

/* The value of header `name` in the header block `headers` (its lines
 * after the status line), into `value`; false if absent. */
static bool find_header(const char *headers, const char *end, const char *name, char *value,
                        size_t size)
{
    size_t name_length = strlen(name);
    for (const char *line = headers; line && line < end;) {
        const char *line_end = memchr(line, '\r', (size_t)(end - line));
        if (!line_end)
            line_end = end;
        if ((size_t)(line_end - line) > name_length && line[name_length] == ':' &&
            strncasecmp(line, name, name_length) == 0) {
            const char *at = line + name_length + 1;
            while (at < line_end && *at == ' ')
                at++;
            snprintf(value, size, "%.*s", (int)(line_end - at), at);
            return true;
        }
        line = line_end + 2;
    }
    return false;
}

/* Reads the header block ending at `end`: status, body size (or
 * NO_CONTENT_SIZE) and whether the server closes after the answer. */
static bool parse_head(const char *input, const char *end, int *status, size_t *content_size,
                       bool *is_closing)
{
    char value[64];
    if (sscanf(input, "HTTP/1.%*d %d", status) != 1)
        return false;
    const char *headers = memchr(input, '\n', (size_t)(end - input));
    *content_size = NO_CONTENT_SIZE;
    if (headers && find_header(headers + 1, end, "Content-Length", value, sizeof(value)))
        *content_size = (size_t)strtoull(value, NULL, 10);
    *is_closing = headers && find_header(headers + 1, end, "Connection", value, sizeof(value)) &&
                  strcasecmp(value, "close") == 0;
    return true;
}

static const char *find_header_end(const char *text, size_t length)
{
    for (size_t i = 0; i + 4 <= length; i++)
        if (memcmp(text + i, "\r\n\r\n", 4) == 0)
            return text + i;
    return NULL;
}

/* Hands over the answer once all of it is in. */
static void process_input(struct connection *c)
{
    const char *end = find_header_end(c->input, c->input_length);
    if (!end) {
        if (c->input_length > MAX_HEADER)
            end_connection(c, "answer header too long");
        return;
    }
    int status;
    size_t content_size;
    bool is_closing;
    if (!parse_head(c->input, end, &status, &content_size, &is_closing)) {
        end_connection(c, "malformed status line");
        return;
    }
    if (content_size == NO_CONTENT_SIZE) {
        end_connection(c, "answer without Content-Length");
        return;
    }
    size_t header_size = (size_t)(end + 4 - c->input);
    if (c->input_length < header_size + content_size)
        return;
    struct request *request = c->request;
    http_answer result = {status, c->input + header_size, content_size, NULL};
    c->request = NULL;
    c->answers++;
    c->input_length = 0; /* the body stays readable until the next read */
    c->state = CONNECTION_IDLE;
    if (is_closing)
        end_connection(c, "");
    answer(c->client, request, &result);
    dispatch(c->client);
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer)
{
    struct connection *c = handle->data;
    (void)suggested;
    if (c->input_capacity - c->input_length < READ_CHUNK / 4) {
        size_t capacity = c->input_capacity + READ_CHUNK;
        char *grown = realloc(c->input, capacity);
        if (!grown) {
            *buffer = uv_buf_init(NULL, 0);
            return;
        }
        c->input = grown;
        c->input_capacity = capacity;
    }
    *buffer = uv_buf_init(c->input + c->input_length,
                          (unsigned int)(c->input_capacity - c->input_length));
}

static void on_read(uv_stream_t *stream, ssize_t count, const uv_buf_t *buffer)
{
    struct connection *c = stream->data;
    (void)buffer;
    if (count < 0) {
        end_connection(c, count == UV_EOF ? "closed by the server" : uv_strerror((int)count));
        return;
    }
    c->input_length += (size_t)count;
    if (c->state != CONNECTION_BUSY)
        end_connection(c, "bytes nobody asked for");
    else
        process_input(c);
}

/* ---- connections --------------------------------------------------------- */

static void on_connect(uv_connect_t *connect_request, int status)
{
    struct connection *c = connect_request->data;
    if (status < 0) {
        end_connection(c, uv_strerror(status));
        return;
    }
    if (c->state != CONNECTION_CONNECTING)
        return;
    uv_tcp_nodelay(&c->tcp, 1);
    int rc = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (rc < 0)
        end_connection(c, uv_strerror(rc));
    else
        send_request(c, c->request);
}

/* Opens a connection that sends `request` once connected. */
static void open_connection(http_client *client, struct request *request)
{
    struct connection *c = calloc(1, sizeof(*c));
    if (!c || uv_tcp_init(client->loop, &c->tcp) < 0) {
        free(c);
        fail(client, request, "cannot open a connection");
        return;
    }
    c->client = client;
    c->request = request;
    c->tcp.data = c;
    c->connect_request.data = c;
    c->next = client->connections;
    if (client->connections)
        client->connections->previous = c;
    client->connections = c;
    client->connection_count++;
    int rc = uv_tcp_connect(&c->connect_request, &c->tcp, (const struct sockaddr *)&client->server,
                            on_connect);
    if (rc < 0)
        end_connection(c, uv_strerror(rc));
}

static struct connection *idle_connection(const http_client *client)
{
    for (struct connection *c = client->connections; c; c = c->next)
        if (c->state == CONNECTION_IDLE)
            return c;
    return NULL;
}

static void dispatch(http_client *client)
{
    while (client->waiting_first) {
        struct connection *c = idle_connection(client);
        if (c)
            send_request(c, pop_front(client));
        else if (client->connection_count < client->max_connections)
            open_connection(client, pop_front(client));
        else
            return;
    }
}

/* ---- the API ------------------------------------------------------------- */

int http_client_new(uv_loop_t *loop, const char *host, int port, int max_connections,
                    http_client **out)
{
    http_client *client = calloc(1, sizeof(*client));
    if (!client)
        return UV_ENOMEM;
    int rc = uv_ip4_addr(host, port, &client->server);
    if (rc < 0 || max_connections < 1) {
        free(client);
        return rc < 0 ? rc : UV_EINVAL;
    }
    client->loop = loop;
    client->max_connections = max_connections;
    snprintf(client->host, sizeof(client->host), "%s:%d", host, port);
    *out = client;
    return 0;
}

int http_client_get(http_client *client, const char *path, http_client_callback callback,
                    void *user)
{
    struct request *request = malloc(sizeof(*request) + MAX_REQUEST);
    if (!request)
        return UV_ENOMEM;
    int length = snprintf(request->text, MAX_REQUEST, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path,
                          client->host);
    if (length <= 0 || length >= MAX_REQUEST) {
        free(request);
        return UV_EINVAL;
    }
    request->callback = callback;
    request->user = user;
    request->is_retry = false;
    request->length = (size_t)length;
    push_back(client, request);
    dispatch(client);
    return 0;
}

int http_client_connection_count(const http_client *client)
{
    return client->connection_count;
}

void http_client_free(http_client *client)
{
    if (!client)
        return;
    client->is_freeing = true;
    for (struct connection *c = client->connections; c; c = c->next)
        end_connection(c, "");
    while (client->waiting_first)
        free(pop_front(client));
    while (client->connections)
        uv_run(client->loop, UV_RUN_ONCE);
    free(client);
}

/* http_exchange.c -- plain HTTP requests on the server's port.
 *
 * A request is answered once it is complete: the body is collected (up to
 * max_http_body_bytes; a larger one is answered 413 and still read to its
 * end, so the connection stays in step), the app's on_http callback fills
 * in the response, and the response is written in chunks on WRITEABLE.
 * Errors of the transport's own (404, 413, 503, a malformed length) are
 * JSON shaped like the websocket errors. lws keeps only the decoded query
 * arguments, so the query string is rebuilt from them, percent-encoded. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/log.h"
#include "server/transport_internal.h"

#define HTTP_CHUNK_BYTES   16384 /* response body bytes per lws_write */
#define HTTP_HEADERS_BYTES 1024

struct http_exchange {
    const char *method;
    char *path;
    char *query;
    char peer_ip[CONNECTION_IP_SIZE];
    char *body; /* NULL when the body is refused: it is read and dropped */
    size_t body_length, body_expected, body_received;
    bool is_responding;
    char *response;
    size_t response_length, response_sent;
};

void http_exchange_free(struct session *session)
{
    struct http_exchange *x = session->http;
    if (!x)
        return;
    free(x->path);
    free(x->query);
    free(x->body);
    free(x->response);
    free(x);
    session->http = NULL;
}

static const char *method_of(struct lws *wsi)
{
    static const struct {
        enum lws_token_indexes token;
        const char *name;
    } METHODS[] = {{WSI_TOKEN_GET_URI, "GET"},       {WSI_TOKEN_POST_URI, "POST"},
                   {WSI_TOKEN_PUT_URI, "PUT"},       {WSI_TOKEN_PATCH_URI, "PATCH"},
                   {WSI_TOKEN_DELETE_URI, "DELETE"}, {WSI_TOKEN_OPTIONS_URI, "OPTIONS"},
                   {WSI_TOKEN_HEAD_URI, "HEAD"}};
    for (size_t i = 0; i < sizeof(METHODS) / sizeof(METHODS[0]); i++)
        if (lws_hdr_total_length(wsi, METHODS[i].token) > 0)
            return METHODS[i].name;
    return "UNKNOWN";
}

/* Appends `text` percent-encoded (all but RFC 3986 unreserved bytes). */
static size_t append_encoded(char *out, size_t length, const char *text, size_t text_length)
{
    static const char HEX[] = "0123456789ABCDEF";
    for (size_t i = 0; i < text_length; i++) {
        unsigned char byte = (unsigned char)text[i];
        if (isalnum(byte) || byte == '-' || byte == '.' || byte == '_' || byte == '~') {
            out[length++] = (char)byte;
            continue;
        }
        out[length++] = '%';
        out[length++] = HEX[byte >> 4];
        out[length++] = HEX[byte & 0xF];
    }
    return length;
}

/* The query string in canonical form, or NULL when out of memory. lws
 * keeps only the decoded arguments ("b= c d" for "b=%20c+d"), joined by
 * ',' if asked whole, which loses information; so the arguments are
 * re-encoded one by one and joined with '&', which any decoder reads as
 * the client meant. */
static char *copy_query(struct lws *wsi)
{
    int total = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS);
    size_t capacity = 3 * (size_t)(total > 0 ? total : 0) + 1, length = 0;
    char *query = malloc(capacity), *argument = malloc((size_t)total + 2);
    int argument_length;
    for (int index = 0; query && argument &&
                        (argument_length = lws_hdr_copy_fragment(
                             wsi, argument, total + 2, WSI_TOKEN_HTTP_URI_ARGS, index)) >= 0;
         index++) {
        if (argument_length == 0)
            continue;
        if (length > 0)
            query[length++] = '&';
        const char *equals = memchr(argument, '=', (size_t)argument_length);
        size_t name_length = equals ? (size_t)(equals - argument) : (size_t)argument_length;
        length = append_encoded(query, length, argument, name_length);
        if (!equals)
            continue;
        query[length++] = '=';
        length =
            append_encoded(query, length, equals + 1, (size_t)argument_length - name_length - 1);
    }
    free(argument);
    if (query)
        query[length] = '\0';
    return query;
}

/* The declared body length: 0 when absent, -1 when malformed. */
static long long content_length_of(struct lws *wsi)
{
    char text[32];
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) <= 0)
        return 0;
    if (lws_hdr_copy(wsi, text, sizeof(text), WSI_TOKEN_HTTP_CONTENT_LENGTH) < 0)
        return -1;
    char *end;
    long long length = strtoll(text, &end, 10);
    return (end == text || *end != '\0' || length < 0) ? -1 : length;
}

static bool is_json(const char *content_type)
{
    return content_type && strncmp(content_type, "application/json", 16) == 0;
}

/* Writes the status line and headers, and keeps the body for WRITEABLE. */
static int send_response(struct lws *wsi, struct http_exchange *x,
                         const transport_http_response *response)
{
    unsigned char buffer[LWS_PRE + HTTP_HEADERS_BYTES];
    unsigned char *start = buffer + LWS_PRE, *p = start, *end = buffer + sizeof(buffer) - 1;
    const char *content_type = response->content_type;
    if (!content_type)
        content_type = "text/plain; charset=utf-8";
    x->response = response->body;
    x->response_length = response->body ? response->body_length : 0;
    x->is_responding = true;
    if (lws_add_http_common_headers(wsi, (unsigned int)response->status, content_type,
                                    x->response_length, &p, end))
        return -1;
    if (is_json(content_type) &&
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end))
        return -1;
    if (lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    lws_callback_on_writable(wsi);
    return 0;
}

/* Answers with a JSON error of the transport's own. */
static int send_error(struct lws *wsi, struct http_exchange *x, int status, const char *code,
                      const char *message)
{
    transport_http_response response = {status, "application/json", NULL, 0};
    char text[256];
    int length = snprintf(text, sizeof(text),
                          "{\"type\":\"error\",\"code\":\"%s\",\"message\":\"%s\"}", code, message);
    response.body = strdup(text);
    response.body_length = response.body ? (size_t)length : 0;
    return send_response(wsi, x, &response);
}

static int answer_http(transport *t, struct lws *wsi, struct http_exchange *x)
{
    transport_http_request request = {x->method,      x->path,   x->query, x->body ? x->body : "",
                                      x->body_length, x->peer_ip};
    transport_http_response response = {0, NULL, NULL, 0};
    if (!t->are_callbacks_detached && t->callbacks.on_http)
        t->callbacks.on_http(t->callbacks.context, &request, &response);
    if (response.status == 0) {
        free(response.body);
        return send_error(wsi, x, 404, "not_found", "no such page");
    }
    log_debug("http %s %s -> %d", x->method, x->path, response.status);
    return send_response(wsi, x, &response);
}

static bool is_body_complete(const struct http_exchange *x)
{
    return x->body_received == x->body_expected;
}

/* A request's headers are in: answer now, or wait for its body. A refused
 * body is still read to its end, so the connection stays in step and the
 * answer is not lost to a reset. */
int http_begin(transport *t, struct lws *wsi, struct session *session, const char *path)
{
    http_exchange_free(session);
    struct http_exchange *x = calloc(1, sizeof(*x));
    if (!x)
        return -1;
    session->http = x;
    x->method = method_of(wsi);
    x->path = strdup(path);
    x->query = copy_query(wsi);
    if (!x->path || !x->query)
        return -1;
    lws_get_peer_simple(wsi, x->peer_ip, sizeof(x->peer_ip));
    long long expected = content_length_of(wsi);
    if (expected < 0)
        return send_error(wsi, x, 400, "bad_request", "malformed Content-Length");
    x->body_expected = (size_t)expected;
    if (t->is_shutting_down)
        return send_error(wsi, x, 503, "shutting_down", "the server is shutting down");
    if (x->body_expected > t->limits.max_http_body_bytes)
        return send_error(wsi, x, 413, "too_big", "request body too large");
    if (is_body_complete(x))
        return answer_http(t, wsi, x);
    x->body = malloc(x->body_expected + 1);
    return x->body ? 0 : -1;
}

int http_receive_body(struct http_exchange *x, const char *data, size_t length)
{
    if (!x || x->body_received + length > x->body_expected)
        return -1;
    if (x->body)
        memcpy(x->body + x->body_received, data, length);
    x->body_received += length;
    return 0;
}

int http_complete_body(transport *t, struct lws *wsi, struct http_exchange *x)
{
    if (!x)
        return -1;
    if (x->is_responding) {
        lws_callback_on_writable(wsi); /* the answer may be waiting for this */
        return 0;
    }
    x->body[x->body_received] = '\0';
    x->body_length = x->body_received;
    return answer_http(t, wsi, x);
}

/* Writes the body in chunks, then ends the transaction once the request
 * body is in too. */
int http_write(struct lws *wsi, struct session *session)
{
    struct http_exchange *x = session->http;
    if (!x || !x->is_responding)
        return 0;
    unsigned char buffer[LWS_PRE + HTTP_CHUNK_BYTES];
    while (x->response_sent < x->response_length && !lws_send_pipe_choked(wsi)) {
        size_t chunk = x->response_length - x->response_sent;
        if (chunk > HTTP_CHUNK_BYTES)
            chunk = HTTP_CHUNK_BYTES;
        bool is_last = x->response_sent + chunk == x->response_length;
        memcpy(buffer + LWS_PRE, x->response + x->response_sent, chunk);
        if (lws_write(wsi, buffer + LWS_PRE, chunk,
                      is_last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < 0)
            return -1;
        x->response_sent += chunk;
    }
    if (x->response_sent < x->response_length) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    if (!is_body_complete(x))
        return 0;
    http_exchange_free(session);
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

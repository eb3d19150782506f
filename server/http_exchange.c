/* http_exchange.c -- plain HTTP requests on the server's port.
 *
 * A request is answered once it is complete: the body is collected (up to
 * max_http_body_bytes), the app's on_http callback fills in the response,
 * or defers it and answers later through transport_http_respond(); the
 * response (headers, then the body in chunks) is written on WRITEABLE, so
 * an answer made outside any lws callback is written the same way.
 *
 * Every answer is complete: a status, the headers, a Content-Length and a
 * body of that length. Errors of the transport's own go through
 * http_error_respond(), the one writer of error bodies, so they have the
 * shape of the API the path belongs to.
 *
 * Framing. lws 4.1.6 frames a request body from Content-Length with
 * atoll() ("5 ", "5x" and "5,6" all read 5 bytes, "-1" waits for 2^64-1),
 * treats a POST, PUT or PATCH without a length as a 100 MB body, and does
 * not decode chunked request bodies at all. Where lws's framing and the
 * request's meaning may disagree, nothing after the headers can be
 * trusted: a malformed or repeated Content-Length is 400, any
 * Transfer-Encoding 411 (400 beside a Content-Length, the classic request
 * smuggling pair), a POST/PUT/PATCH without a length 411 (RFC 9112 6.3);
 * the answer says `Connection: close`, whatever arrives after the headers
 * is discarded, and the connection is closed once the answer is written.
 * Trailing whitespace is not part of a header value (RFC 9112 5), so
 * `Content-Length: 5 ` is 5, as lws reads it too.
 *
 * A refusal that keeps the framing (413, 429, 503, a path that is not
 * UTF-8) still reads the body to its end and discards it, so the
 * connection stays in step and the answer is not lost to a TCP reset.
 *
 * What lws 4.1.6 refuses before any callback of ours, so the answer is
 * lws's own, measured (tests/integration/test_http.py checks each):
 * - a NUL byte or %00 in the request target: the parser fails and lws
 *   closes the connection without answering; except a %00 right after a
 *   '/', which lws keeps in the path, cutting it short: that is our 400
 *   (is_path_cut);
 * - a request head (target and headers) over lws's 4096 bytes of header
 *   space: it closes the connection without answering;
 * - a malformed escape ("%zz", a '%' at the end): 403 with lws's HTML,
 *   its body sent even to a HEAD, and the connection closed after it;
 * - a method lws does not know (e.g. BREW): 403 with lws's HTML.
 * lws also normalises the path ("/a/../b" is "/b", "//" is "/") and, in
 * the query, treats ';' like '&' and turns a %3D inside a name into '_'. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/http_encoding.h"
#include "server/http_error.h"
#include "server/http_target.h"
#include "server/log.h"
#include "server/transport_internal.h"
#include "util/rate_limit.h"

#define HTTP_CHUNK_BYTES        16384 /* response body bytes per lws_write */
#define HTTP_HEADERS_BYTES      1024
#define HTTP_RATE_MAX_ADDRESSES 65536 /* buckets kept at most: ~6 MiB */
#define CONTENT_LENGTH_SIZE     32
#define ACCEPT_ENCODING_MAX     255 /* the longest Accept-Encoding read */
#define IF_NONE_MATCH_MAX       255 /* the longest If-None-Match read */

struct http_exchange {
    struct lws *wsi;
    uint64_t id;
    const char *method;
    char *path;
    url_query query;
    char peer_ip[CONNECTION_IP_SIZE];
    char authorization[TRANSPORT_AUTHORIZATION_MAX + 1];
    bool accepts_gzip;                         /* its Accept-Encoding allows gzip */
    char if_none_match[IF_NONE_MATCH_MAX + 1]; /* "" none or longer */
    char *body; /* NULL when the body is refused: it is read and dropped */
    size_t body_length, body_expected, body_received;
    bool is_deferred;      /* waiting in t->http_deferred for the app's answer */
    bool must_close;       /* the framing is not trusted: close after the answer */
    bool is_path_cut;      /* the path held a NUL (is_path_cut()) */
    bool has_response;     /* `response` is set: write it on WRITEABLE */
    bool is_body_reported; /* lws said the body is complete (it may say so again) */
    bool are_headers_sent;
    transport_http_response response;
    size_t response_sent;
    char request_id[24]; /* "<process prefix>-<exchange id>": logs and X-Request-Id */
    uint64_t started_ns; /* uv_hrtime() when the headers were in */
};

int http_exchanges_init(struct transport *transport)
{
    /* Request ids start with a random prefix, so ids of two runs of the
     * server never meet in one log. */
    if (getentropy(&transport->request_prefix, sizeof(transport->request_prefix)) != 0)
        transport->request_prefix = (uint32_t)uv_hrtime();
    return rate_limit_new(transport->limits.http_requests_per_second, transport->limits.http_burst,
                          HTTP_RATE_MAX_ADDRESSES, &transport->http_rate);
}

void http_exchanges_free(struct transport *transport)
{
    rate_limit_free(transport->http_rate);
    transport->http_rate = NULL;
    id_table_clear(&transport->http_deferred);
}

void http_exchange_free(struct transport *transport, struct session *session)
{
    struct http_exchange *exchange = session->http;
    if (!exchange)
        return;
    if (exchange->is_deferred)
        id_table_remove(&transport->http_deferred, exchange->id);
    free(exchange->path);
    url_query_clear(&exchange->query);
    free(exchange->body);
    free(exchange->response.body);
    free(exchange);
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

/* Whether fragment `index` of a header is present, even with an empty
 * value (which has length 0): copying it fails only when there is none,
 * or when it is too long for the buffer, which its length then says. */
static bool has_fragment(struct lws *wsi, enum lws_token_indexes token, int index)
{
    char probe[1];
    return lws_hdr_fragment_length(wsi, token, index) > 0 ||
           lws_hdr_copy_fragment(wsi, probe, sizeof(probe), token, index) >= 0;
}

static bool has_header(struct lws *wsi, enum lws_token_indexes token)
{
    return has_fragment(wsi, token, 0);
}

/* Whether the path lws hands us was cut at a NUL. lws 4.1.6 refuses a
 * decoded NUL (%00) in the target except right after a '/' ("/%00",
 * "/web/%00x"), where it keeps the byte but does not count it, so the path
 * reads as ending there and "/%00" would serve the page at "/". lws's
 * header store holds the target as: the path, a terminator, then per
 * query fragment a spare byte, the fragment and a terminator, then the
 * HTTP version; a NUL kept in the path shows as a path shorter than lws
 * counts it, or as the version further on than the lengths put it. */
static bool is_path_cut(struct lws *wsi)
{
    char *uri;
    int uri_length;
    if (lws_http_get_uri_and_method(wsi, &uri, &uri_length) < 0 || uri_length < 0)
        return true;
    if (strlen(uri) != (size_t)uri_length)
        return true;
    size_t version_at = (size_t)uri_length + 1;
    for (int index = 0; has_fragment(wsi, WSI_TOKEN_HTTP_URI_ARGS, index); index++)
        version_at += 1 + (size_t)lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, index) + 1;
    return strncmp(uri + version_at, "HTTP/", 5) != 0;
}

static bool is_body_method(const char *method)
{
    return strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0 ||
           strcmp(method, "PATCH") == 0;
}

/* The one Content-Length header's value (http_target_content_length);
 * -EINVAL for a second header or a value too long to be one. */
static int parse_content_length(struct lws *wsi, size_t *out)
{
    char text[CONTENT_LENGTH_SIZE];
    if (has_fragment(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, 1) ||
        lws_hdr_copy_fragment(wsi, text, sizeof(text), WSI_TOKEN_HTTP_CONTENT_LENGTH, 0) < 0)
        return -EINVAL;
    return http_target_content_length(text, out);
}

/* Why the body cannot be framed, as (status, code, message); 0 when it can,
 * with its length in *length (0 for none). */
static int check_framing(struct lws *wsi, const char *method, size_t *length, const char **code,
                         const char **message)
{
    bool has_length = has_header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH);
    *length = 0;
    if (has_header(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING)) {
        *code = has_length ? "bad_request" : "length_required";
        *message = has_length ? "Transfer-Encoding and Content-Length together are refused"
                              : "Transfer-Encoding is not supported: send a Content-Length";
        return has_length ? 400 : 411;
    }
    if (has_length && parse_content_length(wsi, length) < 0) {
        *code = "bad_request";
        *message = "Content-Length must be one decimal number, given once";
        return 400;
    }
    if (!has_length && is_body_method(method)) {
        *code = "length_required";
        *message = "a request with a body needs a Content-Length";
        return 411;
    }
    return 0;
}

/* Copies lws's decoded query arguments; 0, or -1 when out of memory.
 * lws 4.1.6 fills an empty last pair ("seed=1&") with "/", which is
 * skipped: an empty pair is no argument, and "/" alone means nothing. */
static int copy_query(struct lws *wsi, url_query *query)
{
    int total = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS);
    if (total <= 0)
        return 0;
    char *pair = malloc((size_t)total + 2);
    if (!pair)
        return -1;
    int rc = 0;
    for (int index = 0; rc == 0; index++) {
        int length = lws_hdr_copy_fragment(wsi, pair, total + 2, WSI_TOKEN_HTTP_URI_ARGS, index);
        if (length < 0)
            break;
        bool is_last = lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, index + 1) == 0;
        if (!(is_last && length == 1 && pair[0] == '/'))
            rc = url_query_add(query, pair, (size_t)length);
    }
    free(pair);
    return rc;
}

static bool is_target_utf8(const struct http_exchange *exchange)
{
    return http_target_is_all_utf8(exchange->path, &exchange->query);
}

/* Keeps `response` (taking its body) and asks to write it. */
static void set_response(struct http_exchange *exchange, transport_http_response *response)
{
    free(exchange->response.body);
    exchange->response = *response;
    if (!exchange->response.body)
        exchange->response.body_length = 0;
    if (!exchange->response.content_type)
        exchange->response.content_type = "text/plain; charset=utf-8";
    exchange->has_response = true;
    lws_callback_on_writable(exchange->wsi);
}

/* Answers with an error of the transport's own; a Retry-After header
 * when retry_after_s > 0. */
static int respond_error(struct http_exchange *exchange, int status, const char *code,
                         const char *message, int retry_after_s)
{
    transport_http_response response;
    memset(&response, 0, sizeof(response));
    http_error_respond(&response, exchange->path, status, code, message);
    response.retry_after_s = retry_after_s;
    set_response(exchange, &response);
    return 0;
}

static int answer_http(struct transport *transport, struct http_exchange *exchange)
{
    transport_http_request request = {exchange->method,       exchange->path,
                                      &exchange->query,       exchange->body ? exchange->body : "",
                                      exchange->body_length,  exchange->peer_ip,
                                      exchange->id,           exchange->authorization,
                                      exchange->accepts_gzip, exchange->if_none_match};
    transport_http_response response;
    memset(&response, 0, sizeof(response));
    if (!transport->are_callbacks_detached && transport->callbacks.on_http)
        transport->callbacks.on_http(transport->callbacks.context, &request, &response);
    if (response.is_deferred) {
        free(response.body);
        if (id_table_put(&transport->http_deferred, exchange->id, exchange) < 0)
            return respond_error(exchange, 500, "internal", "the server ran out of memory", 0);
        exchange->is_deferred = true;
        log_debug("http %s %s -> deferred (exchange %llu)", exchange->method, exchange->path,
                  (unsigned long long)exchange->id);
        return 0;
    }
    if (response.status == 0)
        return respond_error(exchange, 404, "not_found", "no such page", 0);
    set_response(exchange, &response);
    return 0;
}

static bool is_body_complete(const struct http_exchange *exchange)
{
    return exchange->body_received == exchange->body_expected;
}

/* The checks of a request whose framing is sound, made before its body
 * is in: false to go on, true when the request was refused (its body is
 * then read and dropped). */
static bool refuse_early(struct transport *transport, struct http_exchange *exchange)
{
    int wait_s = 0;
    if (transport->is_shutting_down)
        respond_error(exchange, 503, "shutting_down", "the server is shutting down", 0);
    else if ((wait_s =
                  rate_limit_take(transport->http_rate, rate_limit_address_key(exchange->peer_ip),
                                  uv_now(transport->loop))) > 0) {
        transport->stats.http_rate_limited++;
        respond_error(exchange, 429, "rate_limited", "too many requests; slow down", wait_s);
    } else if (exchange->is_path_cut)
        respond_error(exchange, 400, "bad_request", "the path must not contain a NUL byte", 0);
    else if (!is_target_utf8(exchange))
        respond_error(exchange, 400, "bad_request", "the path and the query must be UTF-8", 0);
    else if (exchange->body_expected > transport->limits.max_http_body_bytes)
        respond_error(exchange, 413, "too_big", "request body too large", 0);
    else
        return false;
    return true;
}

/* The request's header `token` into `buffer`; "" when it has none or a
 * longer one than fits. */
static void copy_header(struct lws *wsi, enum lws_token_indexes token, char *buffer, size_t size)
{
    if (lws_hdr_copy(wsi, buffer, (int)size, token) < 0)
        buffer[0] = '\0';
}

/* A request's headers are in: answer now, or wait for its body. */
int http_begin(struct transport *transport, struct lws *wsi, struct session *session,
               const char *path)
{
    http_exchange_free(transport, session);
    struct http_exchange *exchange = calloc(1, sizeof(*exchange));
    if (!exchange)
        return -1;
    session->http = exchange;
    exchange->wsi = wsi;
    exchange->id = ++transport->last_exchange;
    exchange->started_ns = uv_hrtime();
    snprintf(exchange->request_id, sizeof(exchange->request_id), "%08x-%llu",
             transport->request_prefix, (unsigned long long)exchange->id);
    exchange->method = method_of(wsi);
    exchange->path = strdup(path);
    exchange->is_path_cut = is_path_cut(wsi);
    if (!exchange->path || copy_query(wsi, &exchange->query) < 0)
        return -1;
    char peer[CONNECTION_IP_SIZE];
    lws_get_peer_simple(wsi, peer, sizeof(peer));
    transport_client_address(transport, wsi, peer, exchange->peer_ip, sizeof(exchange->peer_ip));
    copy_header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION, exchange->authorization,
                sizeof(exchange->authorization));
    char accept_encoding[ACCEPT_ENCODING_MAX + 1]; /* longer: read as no gzip */
    copy_header(wsi, WSI_TOKEN_HTTP_ACCEPT_ENCODING, accept_encoding, sizeof(accept_encoding));
    exchange->accepts_gzip = http_accepts_gzip(accept_encoding);
    copy_header(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH, exchange->if_none_match,
                sizeof(exchange->if_none_match));
    const char *code, *message;
    int status = check_framing(wsi, exchange->method, &exchange->body_expected, &code, &message);
    if (status != 0) {
        log_info("http %s %s from %s: %s", exchange->method, exchange->path, exchange->peer_ip,
                 message);
        exchange->must_close = true;
        return respond_error(exchange, status, code, message, 0);
    }
    if (refuse_early(transport, exchange))
        return 0;
    if (is_body_complete(exchange))
        return answer_http(transport, exchange);
    exchange->body = malloc(exchange->body_expected + 1);
    return exchange->body ? 0 : -1;
}

/* A body gets as long as the headers had (handshake-timeout) from the end
 * of the headers: lws's own timeout only catches silence, and a client
 * sending a byte every few seconds would otherwise hold the connection and
 * its buffer for as long as it likes (slowloris). */
static bool is_body_late(const struct transport *transport, const struct http_exchange *exchange)
{
    uint64_t allowed_ns = (uint64_t)transport->limits.handshake_timeout_s * 1000000000u;
    return uv_hrtime() - exchange->started_ns > allowed_ns;
}

int http_receive_body(struct transport *transport, struct http_exchange *exchange, const char *data,
                      size_t length)
{
    if (!exchange)
        return -1;
    if (!exchange->has_response && is_body_late(transport, exchange)) {
        log_info_limited("http %s %s from %s: body too slow (%zu of %zu bytes)", exchange->method,
                         exchange->path, exchange->peer_ip, exchange->body_received,
                         exchange->body_expected);
        transport->stats.slow_requests++;
        free(exchange->body);
        exchange->body = NULL;
        exchange->must_close = true;
        return respond_error(exchange, 408, "request_timeout",
                             "the request body took too long to arrive", 0);
    }
    if (exchange->must_close)
        return 0; /* unframed: dropped until the answer closes the connection */
    if (exchange->body_received + length > exchange->body_expected)
        return -1;
    if (exchange->body)
        memcpy(exchange->body + exchange->body_received, data, length);
    exchange->body_received += length;
    return 0;
}

/* lws 4.1 reports a body complete again and again, in a loop of its own,
 * when a pipelining client's requests and a body meet (a request with a
 * body behind an answer not yet written, or any request behind one with a
 * body): it never read the next request nor came back to the loop (the
 * whole server froze). Only closing the connection, or ending the
 * exchange, gets it out. So the later request is not read: the answer in
 * hand goes out now, with `Connection: close`, and the connection is
 * closed after it (RFC 9112 9.3.2: the client sends the rest again). An
 * answer the app gives later (the Reef API's action and submit, the
 * history) cannot be waited for: the connection is closed at once. */
static int answer_pipelined(struct transport *transport, struct lws *wsi, struct session *session)
{
    struct http_exchange *exchange = session->http;
    log_info_limited("http %s %s from %s: a request pipelined behind its body; closing",
                     exchange->method, exchange->path, exchange->peer_ip);
    if (exchange->has_response) {
        exchange->must_close = true;
        http_write(transport, wsi, session);
    }
    return -1;
}

int http_complete_body(struct transport *transport, struct lws *wsi, struct session *session)
{
    struct http_exchange *exchange = session->http;
    if (!exchange)
        return -1;
    if (exchange->is_body_reported)
        return answer_pipelined(transport, wsi, session);
    exchange->is_body_reported = true;
    if (exchange->is_deferred)
        return 0; /* an empty body was answered at the headers; the app has it */
    if (exchange->has_response || exchange->must_close) {
        lws_callback_on_writable(exchange->wsi); /* the answer may be waiting for this */
        return 0;
    }
    if (!exchange->body)
        return -1; /* every request reaching here has a body buffer */
    exchange->body[exchange->body_received] = '\0';
    exchange->body_length = exchange->body_received;
    return answer_http(transport, exchange);
}

int transport_http_respond(struct transport *transport, uint64_t exchange_id,
                           transport_http_response *response)
{
    struct http_exchange *exchange =
        exchange_id ? id_table_get(&transport->http_deferred, exchange_id) : NULL;
    if (!exchange) {
        log_debug("http exchange %llu: answer dropped, the client is gone",
                  (unsigned long long)exchange_id);
        free(response->body);
        response->body = NULL;
        return -ENOENT;
    }
    id_table_remove(&transport->http_deferred, exchange_id);
    exchange->is_deferred = false;
    set_response(exchange, response);
    response->body = NULL;
    return 0;
}

/* Status line and headers, with the extra headers the response asks for. */
static int write_headers(struct transport *transport, struct lws *wsi,
                         struct http_exchange *exchange)
{
    unsigned char buffer[LWS_PRE + HTTP_HEADERS_BYTES];
    unsigned char *start = buffer + LWS_PRE, *p = start, *end = buffer + sizeof(buffer) - 1;
    const transport_http_response *answer = &exchange->response;
    char retry_after[16];
    int status_class = answer->status / 100;
    if (status_class >= 1 && status_class <= 5)
        transport->stats.http_responses[status_class]++;
    log_http(&(log_http_fields){exchange->request_id, exchange->method, exchange->path,
                                answer->status, (double)(uv_hrtime() - exchange->started_ns) / 1e6,
                                exchange->peer_ip});
    /* A 304 has no body, and no length or type: a length would have to be
     * the one of the body it stands for. */
    if (answer->status == 304
            ? lws_add_http_header_status(wsi, 304, &p, end)
            : lws_add_http_common_headers(wsi, (unsigned int)answer->status, answer->content_type,
                                          answer->body_length, &p, end))
        return -1;
    const char *cache = answer->cache_control;
    if (!cache && strncmp(answer->content_type, "application/json", 16) == 0)
        cache = "no-store";
    if (cache && lws_add_http_header_by_name(
                     wsi, (const unsigned char *)"cache-control:", (const unsigned char *)cache,
                     (int)strlen(cache), &p, end))
        return -1;
    if (answer->content_encoding &&
        lws_add_http_header_by_name(wsi, (const unsigned char *)"content-encoding:",
                                    (const unsigned char *)answer->content_encoding,
                                    (int)strlen(answer->content_encoding), &p, end))
        return -1;
    if (answer->etag && lws_add_http_header_by_name(wsi, (const unsigned char *)"etag:",
                                                    (const unsigned char *)answer->etag,
                                                    (int)strlen(answer->etag), &p, end))
        return -1;
    if (answer->varies_by_encoding &&
        lws_add_http_header_by_name(wsi, (const unsigned char *)"vary:",
                                    (const unsigned char *)"Accept-Encoding", 15, &p, end))
        return -1;
    if (answer->allow[0] && lws_add_http_header_by_name(wsi, (const unsigned char *)"allow:",
                                                        (const unsigned char *)answer->allow,
                                                        (int)strlen(answer->allow), &p, end))
        return -1;
    if (lws_add_http_header_by_name(wsi, (const unsigned char *)"x-request-id:",
                                    (const unsigned char *)exchange->request_id,
                                    (int)strlen(exchange->request_id), &p, end))
        return -1;
    int length = snprintf(retry_after, sizeof(retry_after), "%d", answer->retry_after_s);
    if (answer->retry_after_s > 0 &&
        lws_add_http_header_by_name(wsi, (const unsigned char *)"retry-after:",
                                    (const unsigned char *)retry_after, length, &p, end))
        return -1;
    if (exchange->must_close &&
        lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char *)"close", 5,
                                     &p, end))
        return -1;
    exchange->are_headers_sent = true;
    return lws_finalize_write_http_header(wsi, start, &p, end) ? -1 : 0;
}

/* Writes the body in chunks while the kernel takes them whole: a chunk
 * it takes in part, lws keeps (lws_partial_buffered) and the rest waits
 * for WRITEABLE. (The kernel is not asked before each: a poll(2) a chunk.) */
static int write_body(struct lws *wsi, struct http_exchange *exchange)
{
    unsigned char buffer[LWS_PRE + HTTP_CHUNK_BYTES];
    const transport_http_response *answer = &exchange->response;
    while (exchange->response_sent < answer->body_length && !lws_partial_buffered(wsi)) {
        size_t chunk = answer->body_length - exchange->response_sent;
        if (chunk > HTTP_CHUNK_BYTES)
            chunk = HTTP_CHUNK_BYTES;
        bool is_last = exchange->response_sent + chunk == answer->body_length;
        memcpy(buffer + LWS_PRE, answer->body + exchange->response_sent, chunk);
        if (lws_write(wsi, buffer + LWS_PRE, chunk,
                      is_last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < 0)
            return -1;
        exchange->response_sent += chunk;
    }
    return 0;
}

/* Writes the headers, then the body; then ends the transaction once the
 * request body is in too, or closes an unframed connection. */
int http_write(struct transport *transport, struct lws *wsi, struct session *session)
{
    struct http_exchange *exchange = session->http;
    if (!exchange || !exchange->has_response)
        return 0;
    if (!exchange->are_headers_sent && write_headers(transport, wsi, exchange) < 0)
        return -1;
    if (strcmp(exchange->method, "HEAD") == 0) /* its length is told, never sent */
        exchange->response_sent = exchange->response.body_length;
    if (write_body(wsi, exchange) < 0)
        return -1;
    if (exchange->response_sent < exchange->response.body_length || lws_partial_buffered(wsi)) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    if (exchange->must_close)
        return -1; /* all written: closing is what the answer announced */
    if (!is_body_complete(exchange))
        return 0;
    http_exchange_free(transport, session);
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* http_rate.h -- a token bucket per peer address for HTTP requests.
 *
 * Each address may make `burst` requests at once and `per_second` on
 * average; a request without a token is refused, and the caller is told
 * how many whole seconds until the next token (for a 429's Retry-After).
 *
 * Memory is bounded: a bucket left alone long enough to be full again is
 * the same as no bucket, so such buckets are dropped as requests come in;
 * and at most `max_addresses` buckets exist (past that, the bucket used
 * least recently is dropped, which at worst gives that address a fresh
 * burst). Every call is O(1) amortized.
 *
 * IPv6 addresses are limited per /64, the block one customer usually gets,
 * so a client cannot escape its bucket by changing its interface id; IPv4
 * (and IPv4-mapped IPv6) addresses one by one. */
#ifndef TESSERA_HTTP_RATE_H
#define TESSERA_HTTP_RATE_H

#include <stddef.h>
#include <stdint.h>

typedef struct http_rate http_rate;

/* A limiter of `per_second` (>= 1) requests per second with bursts of
 * `burst` (>= 1), for at most `max_addresses` (>= 1) addresses at a time.
 * 0 and *out, or -ENOMEM. */
int http_rate_new(int per_second, int burst, size_t max_addresses, http_rate **out);

/* Frees the limiter. NULL is allowed. */
void http_rate_free(http_rate *rate);

/* Takes a token for a request from `address` (an IP literal) at `now_ms`
 * (a monotonic clock). 0 when the request may go on; else the seconds to
 * wait (>= 1) before a token is there. An address that cannot be parsed
 * is limited under one shared bucket; out of memory, the request is let
 * through (the limiter must not turn a memory shortage into an outage). */
int http_rate_take(http_rate *rate, const char *address, uint64_t now_ms);

/* The number of buckets held, for tests. */
size_t http_rate_address_count(const http_rate *rate);

#endif

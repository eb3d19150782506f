/* rate_limit.h -- token buckets by 64-bit key: who may do something now.
 *
 * Each key may act `burst` times at once and `per_second` times a second
 * on average; an act without a token is refused, and the caller is told
 * how many whole seconds until the next token (for a 429's Retry-After,
 * or a sign-in refused for too many failures). The transport limits HTTP
 * requests per address with it, the lobby failed sign-ins per name and per
 * address.
 *
 * Memory is bounded: a bucket left alone long enough to be full again is
 * the same as no bucket, so such buckets are dropped as acts come in; and
 * at most `max_keys` buckets exist (past that, the bucket used least
 * recently is dropped, which at worst gives that key a fresh burst).
 * Every call is O(1) amortized.
 *
 * Keys: rate_limit_address_key() limits IPv6 addresses per /64, the block
 * one customer usually gets, so a client cannot escape its bucket by
 * changing its interface id; IPv4 (and IPv4-mapped IPv6) addresses one by
 * one. rate_limit_text_key() hashes any other text (a name). */
#ifndef TESSERA_RATE_LIMIT_H
#define TESSERA_RATE_LIMIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct rate_limit rate_limit;

/* A limiter of `per_second` (> 0, fractions allowed: 5 a minute is 5/60.)
 * acts per second with bursts of `burst` (>= 1), for at most `max_keys`
 * (>= 1) keys at a time. 0 and *out, or -ENOMEM. */
int rate_limit_new(double per_second, int burst, size_t max_keys, rate_limit **out);

/* Frees the limiter. NULL is allowed. */
void rate_limit_free(rate_limit *rate);

/* Takes a token for an act of `key` (non-zero) at `now_ms` (a clock that
 * does not jump). 0 when the act may go on; else the seconds to wait
 * (>= 1) before a token is there. Out of memory, the act is let through
 * (the limiter must not turn a memory shortage into an outage). */
int rate_limit_take(rate_limit *rate, uint64_t key, uint64_t now_ms);

/* What rate_limit_take would answer, taking nothing. */
int rate_limit_wait(rate_limit *rate, uint64_t key, uint64_t now_ms);

/* The number of buckets held, for tests. */
size_t rate_limit_key_count(const rate_limit *rate);

/* The key of an IP literal: its /64 for IPv6. An address that cannot be
 * parsed gets one shared key. Never 0. */
uint64_t rate_limit_address_key(const char *address);

/* The key of any other text: a 64-bit FNV-1a hash, never 0. */
uint64_t rate_limit_text_key(const char *text);

#endif

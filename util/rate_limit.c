/* rate_limit.c -- token buckets by key (see rate_limit.h).
 *
 * The buckets are found by their 64-bit key in the one id_table of util/
 * and kept on a list ordered by last use, most recent first. Each act
 * moves its bucket to the front and then looks at the back: a bucket there
 * that has refilled completely is dropped, and so on while there are
 * such buckets. As each bucket is dropped once, the work per act is
 * O(1) amortized, and no timer is needed. The cap on the count is checked
 * the same way, at the back. A wait that takes nothing adds no bucket:
 * a key without one has a full bucket.
 *
 * Address keys: an IPv4 address is its 32 bits with bit 32 set (inside the IPv6
 * block 0:1::/32, which is reserved, so no /64 key collides with it); an
 * IPv6 address is its first 64 bits, 1 for ::/64 (0 is not a valid id).
 * An unparsable address gets key 2, one shared bucket. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/id_table.h"
#include "util/rate_limit.h"

#define IPV4_KEY_TAG       (UINT64_C(1) << 32)
#define UNSPECIFIED_64_KEY 1 /* ::/64, whose natural key 0 is reserved */
#define UNPARSABLE_KEY     2

struct bucket {
    uint64_t key;
    double tokens;
    uint64_t updated_ms;
    struct bucket *newer, *older;
};

struct rate_limit {
    double per_ms;
    double burst;
    uint64_t refill_ms; /* from empty to full */
    size_t max_keys;
    id_table buckets;
    struct bucket *newest, *oldest;
};

int rate_limit_new(double per_second, int burst, size_t max_keys, rate_limit **out)
{
    rate_limit *rate = calloc(1, sizeof(*rate));
    if (!rate)
        return -ENOMEM;
    rate->per_ms = per_second / 1000.0;
    rate->burst = burst;
    double refill_ms = burst / rate->per_ms; /* from empty to full, rounded up */
    rate->refill_ms = (uint64_t)refill_ms + ((double)(uint64_t)refill_ms < refill_ms);
    rate->max_keys = max_keys;
    *out = rate;
    return 0;
}

void rate_limit_free(rate_limit *rate)
{
    if (!rate)
        return;
    for (struct bucket *bucket = rate->newest, *older; bucket; bucket = older) {
        older = bucket->older;
        free(bucket);
    }
    id_table_clear(&rate->buckets);
    free(rate);
}

uint64_t rate_limit_address_key(const char *address)
{
    unsigned char bytes[16];
    if (inet_pton(AF_INET, address, bytes) == 1)
        return IPV4_KEY_TAG | ((uint64_t)bytes[0] << 24 | (uint64_t)bytes[1] << 16 |
                               (uint64_t)bytes[2] << 8 | bytes[3]);
    if (inet_pton(AF_INET6, address, bytes) != 1)
        return UNPARSABLE_KEY;
    static const unsigned char V4_MAPPED[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(bytes, V4_MAPPED, sizeof(V4_MAPPED)) == 0)
        return IPV4_KEY_TAG | ((uint64_t)bytes[12] << 24 | (uint64_t)bytes[13] << 16 |
                               (uint64_t)bytes[14] << 8 | bytes[15]);
    uint64_t key = 0;
    for (int i = 0; i < 8; i++)
        key = key << 8 | bytes[i];
    return key ? key : UNSPECIFIED_64_KEY;
}

static void unlink_bucket(rate_limit *rate, struct bucket *bucket)
{
    if (bucket->newer)
        bucket->newer->older = bucket->older;
    else
        rate->newest = bucket->older;
    if (bucket->older)
        bucket->older->newer = bucket->newer;
    else
        rate->oldest = bucket->newer;
    bucket->newer = bucket->older = NULL;
}

static void push_newest(rate_limit *rate, struct bucket *bucket)
{
    bucket->older = rate->newest;
    if (rate->newest)
        rate->newest->newer = bucket;
    rate->newest = bucket;
    if (!rate->oldest)
        rate->oldest = bucket;
}

static void drop_oldest(rate_limit *rate)
{
    struct bucket *bucket = rate->oldest;
    unlink_bucket(rate, bucket);
    id_table_remove(&rate->buckets, bucket->key);
    free(bucket);
}

/* Drops the buckets at the back that are full again, and any past the cap
 * (keeping `keep`, the bucket in use). */
static void expire(rate_limit *rate, uint64_t now_ms, const struct bucket *keep)
{
    while (rate->oldest && rate->oldest != keep &&
           (now_ms - rate->oldest->updated_ms >= rate->refill_ms ||
            rate->buckets.count > rate->max_keys))
        drop_oldest(rate);
}

/* The bucket of `key`, made full if new; NULL when out of memory. */
static struct bucket *find_or_add(rate_limit *rate, uint64_t key, uint64_t now_ms)
{
    struct bucket *bucket = id_table_get(&rate->buckets, key);
    if (bucket)
        return bucket;
    bucket = calloc(1, sizeof(*bucket));
    if (!bucket)
        return NULL;
    bucket->key = key;
    bucket->tokens = rate->burst;
    bucket->updated_ms = now_ms;
    if (id_table_put(&rate->buckets, key, bucket) < 0) {
        free(bucket);
        return NULL;
    }
    push_newest(rate, bucket);
    return bucket;
}

/* Brings `bucket` up to `now_ms` (a clock gone back adds nothing). */
static void refill(const rate_limit *rate, struct bucket *bucket, uint64_t now_ms)
{
    if (now_ms <= bucket->updated_ms)
        return;
    bucket->tokens += (double)(now_ms - bucket->updated_ms) * rate->per_ms;
    if (bucket->tokens > rate->burst)
        bucket->tokens = rate->burst;
    bucket->updated_ms = now_ms;
}

/* 0 when `bucket` has a token, else the whole seconds until it has one. */
static int seconds_to_token(const rate_limit *rate, const struct bucket *bucket)
{
    if (bucket->tokens >= 1.0)
        return 0;
    return (int)((1.0 - bucket->tokens) / (rate->per_ms * 1000.0)) + 1;
}

int rate_limit_take(rate_limit *rate, uint64_t key, uint64_t now_ms)
{
    struct bucket *bucket = find_or_add(rate, key, now_ms);
    if (!bucket)
        return 0;
    refill(rate, bucket, now_ms);
    unlink_bucket(rate, bucket);
    push_newest(rate, bucket);
    expire(rate, now_ms, bucket);
    int wait_s = seconds_to_token(rate, bucket);
    if (wait_s == 0)
        bucket->tokens -= 1.0;
    return wait_s;
}

int rate_limit_wait(rate_limit *rate, uint64_t key, uint64_t now_ms)
{
    struct bucket *bucket = id_table_get(&rate->buckets, key);
    if (!bucket)
        return 0;
    refill(rate, bucket, now_ms);
    return seconds_to_token(rate, bucket);
}

size_t rate_limit_key_count(const rate_limit *rate)
{
    return rate->buckets.count;
}

uint64_t rate_limit_text_key(const char *text)
{
    uint64_t hash = 1469598103934665603ULL;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        hash = (hash ^ *c) * 1099511628211ULL;
    return hash ? hash : 1;
}

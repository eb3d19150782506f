/* http_rate.c -- token buckets per address (see http_rate.h).
 *
 * The buckets are found by a 64-bit key in the one id_table of util/ and
 * kept on a list ordered by last use, most recent first. Each request
 * moves its bucket to the front and then looks at the back: a bucket there
 * that has refilled completely is dropped, and so on while there are
 * such buckets. As each bucket is dropped once, the work per request is
 * O(1) amortized, and no timer is needed. The cap on the count is checked
 * the same way, at the back.
 *
 * Keys: an IPv4 address is its 32 bits with bit 32 set (inside the IPv6
 * block 0:1::/32, which is reserved, so no /64 key collides with it); an
 * IPv6 address is its first 64 bits, 1 for ::/64 (0 is not a valid id).
 * An unparsable address gets key 2, one shared bucket. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server/http_rate.h"
#include "util/id_table.h"

#define IPV4_KEY_TAG       (UINT64_C(1) << 32)
#define UNSPECIFIED_64_KEY 1 /* ::/64, whose natural key 0 is reserved */
#define UNPARSABLE_KEY     2

struct bucket {
    uint64_t key;
    double tokens;
    uint64_t updated_ms;
    struct bucket *newer, *older;
};

struct http_rate {
    double per_ms;
    double burst;
    uint64_t refill_ms; /* from empty to full */
    size_t max_addresses;
    id_table buckets;
    struct bucket *newest, *oldest;
};

int http_rate_new(int per_second, int burst, size_t max_addresses, http_rate **out)
{
    http_rate *rate = calloc(1, sizeof(*rate));
    if (!rate)
        return -ENOMEM;
    rate->per_ms = per_second / 1000.0;
    rate->burst = burst;
    rate->refill_ms = ((uint64_t)burst * 1000 + (uint64_t)per_second - 1) / (uint64_t)per_second;
    rate->max_addresses = max_addresses;
    *out = rate;
    return 0;
}

void http_rate_free(http_rate *rate)
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

static uint64_t key_of(const char *address)
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

static void unlink_bucket(http_rate *rate, struct bucket *bucket)
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

static void push_newest(http_rate *rate, struct bucket *bucket)
{
    bucket->older = rate->newest;
    if (rate->newest)
        rate->newest->newer = bucket;
    rate->newest = bucket;
    if (!rate->oldest)
        rate->oldest = bucket;
}

static void drop_oldest(http_rate *rate)
{
    struct bucket *bucket = rate->oldest;
    unlink_bucket(rate, bucket);
    id_table_remove(&rate->buckets, bucket->key);
    free(bucket);
}

/* Drops the buckets at the back that are full again, and any past the cap
 * (keeping `keep`, the bucket in use). */
static void expire(http_rate *rate, uint64_t now_ms, const struct bucket *keep)
{
    while (rate->oldest && rate->oldest != keep &&
           (now_ms - rate->oldest->updated_ms >= rate->refill_ms ||
            rate->buckets.count > rate->max_addresses))
        drop_oldest(rate);
}

/* The bucket of `key`, made full if new; NULL when out of memory. */
static struct bucket *find_or_add(http_rate *rate, uint64_t key, uint64_t now_ms)
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

int http_rate_take(http_rate *rate, const char *address, uint64_t now_ms)
{
    struct bucket *bucket = find_or_add(rate, key_of(address), now_ms);
    if (!bucket)
        return 0;
    if (now_ms > bucket->updated_ms) {
        bucket->tokens += (double)(now_ms - bucket->updated_ms) * rate->per_ms;
        if (bucket->tokens > rate->burst)
            bucket->tokens = rate->burst;
        bucket->updated_ms = now_ms;
    }
    unlink_bucket(rate, bucket);
    push_newest(rate, bucket);
    expire(rate, now_ms, bucket);
    if (bucket->tokens >= 1.0) {
        bucket->tokens -= 1.0;
        return 0;
    }
    int wait_s = (int)((1.0 - bucket->tokens) / (rate->per_ms * 1000.0)) + 1;
    return wait_s;
}

size_t http_rate_address_count(const http_rate *rate)
{
    return rate->buckets.count;
}

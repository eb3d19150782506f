/* proxy.c -- trusted proxies and X-Forwarded-For (proxy.h). */
#include <errno.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "server/proxy.h"
#include "util/text_list.h"

#define ENTRY_SIZE 64 /* longer than any IP literal */

/* Addresses compare in their binary form, so "::1" and "0::1" are one. */
struct address {
    int family;
    unsigned char bytes[16];
};

/* Parses an IP literal. */
static bool parse(const char *literal, struct address *out)
{
    memset(out, 0, sizeof(*out));
    if (inet_pton(AF_INET, literal, out->bytes) == 1)
        out->family = AF_INET;
    else if (inet_pton(AF_INET6, literal, out->bytes) == 1)
        out->family = AF_INET6;
    return out->family != 0;
}

/* The next entry of a list parsed as an address: 1 (*valid says whether
 * it is one), or 0 at the end of the list. */
static int next_address(const char **list, char entry[ENTRY_SIZE], struct address *out, bool *valid)
{
    int length = text_list_next(list, entry, ENTRY_SIZE);
    if (length < 0)
        return 0;
    *valid = length < ENTRY_SIZE && parse(entry, out);
    return 1;
}

bool proxy_is_trusted(const char *trusted_list, const char *peer)
{
    struct address address, listed;
    char entry[ENTRY_SIZE];
    bool valid;
    if (!parse(peer, &address))
        return false;
    while (next_address(&trusted_list, entry, &listed, &valid))
        if (valid && listed.family == address.family &&
            memcmp(listed.bytes, address.bytes, sizeof(listed.bytes)) == 0)
            return true;
    return false;
}

bool proxy_forwarded_client(const char *forwarded_for, char *out, size_t size)
{
    const char *last = strrchr(forwarded_for, ',');
    last = last ? last + 1 : forwarded_for;
    struct address address;
    char entry[ENTRY_SIZE], text[INET6_ADDRSTRLEN];
    bool valid;
    if (!next_address(&last, entry, &address, &valid) || !valid ||
        !inet_ntop(address.family, address.bytes, text, sizeof(text)) || strlen(text) >= size)
        return false;
    memcpy(out, text, strlen(text) + 1);
    return true;
}

int proxy_list_check(const char *trusted_list, char *problem, size_t size)
{
    struct address address;
    char entry[ENTRY_SIZE];
    bool valid;
    while (next_address(&trusted_list, entry, &address, &valid)) {
        if (!valid) {
            snprintf(problem, size, "'%.40s' is not an IP address", entry);
            return -EINVAL;
        }
    }
    return 0;
}

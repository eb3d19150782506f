/* proxy.c -- trusted proxies and X-Forwarded-For (proxy.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "server/proxy.h"

#define ENTRY_SIZE 64

/* Addresses compare in their binary form, so "::1" and "0::1" are one. */
struct address {
    int family;
    unsigned char bytes[16];
};

/* Parses an IP literal (blanks around it allowed). */
static bool parse(const char *text, size_t length, struct address *out)
{
    while (length > 0 && (*text == ' ' || *text == '\t')) {
        text++;
        length--;
    }
    while (length > 0 && (text[length - 1] == ' ' || text[length - 1] == '\t'))
        length--;
    char literal[ENTRY_SIZE];
    if (length == 0 || length >= sizeof(literal))
        return false;
    memcpy(literal, text, length);
    literal[length] = '\0';
    memset(out, 0, sizeof(*out));
    if (inet_pton(AF_INET, literal, out->bytes) == 1)
        out->family = AF_INET;
    else if (inet_pton(AF_INET6, literal, out->bytes) == 1)
        out->family = AF_INET6;
    return out->family != 0;
}

/* Calls visit(entry, length) for each comma-separated entry; stops at the
 * first nonzero answer and returns it. */
static int each_entry(const char *list, int (*visit)(const char *, size_t, void *), void *context)
{
    while (*list) {
        const char *end = strchr(list, ',');
        size_t length = end ? (size_t)(end - list) : strlen(list);
        int answer = visit(list, length, context);
        if (answer)
            return answer;
        list += length + (end ? 1 : 0);
    }
    return 0;
}

static int matches(const char *entry, size_t length, void *context)
{
    struct address listed;
    const struct address *peer = context;
    return parse(entry, length, &listed) && listed.family == peer->family &&
           memcmp(listed.bytes, peer->bytes, sizeof(listed.bytes)) == 0;
}

bool proxy_is_trusted(const char *trusted_list, const char *peer)
{
    struct address address;
    if (!trusted_list[0] || !parse(peer, strlen(peer), &address))
        return false;
    return each_entry(trusted_list, matches, &address) != 0;
}

bool proxy_forwarded_client(const char *forwarded_for, char *out, size_t size)
{
    const char *last = strrchr(forwarded_for, ',');
    last = last ? last + 1 : forwarded_for;
    struct address address;
    char text[INET6_ADDRSTRLEN];
    if (!parse(last, strlen(last), &address) ||
        !inet_ntop(address.family, address.bytes, text, sizeof(text)) || strlen(text) >= size)
        return false;
    memcpy(out, text, strlen(text) + 1);
    return true;
}

struct check {
    char *problem;
    size_t size;
};

static int refuse_bad(const char *entry, size_t length, void *context)
{
    struct address address;
    if (parse(entry, length, &address))
        return 0;
    while (length > 0 && *entry == ' ') {
        entry++;
        length--;
    }
    while (length > 0 && entry[length - 1] == ' ')
        length--;
    struct check *check = context;
    snprintf(check->problem, check->size, "'%.*s' is not an IP address",
             (int)(length > 40 ? 40 : length), entry);
    return -1;
}

int proxy_list_check(const char *trusted_list, char *problem, size_t size)
{
    struct check check = {problem, size};
    return each_entry(trusted_list, refuse_bad, &check);
}

/* origin.h -- which web pages may open a websocket to the server.
 *
 * A browser names the page that opens a websocket in the Origin header;
 * other clients (bots, scripts) send none. The `allowed-origins` setting is
 * a comma-separated list of origins (`https://play.example.org`, scheme
 * and host and an optional port, no path) or `*`. A connection is allowed
 * when it has no Origin, when the list is empty (the default: any page),
 * when its Origin is the server's own address as the Host header names it
 * (the page the server itself serves), or when the list names it (compared
 * without regard to case). */
#ifndef TESSERA_ORIGIN_H
#define TESSERA_ORIGIN_H

#include <stdbool.h>
#include <stddef.h>

#define ORIGIN_LIST_SIZE 1024

/* Whether a websocket from `origin` ("" when the header is absent) may
 * open, `host` being the request's Host header ("" when absent). */
bool origin_is_allowed(const char *allow_list, const char *origin, const char *host);

/* Checks a setting's value: 0, or -EINVAL with `problem` naming the bad
 * entry. */
int origin_list_check(const char *allow_list, char *problem, size_t size);

#endif

/* proxy.h -- the player's address behind a reverse proxy.
 *
 * Behind nginx every connection comes from nginx's address, so per-address
 * rules (sign-in failures, the HTTP rate, the logs) would see one client.
 * The `trusted-proxies` setting lists the proxies' addresses (IP literals,
 * comma-separated). For a connection from one of them, the client is the
 * last address of its X-Forwarded-For header -- the one the proxy itself
 * appended ($proxy_add_x_forwarded_for); addresses before it were written
 * by whoever sent the request and are not believed. From anyone else, the
 * header is ignored. The per-address caps on connections (how many open,
 * how many new a second) are applied at accept, before any header, so they
 * cannot see the player: a trusted proxy is exempt from them, and caps
 * each player itself (nginx's limit_conn). */
#ifndef TESSERA_PROXY_H
#define TESSERA_PROXY_H

#include <stdbool.h>
#include <stddef.h>

#define PROXY_LIST_SIZE 512

/* Whether `peer` (an IP literal) is one of the listed proxies. */
bool proxy_is_trusted(const char *trusted_list, const char *peer);

/* The last address of an X-Forwarded-For value into `out` (an IP literal
 * as inet_ntop writes it): true, or false when the last entry is not an IP
 * address (then `out` is untouched). */
bool proxy_forwarded_client(const char *forwarded_for, char *out, size_t size);

/* Checks a setting's value: 0, or -EINVAL with `problem` naming the bad
 * entry. */
int proxy_list_check(const char *trusted_list, char *problem, size_t size);

#endif

/* http_accounts.h -- the REST routes of bot accounts (docs/API.md).
 *
 *   POST   /api/bots              {name, owner?} -> 201 {id, name, owner, key}
 *   POST   /api/bots/{name}/key   -> 200 {id, name, key}: a new key
 *   DELETE /api/bots/{name}/key   -> 200 {id, name, key: null}: revoked
 *   POST   /api/bots/{name}/tournaments -> 200 {id, name, open_to_tournaments: true}
 *   DELETE /api/bots/{name}/tournaments -> 200 {..., open_to_tournaments: false}
 *
 * Every request carries `Authorization: Bearer SECRET`, where SECRET is
 * the server's admin key (config `admin_key`; any bot, any owner) or the
 * session token of a named account (its own bots only). The admin key is
 * compared in constant time; without one configured, only accounts get
 * in. The rules are bot_accounts.h's; these routes add the HTTP. Who asks
 * and the rules read the database on the reader pool, never on the loop,
 * so every answer comes later through the transport (http_accounts_attach),
 * a change's once the store port has stored its record. */
#ifndef TESSERA_HTTP_ACCOUNTS_H
#define TESSERA_HTTP_ACCOUNTS_H

#include "protocol/http_failure.h"
#include "server/http_routes.h"
#include "server/reader_pool.h"
#include "storage/store_port.h"

struct http_accounts;

/* The routes' state: the reader pool who asks and the rules read through
 * (borrowed), the port their records are stored through (copied; its
 * context borrowed), a copy of the admin key ("" for none) and the most
 * bot accounts an account may own. 0 and *out, or -ENOMEM. */
int http_accounts_new(struct reader_pool *readers, const store_port *port, const char *admin_key,
                      int max_bots, struct http_accounts **out);

/* The transport later answers go through (NULL: they are dropped). */
void http_accounts_attach(struct http_accounts *accounts, struct transport *transport);

/* Requests not answered yet (being read, or their records stored). */
int http_accounts_in_flight(const struct http_accounts *accounts);

/* Frees the state; no change may be in flight. NULL is allowed. */
void http_accounts_free(struct http_accounts *accounts);

/* Who sent a request, once known (on the loop, after the route
 * returned): `actor` (0 for the admin key, else the named account whose
 * session token it is) when `is_allowed`; else the refusal (401, 403, or
 * 503 when it could not be read) has been sent already. */
typedef void http_accounts_then(void *context, int64_t actor, bool is_allowed);

/* Finds who sent `request` (its `Authorization: Bearer SECRET`) on the
 * reader pool: 0, the response deferred, and `then` called once later; or
 * HTTP_FAILED with the refusal in `response` (no Bearer; too busy), and
 * `then` is not called. */
int http_accounts_authorize(struct http_accounts *accounts, const transport_http_request *request,
                            transport_http_response *response, http_accounts_then *then,
                            void *context);

/* Registers the routes above on `routes`. 0 or -ENOMEM. */
int http_accounts_add_routes(http_routes *routes, struct http_accounts *accounts);

#endif

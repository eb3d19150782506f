/* http_tournaments.h -- POST /api/tournaments (docs/API.md). */
#ifndef TESSERA_HTTP_TOURNAMENTS_H
#define TESSERA_HTTP_TOURNAMENTS_H

#include "server/http_accounts.h"
#include "server/http_routes.h"

struct lobby;
struct http_tournaments;

/* The route's state: the lobby that runs tournaments and the bot-account
 * routes' authorization (both borrowed). 0, or -ENOMEM. */
int http_tournaments_new(struct lobby *lobby, struct http_accounts *accounts,
                         struct http_tournaments **out);

/* Where answers that come after their route returned go (a store that
 * answers later): called once the transport exists. NULL detaches it
 * (answers coming afterwards are dropped). */
void http_tournaments_attach(struct http_tournaments *tournaments, struct transport *transport);

/* Frees the state. NULL is allowed. */
void http_tournaments_free(struct http_tournaments *tournaments);

/* Registers POST /api/tournaments. 0, or http_routes_add's negative
 * errno. */
int http_tournaments_add_routes(http_routes *routes, struct http_tournaments *tournaments);

#endif

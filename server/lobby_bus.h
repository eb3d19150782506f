/* lobby_bus.h -- the notices instances sharing a PostgreSQL database send
 * each other (docs/ARCHITECTURE.md, "Several instances"), heard on a
 * connection and a thread of their own and handed to the lobby on the
 * loop (lobby_listings_heard). A lost connection is made again; each time
 * it is made, the lobby is told (lobby_listings_connected). */
#ifndef TESSERA_LOBBY_BUS_H
#define TESSERA_LOBBY_BUS_H

#include <uv.h>

struct lobby;
typedef struct lobby_bus lobby_bus;

/* Starts listening on the database of `url` (a postgresql:// address; its
 * server need not be up yet) for `lobby`: 0 and *out, or a negative errno. */
int lobby_bus_start(uv_loop_t *loop, const char *url, struct lobby *lobby, lobby_bus **out);

/* Stops the thread and frees the bus, running the loop until its handle
 * is closed; notices not handed over yet are dropped. NULL is a no-op. */
void lobby_bus_stop(lobby_bus *bus);

#endif

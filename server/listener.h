/* listener.h -- the listening socket, accepted connections handed over.
 *
 * The transport listens itself instead of letting lws do it, for two
 * reasons. lws 4.1 answers a failed accept (EMFILE when the process is out
 * of descriptors) by logging and returning to the loop with the listening
 * socket still polled, so the loop spins at 100% and logs each retry. And
 * owning accept() gives the transport the place to refuse a peer over its
 * per-address limit before lws spends anything on it.
 *
 * When accept fails for want of a resource (descriptors, kernel memory)
 * the listener pauses: it stops polling the socket, so new clients wait in
 * the kernel's backlog, and polls again when told a descriptor was freed
 * (listener_descriptor_freed) or after LISTENER_RETRY_MS, whichever comes
 * first. Each pause is logged, at most one line per second. */
#ifndef TESSERA_LISTENER_H
#define TESSERA_LISTENER_H

#include <stdbool.h>
#include <uv.h>

#define LISTENER_RETRY_MS 250 /* a paused listener tries again after this */

struct listener;

/* Called for each accepted connection: `fd` is non-blocking, close-on-exec
 * and owned by the callee from now on; `peer_address` is its text form (an
 * IPv4-mapped IPv6 address in dotted IPv4 form), borrowed for the call. */
typedef void (*listener_accept_cb)(void *context, int fd, const char *peer_address);

/* Listens on address:port (an IP literal; port 0 picks a free port) and
 * starts accepting on `loop`. 0 and *out, or a negative errno (-EINVAL
 * for an address that is not an IP literal, -EADDRINUSE, ...). */
int listener_new(uv_loop_t *loop, const char *address, int port, listener_accept_cb on_accept,
                 void *context, struct listener **out);

/* The port listened on. */
int listener_port(const struct listener *listener);

/* True while accepting is paused for want of a resource. */
bool listener_is_paused(const struct listener *listener);

/* A descriptor was freed: a paused listener tries accepting again now. */
void listener_descriptor_freed(struct listener *listener);

/* Stops accepting and closes the socket. The memory is freed once the
 * loop has run the close callbacks of its handles. NULL is allowed. */
void listener_free(struct listener *listener);

#endif

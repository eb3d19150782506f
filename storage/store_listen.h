/* store_listen.h -- a connection of its own that hears the notices
 * instances sharing a PostgreSQL database send each other
 * (store_notify, STORE_LOBBY_CHANNEL).
 *
 * It blocks in store_listener_open only; afterwards its socket says when
 * to read. One thread at a time. */
#ifndef TESSERA_STORE_LISTEN_H
#define TESSERA_STORE_LISTEN_H

#include "storage/store.h"

typedef struct store_listener store_listener;

/* Connects to the server of `url` (a postgresql:// address) and listens on
 * STORE_LOBBY_CHANNEL: 0 and *out, or STORE_E_IO (the server cannot be
 * reached; `why`, STORE_WHY_SIZE bytes, says what it said), STORE_E_INVALID
 * (not a PostgreSQL address) or STORE_E_NOMEM. */
int store_listener_open(const char *url, store_listener **out, char *why);

/* The socket to wait on for reading. */
int store_listener_socket(const store_listener *listener);

/* Reads what the socket holds and calls heard(context, notice) for each
 * notice that arrived, in order: 0, or STORE_E_IO once the connection is
 * lost (open another). */
int store_listener_read(store_listener *listener, void (*heard)(void *context, const char *notice),
                        void *context);

void store_listener_close(store_listener *listener);

#endif

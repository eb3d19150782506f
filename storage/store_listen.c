/* store_listen.c -- LISTEN on a connection of its own (store_listen.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "storage/store_listen.h"

struct store_listener {
    PGconn *connection;
};

/* Copies libpq's last words on `connection` into `why`, one line. */
static void note(PGconn *connection, const char *what, char *why)
{
    snprintf(why, STORE_WHY_SIZE, "%s: %s", what,
             connection ? PQerrorMessage(connection) : "out of memory");
    why[strcspn(why, "\n")] = '\0';
}

int store_listener_open(const char *url, store_listener **out, char *why)
{
    *out = NULL;
    why[0] = '\0';
    if (!store_path_is_postgres(url))
        return STORE_E_INVALID;
    store_listener *listener = calloc(1, sizeof(*listener));
    if (!listener)
        return STORE_E_NOMEM;
    listener->connection = PQconnectdb(url);
    if (PQstatus(listener->connection) != CONNECTION_OK) {
        note(listener->connection, "cannot connect", why);
        store_listener_close(listener);
        return STORE_E_IO;
    }
    PGresult *result = PQexec(listener->connection, "LISTEN " STORE_LOBBY_CHANNEL);
    bool is_listening = PQresultStatus(result) == PGRES_COMMAND_OK;
    PQclear(result);
    if (!is_listening || PQsetnonblocking(listener->connection, 1) != 0) {
        note(listener->connection, "cannot listen", why);
        store_listener_close(listener);
        return STORE_E_IO;
    }
    *out = listener;
    return STORE_OK;
}

int store_listener_socket(const store_listener *listener)
{
    return PQsocket(listener->connection);
}

int store_listener_read(store_listener *listener, void (*heard)(void *context, const char *notice),
                        void *context)
{
    if (!PQconsumeInput(listener->connection) || PQstatus(listener->connection) != CONNECTION_OK)
        return STORE_E_IO;
    PGnotify *notice;
    while ((notice = PQnotifies(listener->connection))) {
        heard(context, notice->extra);
        PQfreemem(notice);
    }
    return STORE_OK;
}

void store_listener_close(store_listener *listener)
{
    if (!listener)
        return;
    PQfinish(listener->connection);
    free(listener);
}

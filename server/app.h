/* app.h -- the running server: storage, lobby and transport wired together.
 *
 * cli/cmd_serve.c owns the loop, the configuration and the signals; the struct app
 * owns the database and the lobby and answers the transport's callbacks.
 * The order of life: app_new (opens the database, rebuilds unfinished
 * games), transport_new with app_transport_callbacks, app_attach, the loop
 * runs; on a signal app_shutdown (tells clients), transport_shutdown,
 * app_free (closes the database). */
#ifndef TESSERA_APP_H
#define TESSERA_APP_H

#include <uv.h>

#include "server/config.h"
#include "server/transport.h"

struct app;

/* Opens the database at config->db_path and restores unfinished games.
 * 0 and *out, or a negative code after logging why. */
int app_new(uv_loop_t *loop, const server_config *config, struct app **out);

/* The callbacks to give transport_new; their context is the app. */
transport_callbacks app_transport_callbacks(struct app *app);

/* Lets the app send: called once, right after transport_new succeeded. */
void app_attach(struct app *app, struct transport *transport);

/* Tells every client the server is going down and stops starting work
 * (bots, timers). Moves already committed stay committed. */
void app_shutdown(struct app *app);

/* Closes the database and frees everything. */
void app_free(struct app *app);

#endif

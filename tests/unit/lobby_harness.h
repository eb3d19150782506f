/* lobby_harness.h -- a lobby on the fake host (fake_host.h) and a real
 * SQLite file, behind the fault store (fault_store.h), with what the lobby
 * tests say and look at.
 *
 * harness_start opens a fresh database file and a lobby on it;
 * harness_restart is the process dying and coming back on the same file;
 * harness_stop runs what jobs are left, frees everything and removes the
 * files. `say` sends a message as a connection; `last` finds the last
 * message of a type a connection received. */
#ifndef TESSERA_LOBBY_HARNESS_H
#define TESSERA_LOBBY_HARNESS_H

#include <jansson.h>
#include <stdint.h>

#include "lobby/lobby.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/fault_store.h"

extern store *db;
extern store_port port;
extern struct lobby *lob;

/* A database named after `name` and a lobby of `config` on it; the fake
 * host's randomness comes from `seed`. */
void harness_start(const char *name, uint64_t seed, const lobby_config *config);

/* The server stops (bot jobs finish, cancelled) and starts again: a new
 * lobby of `config` on the same database, which must restore `expected`
 * games. */
void harness_restart(const lobby_config *config, int expected);

void harness_stop(void);

/* Sends a printf-formatted message as `connection`. */
void say(uint64_t connection, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The last message of `type` `connection` received (borrowed), or NULL. */
json_t *last(uint64_t connection, const char *type);

/* Sends a message that must be refused with error `code`. */
void say_refused(uint64_t connection, const char *code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* How many messages of `type` `connection` received. */
int count(uint64_t connection, const char *type);

/* The code of the last error `connection` received, "" if none. */
const char *last_error_code(uint64_t connection);

/* One number from the test's database, through the lobby's connection. */
int64_t stored_integer(const char *sql);

/* Runs SQL on the test's database (to set up what no message can). */
void stored_execute(const char *sql);

#endif

/* store_writer.h -- the store port on threads of their own: the server's
 * commits leave the loop.
 *
 * A batch submitted on the loop is stored by a writer thread on its own
 * connection (store_batch_apply: one transaction per batch), and its
 * `done` runs later on the loop, woken by a uv_async_t. So the loop never
 * waits for the database or the disk while a move is committed, and a
 * move is still published only once it is stored (docs/ARCHITECTURE.md,
 * "The store port"). SQLite has one writer connection, which stores the
 * batches in the order submitted; PostgreSQL may have several, which store
 * rooms' batches at once, each batch after those its order names
 * (store_port.h, store_order; writer_queue.h), so one room's slow commit
 * holds up no other room. */
#ifndef TESSERA_STORE_WRITER_H
#define TESSERA_STORE_WRITER_H

#include <uv.h>

#include "storage/store.h"
#include "storage/store_port.h"

/* At most this many writer connections. */
#define STORE_WRITER_CONNECTIONS_MAX 32

typedef struct store_writer store_writer;

/* Starts a writer on `loop` that owns the `count` connections to one
 * database (1 .. STORE_WRITER_CONNECTIONS_MAX) and `checkpointer` from now
 * on, closed by store_writer_close: a thread stores on each. They no
 * longer checkpoint the WAL themselves: a second thread does, on
 * `checkpointer`, every 200 ms, so no commit waits for the copying and the
 * syncing. `checkpointer` is NULL for a database that checkpoints on its
 * own (PostgreSQL); a SQLite file has one writer connection. 0, or a store
 * error when it cannot start (all of them are then still the caller's). */
int store_writer_start(uv_loop_t *loop, store *const *connections, int count, store *checkpointer,
                       store_writer **out);

/* The writer's port: submit never blocks on the database; `done` always
 * runs later, on the loop. */
store_port store_writer_port(store_writer *writer);

/* Hands the threads what was submitted since the last hand-over now,
 * rather than just before the loop next polls (which it still does for
 * whatever is submitted later). */
void store_writer_hand_over(store_writer *writer);

/* 0, or STORE_E_IO when the last group or ping (of any connection) could
 * not reach the database (a database server: an idle connection asks
 * every 5 s). */
int store_writer_reach(store_writer *writer);

/* The writer connections' figures, summed (/metrics). */
void store_writer_figures(store_writer *writer, store_figures *out);

/* Waits until every batch submitted so far, and every batch their
 * answers submit in turn, is stored and answered: for shutdown, before
 * the lobby that waits on the answers is freed. */
void store_writer_flush(store_writer *writer);

/* Flushes, stops the threads, closes the connections and the loop
 * handles, and frees the writer; it runs `loop` until the handles are
 * closed.
 * NULL is a no-op. */
void store_writer_close(store_writer *writer);

#endif

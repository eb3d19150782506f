/* store_writer.h -- the store port on a thread of its own: the server's
 * commits leave the loop.
 *
 * A batch submitted on the loop is stored by the writer thread on its own
 * SQLite connection (store_batch_apply: one transaction per batch, in the
 * order submitted), and its `done` runs later on the loop, woken by a
 * uv_async_t. So the loop never waits for SQLite or the disk while a move
 * is committed, and a move is still published only once it is stored
 * (docs/ARCHITECTURE.md, "The store port"). */
#ifndef TESSERA_STORE_WRITER_H
#define TESSERA_STORE_WRITER_H

#include <uv.h>

#include "storage/store.h"
#include "storage/store_port.h"

typedef struct store_writer store_writer;

/* Starts a writer on `loop` that owns `db` and `checkpointer` (two
 * connections to the same database) from now on, closed by
 * store_writer_close. The writer commits on `db`, which no longer
 * checkpoints the WAL itself: a second thread does, on `checkpointer`,
 * every 200 ms, so no commit waits for the copying and the syncing.
 * `checkpointer` is NULL for a database that checkpoints on its own
 * (PostgreSQL). 0, or a store error when it cannot start (both are then
 * still the caller's). */
int store_writer_start(uv_loop_t *loop, store *db, store *checkpointer, store_writer **out);

/* The writer's port: submit never blocks on SQLite; `done` always runs
 * later, on the loop. */
store_port store_writer_port(store_writer *writer);

/* Hands the thread what was submitted since the last hand-over now,
 * rather than just before the loop next polls (which it still does for
 * whatever is submitted later). */
void store_writer_hand_over(store_writer *writer);

/* 0, or STORE_E_IO when the last batch or ping could not reach the
 * database (a database server: an idle writer asks every 5 s). */
int store_writer_reach(store_writer *writer);

/* A copy of the writer connection's figures (/metrics). */
void store_writer_figures(store_writer *writer, store_figures *out);

/* Waits until every batch submitted so far, and every batch their
 * answers submit in turn, is stored and answered: for shutdown, before
 * the lobby that waits on the answers is freed. */
void store_writer_flush(store_writer *writer);

/* Flushes, stops the thread, closes the connection and the loop handle,
 * and frees the writer; it runs `loop` until the handle is closed.
 * NULL is a no-op. */
void store_writer_close(store_writer *writer);

#endif

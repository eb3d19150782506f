/* store_migrate.h -- a SQLite database copied into a new PostgreSQL one
 * (`tessera migrate`). */
#ifndef TESSERA_STORE_MIGRATE_H
#define TESSERA_STORE_MIGRATE_H

#include <stddef.h>
#include <stdint.h>

typedef struct store_migrate_report {
    int tables;       /* tables copied */
    int64_t rows;     /* rows copied, every table */
    int64_t games;    /* of which games */
    int64_t moves;    /* and moves */
    double elapsed_s; /* the whole copy */
} store_migrate_report;

/* Copies every row of the SQLite database `from` into the PostgreSQL
 * database `to` (a postgresql:// URL), which must hold no tessera data yet
 * (its schema is made if it is new). `from` is opened as the server opens
 * it, so an older file is brought to this version first; it is read in one
 * transaction (a consistent copy, even while a server writes it) and `to`
 * is written in one (all or nothing). Ids, the history's page-cursor key
 * and the id sequences carry over, so page cursors, game links and new
 * rows go on as before. 0 and *report, or a store_error with what went
 * wrong in `problem` (`size` bytes). */
int store_migrate(const char *from, const char *to, store_migrate_report *report, char *problem,
                  size_t size);

#endif

/* store_backup.h -- a consistent copy of a live database, for `tessera
 * backup`. */
#ifndef TESSERA_STORE_BACKUP_H
#define TESSERA_STORE_BACKUP_H

#include <stdint.h>

typedef struct store_backup_report {
    int64_t pages; /* pages copied */
    int64_t bytes; /* the copy's size */
    int64_t games; /* games in the copy */
    int64_t moves; /* moves in the copy */
} store_backup_report;

/* Copies the database at `source_path` into the new file `target_path` with
 * SQLite's online backup API, while a server keeps reading and writing the
 * source: the copy is the database as one read transaction saw it, which
 * in WAL mode never blocks the server's writes. The copy is written beside
 * the target as TARGET.partial, checked (PRAGMA integrity_check), synced and
 * only then linked to its name, so `target_path` never holds a half copy.
 * STORE_OK; STORE_E_CONSTRAINT when the target already exists (a backup
 * never overwrites); STORE_E_NOT_FOUND when there is no source;
 * STORE_E_CORRUPT when the copy fails its check; else the storage error.
 * `problem` (may be NULL) gets one sentence on failure. */
int store_backup(const char *source_path, const char *target_path, store_backup_report *report,
                 char *problem, int problem_size);

#endif

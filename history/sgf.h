/* sgf.h -- a stored Blokus game as the SGF file the Pentobi program reads.
 *
 * Part of the history read model: it reads a stored game record and plays
 * it through the lobby's rules (lobby/rebuild.h), never a running lobby. */
#ifndef TESSERA_SGF_H
#define TESSERA_SGF_H

#include <stddef.h>

#include "storage/store.h"

/* The stored Blokus game `record` as Pentobi's SGF (a malloc'd text in
 * *out, the caller frees it): 0, or -1 with `problem` saying why not (not
 * Blokus, never started, does not replay). */
int sgf_export(const struct store_game_record *record, char **out, char *problem, size_t size);

#endif

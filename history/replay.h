/* replay.h -- a stored game as the plies a viewer redraws it from.
 *
 * Part of the history read model: it reads a stored game record and plays
 * it through the lobby's rules (lobby/rebuild.h), never a running lobby. */
#ifndef TESSERA_REPLAY_H
#define TESSERA_REPLAY_H

#include <stddef.h>

#include <jansson.h>

#include "storage/store.h"

/* The stored game `record` (Blokus or Reef, once started) replayed through
 * the rules, as {"board": {"rows","cols"}, "plies": [...]}: each move with
 * its seq, ply, seat, action, the cells it covered, every seat's score
 * after it and its time; each resignation as {"seat","resign":true,...}.
 * 0 and *out (a new reference), or -1 with `problem` saying why not. */
int replay_export(const struct store_game_record *record, json_t **out, char *problem, size_t size);

#endif

/* replay.h -- a stored game as the plies a viewer redraws it from.
 *
 * Part of the history read model: it reads a stored game record and plays
 * it through the lobby's rules (lobby/rebuild.h), never a running lobby. */
#ifndef TESSERA_REPLAY_H
#define TESSERA_REPLAY_H

#include <stddef.h>

#include "protocol/json_out.h"
#include "storage/store.h"

/* The stored game `record` (Blokus or Reef, once started) replayed through
 * the rules, appended to `out` as the members `,"board":{"rows","cols"}`
 * and `,"plies":[...]`: each move with its ply, seat, action, the cells it
 * covered, every seat's score after it, what it did, and its seq and times;
 * each resignation as {"seat","resign":true,...}. 0, or -1 with `problem`
 * saying why not (what was appended is then not a replay). Running out of
 * memory fails the writer (json_out.h). */
int replay_write(const struct store_game_record *record, json_out *out, char *problem, size_t size);

#endif

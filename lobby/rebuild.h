/* rebuild.h -- a stored game replayed through the rules.
 *
 * A game's records (its options, its seats, its start and its move log)
 * are fed to match_apply as the events they first were, so a rebuilt
 * match went through exactly the checks a live one did: a damaged or
 * forged log does not replay. The restart of an unfinished game and
 * `tessera replay verify` both go this way. */
#ifndef TESSERA_REBUILD_H
#define TESSERA_REBUILD_H

#include "lobby/match.h"
#include "storage/store.h"

/* Rebuilds the match of `record` (a game that started): 0 and *out, or a
 * failure saying which record does not replay. */
int rebuild_match(const store_game_record *record, const match_config *config, match *out,
                  protocol_failure *failure);

#endif

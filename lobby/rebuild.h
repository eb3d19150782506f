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

/* The settings a replay outside a running lobby uses (the defaults: only
 * the stored moves matter, not the clocks of the moment). */
match_config rebuild_default_config(void);

/* Called for every move the replay plays (passes included) with what
 * game.moved would say of it, and for every resignation (game.resigned);
 * `stored` is the log entry being replayed, `after` the match once it is
 * applied. */
typedef void (*rebuild_visitor)(void *context, const match_publish *publish,
                                const store_move *stored, const match *after);

/* Rebuilds the match of `record` (a game that started): 0 and *out, or a
 * failure saying which record does not replay. `visit` (NULL: none) sees
 * each move on the way. */
int rebuild_match(const store_game_record *record, const match_config *config, match *out,
                  rebuild_visitor visit, void *context, protocol_failure *failure);

#endif

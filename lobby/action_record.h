/* action_record.h -- the stored form of a seat's action, in one place.
 *
 * Each entry of a game's move log holds one action as compact JSON text:
 * a move exactly as game.moved shows it (game_move_json: a Blokus
 * placement {piece, orientation, row, col} or {"pass":true}, a Reef action
 * {"type":"place",...} or {"type":"skip"}), {"resign":true}, or
 * {"leave":true}. The live room writes it, a restart reads it back, and so
 * will replays: nothing else knows the format. */
#ifndef TESSERA_ACTION_RECORD_H
#define TESSERA_ACTION_RECORD_H

#include "lobby/match.h"

/* The stored text of `action` in game `position` (malloc'd; the caller frees it),
 * or NULL when out of memory. */
char *action_record_text(const game *position, const match_action *action);

/* Reads a stored action of `seat`: 0 and *out, or -1 when the text is not
 * one. A move is read for its shape only; match_apply checks the rules. */
int action_record_parse(const game *position, int seat, const char *text, match_action *out);

#endif

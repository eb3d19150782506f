/* action_record.h -- the stored form of a seat's action, in one place.
 *
 * Each entry of a game's move log holds one action as a short text of its
 * own, apart from the wire's JSON (game.moved, replays and the Reef API
 * show protocol/game_json.h's form; that may grow, this does not):
 *
 *     Blokus placement   <piece> <orientation> <row> <col>    "F 3 4 5"
 *     Blokus pass        pass
 *     Reef placement     <row> <col> <orientation>            "4 3 90"
 *     Reef skip          skip
 *     resignation        resign
 *     leaving mid-game   leave
 *
 * <piece> is the piece's standard name ("I1", "V3", "F", ...: engine/
 * blokus.h), the numbers are decimal integers (a minus sign when negative,
 * no plus sign, no leading zeros), and the words are separated by exactly
 * one space with none before or after. Each action has exactly one
 * spelling, and a text that is not that spelling is not a record. A text
 * is read for the room's game: the shapes of the two games never overlap,
 * but a Reef log never holds a Blokus text or the other way round. There
 * is no version mark: the format changes only with a schema migration
 * (storage/store_schema.c; version 7 converted the JSON that earlier
 * versions stored). The live room writes it, and a restart, a replay, an
 * SGF export and `tessera replay verify` read it back through here:
 * nothing else knows the format. */
#ifndef TESSERA_ACTION_RECORD_H
#define TESSERA_ACTION_RECORD_H

#include "lobby/match.h"

/* The longest text an action is stored as, its NUL included. */
#define ACTION_RECORD_TEXT_MAX 40

/* Writes the stored text of `action` into `text`, ACTION_RECORD_TEXT_MAX
 * bytes. The action is one the rules accepted (a Blokus move names a real
 * piece or is a pass). */
void action_record_write(const match_action *action, char *text);

/* Reads a stored action of a game of `kind`: 0 and *out, or -1 when the
 * text is not one. A move is read for its shape only; match_apply checks
 * the rules. */
int action_record_parse(game_kind kind, const char *text, match_action *out);

#endif

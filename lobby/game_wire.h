/* game_wire.h -- the games as the wire shows them, apart from their rules.
 *
 * game.h is the rules, with no JSON; this module is every JSON view of a
 * game the lobby sends or keeps: the options (room.create's settings in,
 * the object rooms show and games store out), a player's game.state, the
 * legal moves of game.moves, and what a move did for game.moved. It reads
 * the position through game.h and writes through protocol/game_json.h,
 * dispatching on the game's kind. A move itself is protocol/game_json.h's
 * (game_json_action in, game_json_move out). */
#ifndef TESSERA_GAME_WIRE_H
#define TESSERA_GAME_WIRE_H

#include <jansson.h>

#include "lobby/game.h"
#include "protocol/json_out.h"
#include "protocol/protocol.h"

/* Validates room.create's game settings: 0 and *out, or a failure naming
 * the bad field. `default_seed` is used when none was given. */
int game_wire_options_parse(const protocol_room_create *create, uint64_t default_seed,
                            game_options *out, protocol_failure *failure);

/* The options of a room of `game_name` and `mode` with no other setting
 * than `seed`: the game's defaults (quick play, tests, generated games).
 * 0 and *out, or a failure naming the unknown game or mode. */
int game_wire_options_default(const char *game_name, const char *mode, uint64_t seed,
                              game_options *out, protocol_failure *failure);

/* Appends the options as the JSON object rooms show and games store. */
void game_wire_write_options(const game_options *options, json_out *out);

/* The same object as a tree (read back from game_wire_write_options' text,
 * so the object is defined once). New ref, or NULL out of memory. */
json_t *game_wire_options_json(const game_options *options);

/* Reads back game_wire_options_json's object (stored games). 0 or -1. */
int game_wire_options_from_json(const json_t *json, const char *game_name, const char *mode,
                                game_options *out);

/* Appends the game's fields of game.state, each as `,"key":value`, as
 * everyone sees them. */
void game_wire_write_state(const game *position, json_out *out);

/* Whether `seat`'s game.state has hints: in Blokus, the seat to move. */
bool game_wire_has_hints(const game *position, int seat);

/* Appends `,"hints":` the Botpot-style hints of the seat to move. */
void game_wire_write_hints(const game *position, json_out *out);

/* Appends every legal move of `seat` right now, as a JSON array. */
void game_wire_write_legal_moves(const game *position, int seat, json_out *out);

/* Appends what a move did (Blokus: `,"color":` the color that moved; Reef:
 * `,"result":` the placement's), as game.moved and a replay's ply say it. */
void game_wire_write_outcome(const game *position, const game_outcome *outcome, json_out *out);

/* Appends a game.moved event's `,"action":` and what the move did (Blokus:
 * `,"color":` the color that moved; Reef: `,"result":` the placement's). */
void game_wire_write_move(const game *position, game_move move, const game_outcome *outcome,
                          json_out *out);

#endif

/* game_json.h -- the games on the wire: engine states and actions as JSON.
 *
 * The lobby broadcasts moves as JSON and the stateless Reef API speaks
 * JSON; both use these codecs so a move looks the same in a websocket
 * event, a replay and an HTTP response. (The move log stores moves in a
 * text of its own, lobby/action_record.h.)
 *
 * Blokus boards are `size` strings of `size` characters, row 0 first:
 * '.' empty, '0'..'3' the color covering the cell. A Blokus action is
 * {piece, orientation, row, col} (piece by name, e.g. "F", or index 0-20) or
 * {cells: [[row, col], ...]}; it is always echoed in the first form. Reef
 * boards are 8 strings of 6 characters ('.', R, B, G, Y, P) and actions are
 * the public game's {type:"place", row, col, orientation} and
 * {type:"skip"}. A game.move's action is read as either game's by its shape
 * (game_json_action): the Reef grammar always has a `type`, the Blokus one
 * never does. A 64-bit seed is a JSON integer up to 2^63-1 and a decimal
 * string beyond, and is read back in either form. */
#ifndef TESSERA_GAME_JSON_H
#define TESSERA_GAME_JSON_H

#include <jansson.h>

#include "engine/blokus.h"
#include "engine/game_move.h"
#include "engine/reef.h"
#include "protocol/json_out.h"
#include "protocol/protocol.h"

/* Decodes a game.move's action: an object with a `type` field as a Reef
 * action (game_json_reef_action), anything else as a Blokus one
 * (game_json_blokus_action), with their refusals. Which game the room
 * plays is not known here: the lobby checks the move's kind. */
int game_json_action(const json_t *action, game_move *out, protocol_failure *failure);

/* A move of either game as game.moved shows it (game_json_blokus_move or
 * game_json_reef_action_value). New reference. */
json_t *game_json_move(game_move move);

/* Decodes a Blokus action. 0, or PROTOCOL_E_BAD_MESSAGE with *failure
 * explaining the shape problem, or PROTOCOL_E_ILLEGAL_MOVE (not_a_piece)
 * for cells that form no piece; other legality is the engine's business. */
int game_json_blokus_action(const json_t *action, blokus_move *out, protocol_failure *failure);

/* {piece, orientation, row, col} of a placement, or {pass: true}. New ref. */
json_t *game_json_blokus_move(blokus_move move);

/* Appends game_json_blokus_move(move) without a jansson tree (game.moved
 * goes out after every move). */
void game_json_write_blokus_move(json_out *writer, blokus_move move);

/* Appends game_json_move(move): a Blokus move without a tree. */
void game_json_write_move(json_out *writer, game_move move);

/* The parts of game.state sent after every move are written directly
 * (json_out.h): through jansson objects they cost more than the move.
 *
 * The board as strings (see above). */
void game_json_write_blokus_board(json_out *writer, const blokus_state *state);

/* Per color: remaining piece names. */
void game_json_write_blokus_pieces_left(json_out *writer, const blokus_state *state);

/* Botpot-style hints for `color`: {attach: [[r,c]...], unavailable: [[r,c]...]}. */
void game_json_write_blokus_hints(json_out *writer, const blokus_state *state, int color);

/* Every legal placement of the color to move, as a JSON array of
 * game_json_blokus_move objects. */
void game_json_write_blokus_legal_moves(json_out *writer, const blokus_state *state);

/* The same list as a text the caller frees; NULL on out of memory. */
char *game_json_blokus_legal_moves_text(const blokus_state *state);

/* The 91 orientations, each {id, piece, orientation, size, cells, sides,
 * corners}, cells/sides/corners as [row, col] offsets from the
 * orientation's origin (Botpot's ref_data). New reference. */
json_t *game_json_blokus_orientations(void);

/* Decodes a Reef action (the public action grammar, nothing else). */
int game_json_reef_action(const json_t *action, reef_action *out, protocol_failure *failure);

/* The action as the public grammar writes it. New reference. */
json_t *game_json_reef_action_value(reef_action action);

/* The Reef board as 8 strings. New reference. */
json_t *game_json_reef_board(const reef_state *state);

/* {a, b} color letters of a piece. New reference. */
json_t *game_json_reef_piece(reef_piece piece);

/* The legal actions in engine order (placements, then skip). */
json_t *game_json_reef_legal_actions(const reef_state *state);

/* What a Reef action did: {points, blooms: [{color, size, cells: [[row,
 * col], ...]}]}, blooms anchor's group first, cells row-major. New ref. */
json_t *game_json_reef_result(const reef_result *result);

/* A 64-bit seed: a JSON integer up to 2^63-1, a decimal string beyond it
 * (larger JSON numbers lose precision in most clients). New reference. */
json_t *game_json_seed_value(uint64_t seed);

/* Appends the same seed as game_json_seed_value's JSON. */
void game_json_write_seed(uint64_t seed, json_out *out);

/* Reads a seed written either way (an integer >= 0, or a string of decimal
 * digits up to 2^64-1). 0, or PROTOCOL_E_BAD_MESSAGE naming `name`. */
int game_json_seed(const json_t *value, const char *name, uint64_t *out, protocol_failure *failure);

/* Parses `length` bytes of decimal digits (no sign, no spaces, not empty)
 * as a seed up to 2^64-1: 0, or PROTOCOL_E_BAD_MESSAGE (no failure text). */
int game_json_seed_text(const char *text, size_t length, uint64_t *out);

#endif

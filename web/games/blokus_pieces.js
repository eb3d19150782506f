// blokus_pieces.js -- the piece table, fetched once per page load from
// GET /api/games/blokus/pieces (the engine's own constant tables) and
// shared by every Blokus view; see blokus_rules.js for its shape.
import { getJson } from "../net.js";
import { buildPieces } from "./blokus_rules.js";

let pieces = null;

export function loadPieces() {
  if (!pieces) {
    pieces = getJson("/api/games/blokus/pieces").then(buildPieces);
    pieces.catch(() => { pieces = null; }); /* a failed fetch is retried by the next view */
  }
  return pieces;
}

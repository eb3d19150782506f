// blokus_pieces.js -- the Blokus piece geometry, shared by every view that
// turns a move into board cells (the replay viewer, play and spectating;
// blokus_rules.js builds the play view's rotate/flip tables from `entries`).
//
// The table is the server's own (GET /api/games/blokus/pieces, the engine's
// constant tables): one entry per orientation, {id, piece, orientation,
// size, cells, sides, corners}, offsets from the orientation's origin (the
// top-left of its bounding box). It is fetched once per page load.
//
//   const pieces = await loadBlokusPieces(getJson);
//   pieces.orientations("F")            -> the 8 entries of F, by index
//   pieces.cellsOf({piece, orientation, row, col}) -> [[row, col], ...]

/* The 21 pieces in the protocol's order (a piece may be named by index). */
export const PIECE_NAMES = ["I1", "I2", "I3", "V3", "I4", "L4", "T4", "O4", "Z4", "F", "I5",
  "L5", "N", "P", "T5", "U", "V5", "W", "X", "Y", "Z5"];

let loading = null;

export class BlokusPieces {
  constructor(entries) {
    this.entries = entries;
    this.byPiece = new Map(PIECE_NAMES.map((name) => [name, []]));
    for (const entry of entries) this.byPiece.get(entry.piece)[entry.orientation] = entry;
  }

  /* Every orientation of `piece` (a name or an index 0-20), by index. */
  orientations(piece) {
    const name = typeof piece === "number" ? PIECE_NAMES[piece] : piece;
    const list = this.byPiece.get(name);
    if (!list) throw new Error(`no Blokus piece ${piece}`);
    return list;
  }

  /* The board cells a placement covers; [] for a pass. */
  cellsOf(action) {
    if (action.pass) return [];
    const entry = this.orientations(action.piece)[action.orientation];
    if (!entry) throw new Error(`piece ${action.piece} has no orientation ${action.orientation}`);
    return entry.cells.map(([row, col]) => [action.row + row, action.col + col]);
  }
}

/* The table, fetched once (later calls share the first answer). */
export function loadBlokusPieces(getJson) {
  if (!loading) {
    loading = getJson("/api/games/blokus/pieces").then((entries) => new BlokusPieces(entries));
    loading.catch(() => { loading = null; }); /* a failed fetch may be retried */
  }
  return loading;
}

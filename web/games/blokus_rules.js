// blokus_rules.js -- the Blokus rules the client needs to preview a move:
// the orientation table of GET /api/games/blokus/pieces turned into pieces
// that rotate and flip, and the legality of a placement with the engine's
// reason names and sentences (docs/PROTOCOL.md, "Engine reasons"). The
// server stays the judge; this only lets the preview say "illegal: why"
// before a click. Pure functions, no DOM: the browser tests import it too.
import { blokusStarts } from "./boards.js";

/* The engine's sentences, by reason (PROTOCOL.md section 8). */
export const REASONS = {
  piece_used: "that piece has already been placed by this color",
  out_of_bounds: "the placement does not fit inside the board",
  occupied: "a target cell is already occupied",
  not_on_start: "the first piece of a color must cover its start cell",
  edge_contact: "a piece may not touch a piece of its own color along an edge",
  no_corner_contact: "a piece must touch a piece of its own color at a corner",
};

const shapeKey = (cells) => cells.map(([r, c]) => `${r},${c}`).sort().join(" ");

function normalized(cells) {
  const top = Math.min(...cells.map(([r]) => r));
  const left = Math.min(...cells.map(([, c]) => c));
  return cells.map(([r, c]) => [r - top, c - left]);
}

/* The cell of an orientation nearest its bounding box's centre: where the
 * pointer holds the piece. */
function anchorOf(cells) {
  const middleRow = Math.max(...cells.map(([r]) => r)) / 2;
  const middleCol = Math.max(...cells.map(([, c]) => c)) / 2;
  const distance = ([r, c]) => (r - middleRow) ** 2 + (c - middleCol) ** 2;
  return cells.reduce((best, cell) => (distance(cell) < distance(best) ? cell : best));
}

/* The pieces, in piece order: [{name, size, orientations: [{cells,
 * anchor}], rotate: [index after a quarter turn clockwise], flip: [index
 * after a left-right mirror]}], from the server's orientation table. */
export function buildPieces(table) {
  const pieces = new Map();
  for (const entry of table) {
    if (!pieces.has(entry.piece)) pieces.set(entry.piece, { name: entry.piece, size: entry.size, orientations: [] });
    pieces.get(entry.piece).orientations[entry.orientation] = { cells: entry.cells, anchor: anchorOf(entry.cells) };
  }
  for (const piece of pieces.values()) {
    const indexOf = new Map(piece.orientations.map((o, index) => [shapeKey(o.cells), index]));
    piece.rotate = piece.orientations.map((o) => indexOf.get(shapeKey(normalized(o.cells.map(([r, c]) => [c, -r])))));
    piece.flip = piece.orientations.map((o) => indexOf.get(shapeKey(normalized(o.cells.map(([r, c]) => [r, -c])))));
  }
  return [...pieces.values()];
}

/* The board cells a placement covers when the anchor sits on (row, col);
 * and its origin, the top-left the protocol's action names. */
export function placementAt(orientation, row, col) {
  const origin = [row - orientation.anchor[0], col - orientation.anchor[1]];
  return { origin, cells: orientation.cells.map(([r, c]) => [origin[0] + r, origin[1] + c]) };
}

/* Why placing `cells` for `color` on `board` (the protocol's rows) is
 * illegal, as the engine's reason name, or null when it is legal.
 * `piecesLeft` is that color's unplaced piece names. */
export function placementProblem(board, color, pieceName, piecesLeft, cells) {
  const size = board.length;
  const own = String(color);
  const isOwn = (r, c) => r >= 0 && c >= 0 && r < size && c < size && board[r][c] === own;
  if (!piecesLeft.includes(pieceName)) return "piece_used";
  if (cells.some(([r, c]) => r < 0 || c < 0 || r >= size || c >= size)) return "out_of_bounds";
  if (cells.some(([r, c]) => board[r][c] !== ".")) return "occupied";
  const isFirst = piecesLeft.length === 21;
  if (isFirst) {
    const [startRow, startCol] = blokusStarts(size)[color];
    return cells.some(([r, c]) => r === startRow && c === startCol) ? null : "not_on_start";
  }
  if (cells.some(([r, c]) => isOwn(r - 1, c) || isOwn(r + 1, c) || isOwn(r, c - 1) || isOwn(r, c + 1))) return "edge_contact";
  const touchesCorner = cells.some(([r, c]) => isOwn(r - 1, c - 1) || isOwn(r - 1, c + 1) || isOwn(r + 1, c - 1) || isOwn(r + 1, c + 1));
  return touchesCorner ? null : "no_corner_contact";
}

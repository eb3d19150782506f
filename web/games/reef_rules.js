// reef_rules.js -- the little of Reef Builder's rules the browser needs to
// preview a placement before the server judges it: where half B lands for
// an orientation, whether both cells are free (with the engine's reason
// names), and the streak multiplier. The server stays the only judge; these
// only decide how a preview is drawn.

export const REEF_ROWS = 8;
export const REEF_COLS = 6;

/* Orientation -> the offset of half B from half A (protocol section 6). */
const PARTNER_OFFSETS = { 0: [0, 1], 90: [1, 0], 180: [0, -1], 270: [-1, 0] };
export const ORIENTATIONS = [0, 90, 180, 270];
const ORIENTATION_WORDS = { 0: "right of", 90: "below", 180: "left of", 270: "above" };
const ORIENTATION_ARROWS = { 0: "→", 90: "↓", 180: "←", 270: "↑" };
const MULTIPLIERS = [1, 1.5, 2, 2.5, 3];

/* The engine's reasons for a refused placement, in words for a preview. */
const PROBLEMS = {
  out_of_bounds: "does not fit inside the reef",
  occupied: "a target cell is already taken",
};

export function nextOrientation(orientation) {
  return ORIENTATIONS[(ORIENTATIONS.indexOf(orientation) + 1) % ORIENTATIONS.length];
}

export function orientationLabel(orientation) {
  return `${ORIENTATION_ARROWS[orientation]} B ${ORIENTATION_WORDS[orientation]} A`;
}

/* The two cells [[rowA, colA], [rowB, colB]] a placement covers. */
export function placementCells(row, col, orientation) {
  const [rowStep, colStep] = PARTNER_OFFSETS[orientation];
  return [[row, col], [row + rowStep, col + colStep]];
}

function isInside([row, col]) {
  return row >= 0 && row < REEF_ROWS && col >= 0 && col < REEF_COLS;
}

/* Why the placement would be refused, as {reason, text}, or null if it fits. */
export function placementProblem(rows, row, col, orientation) {
  const cells = placementCells(row, col, orientation);
  if (!cells.every(isInside)) return { reason: "out_of_bounds", text: PROBLEMS.out_of_bounds };
  if (cells.some(([r, c]) => rows[r][c] !== ".")) return { reason: "occupied", text: PROBLEMS.occupied };
  return null;
}

/* The cells of a placement that lie on the board, each with its piece letter. */
export function placedLetters(piece, row, col, orientation) {
  const [cellA, cellB] = placementCells(row, col, orientation);
  return [[cellA, piece.a], [cellB, piece.b]].filter(([cell]) => isInside(cell));
}

/* The multiplier a bloom would earn now: from the streak before the placement. */
export function streakMultiplier(streak) {
  return MULTIPLIERS[Math.min(streak, MULTIPLIERS.length - 1)];
}

/* The board after placing: a copy of rows with the piece's letters written in. */
export function withPiece(rows, piece, row, col, orientation) {
  const grid = rows.map((line) => line.split(""));
  for (const [[r, c], letter] of placedLetters(piece, row, col, orientation)) grid[r][c] = letter;
  return grid.map((line) => line.join(""));
}

/* A piece as the rows drawReef draws: its two halves side by side or
 * stacked, B on the side of A that the orientation names. */
export function pieceRows(piece, orientation) {
  const layouts = {
    0: [piece.a + piece.b],
    90: [piece.a, piece.b],
    180: [piece.b + piece.a],
    270: [piece.b, piece.a],
  };
  return layouts[orientation];
}

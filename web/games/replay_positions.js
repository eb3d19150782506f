// replay_positions.js -- every position of a stored game, rebuilt in the
// browser from the moves of GET /api/games/{id}/replay.
//
// Position k is the game after its first k log entries (0: the empty
// board). Each is {boards: [{seat, rows}], highlight, scores}: one board
// for Blokus (seat null), one per seat for Reef (a race has several), the
// cells the k-th entry placed (on the board of highlightSeat), and every
// seat's score after it (null at 0).
//
// Blokus placements are turned into cells with the engine's piece table
// (blokus_pieces.js), from the action alone. Reef plies carry the two cells
// placed and the blooms they caused: paint the cells, then empty the blooms.
// A resignation changes no board.

function emptyRows(rowCount, colCount) {
  return Array.from({ length: rowCount }, () => ".".repeat(colCount));
}

/* `rows` with each [row, col] set to `letter`: a new array, rows untouched. */
function paint(rows, cells, letterOf) {
  const grid = rows.map((row) => row.split(""));
  cells.forEach((cell, index) => { grid[cell[0]][cell[1]] = letterOf(cell, index); });
  return grid.map((row) => row.join(""));
}

export function blokusPositions(replay, pieces) {
  let rows = emptyRows(replay.board.rows, replay.board.cols);
  const positions = [{ boards: [{ seat: null, rows }], highlight: [], highlightSeat: null, scores: null }];
  for (const ply of replay.plies) {
    const cells = ply.resign ? [] : pieces.cellsOf(ply.action);
    rows = paint(rows, cells, () => String(ply.color));
    const previous = positions[positions.length - 1];
    positions.push({ boards: [{ seat: null, rows }], highlight: cells, highlightSeat: null, scores: ply.scores || previous.scores });
  }
  return positions;
}

export function reefPositions(replay) {
  let boards = replay.seats.map((seat) => ({ seat: seat.seat, rows: emptyRows(replay.board.rows, replay.board.cols) }));
  const positions = [{ boards, highlight: [], highlightSeat: null, scores: null }];
  for (const ply of replay.plies) {
    const placed = ply.resign ? [] : ply.cells || [];
    const bloomed = ply.resign ? [] : (ply.result?.blooms || []).flatMap((bloom) => bloom.cells);
    boards = boards.map((board) => {
      if (board.seat !== ply.seat) return board;
      const painted = paint(board.rows, placed, (cell) => cell[2]);
      return { seat: board.seat, rows: paint(painted, bloomed, () => ".") };
    });
    const previous = positions[positions.length - 1];
    positions.push({ boards, highlight: placed.map(([row, col]) => [row, col]), highlightSeat: ply.seat, scores: ply.scores || previous.scores });
  }
  return positions;
}

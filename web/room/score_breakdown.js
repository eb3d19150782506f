// score_breakdown.js -- where a finished game's scores came from, read from
// its replay (GET /api/games/{id}/replay, docs/API.md): per seat, Blokus
// squares left and bonuses (docs/PROTOCOL.md section 5, Scoring), Reef
// blooms and skips; and every seat's score after each ply, for the chart.
import { BLOKUS_COLORS } from "../games/boards.js";
import { PIECE_NAMES } from "../games/blokus_pieces.js";
import { seatColors } from "../games/catalog.js";

const SQUARES_PER_COLOR = 89;
const PIECES_PER_COLOR = 21;
const ALL_PLACED_BONUS = 15;
const MONOMINO_LAST_BONUS = 5;

/* Per color: squares and pieces placed, and the last piece's name. */
function placedByColor(plies) {
  const colors = new Map();
  for (const ply of plies) {
    if (ply.resign || ply.action.pass) continue;
    const placed = colors.get(ply.color) || { squares: 0, pieces: 0, last: null };
    placed.squares += ply.cells.length;
    placed.pieces++;
    placed.last = typeof ply.action.piece === "number" ? PIECE_NAMES[ply.action.piece] : ply.action.piece;
    colors.set(ply.color, placed);
  }
  return colors;
}

/* [{seat, squaresLeft, bonus}] of a Blokus replay; bonus is null unless
 * the scoring is "official" (the only one with bonuses). 3p's shared
 * color counts for nobody. */
export function blokusBreakdown(replay, scoring) {
  const colors = placedByColor(replay.plies);
  return replay.seats.map(({ seat }) => {
    let squaresLeft = 0;
    let bonus = 0;
    for (const color of seatColors(replay.mode, seat)) {
      const placed = colors.get(color) || { squares: 0, pieces: 0, last: null };
      squaresLeft += SQUARES_PER_COLOR - placed.squares;
      if (placed.pieces === PIECES_PER_COLOR) bonus += ALL_PLACED_BONUS + (placed.last === "I1" ? MONOMINO_LAST_BONUS : 0);
    }
    return { seat, squaresLeft, bonus: scoring === "official" ? bonus : null };
  });
}

/* [{seat, blooms, skips}] of a Reef replay. */
export function reefBreakdown(replay) {
  return replay.seats.map(({ seat }) => {
    const own = replay.plies.filter((ply) => ply.seat === seat && !ply.resign);
    return {
      seat,
      blooms: own.reduce((sum, ply) => sum + (ply.result?.blooms.length || 0), 0),
      skips: own.filter((ply) => ply.action.type === "skip").length,
    };
  });
}

/* Every seat's score after each ply that scored (a resignation repeats the
 * scores before it): [{seat, color, values}], color the index of the
 * seat's line colour (its first Blokus color; Reef seats in the same order). */
export function scoreSeries(replay) {
  const scored = [];
  for (const ply of replay.plies) {
    const scores = ply.scores || scored[scored.length - 1];
    if (scores) scored.push(scores);
  }
  return replay.seats.map(({ seat }) => ({
    seat,
    color: replay.game === "blokus" ? seatColors(replay.mode, seat)[0] : seat % BLOKUS_COLORS.length,
    values: scored.map((scores) => scores[seat]),
  }));
}

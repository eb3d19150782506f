// reef_card.js -- one seat's Reef board as a card: its name, score (and the
// last move's points), streak with its multiplier, skips left, turn out of
// the turn cap, phase, the current and next pieces, and the 8x6 reef.
//
// The card only shows; the view (reef_view.js) decides what: it passes the
// board object of game.state and the drawing options (preview, blooms,
// clicks) for the reef. A "large" card is the player's own board, with a
// `controls` slot the view fills; small cards show the other racers.
import { drawReef } from "./boards.js";
import { pieceRows, streakMultiplier } from "./reef_rules.js";

function tag(name, className, parent, text = "") {
  const node = document.createElement(name);
  if (className) node.className = className;
  if (text) node.textContent = text;
  if (parent) parent.append(node);
  return node;
}

/* A <dl> entry; returns the <dd> to fill. */
function stat(list, label, className) {
  const item = tag("div", "", list);
  tag("dt", "", item, label);
  return tag("dd", className, item);
}

/* Draws a piece at a fixed size per cell, so a standing piece is as
 * large as a lying one. */
function drawPiece(container, rows, label) {
  const svg = drawReef(container, rows, { label });
  svg.style.width = `calc(${rows[0].length} * var(--reef-piece-cell))`;
}

function piece(parent, className, caption) {
  const figure = tag("figure", `reef-piece ${className}`, parent);
  const drawing = tag("div", "reef-piece-drawing", figure);
  tag("figcaption", "", figure, caption);
  return drawing;
}

/* The last move's score change: "+100", "+0", "skip −50". */
function lastMoveText({ points, skipped }) {
  const signed = points < 0 ? `−${-points}` : `+${points}`;
  return skipped ? `skip ${signed}` : signed;
}

export function createCard(parent, { large }) {
  const element = tag("section", `reef-card panel${large ? " reef-large" : ""}`, parent);
  const head = tag("header", "reef-head", element);
  const name = tag("h2", "reef-name", head);
  const scoreLine = tag("span", "reef-score-line", head);
  const score = tag("strong", "reef-score", scoreLine);
  const points = tag("span", "reef-points", scoreLine);
  const grid = tag("div", "reef-grid", element);
  const side = tag("div", "reef-side", element);
  const stats = tag("dl", "reef-stats", side);
  const streak = stat(stats, "Streak", "reef-streak");
  const skips = stat(stats, "Skips left", "reef-skips");
  const turn = stat(stats, "Turn", "reef-turn");
  const phase = stat(stats, "Phase", "reef-phase");
  const pieces = tag("div", "reef-pieces", side);
  const current = piece(pieces, "reef-current", "Current");
  const next = piece(pieces, "reef-next", "Next");
  const controls = large ? tag("div", "reef-controls", side) : null;

  return {
    element,
    grid,
    controls,
    /* Shows `board` (a game.state board object). info: {name, maxTurns,
     * lastMove ({points, skipped}: the last move's score change, or null), orientation
     * (how to draw the current piece), ended (the game is over), rank}. */
    show(board, info) {
      element.dataset.seat = board.seat;
      element.classList.toggle("reef-ended", board.phase === "ended" || info.ended);
      name.textContent = info.name;
      score.textContent = `${board.score}`;
      score.setAttribute("aria-label", `score ${board.score}`);
      points.textContent = info.lastMove ? lastMoveText(info.lastMove) : "";
      points.className = `reef-points${info.lastMove && info.lastMove.points < 0 ? " negative" : ""}`;
      streak.textContent = `${board.streak} (×${streakMultiplier(board.streak)})`;
      skips.textContent = `${board.skipsLeft}`;
      turn.textContent = info.maxTurns ? `${board.ply} / ${info.maxTurns}` : `${board.ply}`;
      phase.textContent = board.resigned ? "resigned" : info.rank ? `${board.phase}, rank ${info.rank}` : board.phase;
      drawPiece(current, pieceRows(board.current, info.orientation), `current piece ${board.current.a} ${board.current.b}`);
      drawPiece(next, pieceRows(board.next, 0), `next piece ${board.next.a} ${board.next.b}`);
    },
    /* Draws the reef itself (rows may differ from the board's during a bloom). */
    draw(rows, options) {
      drawReef(grid, rows, options);
    },
    remove() {
      element.remove();
    },
  };
}

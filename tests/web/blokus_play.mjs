// blokus_play.mjs -- how the Blokus browser tests play like a person: read
// the position from the page (.blokus-view's data-board, data-color and
// the tray), choose a placement with the client's own rules
// (web/games/blokus_rules.js, the same code the preview uses), then pick
// the piece in the tray, turn it with the Rotate button and the F key,
// hold it over the cell until the page calls the preview legal, and click
// (or tap twice). The server's acceptance is the proof: the ply moves on.
// blokusSuite() gives a suite its server and piece table.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { BLOKUS_COLORS } from "../../web/games/boards.js";
import { buildPieces, placementAt, placementProblem } from "../../web/games/blokus_rules.js";
import { startServer, visit } from "./harness.mjs";

/* The suite's server (started with the `settings` given) and the piece
 * table it serves, set up before the suite's tests and stopped after them:
 * suite.server, suite.pieces. */
export function blokusSuite(settings = []) {
  const suite = {};
  before(async () => {
    suite.server = await startServer(settings);
    suite.pieces = await fetchPieces(suite.server);
  });
  after(async () => { await suite.server.stop(); });
  return suite;
}

/* The piece table, from the server the page talks to. */
export async function fetchPieces(server) {
  const answer = await fetch(`${server.url}/api/games/blokus/pieces`);
  assert.equal(answer.status, 200);
  return buildPieces(await answer.json());
}

/* What the page shows: {board rows, color index, ply, pieces left}. */
export async function readPosition(page) {
  /* The turn can be shown before the board and its tray are drawn: wait
   * for both, then read the page once, so a render between reads cannot
   * mix two positions. */
  await page.locator(".blokus-view").waitFor();
  await page.locator(".tray-piece").first().waitFor();
  const shown = await page.evaluate(() => {
    const view = document.querySelector(".blokus-view");
    const tray = document.querySelectorAll(".tray-piece:not(.used)");
    return { ...view.dataset, left: [...tray].map((button) => button.dataset.piece) };
  });
  return { board: shown.board.split("/"), color: BLOKUS_COLORS.indexOf(shown.color), ply: Number(shown.ply), left: shown.left };
}

/* Every placement of `piece` (by anchor cell) whose rules verdict passes
 * `accept(problem)`, biggest pieces first when pieceNames is in order. */
export function* placements(pieces, position, accept) {
  const size = position.board.length;
  for (const name of [...position.left].reverse()) {
    const piece = pieces.find((p) => p.name === name);
    for (let orientation = 0; orientation < piece.orientations.length; orientation++) {
      for (let row = 0; row < size; row++) {
        for (let col = 0; col < size; col++) {
          const { cells } = placementAt(piece.orientations[orientation], row, col);
          const problem = placementProblem(position.board, position.color, name, position.left, cells);
          if (accept(problem)) yield { piece, orientation, row, col, problem };
        }
      }
    }
  }
}

/* Rotate/flip presses from orientation 0 to `target` (breadth first). */
function turnsTo(piece, target) {
  const paths = new Map([[0, []]]);
  const queue = [0];
  while (queue.length) {
    const at = queue.shift();
    for (const how of ["rotate", "flip"]) {
      const next = piece[how][at];
      if (!paths.has(next)) { paths.set(next, [...paths.get(at), how]); queue.push(next); }
    }
  }
  return paths.get(target);
}

/* Picks the piece and turns it (Rotate by its button, flips by the F key). */
export async function holdPiece(page, placement, { touch = false } = {}) {
  const tray = page.locator(`.tray-piece[data-piece="${placement.piece.name}"]`);
  if (touch) await tray.tap(); else await tray.click();
  await page.locator(`.tray-piece.selected[data-piece="${placement.piece.name}"]`).waitFor();
  for (const how of turnsTo(placement.piece, placement.orientation)) {
    const rotate = page.getByRole("button", { name: "Rotate (R)" });
    if (how === "rotate") await (touch ? rotate.tap() : rotate.click());
    else if (touch) await page.getByRole("button", { name: "Flip (F)" }).tap();
    else await page.keyboard.press("f");
  }
}

export function cell(page, row, col) {
  return page.locator(`svg.board g.cell[data-row="${row}"][data-col="${col}"]`);
}

/* Places a placement the rules call legal; waits until the ply moves on. */
export async function playMove(page, placement, { touch = false } = {}) {
  const before = await page.locator(".blokus-view").getAttribute("data-ply");
  await holdPiece(page, placement, { touch });
  const target = cell(page, placement.row, placement.col);
  if (touch) {
    await target.tap();
    await page.locator('.blokus-view[data-preview="legal"]').waitFor();
    await cell(page, placement.row, placement.col).tap();
  } else {
    await target.hover();
    await page.locator('.blokus-view[data-preview="legal"]').waitFor();
    await cell(page, placement.row, placement.col).click();
  }
  await page.locator(`.blokus-view:not([data-ply="${before}"])`).waitFor();
}

/* The first legal placement of the position shown, biggest pieces first. */
export function firstLegal(pieces, position) {
  const found = placements(pieces, position, (problem) => problem === null).next();
  assert.ok(!found.done, "the page's turn has a legal placement");
  return found.value;
}

/* From the lobby: a Blokus room of `mode` (and `scoring`, when given) with
 * `bots` greedy bots in the seats after the creator's (not started);
 * returns the room code. */
export async function createRoomWithBots(page, server, mode, bots, { scoring } = {}) {
  await visit(page, server, "#/");
  await page.locator("form#create-room select[name=mode]").selectOption(mode);
  if (scoring) await page.locator("form#create-room select[name=scoring]").selectOption(scoring);
  await page.getByRole("button", { name: "Create room" }).click();
  await page.locator(".room-status", { hasText: "waiting" }).waitFor();
  await page.locator("select[name=bot]").selectOption("greedy");
  for (let seat = 1; seat <= bots; seat++) {
    await page.getByRole("button", { name: "Add bot" }).click();
    await page.locator(`.seats li[data-seat="${seat}"]`, { hasText: "greedy (bot)" }).waitFor();
  }
  return new URL(page.url()).hash.split("/").pop();
}

/* Makes a move by dragging with the mouse: button down on the tray piece,
 * over the board to the cell (the preview follows), button up there. */
export async function playMoveByDragging(page, placement) {
  assert.equal(placement.orientation, 0, "a dragged piece is picked up unturned");
  const view = page.locator(".blokus-view");
  const before = await view.getAttribute("data-ply");
  await page.locator(`.tray-piece[data-piece="${placement.piece.name}"]`).hover();
  await page.mouse.down();
  await cell(page, placement.row, placement.col).hover();
  await page.locator(`.blokus-view[data-cursor="${placement.row},${placement.col}"][data-preview="legal"]`).waitFor();
  await page.mouse.up();
  await page.locator(`.blokus-view:not([data-ply="${before}"])`).waitFor();
}

/* Holds a piece over its placement with the keyboard only: Space on the
 * tray piece (the focus then moves to the board), R and F to turn it,
 * arrows to the cell; waits until the preview is legal there. */
export async function holdPieceByKeyboard(page, placement) {
  const view = page.locator(".blokus-view");
  await page.locator(`.tray-piece[data-piece="${placement.piece.name}"]`).focus();
  await page.keyboard.press("Space");
  await page.locator(".board-wrap:focus").waitFor();
  for (const how of turnsTo(placement.piece, placement.orientation)) await page.keyboard.press(how === "rotate" ? "r" : "f");
  const size = (await view.getAttribute("data-board")).split("/").length;
  let [row, col] = ((await view.getAttribute("data-cursor")) || `${size >> 1},${size >> 1}`).split(",").map(Number);
  for (; row !== placement.row; row += Math.sign(placement.row - row)) await page.keyboard.press(placement.row > row ? "ArrowDown" : "ArrowUp");
  for (; col !== placement.col; col += Math.sign(placement.col - col)) await page.keyboard.press(placement.col > col ? "ArrowRight" : "ArrowLeft");
  await page.locator(`.blokus-view[data-cursor="${placement.row},${placement.col}"][data-preview="legal"]`).waitFor();
}

/* Makes a move with the keyboard only (holdPieceByKeyboard, then Enter). */
export async function playMoveByKeyboard(page, placement) {
  const before = await page.locator(".blokus-view").getAttribute("data-ply");
  await holdPieceByKeyboard(page, placement);
  await page.keyboard.press("Enter");
  await page.locator(`.blokus-view:not([data-ply="${before}"])`).waitFor();
}

// show_fits.test.mjs -- "Show where it fits" (issue 20: a show-my-legal-
// moves toggle): with it on, holding a piece dots exactly the cells where
// clicking would place it legally, as the rules (web/games/blokus_rules.js)
// find them; turning the piece moves the dots; the choice is remembered.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser } from "./harness.mjs";
import { blokusSuite, createRoomWithBots, readPosition } from "./blokus_play.mjs";
import { placementAt, placementProblem } from "../../web/games/blokus_rules.js";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

/* The dotted cells of the board, "row,col", sorted. */
function dotted(page) {
  return page.locator("svg.board g.cell").filter({ has: page.locator("circle.fits") })
    .evaluateAll((cells) => cells.map((cell) => `${cell.dataset.row},${cell.dataset.col}`).sort());
}

/* Where holding `name` turned to `orientation` places it legally. */
function fitting(position, name, orientation) {
  const piece = suite.pieces.find((p) => p.name === name);
  const size = position.board.length;
  const cells = [];
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const { cells: covered } = placementAt(piece.orientations[orientation], row, col);
      if (!placementProblem(position.board, position.color, name, position.left, covered)) cells.push(`${row},${col}`);
    }
  }
  return cells.sort();
}

test("with Show where it fits on, a held piece dots every cell where it can be placed", async () => {
  const browser = await openBrowser("player");
  const { page } = browser;
  await createRoomWithBots(page, suite.server, "duo", 1);
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".turn.mine").waitFor();
  await page.getByLabel("Show where it fits").check();
  const position = await readPosition(page);
  await page.locator('.tray-piece[data-piece="L5"]').click();
  await page.locator("svg.board circle.fits").first().waitFor();
  const expected = fitting(position, "L5", 0);
  assert.ok(expected.length > 0);
  assert.deepEqual(await dotted(page), expected);
  await page.getByRole("button", { name: "Rotate (R)" }).click();
  const piece = suite.pieces.find((p) => p.name === "L5");
  assert.deepEqual(await dotted(page), fitting(position, "L5", piece.rotate[0]));
  await page.keyboard.press("Escape");
  assert.equal(await page.locator("svg.board circle.fits").count(), 0, "no piece held, no dots");
  await page.reload();
  await page.locator(".turn.mine").waitFor();
  assert.equal(await page.getByLabel("Show where it fits").isChecked(), true, "remembered");
  await browser.close();
});

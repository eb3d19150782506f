// reef_solo.test.mjs -- a solo Reef Builder game played in the browser from
// the lobby to its turn cap: clicks and the keyboard place pieces, a bloom
// flashes and scores, a skip costs points and a skip, a placement on a taken
// cell is refused visibly, and the room shows the game-over summary. On a
// phone-sized touch screen a first tap previews and a second tap places.
//
// Seed 7 deals R R, B B, B B, G G, B R, R R, ... (the stateless API's
// example, docs/REEF_API.md): R R and then two B B in a row on row 0
// complete a blue group of four, a bloom worth 100.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { closeLeftBrowsers, openBrowser, screenshot, startServer } from "./harness.mjs";
import { createReefRoom } from "./reef_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const MAX_TURNS = 8;

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

/* From the lobby: a solo Reef room with seed 7 and a short turn cap, started. */
async function startSoloGame(page) {
  await createReefRoom(page, server, "solo", MAX_TURNS);
  await page.getByRole("button", { name: "Start", exact: true }).click();
  await page.locator(".room-status", { hasText: "playing" }).waitFor();
  await page.locator(".reef-mine .reef-card").waitFor();
}

function ownReef(page) {
  const mine = page.locator(".reef-mine");
  return {
    cell: (row, col) => mine.locator(`.reef-grid g.cell[data-row="${row}"][data-col="${col}"]`),
    cellFill: (row, col) => mine.locator(`.reef-grid g.cell[data-row="${row}"][data-col="${col}"] rect`).first().getAttribute("fill"),
    stat: (name) => mine.locator(`.reef-${name}`),
    flashing: mine.locator(".reef-grid .cell.flash"),
    /* Waits until the board shows `turn` actions played. */
    turn: (turn) => mine.locator(".reef-turn").filter({ hasText: new RegExp(`^${turn} / ${MAX_TURNS}$`) }).waitFor(),
  };
}

test("a solo Reef game is played by clicking to its turn cap, with a bloom, a skip and a refused placement", async () => {
  const browser = await openBrowser("reef-solo");
  const { page } = browser;
  await startSoloGame(page);
  const reef = ownReef(page);
  assert.equal(await reef.stat("score").textContent(), "0");
  assert.equal(await reef.stat("skips").textContent(), "3");
  await reef.turn(0);

  /* Hovering previews the piece in its colours and says it fits. */
  await reef.cell(0, 0).hover();
  assert.equal(await page.locator(".reef-mine .cell.preview:not(.illegal)").count(), 2);
  assert.match(await page.locator(".reef-preview-note").textContent(), /^Fits at row 1, column 1/);
  await reef.cell(0, 0).click();
  await reef.turn(1);
  assert.equal(await reef.cellFill(0, 1), "var(--red)");
  await reef.cell(0, 2).click();
  await reef.turn(2);
  await screenshot(page, "reef-solo-midgame");

  /* The third piece completes four blues: they flash, then clear and score. */
  await reef.cell(0, 4).click();
  await reef.flashing.first().waitFor();
  assert.equal(await reef.flashing.count(), 4);
  await screenshot(page, "reef-solo-bloom");
  await reef.flashing.first().waitFor({ state: "detached" });
  await reef.turn(3);
  assert.equal(await reef.cellFill(0, 3), "var(--empty)");
  assert.equal(await reef.stat("score").textContent(), "100");
  assert.equal(await reef.stat("points").textContent(), "+100");
  assert.equal(await reef.stat("streak").textContent(), "1 (×1.5)");

  /* A skip costs 50 points and one of the three skips. */
  const skip = page.locator(".reef-skip");
  assert.equal(await skip.textContent(), "Skip (−50) · 3 left");
  await skip.click();
  await reef.turn(4);
  assert.equal(await reef.stat("skips").textContent(), "2");
  assert.equal(await reef.stat("score").textContent(), "50");
  assert.equal(await reef.stat("points").textContent(), "skip −50");
  assert.equal(await skip.textContent(), "Skip (−50) · 2 left");

  /* On a taken cell the preview is greyed with the reason, and the server
   * refuses the placement with its message beside the board. */
  await reef.cell(0, 0).hover();
  assert.equal(await page.locator(".reef-mine .cell.preview.illegal").count(), 2);
  assert.match(await page.locator(".reef-preview-note").textContent(), /^Cannot place at row 1, column 1: a target cell is already taken/);
  await reef.cell(0, 0).click();
  const refusal = page.locator(".reef-mine .move-error");
  await refusal.filter({ hasText: "occupied" }).waitFor();
  await page.locator("#errors .error", { hasText: "occupied" }).waitFor();
  assert.equal(await reef.stat("turn").textContent(), `4 / ${MAX_TURNS}`);

  /* The keyboard: R rotates (B below A), arrows move, Enter places B R. */
  await page.mouse.move(0, 0); /* the pointer leaves the reef: no preview */
  assert.equal(await page.locator(".reef-mine .cell.preview").count(), 0);
  await page.locator(".reef-mine .reef-grid").focus();
  await page.keyboard.press("r");
  assert.equal(await page.locator(".reef-orientation").textContent(), "Piece: ↓ B below A");
  await page.keyboard.press("ArrowDown"); /* the cursor appears at row 1, column 1 */
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await reef.turn(5);
  assert.equal(await reef.cellFill(2, 0), "var(--blue)");
  assert.equal(await reef.cellFill(3, 0), "var(--red)");
  assert.equal(await refusal.textContent(), "", "the refusal is cleared by the next move");

  /* Standing pieces down row 5 until the turn cap ends the game. */
  for (let turn = 5, col = 0; turn < MAX_TURNS; turn++, col += 2) {
    await reef.flashing.first().waitFor({ state: "detached" });
    await reef.cell(5, col).click();
    await reef.turn(turn + 1);
  }
  await page.locator(".room-status", { hasText: "finished" }).waitFor();
  const summary = page.locator(".game-over");
  await summary.waitFor();
  const finalScore = await reef.stat("score").textContent();
  assert.equal(await summary.locator("tr[data-seat='0'] .score").textContent(), finalScore);
  assert.equal(await reef.stat("phase").textContent(), "ended");
  assert.ok(await skip.isDisabled(), "no skipping after the end");
  assert.equal(await page.locator(".reef-mine .cell.preview").count(), 0);
  await screenshot(page, "reef-solo-game-over");
  await browser.close();
});

test("on a phone-sized touch screen a tap previews and a second tap places", async () => {
  const browser = await openBrowser("reef-phone", { viewport: { width: 390, height: 844 }, hasTouch: true });
  const { page } = browser;
  await startSoloGame(page);
  const reef = ownReef(page);
  await reef.cell(3, 2).tap();
  assert.equal(await page.locator(".reef-mine .cell.preview").count(), 2);
  assert.equal(await reef.stat("turn").textContent(), `0 / ${MAX_TURNS}`, "a first tap only previews");
  await reef.cell(3, 2).tap();
  await reef.turn(1);
  assert.equal(await reef.cellFill(3, 3), "var(--red)");
  await page.getByRole("button", { name: "Rotate (R)" }).tap();
  await reef.cell(4, 2).tap();
  await screenshot(page, "reef-solo-phone");
  await reef.cell(4, 2).tap();
  await reef.turn(2);
  assert.equal(await reef.cellFill(5, 2), "var(--blue)");
  await browser.close();
});

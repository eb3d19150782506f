// blokus_4p.test.mjs -- one person against three greedy bots plays a whole
// 4-player Blokus game in the browser: created from the lobby, bots added
// and started from the room, every move made by picking a piece in the
// tray, turning it and clicking the board (one by the keyboard alone, one
// dragged from the tray with the mouse), one
// illegal placement refused visibly on the way, until the game-over summary shows ranks and rating
// changes. A second test plays on a phone-sized touch screen.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser, screenshot, visit } from "./harness.mjs";
import { blokusSuite, cell, createRoomWithBots, firstLegal, holdPiece, placements, playMove, playMoveByDragging, playMoveByKeyboard, readPosition } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

/* Tries an illegal placement by clicking: the preview says why, the server
 * refuses it visibly, and the board and ply stay as they were. */
async function attemptIllegal(page, position) {
  const found = placements(suite.pieces, position, (problem) => ["edge_contact", "no_corner_contact", "occupied"].includes(problem)).next();
  assert.ok(!found.done, "an illegal placement exists");
  const illegal = found.value;
  const board = await page.locator(".blokus-view").getAttribute("data-board");
  await holdPiece(page, illegal);
  await cell(page, illegal.row, illegal.col).hover();
  await page.locator('.blokus-view[data-preview="illegal"]').waitFor();
  assert.match(await page.locator(".preview-reason").textContent(), /^Not here: /);
  await cell(page, illegal.row, illegal.col).click();
  await page.locator(".move-error", { hasText: "Refused" }).waitFor();
  assert.equal(await page.locator(".blokus-view").getAttribute("data-board"), board);
  assert.equal(Number(await page.locator(".blokus-view").getAttribute("data-ply")), position.ply);
  await page.keyboard.press("Escape");
  await page.locator(".tray-piece.selected").waitFor({ state: "detached" });
}

test("a whole 4-player game against three bots, played by clicking", async () => {
  const browser = await openBrowser("solo");
  const { page } = browser;
  await visit(page, suite.server, "#/");
  await screenshot(page, "lobby");
  await createRoomWithBots(page, suite.server, "4p", 3);
  await screenshot(page, "room-waiting");
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".room-status", { hasText: "playing" }).waitFor();
  let moves = 0;
  let triedIllegal = false;
  for (;;) {
    await page.locator(".turn.mine, .game-over").first().waitFor();
    if (await page.locator(".game-over").count()) break;
    const position = await readPosition(page);
    if (moves === 0) {  /* the cells a piece may start from are ringed on the player's turn */
      const rings = await page.locator("svg.board circle.attach").count();
      assert.ok(rings > 0, "attach hints drawn");
    }
    if (moves === 1 && !triedIllegal) {
      await attemptIllegal(page, position);
      triedIllegal = true;
    }
    const unturned = placements(suite.pieces, position, (problem) => problem === null);
    if (moves === 2) await playMoveByKeyboard(page, firstLegal(suite.pieces, position));
    else if (moves === 3) await playMoveByDragging(page, [...unturned].find((p) => p.orientation === 0));
    else await playMove(page, firstLegal(suite.pieces, position));
    moves++;
    if (moves === 6) await screenshot(page, "blokus-midgame");
  }
  assert.ok(triedIllegal && moves >= 6, `played ${moves} moves`);
  const ranks = await page.locator(".game-over td.rank").allTextContents();
  assert.equal(ranks.length, 4);
  assert.ok(ranks.every((rank) => /^[1-4]$/.test(rank)), ranks.join());
  await page.locator(".game-over .rating-change", { hasText: "→" }).first().waitFor();
  assert.match(await page.locator('.game-over tr[data-seat="0"] .rating-change').textContent(), /→/);
  await page.locator(".room-status", { hasText: "finished" }).waitFor();
  await screenshot(page, "blokus-game-over");
  await browser.close();
});

test("on a phone-sized touch screen a tap previews and a second tap places", async () => {
  const browser = await openBrowser("phone", { viewport: { width: 390, height: 844 }, hasTouch: true });
  const { page } = browser;
  await createRoomWithBots(page, suite.server, "4p", 3);
  await page.getByRole("button", { name: "Start" }).tap();
  for (let moves = 0; moves < 3; moves++) {
    await page.locator(".turn.mine").waitFor();
    await playMove(page, firstLegal(suite.pieces, await readPosition(page)), { touch: true });
  }
  await page.locator(".turn.mine").waitFor();
  await screenshot(page, "blokus-phone");
  await page.getByRole("button", { name: "Resign" }).tap();
  await page.getByRole("button", { name: "Really resign?" }).tap();
  await page.locator(".game-over").waitFor();
  await screenshot(page, "blokus-phone-game-over");
  await browser.close();
});

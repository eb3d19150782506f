// layout.test.mjs -- the room and the lobby fit the screens people have
// (issue 20): at 1366x768 the Blokus board and the whole tray are on screen
// together, with nothing to scroll, at every turn of a 4-player game; at
// 390x844 (a phone) nothing overflows sideways in the lobby (rooms listed)
// or in a room (waiting, playing, finished), the owner's Add bot and Start
// come before the empty board, the board there is as wide as the screen,
// and every control is at least 44 px.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser, screenshot, visit } from "./harness.mjs";
import { blokusSuite, cell, createRoomWithBots, firstLegal, holdPiece, playMove, readPosition } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();
const MIN_TARGET_PX = 44;

/* What does not fit the window: the page wider or (with `noScroll`) taller
 * than it, the board or the tray not wholly inside it, a control smaller
 * than 44 px (a checkbox counts with its label). [] when all fits. */
function misfits(page, { noScroll = false, boardAndTray = false } = {}) {
  return page.evaluate(({ noScroll, boardAndTray, min }) => {
    const found = [];
    const root = document.documentElement;
    if (root.scrollWidth > innerWidth) found.push(`the page is ${root.scrollWidth} px wide in ${innerWidth}`);
    if (noScroll && root.scrollHeight > innerHeight) found.push(`the page is ${root.scrollHeight} px tall in ${innerHeight}`);
    if (boardAndTray) {
      for (const selector of [".board-wrap", ".tray", ".tray-head"]) {
        const box = document.querySelector(selector).getBoundingClientRect();
        if (box.top < 0 || box.bottom > innerHeight || box.left < 0 || box.right > innerWidth) {
          found.push(`${selector} is at ${Math.round(box.left)},${Math.round(box.top)}-${Math.round(box.right)},${Math.round(box.bottom)}`);
        }
      }
    }
    for (const node of document.querySelectorAll("button, select, input, a.button, header nav a")) {
      const target = node.type === "checkbox" ? node.closest("label") : node;
      const box = target.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue; /* not shown */
      if (box.width < min || box.height < min) {
        found.push(`${target.tagName.toLowerCase()} "${(target.textContent || target.name || "").trim().slice(0, 30)}" is ${Math.round(box.width)}x${Math.round(box.height)}`);
      }
    }
    return found;
  }, { noScroll, boardAndTray, min: MIN_TARGET_PX });
}

test("at 1366x768 the board and the whole tray are on screen together through a 4p game", async () => {
  const browser = await openBrowser("laptop", { viewport: { width: 1366, height: 768 } });
  const { page } = browser;
  await createRoomWithBots(page, suite.server, "4p", 3);
  await page.getByRole("button", { name: "Start" }).click();
  let turns = 0;
  for (;;) {
    await page.locator(".turn.mine, .game-over").first().waitFor();
    if (await page.locator(".game-over").count()) break;
    const position = await readPosition(page);
    const placement = firstLegal(suite.pieces, position);
    if (turns === 1) { /* a piece held over the board: the preview line shows too */
      await holdPiece(page, placement);
      await cell(page, placement.row, placement.col).hover();
      await page.locator('.blokus-view[data-preview="legal"]').waitFor();
      assert.deepEqual(await misfits(page, { noScroll: true, boardAndTray: true }), [], `turn ${turns}, a piece held`);
      await screenshot(page, "layout-1366x768-playing");
      await page.keyboard.press("Escape");
    }
    assert.deepEqual(await misfits(page, { noScroll: true, boardAndTray: true }), [], `turn ${turns}`);
    await playMove(page, placement);
    turns++;
  }
  assert.ok(turns >= 5, `played ${turns} turns`);
  await browser.close();
});

test("at 390x844 nothing overflows sideways in the lobby or a room, and controls are 44 px", async () => {
  const host = await openBrowser("host");
  for (const mode of ["4p", "3p", "duo"]) await createRoomWithBots(host.page, suite.server, mode, 1);
  await createRoomWithBots(host.page, suite.server, "4p", 3);
  await host.page.getByRole("button", { name: "Start" }).click();

  const phone = await openBrowser("phone", { viewport: { width: 390, height: 844 }, hasTouch: true });
  const { page } = phone;
  await visit(page, suite.server, "#/");
  await page.locator(".rooms tr[data-room]").nth(3).waitFor();
  assert.deepEqual(await misfits(page), [], "lobby");
  await screenshot(page, "layout-390-lobby");

  await createRoomWithBots(page, suite.server, "4p", 3);
  assert.deepEqual(await misfits(page), [], "waiting room");
  const start = await page.getByRole("button", { name: "Start" }).boundingBox();
  const board = await page.locator("svg.board").boundingBox();
  assert.ok(start.y + start.height <= board.y, "Start comes before the empty board");
  await screenshot(page, "layout-390-room-waiting");

  await page.getByRole("button", { name: "Start" }).tap();
  await page.locator(".turn.mine").waitFor();
  await playMove(page, firstLegal(suite.pieces, await readPosition(page)), { touch: true });
  await page.locator(".turn.mine").waitFor();
  assert.deepEqual(await misfits(page), [], "playing room");
  /* The board takes the screen's whole width: the largest cells a phone can have. */
  const wrap = await page.locator(".board-wrap").boundingBox();
  assert.deepEqual([Math.round(wrap.x), Math.round(wrap.width)], [0, 390], "the board edge to edge");
  await screenshot(page, "layout-390-room-playing");

  await page.getByRole("button", { name: "Resign" }).tap();
  await page.getByRole("button", { name: "Really resign?" }).tap();
  await page.locator(".game-over .chart-legend").waitFor();
  assert.deepEqual(await misfits(page), [], "finished room");
  await screenshot(page, "layout-390-room-finished");
  await host.close();
  await phone.close();
});

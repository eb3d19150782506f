// board_updates.test.mjs -- the room's board is built once and updated in
// place (issue 20: the room's Lighthouse performance on a phone): holding a
// piece over it, a move and the bot's answer leave every cell the element
// it was, and the board listens with a few listeners of its own, not three
// per cell.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser } from "./harness.mjs";
import { blokusSuite, createRoomWithBots, firstLegal, playMove, readPosition } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();
/* The board listens for a click, a pointer entering a cell and a button released. */
const BOARD_LISTENERS = 3;

/* Every event listener on the board's <svg> and everything in it. */
async function boardListenerCount(page) {
  const session = await page.context().newCDPSession(page);
  const { result } = await session.send("Runtime.evaluate", { expression: "document.querySelector('svg.board')" });
  const { listeners } = await session.send("DOMDebugger.getEventListeners", { objectId: result.objectId, depth: -1 });
  await session.detach();
  return listeners.length;
}

test("a move and the answer to it update the board's cells in place, with one set of listeners", async () => {
  const browser = await openBrowser("player");
  const { page } = browser;
  await createRoomWithBots(page, suite.server, "duo", 1);
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".turn.mine").waitFor();
  const position = await readPosition(page);
  assert.equal(await boardListenerCount(page), BOARD_LISTENERS);
  /* Every cell element as the first state drew it. */
  await page.evaluate(() => { window.firstCells = [...document.querySelectorAll("svg.board g.cell")]; });
  await playMove(page, firstLegal(suite.pieces, position)); /* a piece held over the board, then placed */
  await page.locator(`.blokus-view[data-ply="${position.ply + 2}"]`).waitFor(); /* the bot answered */
  await page.locator(".turn.mine").waitFor();
  const kept = await page.evaluate(() => {
    const cells = [...document.querySelectorAll("svg.board g.cell")];
    return { count: cells.length, same: cells.filter((cell, i) => cell === window.firstCells[i]).length };
  });
  assert.deepEqual(kept, { count: 14 * 14, same: 14 * 14 }, "every cell is the element it was");
  assert.equal(await page.locator("svg.board rect.last").count() > 0, true, "the last move is outlined");
  assert.equal(await boardListenerCount(page), BOARD_LISTENERS);
  await browser.close();
});

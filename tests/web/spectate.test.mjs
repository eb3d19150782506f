// spectate.test.mjs -- a third browser watches a live game (a player
// against bots) from the lobby's Watch button and sees every move: each
// page records every (ply, board) its view shows, and the watcher's
// record has no gap and matches the player's at every ply. After its
// connection drops, the watcher's page reconnects, watches again and
// keeps up.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser, screenshot, visit } from "./harness.mjs";
import { blokusSuite, createRoomWithBots, firstLegal, playMove, readPosition } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

/* Records every board the page's Blokus view shows, by ply, from now on. */
async function recordBoards(page) {
  await page.locator(".blokus-view[data-ply]").waitFor();
  await page.evaluate(() => {
    const view = document.querySelector(".blokus-view");
    window.boardsSeen = {};
    const note = () => { window.boardsSeen[view.dataset.ply] = view.dataset.board; };
    note();
    new MutationObserver(note).observe(view, { attributes: true, attributeFilter: ["data-ply", "data-board"] });
  });
}

test("a watcher sees every move of a live game", async () => {
  const player = await openBrowser("player");
  const watcher = await openBrowser("watcher");
  await watcher.context.addInitScript(() => {
    const NativeWebSocket = window.WebSocket;
    window.openSockets = [];
    window.WebSocket = class extends NativeWebSocket {
      constructor(...args) {
        super(...args);
        window.openSockets.push(this);
      }
    };
  });
  const code = await createRoomWithBots(player.page, suite.server, "4p", 3);
  await player.page.getByRole("button", { name: "Start" }).click();
  await recordBoards(player.page);
  await player.page.locator(".turn.mine").waitFor();
  await playMove(player.page, firstLegal(suite.pieces, await readPosition(player.page)));

  await visit(watcher.page, suite.server, "#/");
  await watcher.page.locator(`.rooms tr[data-room="${code}"]`).getByRole("button", { name: "Watch" }).click();
  await recordBoards(watcher.page);
  await player.page.locator('.seats li', { hasText: "1 watching" }).waitFor();
  for (let move = 0; move < 4; move++) {
    await player.page.locator(".turn.mine").waitFor();
    await playMove(player.page, firstLegal(suite.pieces, await readPosition(player.page)));
  }
  await player.page.locator(".turn.mine").waitFor();
  const lastPly = await player.page.locator(".blokus-view").getAttribute("data-ply");
  await watcher.page.locator(`.blokus-view[data-ply="${lastPly}"]`).waitFor();
  assert.equal(await watcher.page.locator(".tray-piece:not([disabled])").count(), 0, "a watcher moves nothing");
  await screenshot(watcher.page, "spectator");

  const seenByPlayer = await player.page.evaluate(() => window.boardsSeen);
  const seenByWatcher = await watcher.page.evaluate(() => window.boardsSeen);
  const plies = Object.keys(seenByWatcher).map(Number).sort((a, b) => a - b);
  assert.ok(plies.length >= 16, `the watcher saw plies ${plies.join()}`);
  plies.forEach((ply, i) => assert.equal(ply, plies[0] + i, `no ply skipped: ${plies.join()}`));
  assert.equal(plies.at(-1), Number(lastPly));
  for (const ply of plies) assert.equal(seenByWatcher[ply], seenByPlayer[ply], `the boards at ply ${ply}`);
  /* The watcher's connection drops: the page reconnects, watches again
   * (a spectator's place does not outlive its connection) and sees the
   * next move. */
  await watcher.page.evaluate(() => window.openSockets.at(-1).close());
  await watcher.page.locator("#status", { hasText: "Connection lost" }).waitFor();
  await watcher.page.locator("#status").waitFor({ state: "hidden" });
  await playMove(player.page, firstLegal(suite.pieces, await readPosition(player.page)));
  await player.page.locator(".turn.mine").waitFor();
  const plyAfter = await player.page.locator(".blokus-view").getAttribute("data-ply");
  await watcher.page.locator(`.blokus-view[data-ply="${plyAfter}"]`).waitFor();
  assert.equal(await watcher.page.locator(".blokus-view").getAttribute("data-board"),
    await player.page.locator(".blokus-view").getAttribute("data-board"));

  await player.page.getByRole("button", { name: "Resign" }).click();
  await player.page.getByRole("button", { name: "Really resign?" }).click();
  await watcher.page.locator(".game-over").waitFor();
  await player.close();
  await watcher.close();
});

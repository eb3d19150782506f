// waiting_reload.test.mjs -- reloading a room before its start keeps your
// seat (issue 20; docs/PROTOCOL.md, "Reconnecting with the token"): the
// page's socket closes, the server keeps the seat for the reconnect grace,
// and the reloaded page shows it as yours and starts the game.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser } from "./harness.mjs";
import { blokusSuite, createRoomWithBots } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

test("a reloaded waiting room still has your seat, and you can start it", async () => {
  const browser = await openBrowser("reloader");
  const { page } = browser;
  const code = await createRoomWithBots(page, suite.server, "duo", 1);
  await page.locator('.seats li.me[data-seat="0"]').waitFor();
  await page.reload();
  await page.locator('.seats li.me[data-seat="0"]', { hasText: "you" }).waitFor();
  assert.equal(new URL(page.url()).hash, `#/room/${code}`);
  await page.locator(".room-status", { hasText: "waiting" }).waitFor();
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".turn.mine").waitFor();
  await browser.close();
});

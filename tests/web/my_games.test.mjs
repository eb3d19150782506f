// my_games.test.mjs -- a guest reaches its own games and their replays from
// the header (issue 20): "My games" lists the games it sat in, newest
// first, each linking to its replay; another guest's list is its own
// (empty until it plays).
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser, screenshot, visit } from "./harness.mjs";
import { blokusSuite, createRoomWithBots } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

/* A duo game against a greedy bot, resigned at once; its game id. */
async function playAndResign(page) {
  await createRoomWithBots(page, suite.server, "duo", 1);
  await page.getByRole("button", { name: "Start" }).click();
  await page.getByRole("button", { name: "Resign" }).click();
  await page.getByRole("button", { name: "Really resign?" }).click();
  await page.locator(".game-over").waitFor();
  const replay = await page.getByRole("link", { name: "Replay this game" }).getAttribute("href");
  return Number(replay.split("/").pop());
}

test("a guest finds its games and their replays under My games in the header", async () => {
  const guest = await openBrowser("guest");
  const other = await openBrowser("other");
  const first = await playAndResign(guest.page);
  const second = await playAndResign(guest.page);
  await playAndResign(other.page);

  const { page } = guest;
  await page.getByRole("navigation").getByRole("link", { name: "My games" }).click();
  await page.waitForURL(/#\/me$/);
  await page.locator("table.recent-games tbody tr[data-game]").nth(1).waitFor();
  const listed = await page.locator("table.recent-games tbody tr[data-game]").evaluateAll((rows) => rows.map((row) => Number(row.dataset.game)));
  assert.deepEqual(listed, [second, first]);
  assert.match(await page.locator("h1").textContent(), /My games/);
  await screenshot(page, "my-games");
  await page.getByRole("link", { name: `#${first}` }).click();
  await page.waitForURL(new RegExp(`#/replay/${first}$`));
  await page.locator(".move-list li").first().waitFor();

  /* The list survives a reload (the guest's token keeps its id) and is the guest's own. */
  await visit(page, suite.server, "#/me");
  await page.locator("table.recent-games tbody tr[data-game]").nth(1).waitFor();
  await visit(other.page, suite.server, "#/me");
  await other.page.locator("table.recent-games tbody tr[data-game]").first().waitFor();
  assert.equal(await other.page.locator("table.recent-games tbody tr[data-game]").count(), 1);
  await guest.close();
  await other.close();
});

test("a guest who has not played yet is told so", async () => {
  const browser = await openBrowser("newcomer");
  await visit(browser.page, suite.server, "#/me");
  await browser.page.getByText("No games yet").waitFor();
  await browser.close();
});

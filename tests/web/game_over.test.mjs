// game_over.test.mjs -- a finished game is never a dead end (issue 20): its
// game-over panel opens this game's replay, makes a new room with the same
// settings, and makes the rematch with the same seats in one click each,
// and it shows where every seat's score came from (squares left, bonuses)
// with a chart of the scores by move. With two people, the one who clicks
// Rematch gets the new room and the other is offered its old seat there.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser, screenshot, visit } from "./harness.mjs";
import { blokusSuite, createRoomWithBots } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

/* Resigns (two clicks) and waits for the game-over panel. */
async function resign(page) {
  await page.getByRole("button", { name: "Resign" }).click();
  await page.getByRole("button", { name: "Really resign?" }).click();
  await page.locator(".game-over").waitFor();
}

const roomCode = (page) => new URL(page.url()).hash.split("/").pop();

/* The stored options of the newest waiting game (the room just made). */
async function newestWaitingOptions() {
  const answer = await fetch(`${suite.server.url}/api/games?status=waiting&limit=1`);
  const { items } = await answer.json();
  return (await (await fetch(`${suite.server.url}/api/games/${items[0].id}`)).json()).options;
}

test("the game-over panel shows the score breakdown and chart and leads to the replay, a new game and the rematch", async () => {
  const browser = await openBrowser("solo");
  const { page } = browser;
  const code = await createRoomWithBots(page, suite.server, "4p", 3, { scoring: "official" });
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".room-status", { hasText: "playing" }).waitFor();
  await resign(page); /* the bots play on to the end */
  await page.locator(".room-status", { hasText: "finished" }).waitFor();

  /* Score = bonus − squares left under official scoring, for every seat. */
  await page.locator(".game-over .breakdown-squaresLeft:not(.muted)").first().waitFor();
  await page.locator(".game-over .breakdown-bonus:not(.muted)").first().waitFor();
  const rows = await page.locator(".game-over tbody tr").evaluateAll((trs) => trs.map((tr) => ({
    score: Number(tr.querySelector(".score").textContent),
    left: Number(tr.querySelector(".breakdown-squaresLeft").textContent),
    bonus: Number(tr.querySelector(".breakdown-bonus").textContent),
  })));
  assert.equal(rows.length, 4);
  for (const row of rows) assert.equal(row.score, row.bonus - row.left, JSON.stringify(row));
  assert.ok(rows.some((row) => row.left < 89), "the bots placed pieces");
  assert.equal(await page.locator(".game-over svg.chart path.chart-line").count(), 4);
  assert.equal(await page.locator(".game-over .chart-legend li").count(), 4);
  assert.match(await page.locator(".game-over svg.chart").getAttribute("aria-label"), /^Score after each of \d+ moves: /);
  await screenshot(page, "game-over-4p");

  /* This game's replay. */
  await page.getByRole("link", { name: "Replay this game" }).click();
  await page.waitForURL(/#\/replay\/\d+$/);
  await page.locator(".move-list li").first().waitFor();
  await page.goBack();
  await page.locator(".game-over").waitFor();

  /* A new game with the same settings: the player seated, no bots. */
  await page.getByRole("button", { name: "New game, same settings" }).click();
  await page.waitForURL((url) => !url.hash.endsWith(code));
  await page.locator(".room-status", { hasText: "waiting" }).waitFor();
  await page.locator('.seats li.me[data-seat="0"]').waitFor();
  assert.equal(await page.locator(".seats li.seat", { hasText: "empty seat" }).count(), 3);
  assert.equal((await newestWaitingOptions()).scoring, "official");

  /* The rematch: the same seats, bots back in theirs. */
  await visit(page, suite.server, `#/room/${code}`);
  await page.getByRole("button", { name: "Rematch" }).click();
  await page.waitForURL((url) => !url.hash.endsWith(code));
  const rematch = roomCode(page);
  await page.locator('.seats li.me[data-seat="0"]').waitFor();
  for (const seat of [1, 2, 3]) await page.locator(`.seats li[data-seat="${seat}"]`, { hasText: "greedy (bot)" }).waitFor();
  assert.equal((await newestWaitingOptions()).scoring, "official");
  /* Back in the finished room, the rematch is the one offered: no second room. */
  await visit(page, suite.server, `#/room/${code}`);
  await page.getByRole("button", { name: "Join the rematch" }).click();
  await page.waitForURL((url) => url.hash.endsWith(rematch));
  await browser.close();
});

test("the other player is offered the rematch and takes its old seat in one click", async () => {
  const ann = await openBrowser("ann");
  const bob = await openBrowser("bob");
  const code = await createRoomWithBots(ann.page, suite.server, "duo", 0);
  await visit(bob.page, suite.server, `#/room/${code}`);
  await bob.page.locator('.seats li[data-seat="1"]').getByRole("button", { name: "Sit here" }).click();
  await ann.page.locator('.seats li[data-seat="1"] .seat-name', { hasNotText: "empty" }).waitFor();
  await ann.page.getByRole("button", { name: "Start" }).click();
  await bob.page.locator(".room-status", { hasText: "playing" }).waitFor();
  await resign(bob.page);
  await ann.page.locator(".game-over").waitFor();
  assert.equal(await bob.page.locator(".rematch-offer").count(), 0);

  await ann.page.getByRole("button", { name: "Rematch" }).click();
  await ann.page.waitForURL((url) => !url.hash.endsWith(code));
  const rematch = roomCode(ann.page);
  await bob.page.locator(".rematch-offer", { hasText: "A rematch is waiting for you" }).waitFor();
  await screenshot(bob.page, "game-over-rematch-offer");
  await bob.page.getByRole("button", { name: "Join the rematch" }).click();
  await bob.page.waitForURL((url) => url.hash.endsWith(rematch));
  await bob.page.locator('.seats li.me[data-seat="1"]').waitFor();
  await ann.page.locator('.seats li[data-seat="1"] .seat-name', { hasNotText: "empty" }).waitFor();
  await ann.page.getByRole("button", { name: "Start" }).click();
  await bob.page.locator(".room-status", { hasText: "playing" }).waitFor();
  await ann.close();
  await bob.close();
});

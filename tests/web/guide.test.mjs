// guide.test.mjs -- every room shows its game's rules and a short guide to
// a first game (issue 20): Blokus's (corners, not sides; the start cells)
// and Reef Builder's (the goal, blooms, streaks, skips, the 1,000-turn
// standard length). "Got it" dismisses it, and the page remembers that
// across a reload, per game; "How to play" opens it again.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser, screenshot } from "./harness.mjs";
import { blokusSuite, createRoomWithBots } from "./blokus_play.mjs";
import { createReefRoom } from "./reef_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

test("the Blokus guide is shown until dismissed, stays dismissed, and opens again", async () => {
  const browser = await openBrowser("newcomer");
  const { page } = browser;
  await createRoomWithBots(page, suite.server, "4p", 3);
  const guide = page.locator(".guide");
  await guide.waitFor();
  assert.equal(await guide.locator("h2").textContent(), "How to play Blokus");
  const text = await guide.textContent();
  assert.match(text, /corner to corner, and never along a side/);
  assert.match(text, /start cell/);
  assert.match(text, /Your first game/);
  await screenshot(page, "guide-blokus");
  await guide.getByRole("button", { name: "Got it" }).click();
  await guide.waitFor({ state: "hidden" });
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "How to play");
  /* A reload keeps a seat once the game runs (a waiting room's seat goes with the connection). */
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".room-status", { hasText: "playing" }).waitFor();
  await page.reload();
  await page.locator(".room-status", { hasText: /playing|finished/ }).waitFor();
  await page.getByRole("button", { name: "How to play" }).waitFor();
  assert.equal(await page.locator(".guide").isVisible(), false);
  await page.getByRole("button", { name: "How to play" }).click();
  await guide.waitFor();

  /* Reef's guide is its own: not dismissed with Blokus's. */
  await createReefRoom(page, suite.server, "solo", 1000);
  const reef = page.locator(".guide");
  await reef.waitFor();
  assert.equal(await reef.locator("h2").textContent(), "How to play Reef Builder");
  const rules = await reef.textContent();
  for (const words of [/Goal: /, /bloom/, /streak/, /skip/, /1,000 turns is the standard length/]) assert.match(rules, words);
  await screenshot(page, "guide-reef");
  await browser.close();
});

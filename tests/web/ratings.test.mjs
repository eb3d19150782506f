// ratings.test.mjs -- one rating number people can read (issue 20,
// "Ratings"; docs/RATINGS.md, "The number shown"): after a 4-player game
// against three greedy bots, the game-over panel shows each rated entry's
// number before and after, "1000 → N (+d)", with what it means on hover;
// the bot's one entry is shown at its best-placed seat only; the
// leaderboard shows the same scaled number the API's conservative rating
// gives and says whom it lists (not guests); a player page's rating chart
// is drawn in those numbers.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser, visit } from "./harness.mjs";
import { blokusSuite, createRoomWithBots } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();
const CHANGE = /^(\d+) → (\d+) \(([+−])(\d+)\)$/;

test("the game-over panel and the leaderboard show the readable rating", async () => {
  const browser = await openBrowser("rated");
  const { page } = browser;
  await createRoomWithBots(page, suite.server, "4p", 3);
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".turn.mine").waitFor();
  await page.getByRole("button", { name: "Resign" }).click();
  await page.getByRole("button", { name: "Really resign?" }).click();
  await page.locator(".game-over .rating-change", { hasText: "→" }).first().waitFor();
  await page.locator(".game-over .rating-change", { hasText: "…" }).waitFor({ state: "detached" });

  const mine = page.locator('.game-over tr[data-seat="0"] .rating-change');
  const [, before, after, sign, delta] = (await mine.textContent()).match(CHANGE);
  assert.equal(before, "1000", "a newcomer shows 1000");
  assert.equal(Number(after) - Number(before), (sign === "+" ? 1 : -1) * Number(delta));
  assert.match(await mine.getAttribute("title"), /^Rating = 1000 \+ 20 × \(skill − 3 × uncertainty\)/);
  const bots = await page.locator('.game-over tbody tr:not([data-seat="0"]) .rating-change').allTextContents();
  assert.equal(bots.filter((text) => CHANGE.test(text)).length, 1, `the greedy entry once: ${bots}`);
  assert.equal(bots.filter((text) => text === "as above").length, 2, `${bots}`);

  await visit(page, suite.server, "#/leaderboards");
  const answer = await (await fetch(`${suite.server.url}/api/leaderboards/blokus?kind=4p`)).json();
  const greedy = answer.items.find((item) => item.player.name === "bot:greedy");
  const row = page.locator("table.leaderboard tbody tr").filter({ hasText: "bot:greedy" });
  await row.waitFor();
  assert.equal(await row.locator("td").nth(2).textContent(), String(Math.round(1000 + 20 * greedy.rating)));
  assert.match(await row.locator("td").nth(2).locator("span").getAttribute("title"), /^Rating = /);
  assert.match(await row.locator("td").nth(3).textContent(), /^skill \d+\.\d ± \d+\.\d$/);
  assert.match(await page.locator(".board-caption").textContent(), /Guests are rated but not listed/);
  assert.equal(await page.locator("table.leaderboard tbody tr").filter({ hasText: "guest-" }).count(), 0);

  /* The bot's page: its rating history in the same whole numbers, ticked in whole numbers too. */
  await row.getByRole("link", { name: "bot:greedy" }).click();
  await page.locator("svg.chart .chart-point").first().waitFor();
  const ticks = await page.locator("svg.chart text.chart-tick").allTextContents();
  assert.ok(ticks.every((tick) => /^-?\d+$/.test(tick)), ticks.join(" "));
  assert.match(await page.locator("svg.chart .chart-point title").first().textContent(), new RegExp(`rating ${Math.round(1000 + 20 * greedy.rating)}$`));
  await browser.close();
});

// tournament.test.mjs -- the tournament pages: a small bot tournament
// created over REST with the admin key shows in the list, and its page's
// standings follow the games live (websocket events, no reload) to the
// final standings the REST API reports; every finished game links to its
// replay.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { closeLeftBrowsers, openBrowser, screenshot, startServer, visit } from "./harness.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const ADMIN_KEY = "web-test-admin-key-0123456789";
let server;
/* mcts thinking 200 ms a move makes each game last a few seconds: four
 * of them one after the other leave time to open the page while they run. */
before(async () => { server = await startServer(["--admin-key", ADMIN_KEY, "--bot-think-ms", "200"]); });
after(async () => { await server.stop(); });

async function createTournament(body) {
  const answer = await fetch(`${server.url}/api/tournaments`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(answer.status, 201, await answer.clone().text());
  return (await answer.json()).id;
}

const standingsRows = (page) => page.locator("table.standings tbody tr").evaluateAll((rows) =>
  rows.map((row) => [...row.querySelectorAll("td")].slice(0, 3).map((cell) => cell.textContent)));

test("a running tournament's standings update live to the final ones", async () => {
  const browser = await openBrowser("tournament");
  const { page } = browser;
  await visit(page, server, "#/leaderboards");
  /* Created once the browser is up, so that the page opens while it runs. */
  const id = await createTournament({
    name: "Web Cup", game: "blokus", mode: "duo", format: "fixed", games: 4, parallel: 1, seed: 42,
    participants: [{ bot: "mcts" }, { bot: "greedy" }],
  });
  await page.getByRole("link", { name: "Tournaments" }).click();
  const row = page.locator("table.tournaments tbody tr").filter({ hasText: "Web Cup" });
  await row.waitFor();
  assert.match(await row.textContent(), /Blokus duo.*fixed.*running/);
  await screenshot(page, "tournaments");
  await row.getByRole("link", { name: "Web Cup" }).click();
  await page.locator("h1").filter({ hasText: "Web Cup" }).waitFor();
  await page.locator("table.standings tbody tr").nth(1).waitFor();

  /* Opened while running: the page is not reloaded from here on. */
  assert.match(await page.locator("h1 .badge").textContent(), /running/);
  const progress = await page.locator(".tournament-progress").textContent();
  const finishedAtFirst = Number(progress.match(/(\d+) finished/)[1]);
  assert.ok(finishedAtFirst < 4, progress);
  const counted = [...progress.matchAll(/(\d+) (finished|playing|to play)/g)].reduce((sum, [, n]) => sum + Number(n), 0);
  assert.equal(counted, 4, `every game counted once: ${progress}`);
  await page.evaluate(() => { window.stillTheSamePage = true; });
  await screenshot(page, "tournament-running");

  await page.locator("h1 .badge").filter({ hasText: "finished" }).waitFor({ timeout: 60000 });
  assert.equal(await page.evaluate(() => window.stillTheSamePage), true, "updated live, not reloaded");
  await page.locator(".tournament-progress").filter({ hasText: "Games: 4 finished" }).waitFor();
  assert.equal(await page.locator(".tournament-progress").textContent(), "Games: 4 finished", "nothing left to play or planned");

  const final = await (await fetch(`${server.url}/api/tournaments/${id}`)).json();
  assert.equal(final.status, "finished");
  const expected = final.standings.map((entry) => [String(entry.rank), entry.player.name, entry.points.toFixed(1)]);
  assert.deepEqual(await standingsRows(page), expected);
  const replayLinks = page.locator("table.schedule").getByRole("link", { name: "replay" });
  await replayLinks.nth(3).waitFor();
  const hrefs = await replayLinks.evaluateAll((links) => links.map((link) => link.getAttribute("href")));
  assert.deepEqual(hrefs, final.schedule.map((game) => `#/replay/${game.game_id}`));
  await screenshot(page, "tournament");
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, "tournament-phone");
  await page.setViewportSize({ width: 1280, height: 900 });

  await replayLinks.first().click();
  await page.locator("h1").filter({ hasText: `Replay #${final.schedule[0].game_id}` }).waitFor();
  await page.getByRole("link", { name: `tournament #${id}` }).waitFor();
  await browser.close();
});

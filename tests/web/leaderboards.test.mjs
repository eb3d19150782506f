// leaderboards.test.mjs -- the leaderboards, the player page and the
// header's sign-in, after real games: the account Ada plays two rated Duo
// games against the greedy bot and a solo Reef run; the leaderboards list
// her (and the bot) with those results, "Around me" finds her once she has
// signed in through the header, and her page shows the games (linking to
// their replays) and a rating chart with one point per rated game.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { playGame } from "./driver.mjs";
import { closeLeftBrowsers, openBrowser, screenshot, startServer, visit } from "./harness.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const PASSWORD = "correct horse battery";
let server;
before(async () => { server = await startServer(["--rate", "1000", "--burst", "1000"]); });
after(async () => { await server.stop(); });

const rowOf = (page, name) => page.locator("table.leaderboard tbody tr").filter({ has: page.getByRole("link", { name, exact: true }) });

async function signInThroughHeader(page, name, password) {
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Account name").fill(name);
  await page.getByLabel("Password").fill(password);
  await page.locator(".signin-form").getByRole("button", { name: "Sign in" }).click();
  await page.locator("#who").filter({ hasText: `Signed in as ${name}` }).waitFor();
}

test("the leaderboards and the player page show the games just played", async () => {
  const browser = await openBrowser("leaderboards");
  const { page } = browser;
  const duo = { room: { game: "blokus", mode: "duo" }, bots: ["greedy"] };
  await playGame(browser, server, { ...duo, signIn: { type: "account.register", name: "Ada", password: PASSWORD }, finish: "resign" });
  const signIn = { type: "hello", name: "ada", password: PASSWORD };
  const second = await playGame(browser, server, { ...duo, signIn, finish: "first-legal" });
  const reef = await playGame(browser, server, { signIn, room: { game: "reef-builder", mode: "solo", seed: 7 }, bots: [], finish: "first-legal" });
  const reefScore = reef.over.result.scores[0];

  await visit(page, server, "#/leaderboards");
  await signInThroughHeader(page, "Ada", PASSWORD);
  assert.equal(await page.getByRole("button", { name: "Sign out" }).count(), 1);

  /* Blokus Duo: Ada and the greedy bot, each with their two rated games. */
  await page.getByRole("button", { name: "Blokus Duo" }).click();
  await rowOf(page, "Ada").waitFor();
  assert.match(await rowOf(page, "Ada").getAttribute("class"), /\bme\b/, "the signed-in player's row is marked");
  assert.equal(await rowOf(page, "Ada").locator("td").nth(4).textContent(), "2", "Ada's games");
  assert.equal(await rowOf(page, "bot:greedy").locator("td").nth(4).textContent(), "2", "the bot's games");
  const winnerSecond = second.over.result.winners.includes(0) ? "1" : "0";
  assert.equal(await rowOf(page, "Ada").locator("td").nth(5).textContent(), winnerSecond, "Ada's wins");

  /* Reef: all time, the seed, and around me show her run's score. */
  await page.getByRole("button", { name: "Reef Builder" }).click();
  await page.getByLabel("Period").selectOption("all");
  await page.locator(".board-caption").filter({ hasText: "Board all" }).waitFor();
  assert.equal(await rowOf(page, "Ada").locator("td").nth(2).textContent(), String(reefScore));
  await page.getByLabel("Period").selectOption("seed");
  await page.getByLabel("Seed").fill("7");
  await page.getByLabel("Seed").press("Enter");
  await page.locator(".board-caption").filter({ hasText: "Board seed:7" }).waitFor();
  assert.equal(await rowOf(page, "Ada").locator("td").nth(2).textContent(), String(reefScore));
  await page.getByRole("button", { name: "Around me" }).click();
  await page.getByRole("button", { name: "Around me", pressed: true }).waitFor();
  await rowOf(page, "Ada").and(page.locator("tr.me")).waitFor();
  assert.equal(await rowOf(page, "Ada").locator("td").first().textContent(), "1");
  await screenshot(page, "leaderboards-reef");
  await page.getByRole("button", { name: "Blokus Duo" }).click();
  await rowOf(page, "Ada").waitFor();
  await screenshot(page, "leaderboards");

  /* Her page: three games linking to their replays, two chart points. */
  await rowOf(page, "Ada").getByRole("link", { name: "Ada" }).click();
  await page.locator("h1").filter({ hasText: "Ada" }).waitFor();
  await page.locator("table.recent-games tbody tr").nth(2).waitFor();
  assert.equal(await page.locator("table.recent-games tbody tr").count(), 3);
  const replays = await page.locator("table.recent-games tbody tr td:first-child a").evaluateAll((links) => links.map((link) => link.getAttribute("href")));
  assert.deepEqual(replays, ["#/replay/3", "#/replay/2", "#/replay/1"]);
  assert.equal(await page.locator("svg.chart .chart-point").count(), 2, "one point per rated game");
  await page.locator("svg.chart .chart-point").last().hover();
  await page.locator("svg.chart .chart-tooltip[visibility=visible]").filter({ hasText: "game #2" }).waitFor();
  assert.match(await page.locator("table.reef-best").textContent(), new RegExp(`seed:7${reefScore}`));
  await screenshot(page, "player");
  await page.emulateMedia({ colorScheme: "dark" });
  await screenshot(page, "player-dark");
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, "player-phone");
  await page.setViewportSize({ width: 1280, height: 900 });

  /* A chart point leads to its replay. */
  await page.locator("svg.chart .chart-point").first().click();
  await page.locator("h1").filter({ hasText: "Replay #1" }).waitFor();

  /* Signing out comes back as a new guest. */
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.locator("#who").filter({ hasText: /^Signed in as guest-\d+$/ }).waitFor();
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  await browser.close();
});

test("a guest creates an account from the header; a wrong password is refused visibly", async () => {
  const browser = await openBrowser("register", { viewport: { width: 390, height: 844 }, hasTouch: true });
  const { page } = browser;
  await visit(page, server, "#/leaderboards");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Account name").fill("Grace");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.locator("#who").filter({ hasText: "Signed in as Grace" }).waitFor();
  await page.reload();
  await page.locator("#who").filter({ hasText: "Signed in as Grace" }).waitFor();
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.locator("#who").filter({ hasText: /^Signed in as guest-\d+$/ }).waitFor();
  const guest = await page.locator("#who").textContent();

  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Account name").fill("Grace");
  await page.getByLabel("Password").fill("not the password");
  /* Cleared here, the header names the player again only on a new welcome. */
  await page.evaluate(() => { document.getElementById("who").textContent = ""; });
  await page.locator(".signin-form").getByRole("button", { name: "Sign in" }).click();
  await page.locator("#errors .error").filter({ hasText: "wrong name or password" }).waitFor();
  /* Refused: the new connection signs in as the same guest again. */
  await page.locator("#who").filter({ hasText: guest }).waitFor();
  await page.locator(".signin-form button:enabled").first().waitFor();
  assert.equal(await page.getByRole("button", { name: "Create account" }).isVisible(), true, "the form stays open to try again");
  await screenshot(page, "signin-phone");
  await page.getByRole("button", { name: "Cancel" }).click();
  await page.locator(".signin-form").waitFor({ state: "hidden" });
  await screenshot(page, "leaderboards-phone");
  await browser.close();
});

// reef_race.test.mjs -- the Reef race view: the bots offered by strength
// with their mean scores, the player's board large with its controls, a bot
// racer's board small beside it under its name, and a spectator in another
// browser who sees both boards move and can move neither, until the
// game-over summary.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { closeLeftBrowsers, openBrowser, screenshot, startServer, visit } from "./harness.mjs";
import { createReefRoom } from "./reef_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const MAX_TURNS = 4;

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

function cell(card, row, col) {
  return card.locator(`.reef-grid g.cell[data-row="${row}"][data-col="${col}"]`);
}

function turnOf(card, turn) {
  return card.locator(".reef-turn").filter({ hasText: new RegExp(`^${turn} / ${MAX_TURNS}$`) }).waitFor();
}

test("a race shows every board with its racer's name; a spectator sees all and moves nothing", async () => {
  const player = await openBrowser("reef-racer");
  const { page } = player;
  await createReefRoom(page, server, "race", MAX_TURNS);
  const choices = await page.locator("select[name=bot] option").evaluateAll((options) =>
    options.map((option) => [option.value, option.textContent]));
  assert.deepEqual(choices, [ /* by strength, with the mean score of docs/BOTS.md */
    ["greedy", "Intermediate (greedy, mean 67,400)"],
    ["lookahead", "Strong (lookahead, mean 132,700)"],
    ["planner", "Very strong (planner, mean 136,400)"],
    ["chainer", "Strongest (chainer, mean 138,300)"],
  ]);
  await page.locator("select[name=bot]").selectOption("greedy");
  await page.getByRole("button", { name: "Add bot" }).click();
  await page.locator(".seats li[data-seat='1']", { hasText: "greedy" }).waitFor();
  await page.getByRole("button", { name: "Start", exact: true }).click();

  const mine = page.locator(".reef-mine .reef-card");
  const botCard = page.locator(".reef-others .reef-card[data-seat='1']");
  await mine.waitFor();
  assert.match(await mine.locator(".reef-name").textContent(), /^1\.\u00a0guest-\d+ \(you\)$/);
  assert.equal(await botCard.locator(".reef-name").textContent(), "2.\u00a0greedy (bot)");
  assert.equal(await botCard.locator("button").count(), 0, "a racer's board has no controls");
  await turnOf(botCard, MAX_TURNS); /* the bot races on without waiting for us */
  assert.equal(await botCard.locator(".reef-phase").textContent(), "ended");

  const watcher = await openBrowser("reef-watcher");
  const watch = watcher.page;
  await visit(watch, server, page.url().slice(page.url().indexOf("#")));
  const watchedMine = watch.locator(".reef-card[data-seat='0']");
  await watchedMine.waitFor();
  assert.equal(await watch.locator(".reef-view.reef-watching .reef-card").count(), 2);
  assert.equal(await watch.locator(".reef-view button").count(), 0, "a spectator has no controls");
  await turnOf(watch.locator(".reef-card[data-seat='1']"), MAX_TURNS);

  /* The player's moves reach the spectator; a spectator's click does nothing. */
  await cell(watchedMine, 0, 0).click();
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    await cell(mine, turn * 2, 0).click();
    await turnOf(mine, turn + 1);
    await turnOf(watchedMine, turn + 1);
  }
  assert.equal(await cell(watchedMine, 0, 1).locator("rect").first().getAttribute("fill"), "var(--red)");
  assert.equal(await watch.locator("#errors .error").count(), 0, "the spectator's click sent nothing");
  await watch.locator(".game-over").waitFor();
  await page.locator(".game-over").waitFor();
  assert.match(await watchedMine.locator(".reef-phase").textContent(), /^ended, rank \d$/);
  await screenshot(page, "reef-race-player");
  await screenshot(watch, "reef-race-spectator");
  await watcher.close();
  await player.close();
});

// polish.test.mjs -- the small things a new user tripped over (issue 20,
// "Polish"): the tray says "1 square"; by keyboard the preview says to press
// Enter, not to click; a seat's row stays one line when its colour runs out
// of moves; a player who resigned is told the others played on; the lobby
// lists live rooms above finished ones, which offer their Result rather than
// "Watch"; a built-in bot is spelled "greedy (bot)" in lists as in the room;
// the replay's move list speaks in rows and columns, not "U/0 at 0,0".
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser, visit } from "./harness.mjs";
import { blokusSuite, createRoomWithBots, firstLegal, holdPieceByKeyboard, readPosition } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

test("the polish list: words, one-line seats, room order, bot names, move list", async () => {
  const browser = await openBrowser("player");
  const { page } = browser;
  const finished = await createRoomWithBots(page, suite.server, "4p", 3);
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".turn.mine").waitFor();
  assert.equal(await page.locator('.tray-piece[data-piece="I1"]').getAttribute("aria-label"), "I1, 1 square");
  assert.equal(await page.locator('.tray-piece[data-piece="I2"]').getAttribute("aria-label"), "I2, 2 squares");

  /* The keyboard's words, once the arrows moved the piece. */
  const placement = firstLegal(suite.pieces, await readPosition(page));
  await holdPieceByKeyboard(page, placement);
  await page.keyboard.press(placement.col > 0 ? "ArrowLeft" : "ArrowRight");
  await page.keyboard.press(placement.col > 0 ? "ArrowRight" : "ArrowLeft");
  await page.locator('.blokus-view[data-preview="legal"]').waitFor();
  assert.equal(await page.locator(".preview-reason").textContent(), "Legal: press Enter to place.");
  await page.keyboard.press("Escape");

  await page.getByRole("button", { name: "Resign" }).click();
  await page.getByRole("button", { name: "Really resign?" }).click();
  await page.locator(".game-over").waitFor();
  assert.equal(await page.locator(".game-over .end-reason").textContent(), "You resigned, and the others played on until no color could move any more.");
  /* Every seat's row is one line, whatever markers it has ("out of moves"
   * comes only when a colour is passed over, which this game may not show):
   * the rows do not wrap, and none is taller than the others. */
  const rows = await page.locator("ul.seats li.seat").evaluateAll((items) => items.map((row) => [getComputedStyle(row).flexWrap, row.getBoundingClientRect().height]));
  assert.ok(rows.every(([wrap]) => wrap === "nowrap"), JSON.stringify(rows));
  const line = Math.min(...rows.map(([, height]) => height));
  assert.ok(rows.every(([, height]) => height < line * 1.5), JSON.stringify(rows));

  /* The lobby, seen by another player: a live room above the finished one, which offers its Result. */
  const host = await openBrowser("host");
  const live = await createRoomWithBots(host.page, suite.server, "duo", 1);
  await visit(host.page, suite.server, "#/");
  await host.page.locator(`.rooms tr[data-room="${live}"]`).waitFor();
  await host.page.locator(`.rooms tr[data-room="${finished}"]`).waitFor();
  const order = await host.page.locator(".rooms tr[data-room]").evaluateAll((rows) => rows.map((row) => row.dataset.room));
  assert.ok(order.indexOf(live) < order.indexOf(finished), order.join());
  const finishedRow = host.page.locator(`.rooms tr[data-room="${finished}"]`);
  assert.equal(await finishedRow.getByRole("button", { name: "Watch" }).count(), 0);
  await finishedRow.getByRole("button", { name: "Result" }).click();
  await host.page.locator(".game-over").waitFor();

  /* The replay names the bots as the room does and the moves in rows and columns. */
  const answer = await fetch(`${suite.server.url}/api/games?status=finished&limit=1`);
  const { items } = await answer.json();
  await visit(page, suite.server, `#/replay/${items[0].id}`);
  await page.locator(".move-list li").first().waitFor();
  /* (the first entry is our resignation) */
  assert.match(await page.locator(".move-list li").nth(1).textContent(), /^yellow [A-Z][0-9A-Z]* at row \d+, column \d+$/);
  assert.ok((await page.locator("table.players").textContent()).includes("greedy (bot)"));
  await host.close();
  await browser.close();
});

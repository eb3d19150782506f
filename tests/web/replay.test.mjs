// replay.test.mjs -- the replay viewer against games really played: a 4p
// Blokus game (a guest playing first legal moves against three greedy
// bots) stepped through to its last ply shows the final board the players
// saw live; jumping (number, slider, keys) and playing move through the
// same positions; the SGF link answers an SGF file. A Reef race replays
// each seat's board to the end.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { latestGameId, playGame } from "./driver.mjs";
import { closeLeftBrowsers, openBrowser, screenshot, startServer, visit } from "./harness.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

let server;
before(async () => { server = await startServer(["--rate", "1000", "--burst", "1000"]); });
after(async () => { await server.stop(); });

const boardOf = (page, seat = "") => page.locator(`.replay-board[data-seat="${seat}"]`).getAttribute("data-board");
const plyLabel = (page, ply, last) => page.locator(".ply-label").filter({ hasText: new RegExp(`^Ply ${ply} / ${last}$`) }).waitFor();
const filled = (board) => board.replace(/[./]/g, "").length;

test("a Blokus replay stepped to its last ply shows the final board", async () => {
  const browser = await openBrowser("replay");
  const { page } = browser;
  const played = await playGame(browser, server, {
    signIn: { type: "hello", name: "stepper" },
    room: { game: "blokus", mode: "4p" },
    bots: ["greedy", "greedy", "greedy"],
    finish: "first-legal",
  });
  const gameId = await latestGameId(server);
  const replay = await (await fetch(`${server.url}/api/games/${gameId}/replay`)).json();
  const last = replay.plies.length;
  assert.ok(last > 20, `a whole game has many plies (${last})`);

  await visit(page, server, `#/replay/${gameId}`);
  await plyLabel(page, 0, last);
  assert.equal(filled(await boardOf(page)), 0, "ply 0 is the empty board");
  /* The guest's name is no link: guests have no page (issue 16, item 10). */
  await page.locator("table.players .guest", { hasText: "stepper" }).waitFor();
  assert.equal(await page.locator("table.players a", { hasText: "stepper" }).count(), 0);
  assert.equal(await page.locator(".move-list li").count(), last);

  const forward = page.getByRole("button", { name: "Forward one ply" });
  for (let ply = 1; ply <= last; ply++) {
    await forward.click();
    await plyLabel(page, ply, last);
  }
  assert.equal(await boardOf(page), played.finalState.board.join("/"), "the last ply shows the final board");
  assert.equal(await page.locator(".move-list li.current").getAttribute("data-ply"), String(last));
  await screenshot(page, "replay-blokus");

  /* Every way of jumping lands on the position the server's cells describe. */
  const squaresUpTo = (ply) => replay.plies.slice(0, ply).reduce((sum, entry) => sum + (entry.cells || []).length, 0);
  await page.getByLabel("Jump to ply").fill("5");
  await page.getByLabel("Jump to ply").press("Enter");
  await plyLabel(page, 5, last);
  assert.equal(filled(await boardOf(page)), squaresUpTo(5));
  await page.getByRole("slider", { name: "Ply" }).fill("12");
  await plyLabel(page, 12, last);
  assert.equal(filled(await boardOf(page)), squaresUpTo(12));
  await page.locator("h1").click();
  await page.keyboard.press("ArrowLeft");
  await plyLabel(page, 11, last);
  assert.equal(filled(await boardOf(page)), squaresUpTo(11));
  await page.keyboard.press("Home");
  await plyLabel(page, 0, last);
  await page.locator(".move-list li").nth(6).getByRole("button").click();
  await plyLabel(page, 7, last);
  assert.equal(filled(await boardOf(page)), squaresUpTo(7));

  /* Play at the fastest speed runs to the end and stops there. */
  await page.getByLabel("Speed").selectOption("10");
  await page.getByRole("button", { name: "Play" }).click();
  await page.getByRole("button", { name: "Pause" }).waitFor();
  await plyLabel(page, last, last);
  await page.getByRole("button", { name: "Play" }).waitFor();
  assert.equal(await boardOf(page), played.finalState.board.join("/"));

  const sgfLink = page.getByRole("link", { name: "Download SGF" });
  const sgf = await page.request.get(new URL(await sgfLink.getAttribute("href"), server.url).href);
  assert.equal(sgf.status(), 200);
  assert.match(await sgf.text(), /^\(;FF\[4\]/);
  await browser.close();
});

test("a Reef race replays every seat's board to its end, on a phone too", async () => {
  const browser = await openBrowser("replay-phone", { viewport: { width: 390, height: 844 }, hasTouch: true });
  const { page } = browser;
  const played = await playGame(browser, server, {
    signIn: { type: "hello", name: "racer" },
    room: { game: "reef-builder", mode: "race", seed: 7, max_turns: 30 },
    bots: ["greedy"],
    finish: "first-legal",
  });
  const gameId = await latestGameId(server);
  await visit(page, server, `#/replay/${gameId}`);
  const last = Number(await page.getByRole("slider", { name: "Ply" }).getAttribute("max"));
  assert.equal(last, played.finalState.boards.reduce((sum, board) => sum + board.ply, 0), "every action of both boards");
  assert.equal(played.finalState.boards.length, 2);
  await page.getByRole("button", { name: "Last ply" }).tap();
  await plyLabel(page, last, last);
  for (const board of played.finalState.boards) {
    assert.equal(await boardOf(page, String(board.seat)), board.board.join("/"), `seat ${board.seat}'s final board`);
  }
  assert.equal(await page.getByRole("link", { name: "Download SGF" }).count(), 0, "Reef has no SGF");
  await screenshot(page, "replay-reef-phone");

  /* The Blokus replay on the phone, for its screenshot. */
  await visit(page, server, "#/replay/1");
  await page.getByRole("button", { name: "Last ply" }).tap();
  await page.locator(".ply-label").filter({ hasText: /^Ply [1-9]\d* \/ / }).waitFor();
  await screenshot(page, "replay-blokus-phone");
  await browser.close();
});

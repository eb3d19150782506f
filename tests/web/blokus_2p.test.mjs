// blokus_2p.test.mjs -- two people, two browsers (two profiles, two
// guests): A creates a 2-player room, B finds it in the lobby's list and
// joins, each plays moves for both of their colors, A reloads mid-game and
// is back in the same seat and moves again, then B resigns and both see
// the summary. A private room is left out of the list and joined by its
// invite link, with a clock that runs for the seat to move. Quick play
// matches two waiting players into one room.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser, screenshot, visit } from "./harness.mjs";
import { blokusSuite, createRoomWithBots, firstLegal, playMove, readPosition } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

/* The player whose turn it is makes one legal move. */
async function moveOn(page) {
  await page.locator(".turn.mine").waitFor();
  await playMove(page, firstLegal(suite.pieces, await readPosition(page)));
}

test("two browsers play a 2p game; a reload keeps the seat", async () => {
  const alice = await openBrowser("alice");
  const bob = await openBrowser("bob");
  const code = await createRoomWithBots(alice.page, suite.server, "2p", 0);
  await visit(bob.page, suite.server, "#/");
  const bobName = (await bob.page.locator("#who").textContent()).replace("Signed in as ", "");
  await bob.page.locator(`.rooms tr[data-room="${code}"]`).getByRole("button", { name: "Join" }).click();
  await bob.page.locator('.seats li.me[data-seat="1"]').waitFor();
  await alice.page.locator('.seats li[data-seat="1"]', { hasText: bobName }).waitFor();
  await alice.page.getByRole("button", { name: "Start" }).click();

  /* 2p: colors 0 and 2 are Alice's (seat 0), 1 and 3 Bob's; turns alternate. */
  for (let round = 0; round < 2; round++) {
    await moveOn(alice.page);
    await moveOn(bob.page);
  }
  assert.equal(await alice.page.locator(".blokus-view").getAttribute("data-color"), "blue");
  await screenshot(bob.page, "blokus-2p-midgame");

  const boardBefore = await alice.page.locator(".blokus-view").getAttribute("data-board");
  await alice.page.reload();
  await alice.page.locator('.seats li.me[data-seat="0"]').waitFor();
  await alice.page.locator(".turn.mine").waitFor();
  assert.equal(await alice.page.locator(".blokus-view").getAttribute("data-board"), boardBefore);
  await moveOn(alice.page);
  await moveOn(bob.page);

  await bob.page.getByRole("button", { name: "Resign" }).click();
  await bob.page.getByRole("button", { name: "Really resign?" }).click();
  for (const { page } of [alice, bob]) {
    await page.locator(".game-over").waitFor();
    await page.locator('.seats li[data-seat="1"] .marker', { hasText: "resigned" }).waitFor();
    assert.equal(await page.locator('.game-over tr[data-seat="0"] .rank').textContent(), "1");
    assert.equal(await page.locator('.game-over tr[data-seat="1"] .rank').textContent(), "2");
    await page.locator(".room-status", { hasText: "finished" }).waitFor();
  }
  await screenshot(alice.page, "blokus-2p-game-over");
  await alice.close();
  await bob.close();
});

test("a private room is not listed and is joined by its invite link", async () => {
  const alice = await openBrowser("host");
  const bob = await openBrowser("guest");
  await visit(alice.page, suite.server, "#/");
  await alice.page.locator("form#create-room select[name=mode]").selectOption("duo");
  await alice.page.locator("form#create-room input[name=private]").check();
  await alice.page.locator("form#create-room input[name=clock_minutes]").fill("1");
  await alice.page.getByRole("button", { name: "Create room" }).click();
  await alice.page.locator(".room-status", { hasText: "waiting" }).waitFor();
  const invite = await alice.page.locator(".invite input").inputValue();
  assert.match(invite, /\/#\/room\/[0-9a-z]{8}$/);

  await visit(bob.page, suite.server, "#/");
  await bob.page.locator('.rooms[aria-busy="false"]').waitFor();
  const code = invite.split("/").pop();
  assert.equal(await bob.page.locator(`.rooms tr[data-room="${code}"]`).count(), 0);
  await bob.page.goto(invite);
  await bob.page.locator(".room-status", { hasText: "waiting" }).waitFor();
  await bob.page.locator('.seats li[data-seat="1"]').getByRole("button", { name: "Sit here" }).click();
  await bob.page.locator('.seats li.me[data-seat="1"]').waitFor();
  await alice.page.locator('.seats li[data-seat="1"] .seat-name', { hasNotText: "empty" }).waitFor();
  await alice.page.getByRole("button", { name: "Start" }).click();
  await bob.page.locator(".room-status", { hasText: "playing" }).waitFor();
  await bob.page.locator(".blokus-view[data-ply]").waitFor();
  /* Seat 0 moves first: its one-minute clock runs down, seat 1's stands. */
  await bob.page.locator('[data-clock-seat="0"].running', { hasText: "0:5" }).waitFor();
  assert.equal(await bob.page.locator('[data-clock-seat="1"]').textContent(), "1:00");
  await alice.close();
  await bob.close();
});

test("quick play seats two waiting players in one started room", async () => {
  const first = await openBrowser("quick-1");
  const second = await openBrowser("quick-2");
  for (const { page } of [first, second]) {
    await visit(page, suite.server, "#/");
    await page.locator("select[name=quick]").selectOption("blokus/duo");
    await page.getByRole("button", { name: "Quick play" }).click();
  }
  for (const { page } of [first, second]) {
    await page.locator(".room-status", { hasText: "playing" }).waitFor();
    await page.locator(".seats li.me").waitFor();
  }
  assert.equal(new URL(first.page.url()).hash, new URL(second.page.url()).hash);
  await first.close();
  await second.close();
});

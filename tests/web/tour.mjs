// tour.mjs -- every page and state of the client a person meets, walked
// as a person would, stopping at each to let the caller look: the
// accessibility test runs axe-core at every stop, the screenshot script
// (screenshots.mjs) photographs them.
//
// tourData(server) makes what the history pages show: the account Ada's
// rated Duo game against the greedy bot and a small bot tournament.
// tour(page, server, data, stop) then walks, calling `await stop(name)` at:
//   blokus-waiting     a 4-player room, made from the lobby, before the start
//   blokus-playing     the same room on the player's turn, after the bots' moves, a piece held
//   blokus-finished    a Duo room after a move each and the player's resignation: the game-over panel
//   reef-waiting       a Reef solo room before the start
//   reef-playing       the same room started
//   lobby              the lobby with rooms listed
//   signin             the lobby with the sign-in form open
//   replay             the finished Duo game's replay
//   leaderboards       the Blokus Duo leaderboard
//   player             Ada's page (rating chart, games)
//   my-games           the player's own games
//   tournaments        the list of tournaments
//   tournament         the tournament's page
import assert from "node:assert/strict";
import { playGame, latestGameId } from "./driver.mjs";
import { visit } from "./harness.mjs";
import { cell, createRoomWithBots, firstLegal, holdPiece, playMove, readPosition } from "./blokus_play.mjs";
import { createReefRoom } from "./reef_play.mjs";

export const ADMIN_KEY = "web-test-admin-key-0123456789";
/* The server flags tourData needs: the admin key (a tournament), room for many requests. */
export const TOUR_SERVER_FLAGS = ["--admin-key", ADMIN_KEY, "--rate", "1000", "--burst", "1000"];

/* Ada's rated game and a tournament: {tournamentId}. */
export async function tourData(browser, server) {
  await playGame(browser, server, {
    signIn: { type: "account.register", name: "Ada", password: "correct horse battery" },
    room: { game: "blokus", mode: "duo" }, bots: ["greedy"], finish: "resign",
  });
  const answer = await fetch(`${server.url}/api/tournaments`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Tour Cup", game: "blokus", mode: "duo", format: "fixed", games: 2, parallel: 1, seed: 42,
      participants: [{ bot: "greedy" }, { bot: "random" }] }),
  });
  assert.equal(answer.status, 201, await answer.clone().text());
  return { tournamentId: (await answer.json()).id };
}

/* Resigns (two clicks) and waits for the game-over panel. */
async function resign(page) {
  await page.getByRole("button", { name: "Resign" }).click();
  await page.getByRole("button", { name: "Really resign?" }).click();
  await page.locator(".game-over").waitFor();
}

/* Walks every stop named above in `page` (a fresh guest), calling stop(name) at each. */
export async function tour(page, server, data, stop) {
  await createRoomWithBots(page, server, "4p", 0);
  await stop("blokus-waiting");
  for (let seat = 1; seat <= 3; seat++) {
    await page.getByRole("button", { name: "Add bot" }).click();
    await page.locator(`.seats li[data-seat="${seat}"]`, { hasText: "greedy (bot)" }).waitFor();
  }
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".turn.mine").waitFor();
  await playMove(page, firstLegal(data.pieces, await readPosition(page)));
  await page.locator(".blokus-view[data-color=blue]").waitFor();
  await page.locator(".turn.mine").waitFor();
  const placement = firstLegal(data.pieces, await readPosition(page));
  await holdPiece(page, placement);
  await cell(page, placement.row, placement.col).hover();
  await page.locator('.blokus-view[data-preview="legal"]').waitFor();
  await stop("blokus-playing");

  await createRoomWithBots(page, server, "duo", 1);
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".turn.mine").waitFor();
  await playMove(page, firstLegal(data.pieces, await readPosition(page)));
  await page.locator(".turn.mine").waitFor();
  await resign(page);
  await page.locator(".game-over svg.chart").waitFor();
  await stop("blokus-finished");
  const finishedGame = await latestGameId(server, "&game=blokus");

  await createReefRoom(page, server, "solo", 1000);
  await stop("reef-waiting");
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".room-status", { hasText: "playing" }).waitFor();
  await page.locator(".reef-card").first().waitFor();
  await stop("reef-playing");

  await visit(page, server, "#/");
  await page.locator(".rooms tbody tr").first().waitFor();
  await stop("lobby");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Account name").waitFor();
  await stop("signin");
  await page.keyboard.press("Escape");

  await visit(page, server, `#/replay/${finishedGame}`);
  await page.locator(".move-list li").first().waitFor();
  await stop("replay");
  await visit(page, server, "#/leaderboards");
  await page.getByRole("button", { name: "Blokus Duo" }).click();
  await page.locator("table.leaderboard tbody tr").filter({ hasText: "Ada" }).waitFor();
  await stop("leaderboards");
  await visit(page, server, "#/player/Ada");
  await page.locator("svg.chart .chart-point").first().waitFor();
  await stop("player");
  await visit(page, server, "#/me");
  await page.locator("table.recent-games tbody tr[data-game]").first().waitFor();
  await stop("my-games");
  await visit(page, server, "#/tournaments");
  await page.locator("table.tournaments tbody tr").first().waitFor();
  await stop("tournaments");
  await visit(page, server, `#/tournament/${data.tournamentId}`);
  await page.locator("table.standings tbody tr").first().waitFor();
  await stop("tournament");
}

// moved.test.mjs -- the client on a server of several instances (docs/PROTOCOL.md,
// `moved`): a room's page connects to /ws?room=CODE (the proxy routes it to
// the room's owner), also when it reconnects and reloads; a `moved` answer
// is followed after its retry_ms to the url it names, with hello and the
// stored token and room.join, and the game goes on there (quick play's
// moved, likewise, with queue.join again; a tournament's, with
// tournament.watch again); a room that keeps
// moving is given up after 8 moves in a row, each return to the same place
// waited for longer, with a clear error.
//
// One real server stands for every instance: Playwright's routeWebSocket is
// the stub proxy in front of it (the tests add no npm package), forwarding
// each socket of the page and answering `moved` where a test says.
import assert from "node:assert/strict";
import { test } from "node:test";
import { openBrowser } from "./harness.mjs";
import { blokusSuite, createRoomWithBots, firstLegal, playMove, readPosition } from "./blokus_play.mjs";

const ADMIN_KEY = "web-test-admin-key-0123456789";
const suite = blokusSuite(["--admin-key", ADMIN_KEY]);
const MAX_MOVES = 8;
const WAIT_MS = 30000; /* like Playwright's own waits */

/* `promise`, or a rejection naming `what` once `ms` have passed. */
function within(ms, what, promise) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/* Routes every websocket of `page` to the server through the stub. Each
 * socket is recorded: {path, openedAt, sent (the page's messages), closed
 * (a promise), movedAt (when the stub first answered `moved` on it), drop()};
 * sockets.until(what, check) waits until check() holds (checked as sockets
 * open and messages pass), sockets.opened(N) for the socket number N (from
 * 0). A room.join, queue.join or tournament.watch for
 * which moveTo(message, socket) names an instance is answered `moved` toward
 * it (without a room for quick play, with the tournament for a watch), with
 * `retryMs`, instead of being forwarded. With `deafFirst`, the server's
 * answers on the first socket never reach the page (its hello stays
 * unanswered, as from a slow server). */
async function stubInstances(page, { moveTo = () => null, retryMs = 0, deafFirst = false } = {}) {
  const sockets = [];
  const waiters = [];
  const changed = () => { for (const wake of waiters.splice(0)) wake(); };
  sockets.until = (what, check) => within(WAIT_MS, what, (async () => {
    while (!check()) await new Promise((wake) => waiters.push(wake));
    return check();
  })());
  sockets.opened = (index) => sockets.until(`socket ${index} to open`, () => sockets[index]);
  await page.routeWebSocket(/\/ws/, (route) => {
    const url = new URL(route.url());
    const server = route.connectToServer();
    let closed;
    const socket = { path: url.pathname + url.search, openedAt: performance.now(), sent: [], movedAt: null, closed: new Promise((resolve) => { closed = resolve; }) };
    socket.drop = () => {
      route.close({ code: 1001, reason: "going away" });
      server.close();
    };
    sockets.push(socket);
    if (deafFirst && sockets.length === 1) server.onMessage(() => {});
    changed();
    route.onClose((code, reason) => { server.close({ code, reason }); closed(); });
    route.onMessage((text) => {
      const message = JSON.parse(text);
      socket.sent.push(message);
      changed();
      const instance = ["room.join", "queue.join", "tournament.watch"].includes(message.type) ? moveTo(message, socket) : null;
      if (!instance) {
        server.send(text);
        return;
      }
      socket.movedAt ??= performance.now();
      const { room, tournament, id } = message;
      route.send(JSON.stringify(room
        ? { type: "moved", room, instance, url: `/ws?room=${room}&instance=${instance}`, retry_ms: retryMs, id }
        : { type: "moved", instance, ...(tournament ? { tournament } : {}), url: `/ws?instance=${instance}`, retry_ms: retryMs, id }));
    });
  });
  return sockets;
}

test("a room's page connects to /ws?room=CODE, and so do its reconnects and reloads", async () => {
  const browser = await openBrowser("room-url");
  const { page } = browser;
  const sockets = await stubInstances(page);
  const code = await createRoomWithBots(page, suite.server, "duo", 1);
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".turn.mine").waitFor();
  assert.equal(sockets[0].path, "/ws", "the lobby connects to any instance");

  sockets[0].drop();
  const reconnect = await sockets.opened(1);
  assert.equal(reconnect.path, `/ws?room=${code}`);
  await page.locator("#status").waitFor({ state: "hidden" });

  await page.reload();
  const reloaded = await sockets.opened(2);
  assert.equal(reloaded.path, `/ws?room=${code}`);
  await page.locator(".turn.mine").waitFor();
  assert.equal(sockets.length, 3);
  await browser.close();
});

test("moved is followed after retry_ms: hello with the token and room.join at the new url, then the game is played there", async () => {
  const browser = await openBrowser("moved");
  const { page } = browser;
  const retryMs = 300;
  let moving = false;
  /* Once moving: a socket that names no instance is answered moved to instance x. */
  const sockets = await stubInstances(page, { retryMs, moveTo: (message, socket) => (moving && !socket.path.includes("instance=") ? "x" : null) });
  const code = await createRoomWithBots(page, suite.server, "duo", 1);
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".turn.mine").waitFor();

  /* A reload lands on another instance than the room's (its owner was replaced, say). */
  moving = true;
  const opened = sockets.length;
  await page.reload();
  const landed = await sockets.opened(opened);
  const owner = await sockets.opened(opened + 1);
  assert.equal(landed.path, `/ws?room=${code}`);
  assert.equal(owner.path, `/ws?room=${code}&instance=x`);
  assert.ok(owner.openedAt - landed.movedAt >= retryMs, `the new socket opened ${owner.openedAt - landed.movedAt} ms after moved`);
  await within(WAIT_MS, "close of the socket that got moved", landed.closed);
  await sockets.until("room.join on the new socket", () => owner.sent.some((message) => message.type === "room.join"));
  const token = await page.evaluate(() => localStorage.getItem("tessera.token"));
  assert.ok(token);
  assert.equal(owner.sent[0].type, "hello");
  assert.equal(owner.sent[0].token, token);
  assert.equal(owner.sent[1].type, "room.join");
  assert.equal(owner.sent[1].room, code);
  await page.locator(".turn.mine").waitFor();
  await playMove(page, firstLegal(suite.pieces, await readPosition(page)));
  assert.ok(owner.sent.some((message) => message.type === "game.move"), "the move went to the room's instance");
  assert.equal(sockets.length, opened + 2);
  assert.equal(await page.locator("#status").isHidden(), true);
  await browser.close();
});

test("quick play's moved is followed: queue.join again at /ws?instance=ID, and the lobby shows the player waiting", async () => {
  const browser = await openBrowser("moved-queue");
  const { page } = browser;
  /* Quick play lives on instance q: a queue.join anywhere else is answered moved there. */
  const sockets = await stubInstances(page, { moveTo: (message, socket) => (socket.path.includes("instance=") ? null : "q") });
  await page.goto(`${suite.server.url}/#/`);
  await page.getByRole("button", { name: "Quick play" }).click();
  const holder = await sockets.opened(1);
  assert.equal(holder.path, "/ws?instance=q");
  await page.locator(".queue-status", { hasText: "Waiting for opponents" }).waitFor();
  /* Signed in first (a guest never stored is new there), then the same queue.join. */
  const types = holder.sent.map((message) => message.type);
  assert.equal(types[0], "hello");
  assert.ok(types.indexOf("queue.join") > types.lastIndexOf("hello"), types.join(" "));
  const asked = (socket) => socket.sent.find((message) => message.type === "queue.join");
  assert.deepEqual([asked(holder).game, asked(holder).mode], [asked(sockets[0]).game, asked(sockets[0]).mode]);
  assert.equal(sockets.length, 2);
  await browser.close();
});

test("a moved that comes before the hello is answered is followed without an error: the hello and the request go again from the new socket", async () => {
  const browser = await openBrowser("moved-before-hello");
  const { page } = browser;
  const sockets = await stubInstances(page, { deafFirst: true, moveTo: (message, socket) => (socket.path.includes("instance=") ? null : "q") });
  await page.goto(`${suite.server.url}/#/`);
  await sockets.until("the first hello", () => sockets[0]?.sent.some((message) => message.type === "hello"));
  await page.getByRole("button", { name: "Quick play" }).click();
  const holder = await sockets.opened(1);
  assert.equal(holder.path, "/ws?instance=q");
  await page.locator(".queue-status", { hasText: "Waiting for opponents" }).waitFor();
  assert.deepEqual(holder.sent.map((message) => message.type).slice(0, 2), ["hello", "queue.join"]);
  await browser.close(); /* asserts that the page had no error */
});

test("a tournament's moved is followed: tournament.watch again at /ws?instance=ID, and its page shows it", async () => {
  const answer = await fetch(`${suite.server.url}/api/tournaments`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Moved Cup", game: "blokus", mode: "duo", format: "fixed", games: 4, parallel: 1, participants: [{ bot: "mcts" }, { bot: "greedy" }] }),
  });
  assert.equal(answer.status, 201, await answer.clone().text());
  const { id } = await answer.json();
  const browser = await openBrowser("moved-tournament");
  const { page } = browser;
  /* The tournament runs on instance t: a watch anywhere else is answered moved there. */
  const sockets = await stubInstances(page, { moveTo: (message, socket) => (socket.path.includes("instance=") ? null : "t") });
  await page.goto(`${suite.server.url}/#/tournament/${id}`);
  const holder = await sockets.opened(1);
  assert.equal(holder.path, "/ws?instance=t");
  await sockets.until("tournament.watch on the new socket", () => holder.sent.some((message) => message.type === "tournament.watch"));
  const types = holder.sent.map((message) => message.type);
  assert.equal(types[0], "hello");
  assert.equal(holder.sent.find((message) => message.type === "tournament.watch").tournament, id);
  await page.locator("h1").filter({ hasText: "Moved Cup" }).waitFor();
  await page.locator("table.standings tbody tr").nth(1).waitFor();
  assert.equal(await page.locator(".error").count(), 0, "no error shown");
  assert.equal(sockets.length, 2);
  await browser.close();
});

test("a room moved 8 times in a row is given up with a clear error, each return to the same place waited for longer", async () => {
  const browser = await openBrowser("moved-loop");
  const { page } = browser;
  /* Every instance sends the room on, to a and b in turn. */
  let moves = 0;
  const sockets = await stubInstances(page, { moveTo: () => (moves++ % 2 ? "b" : "a") });
  await page.goto(`${suite.server.url}/#/`);
  await page.getByRole("button", { name: "Create room" }).click();
  await page.locator(".error", { hasText: `was moved ${MAX_MOVES} times in a row without opening; reload the page to try again` }).first().waitFor();

  /* Given up: the page stays on its socket, whatever asks for that room again. */
  const code = sockets[0].sent.find((message) => message.type === "room.join").room;
  await page.evaluate((room) => { location.hash = `#/room/${room}`; }, code);
  await page.locator(".error", { hasText: "Cannot open the room" }).nth(1).waitFor();
  assert.equal(sockets.length, MAX_MOVES + 1, sockets.map((socket) => socket.path).join(" "));
  assert.deepEqual(sockets.slice(1).map((socket) => socket.path.slice(-1)), ["a", "b", "a", "b", "a", "b", "a", "b"]);
  /* The least waits: none for a new place, then 250 ms doubling per return. */
  const least = [0, 0, 250, 250, 500, 500, 1000, 1000];
  for (const [move, wait] of least.entries()) {
    const waited = sockets[move + 1].openedAt - sockets[move].movedAt;
    assert.ok(waited >= wait, `move ${move + 1} waited ${waited} ms, at least ${wait}`);
  }
  await browser.close();
});

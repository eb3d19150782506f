// preload.test.mjs -- a page's modules are asked for at once (issue 20: the
// room's Lighthouse performance on a phone; web/routes.js, PRELOADS): each
// preload list is exactly the modules its page imports, all the way down
// (read from the import lines of web/), with the modules it imports later
// on purpose; and a visitor opening a started Blokus room, or the lobby,
// fetches no module the list left out, each module and the piece table only
// once (the fetch() takes the preloaded answer).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { closeLeftBrowsers, openBrowser, startServer } from "./harness.mjs";
import { createRoomWithBots } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const WEB = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "web");
/* Each page's own module, and those it imports later on purpose: a room
 * imports its game's view once the server said the game (pages/room.js,
 * withView), and the Blokus one is preloaded. */
const ROOTS = { lobby: ["pages/lobby.js"], room: ["pages/room.js", "games/blokus_view.js"] };
/* What the shell itself loads (index.html and app.js's imports). */
const SHELL = ["routes.js", "app.js", "net.js", "signin.js", "dom.js"];
const STATIC_IMPORT = /^import\s+(?:[^;]*?\sfrom\s+)?"([^"]+)";/gms;

/* Every module `roots` import statically, all the way down, roots included
 * (paths under web/). */
function importClosure(roots) {
  const seen = new Set();
  const visit = (path) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const [, target] of readFileSync(join(WEB, path), "utf8").matchAll(STATIC_IMPORT)) {
      visit(relative(WEB, normalize(join(WEB, dirname(path), target))));
    }
  };
  roots.forEach(visit);
  return seen;
}

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

/* The page's PRELOADS, as the browser has them. */
function preloadsOf(page) {
  return page.evaluate(async () => (await import("/web/routes.js")).PRELOADS);
}

/* The paths the page requests, each as many times as it is requested. */
function recordRequests(page) {
  const paths = [];
  page.on("request", (request) => paths.push(new URL(request.url()).pathname));
  return paths;
}

test("each preload list is exactly its page's imports, all the way down", async () => {
  const browser = await openBrowser("lists");
  await browser.page.goto(`${server.url}/#/`);
  const preloads = await preloadsOf(browser.page);
  assert.deepEqual(Object.keys(preloads).sort(), Object.keys(ROOTS).sort(), "a list for the lobby and the room");
  for (const [name, roots] of Object.entries(ROOTS)) {
    const listed = preloads[name].modules;
    const imported = importClosure(roots);
    assert.equal(new Set(listed).size, listed.length, `${name}: a module listed twice`);
    assert.deepEqual(listed.filter((path) => !imported.has(path)), [], `${name}: listed in PRELOADS (web/routes.js) but not imported`);
    assert.deepEqual([...imported].filter((path) => !listed.includes(path)), [], `${name}: imported but missing from PRELOADS (web/routes.js)`);
  }
  await browser.close();
});

test("a visitor of a Blokus room fetches nothing unlisted, and every module and the pieces once", async () => {
  const owner = await openBrowser("owner");
  const code = await createRoomWithBots(owner.page, server, "4p", 3);
  await owner.page.getByRole("button", { name: "Start" }).click();
  await owner.page.locator(".turn.mine").waitFor();

  const visitor = await openBrowser("visitor", { viewport: { width: 390, height: 844 } });
  const requested = recordRequests(visitor.page);
  await visitor.page.goto(`${server.url}/#/room/${code}`);
  await visitor.page.locator(".room-body:not(.drawing) .tray-piece").first().waitFor();
  const { room } = await preloadsOf(visitor.page);
  assert.equal(await visitor.page.locator("link[rel=modulepreload]").count(), room.modules.length);
  const modules = requested.filter((path) => path.endsWith(".js")).map((path) => path.replace(/^\/web\//, ""));
  assert.deepEqual(modules.filter((path) => !SHELL.includes(path) && !room.modules.includes(path)), [], "modules the room needed, not preloaded");
  assert.deepEqual(modules.filter((path, i) => modules.indexOf(path) !== i), [], "a module fetched twice");
  assert.deepEqual(requested.filter((path) => room.fetches.includes(path)), room.fetches, "the piece table fetched once");
  await visitor.close();
  await owner.close();
});

test("the lobby fetches no module its list left out", async () => {
  const browser = await openBrowser("lobby");
  const requested = recordRequests(browser.page);
  await browser.page.goto(`${server.url}/#/`);
  await browser.page.getByRole("button", { name: "Create room" }).waitFor();
  const { lobby } = await preloadsOf(browser.page);
  const modules = requested.filter((path) => path.endsWith(".js")).map((path) => path.replace(/^\/web\//, ""));
  assert.deepEqual(modules.filter((path) => !SHELL.includes(path) && !lobby.modules.includes(path)), []);
  assert.deepEqual(modules.filter((path, i) => modules.indexOf(path) !== i), [], "a module fetched twice");
  await browser.close();
});

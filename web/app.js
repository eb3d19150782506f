// app.js -- the client's shell: the connection, the header, errors shown
// to the person, and a hash router that mounts one page at a time.
//
// A page is a module in web/pages/ exporting mount(root, params, app) and
// returning an unmount function (or nothing); each route has its tab title,
// which a page may make more precise (app.setTitle). A keyboard never loses
// its place: when a page change took the focused control away (the lobby's
// "Create room" opens the room), the new page's <h1> gets the focus; the
// skip link's target is <main>, not a route. Routes (routes.js, which also
// starts the downloads of the opened page at once):
//   #/                      lobby.js        rooms, create, quick play
//   #/room/CODE             room.js         play or watch a room's game
//   #/replay/ID             replay.js       step through a stored game
//   #/leaderboards          leaderboards.js Blokus ratings, Reef boards
//   #/player/NAME           player.js       profile, rating chart, games
//   #/me                    my_games.js     the signed-in player's games (guests too)
//   #/tournaments, #/tournament/ID          tournament.js
import { Connection, getJson } from "./net.js";
import { ROOM_ROUTE, routeOf } from "./routes.js";
import { mountSignIn } from "./signin.js";

const SITE_TITLE = "tessera";
const PAGE_TITLES = { lobby: "Play", room: "Room", replay: "Replay", leaderboards: "Leaderboards", player: "Player", my_games: "My games", tournament: "Tournaments" };

/* The tab's title: "TEXT — tessera", or the site's own for "". */
function setTitle(text) {
  document.title = text ? `${text} — ${SITE_TITLE}` : `${SITE_TITLE} — Blokus and Reef Builder`;
}

/* The room the page shows, if any: the socket connects to its server. */
function currentRoom() {
  const match = location.hash.match(ROOM_ROUTE);
  return match ? match[1] : null;
}

const app = {
  connection: new Connection({ onStatus: showStatus, currentRoom }),
  getJson,
  showError,
  setTitle,
};
let unmount = null;

function showStatus(text) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.hidden = !text;
}

/* A readable error, for a few seconds: never dropped silently. */
export function showError(error) {
  const box = document.createElement("div");
  box.className = "error";
  box.textContent = error.message || String(error);
  document.getElementById("errors").append(box);
  setTimeout(() => box.remove(), 6000);
}

/* After a page change: the focus, if the old page took it along, goes to
 * the new page's heading (or the page itself). */
function keepFocus(root) {
  const focused = document.activeElement;
  if (focused && focused !== document.body && focused.isConnected) return;
  const heading = root.querySelector("h1");
  if (heading) heading.tabIndex = -1;
  (heading || root).focus({ preventScroll: true });
}

async function route(event) {
  if (unmount) unmount();
  unmount = null;
  const root = document.getElementById("page");
  root.replaceChildren();
  const opened = routeOf(location.hash);
  if (!opened) {
    root.textContent = "No such page.";
    return;
  }
  const { name, params } = opened;
  setTitle(name === "player" ? params[0] : PAGE_TITLES[name]);
  try {
    const page = await import(`./pages/${name}.js`);
    unmount = (await page.mount(root, params, app)) || null;
    if (event) keepFocus(root); /* a first load leaves the focus where the browser puts it */
  } catch (error) {
    showError(error);
  }
}

app.connection.on("welcome", (welcome) => {
  document.getElementById("who").textContent = `Signed in as ${welcome.player.name}`;
});
app.connection.on("error", showError);
app.connection.on("server.shutdown", (message) => showStatus(message.message));
const patterns = document.getElementById("patterns");
patterns.checked = localStorage.getItem("tessera.patterns") === "1";
document.body.classList.toggle("patterns", patterns.checked);
patterns.addEventListener("change", () => {
  localStorage.setItem("tessera.patterns", patterns.checked ? "1" : "0");
  document.body.classList.toggle("patterns", patterns.checked);
});
mountSignIn(document.getElementById("account"), app);
document.getElementById("page").tabIndex = -1; /* focusable from code (the skip link), no Tab stop */
document.querySelector(".skip-link").addEventListener("click", (event) => {
  event.preventDefault(); /* "#page" is no route */
  document.getElementById("page").focus();
});
window.addEventListener("hashchange", route);
window.addEventListener("unhandledrejection", (event) => showError(event.reason));
app.connection.open();
route();

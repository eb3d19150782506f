// ui.js -- small DOM helpers shared by the history pages (replay,
// leaderboards, player, tournament): links to players and replays, dates,
// tables, and a "More" button that follows a list's cursor.
import { el } from "./dom.js";

/* A player's name linking to their page (a dash for nobody). */
export function playerLink(player) {
  if (!player) return el("span", { class: "muted" }, "—");
  return el("a", { href: `#/player/${encodeURIComponent(player.name)}` }, player.name);
}

/* How a seat of a games-list item is named: its player (linked, unless a
 * guest: guests have no page, and a link would lead to whoever holds the
 * name), else the built-in bot's kind. */
export function seatName(seat) {
  if (seat.player?.guest) return el("span", { class: "guest", title: "a guest" }, seat.player.name);
  if (seat.player) return playerLink(seat.player);
  return el("span", {}, seat.bot ? `bot ${seat.bot}` : "—");
}

export function replayLink(gameId, text) {
  return el("a", { href: `#/replay/${gameId}` }, text);
}

export function formatDate(ms) {
  if (ms === null || ms === undefined) return "—";
  return new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function formatNumber(value, digits = 1) {
  return value === null || value === undefined ? "—" : Number(value).toFixed(digits);
}

/* A table with a header row; rows are arrays of cells (strings or nodes). */
export function table(headers, rows, { className = "" } = {}) {
  return el("table", { class: className },
    el("thead", {}, el("tr", {}, headers.map((text) => el("th", { scope: "col" }, text)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((cell) => el("td", {}, cell))))));
}

/* Pages through a list of the REST API ({items, next}): load() fetches the
 * first page, the More button the next ones; render(items, append) draws. */
export function pagedList(app, pathOf, render) {
  const more = el("button", { type: "button", hidden: true }, "More");
  let next = null;
  let generation = 0;
  async function fetchPage(cursor) {
    const mine = generation;
    const separator = pathOf().includes("?") ? "&" : "?";
    const page = await app.getJson(cursor ? `${pathOf()}${separator}cursor=${cursor}` : pathOf());
    if (mine !== generation) return; /* a newer load() replaced this list */
    render(page, Boolean(cursor));
    next = page.next;
    more.hidden = !next;
  }
  more.addEventListener("click", () => fetchPage(next).catch(app.showError));
  return {
    more,
    load() {
      generation++;
      return fetchPage(null).catch(app.showError);
    },
  };
}

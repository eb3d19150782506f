// ui.js -- small DOM helpers shared by the history pages (replay,
// leaderboards, player, my games, tournament): links to players and
// replays, dates, tables, a "More" button that follows a list's cursor, and
// the panel of one player's games, a table that scrolls sideways by keyboard.
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
  return el("span", {}, seat.bot ? `${seat.bot} (bot)` : "—"); /* as the room names it */
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

/* A table that may scroll sideways on a phone, as a named region that
 * takes the focus, so a keyboard can scroll it too (a table of links
 * needs none: its links take the focus). */
export function scrollBox(label, content) {
  return el("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": label }, content);
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

/* One player's games, newest first, ten a page: `filter` is the query of
 * GET /api/games naming them (player=NAME, or player_id=ID for a guest);
 * the player's own seat, found by `playerId`, gives the score and rank. */
export function gamesPanel(app, playerId, filter) {
  const body = el("tbody");
  const ownSeat = (game) => game.seats.find((seat) => seat.player?.id === playerId);
  const render = (page, append) => {
    const rows = page.items.map((game) => {
      const mine = ownSeat(game);
      return el("tr", { "data-game": game.id },
        el("td", {}, replayLink(game.id, `#${game.id}`)),
        el("td", {}, `${game.game === "blokus" ? "Blokus" : "Reef"} ${game.mode}`),
        el("td", { class: "wide-only" }, formatDate(game.started_at_ms ?? game.created_at_ms)),
        el("td", {}, game.seats.flatMap((seat, i) => (i ? [", ", seatName(seat)] : [seatName(seat)]))),
        el("td", { class: "num" }, mine?.score ?? "—"),
        el("td", { class: "num" }, mine?.rank ?? game.status));
    });
    if (append) body.append(...rows);
    else body.replaceChildren(...rows);
    if (!append && !rows.length) body.append(el("tr", {}, el("td", { colspan: 6, class: "muted" }, "No games yet.")));
  };
  const list = pagedList(app, () => `/api/games?${filter}&limit=10`, render);
  list.load();
  return el("section", { class: "panel games" }, el("h2", {}, "Games"),
    el("div", { class: "table-scroll" }, el("table", { class: "recent-games" },
      el("thead", {}, el("tr", {}, ["Replay", "Game", "Started", "Seats", "Score", "Rank"].map((text) =>
        el("th", { scope: "col", class: text === "Started" ? "wide-only" : null }, text)))),
      body)),
    list.more);
}

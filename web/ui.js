// ui.js -- small DOM helpers shared by the history pages (replay,
// leaderboards, player, tournament): building elements, links to players
// and replays, dates, and a "More" button that follows a list's cursor.

/* h("a", {href: "#/"}, "text", child, ...): an element with attributes
 * (on* keys become listeners, `dataset` an object of data-*) and children
 * (strings, nodes; null and false are skipped). */
export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.flat().filter((child) => child !== null && child !== false && child !== undefined));
  return node;
}

/* A player's name linking to their page (a dash for nobody). */
export function playerLink(player) {
  if (!player) return h("span", { class: "muted" }, "—");
  return h("a", { href: `#/player/${encodeURIComponent(player.name)}` }, player.name);
}

/* How a seat of a games-list item is named: its player (linked; a guest's
 * page says it has none), else the built-in bot's kind. */
export function seatName(seat) {
  if (seat.player) return playerLink(seat.player);
  return h("span", {}, seat.bot ? `bot ${seat.bot}` : "—");
}

export function replayLink(gameId, text) {
  return h("a", { href: `#/replay/${gameId}` }, text);
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
  return h("table", { class: className },
    h("thead", {}, h("tr", {}, headers.map((text) => h("th", { scope: "col" }, text)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell) => h("td", {}, cell))))));
}

/* Pages through a list of the REST API ({items, next}): load() fetches the
 * first page, the More button the next ones; render(items, append) draws. */
export function pagedList(app, pathOf, render) {
  const more = h("button", { type: "button", hidden: true }, "More");
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

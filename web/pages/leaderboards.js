// leaderboards.js -- the leaderboards (#/leaderboards): Blokus by
// rating (the number of rating.js), one tab per kind (4p, 3p, 2p, duo),
// saying whom it lists, and Reef
// Builder's best runs per board (today, this week, all time, or one seed),
// with "Around me": the page of the board around the signed-in player.
// Names link to player pages; the More button follows the list's cursor.
// The signed-in player's row is marked; a sign-in (welcome) redraws.
import { el } from "../dom.js";
import { RATING_HELP, displayRating, ratingEstimate } from "../rating.js";
import { formatDate, formatNumber, pagedList, playerLink } from "../ui.js";

const TABS = [["4p", "Blokus 4p"], ["3p", "Blokus 3p"], ["2p", "Blokus 2p"], ["duo", "Blokus Duo"], ["reef", "Reef Builder"]];
const PERIODS = [["day", "Today"], ["week", "This week"], ["all", "All time"], ["seed", "One seed"]];

/* Today's Reef seed: the UTC date as YYYYMMDD. */
function todaysSeed() {
  return new Date().toISOString().slice(0, 10).replaceAll("-", "");
}

const COLUMNS = {
  blokus: [["Rank", "num"], ["Player", ""], ["Rating", "num"], ["Estimate", "num wide-only"], ["Games", "num"], ["Wins", "num"], ["Avg score", "num wide-only"]],
  reef: [["Rank", "num"], ["Player", ""], ["Score", "num"], ["When", ""]],
};

function cellsOf(kind, item) {
  if (kind === "blokus") {
    return [item.rank, playerLink(item.player), el("span", { title: RATING_HELP }, String(displayRating(item.rating))), ratingEstimate(item.mu, item.sigma),
      item.games, item.wins, formatNumber(item.average_score)];
  }
  return [item.rank, playerLink(item.player), item.score, formatDate(item.at_ms)];
}

export function mount(root, _params, app) {
  const state = { tab: "4p", period: "day", seed: todaysSeed(), around: false };
  const tabs = el("div", { class: "tabs", role: "group", "aria-label": "Leaderboard" });
  const period = el("select", { "aria-label": "Period" }, PERIODS.map(([value, text]) => el("option", { value }, text)));
  const seed = el("input", { type: "text", inputmode: "numeric", pattern: "[0-9]+", "aria-label": "Seed", value: state.seed });
  const aroundMe = el("button", { type: "button", "aria-pressed": "false" }, "Around me");
  const reefTools = el("div", { class: "toolbar", hidden: true },
    el("label", {}, "Board ", period), el("label", { class: "seed-field", hidden: true }, "Seed ", seed), aroundMe,
    el("span", { class: "muted" }, `Today's seed is ${todaysSeed()}.`));
  const caption = el("p", { class: "muted board-caption" });
  const head = el("thead");
  const body = el("tbody");

  const kind = () => (state.tab === "reef" ? "reef" : "blokus");
  function path() {
    if (kind() === "blokus") return `/api/leaderboards/blokus?kind=${state.tab}`;
    const board = state.period === "seed" ? `seed=${encodeURIComponent(seed.value.trim())}` : `period=${state.period}`;
    const around = state.around ? `&around=${encodeURIComponent(app.connection.player?.name || "")}` : "";
    return `/api/leaderboards/reef?${board}${around}`;
  }
  function render(page, append) {
    const me = app.connection.player?.name?.toLowerCase();
    const rows = page.items.map((item) => el("tr", { class: item.player.name.toLowerCase() === me ? "me" : null },
      cellsOf(kind(), item).map((cell, i) => el("td", { class: COLUMNS[kind()][i][1] || null }, cell))));
    if (!append) {
      head.replaceChildren(el("tr", {}, COLUMNS[kind()].map(([text, className]) => el("th", { scope: "col", class: className || null }, text))));
      body.replaceChildren();
      caption.textContent = kind() === "blokus"
        ? `Pool ${page.pool}: named accounts, bot accounts and built-in bots with at least ${page.min_games} rated game${page.min_games === 1 ? "" : "s"} in it. `
          + `Guests are rated but not listed: create an account (Sign in) to be listed with your games so far. ${RATING_HELP}`
        : `Board ${page.board}: each player's best run.`;
    }
    body.append(...rows);
    if (!body.children.length) body.append(el("tr", {}, el("td", { colspan: COLUMNS[kind()].length, class: "muted" }, "Nobody yet.")));
  }
  const list = pagedList(app, path, render);

  function update() {
    for (const button of tabs.children) button.setAttribute("aria-pressed", String(button.value === state.tab));
    reefTools.hidden = kind() !== "reef";
    reefTools.querySelector(".seed-field").hidden = state.period !== "seed";
    if (!app.connection.isAccount) state.around = false; /* guests have no place on a board */
    aroundMe.disabled = !app.connection.isAccount;
    aroundMe.title = app.connection.isAccount ? "" : "Sign in to an account to find your place";
    aroundMe.setAttribute("aria-pressed", String(state.around));
    list.load();
  }

  tabs.append(...TABS.map(([value, text]) => el("button", { type: "button", value, onclick: () => { state.tab = value; state.around = false; update(); } }, text)));
  period.addEventListener("change", () => { state.period = period.value; update(); });
  seed.addEventListener("change", update); /* a bad seed: the server's message says why */
  aroundMe.addEventListener("click", () => { state.around = !state.around; update(); });
  root.append(el("h1", {}, "Leaderboards"), tabs, reefTools, caption,
    el("div", { class: "panel table-scroll" }, el("table", { class: "leaderboard" }, head, body), list.more));
  update();
  return app.connection.on("welcome", update);
}

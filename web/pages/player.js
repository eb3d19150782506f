// player.js -- a player's page (#/player/NAME): the profile, the rating
// per pool, the rating history of one pool as a line chart (one point per
// rated game, each linking to its replay), the games (newest first, paged,
// each linking to its replay) and the best Reef boards.
//
// Profiles exist for accounts, bot accounts and built-in bots' entries
// (bot:greedy); a guest has none, which the page says.
import { drawLineChart } from "../chart.js";
import { el } from "../dom.js";
import { RATING_HELP, displayRating, ratingEstimate } from "../rating.js";
import { formatDate, formatNumber, gamesPanel, scrollBox, table } from "../ui.js";

const POOL_NAMES = { "blokus-4p": "Blokus 4p", "blokus-3p": "Blokus 3p", "blokus-2p": "Blokus 2p", "blokus-duo": "Blokus Duo", "reef-race": "Reef race" };

const poolName = (pool) => POOL_NAMES[pool] || pool;

function ratingsPanel(profile) {
  if (!profile.ratings.length) return el("section", { class: "panel" }, el("h2", {}, "Ratings"), el("p", { class: "muted" }, "No rated games yet."));
  const rows = profile.ratings.map((rating) => [poolName(rating.pool),
    el("span", { title: RATING_HELP }, String(displayRating(rating.rating))),
    ratingEstimate(rating.mu, rating.sigma), String(rating.games), String(rating.wins), formatNumber(rating.average_score)]);
  return el("section", { class: "panel" }, el("h2", {}, "Ratings"),
    scrollBox("Ratings", table(["Pool", "Rating", "Estimate", "Games", "Wins", "Avg score"], rows, { className: "ratings" })),
    el("p", { class: "muted rating-help" }, RATING_HELP));
}

/* The chart of one pool, with a choice of pool when there are several. */
function historyPanel(profile) {
  const pools = Object.keys(profile.rating_history).filter((pool) => profile.rating_history[pool].length);
  const panel = el("section", { class: "panel rating-history" }, el("h2", {}, "Rating history"));
  if (!pools.length) {
    panel.append(el("p", { class: "muted" }, "No rated games yet."));
    return panel;
  }
  pools.sort((a, b) => profile.rating_history[b].length - profile.rating_history[a].length);
  const chartBox = el("div", { class: "chart-box" });
  const choice = el("select", { "aria-label": "Rating pool" }, pools.map((pool) => el("option", { value: pool }, poolName(pool))));
  const draw = () => {
    const points = profile.rating_history[choice.value].map((entry) => ({
      y: displayRating(entry.rating),
      href: `#/replay/${entry.game_id}`,
      label: `game #${entry.game_id}, ${formatDate(entry.at_ms)}: rating ${displayRating(entry.rating)}`,
    }));
    drawLineChart(chartBox, points, { yLabel: "rating", xLabel: "rated games, oldest first", minSpan: 40 });
  };
  choice.addEventListener("change", draw);
  panel.append(el("div", { class: "toolbar" }, el("label", {}, "Pool ", choice)), chartBox);
  draw();
  return panel;
}

function reefPanel(profile) {
  if (!profile.reef_best.length) return null;
  const rows = profile.reef_best.map((best) => [best.board, String(best.score), formatDate(best.at_ms)]);
  return el("section", { class: "panel" }, el("h2", {}, "Best Reef runs"), table(["Board", "Score", "When"], rows, { className: "reef-best" }));
}

export async function mount(root, [name], app) {
  let profile;
  try {
    profile = await app.getJson(`/api/players/${encodeURIComponent(name)}`);
  } catch (error) {
    root.append(el("h1", {}, name), el("p", { class: "muted" }, error.code === "not_found"
      ? "No account or bot has this name. Guests have no page: their games are listed under their opponents'."
      : "This player could not be loaded."));
    throw error; /* the shell shows the server's message too */
  }
  const played = `${profile.games_played} games, ${profile.wins} wins`;
  root.append(
    el("h1", {}, profile.player.name, profile.bot ? el("span", { class: "badge" }, "bot") : null),
    el("p", { class: "muted profile-line" }, `Since ${formatDate(profile.created_at_ms)} · ${played}`),
    historyPanel(profile),
    el("div", { class: "two-columns" }, ratingsPanel(profile), reefPanel(profile)),
    gamesPanel(app, profile.player.id, `player=${encodeURIComponent(profile.player.name)}`));
}

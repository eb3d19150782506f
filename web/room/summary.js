// summary.js -- the game-over summary (.game-over): why the game ended, the
// ways on (the actions row the room page passes in: rematch, a new game,
// this game's replay), per seat its rank, score, where the score came from
// and its rating change (the number of rating.js, before → after; a built-in
// bot's one entry at its best-placed seat), and a chart of every seat's
// score by ply.
//
// game.over carries no ratings and no history; both are stored before it is
// sent, so the summary reads GET /api/games/{room.game_id} (rating_changes,
// matched to seats by player id, a built-in bot by its rating entry
// "bot:KIND...") and GET /api/games/{room.game_id}/replay (the breakdown
// and the chart, room/score_breakdown.js). Until they answer the cells say
// "…"; a failed fetch is shown as an error and leaves them so.
import { drawSeriesChart } from "../chart.js";
import { el } from "../dom.js";
import { colorName, seatName } from "../games/catalog.js";
import { RATING_HELP, ratingChange } from "../rating.js";
import { scrollBox } from "../ui.js";
import { blokusBreakdown, reefBreakdown, scoreSeries } from "./score_breakdown.js";
import { colorSwatch, seatSwatches } from "./turn.js";

const REASONS = {
  no_moves: "no color can move any more",
  resignations: "resignation",
  boards_ended: "every board has ended",
};
const WHEN = { no_moves: "no color could move any more", boards_ended: "every board had ended" };

/* Why the game ended, told to the viewer: one who resigned hears that the
 * others played on, not only how the game finally stopped. */
function reasonLine(result, hasResigned) {
  if (hasResigned && WHEN[result.reason]) return `You resigned, and the others played on until ${WHEN[result.reason]}.`;
  return `The game ended: ${REASONS[result.reason] || result.reason}.`;
}

/* The breakdown columns of a room's game: [header, key, title]. */
function breakdownColumns(room) {
  if (room.game !== "blokus") return [["Blooms", "blooms", "groups cleared"], ["Skips", "skips", "pieces skipped"]];
  const columns = [["Squares left", "squaresLeft", "squares of the seat's pieces not placed"]];
  if (room.options.scoring === "official") columns.push(["Bonus", "bonus", "+15 per color that placed all 21 pieces, +5 more if its last was the single square"]);
  return columns;
}

/* `hasResigned`: the viewer resigned this game. */
export function gameOverSummary(result, room, app, actions, hasResigned = false) {
  const order = room.seats.map((seat) => seat.seat).sort((a, b) => result.ranks[a] - result.ranks[b] || a - b);
  const columns = breakdownColumns(room);
  const waiting = (className) => el("td", { class: `${className} muted` }, "…");
  const rows = new Map(order.map((seat) => [seat, {
    rating: waiting("rating-change"),
    breakdown: columns.map(([, key]) => waiting(`num breakdown-${key}`)),
  }]));
  const chart = el("div", { class: "score-chart" });
  const summary = el("section", { class: "panel game-over", role: "status" },
    el("h2", {}, "Game over"),
    el("p", { class: "end-reason" }, reasonLine(result, hasResigned)),
    actions,
    el("div", { class: "summary-body" }, scrollBox("Scores", el("table", {},
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Rank"), el("th", { scope: "col" }, "Seat"), el("th", { scope: "col", class: "num" }, "Score"),
        columns.map(([header, , title]) => el("th", { scope: "col", class: "num", title }, header)),
        el("th", { scope: "col" }, "Rating"))),
      el("tbody", {}, order.map((seat) => el("tr", { "data-seat": seat, class: result.winners.includes(seat) ? "winner" : null },
        el("td", { class: "rank" }, String(result.ranks[seat])),
        el("td", {}, seatSwatches(room, seat), " ", seatName(room.seats[seat])),
        el("td", { class: "score num" }, String(result.scores[seat])),
        rows.get(seat).breakdown,
        rows.get(seat).rating))))),
    el("figure", { class: "score-figure" }, el("figcaption", {}, "Score after each move"), chart)));
  fillRatings(room, rows, app);
  fillBreakdown(room, rows, columns, chart, app);
  return summary;
}

async function fillRatings(room, rows, app) {
  let game;
  try {
    game = await app.getJson(`/api/games/${room.game_id}`);
  } catch (error) {
    app.showError(error);
    return;
  }
  const shown = new Set(); /* a bot's one entry, shown at its best-placed seat (rows are in rank order) */
  for (const [seat, { rating }] of rows) {
    const change = game.rating_changes.find((c) => isSeatEntry(c.player, room.seats[seat]));
    const isRepeat = change && shown.has(change.player.name);
    if (change) shown.add(change.player.name);
    rating.textContent = !change ? "unrated" : isRepeat ? "as above" : ratingChange(change.before.rating, change.after.rating);
    rating.title = isRepeat ? `${change.player.name} is rated once per game, by its best-placed seat` : change ? RATING_HELP : "";
    rating.classList.toggle("muted", !change || isRepeat);
  }
}

async function fillBreakdown(room, rows, columns, chart, app) {
  let replay;
  try {
    replay = await app.getJson(`/api/games/${room.game_id}/replay`);
  } catch (error) {
    app.showError(error);
    return;
  }
  const breakdown = room.game === "blokus" ? blokusBreakdown(replay, room.options.scoring) : reefBreakdown(replay);
  for (const entry of breakdown) {
    const cells = rows.get(entry.seat)?.breakdown || [];
    columns.forEach(([, key], index) => {
      cells[index].textContent = entry[key] === null ? "—" : String(entry[key]);
      cells[index].classList.remove("muted");
    });
  }
  const series = scoreSeries(replay);
  if (!series[0]?.values.length) {
    chart.replaceChildren(el("p", { class: "muted" }, "No moves were played."));
    return;
  }
  const names = new Map(series.map((line) => [line.seat, seatName(room.seats[line.seat])]));
  drawSeriesChart(chart, series.map((line) => ({ name: names.get(line.seat), color: colorName(line.color), values: line.values })), {
    yLabel: "score",
    xLabel: "move",
    label: `Score after each of ${series[0].values.length} moves: ${series.map((line) => `${names.get(line.seat)} ${line.values[line.values.length - 1]}`).join(", ")}`,
  });
  chart.append(el("ul", { class: "chart-legend" }, series.map((line) =>
    el("li", {}, colorSwatch(line.color), " ", names.get(line.seat)))));
}

function isSeatEntry(player, seat) {
  if (seat.kind === "player") return player.id === seat.player_id;
  return seat.kind === "bot" && (player.name === `bot:${seat.bot}` || player.name.startsWith(`bot:${seat.bot}@`));
}


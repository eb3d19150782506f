// summary.js -- the game-over summary (.game-over): why the game ended,
// and per seat its rank, score and rating change. game.over carries no
// ratings; they are stored before it is sent, so the summary reads them
// from GET /api/games/{room.game_id} (rating_changes, matched to seats by
// player id, a built-in bot by its rating entry "bot:KIND...").
import { el } from "../dom.js";
import { seatName } from "../games/catalog.js";
import { seatSwatches } from "./turn.js";

const REASONS = {
  no_moves: "no color can move any more",
  resignations: "resignation",
  boards_ended: "every board has ended",
};

export function gameOverSummary(result, room, app) {
  const order = room.seats.map((seat) => seat.seat).sort((a, b) => result.ranks[a] - result.ranks[b] || a - b);
  const ratingCells = new Map(order.map((seat) => [seat, el("td", { class: "rating-change muted" }, "…")]));
  const summary = el("section", { class: "panel game-over", role: "status" },
    el("h2", {}, "Game over"),
    el("p", {}, `The game ended: ${REASONS[result.reason] || result.reason}.`),
    el("table", {},
      el("thead", {}, el("tr", {}, ["Rank", "Seat", "Score", "Rating"].map((h) => el("th", {}, h)))),
      el("tbody", {}, order.map((seat) => el("tr", { "data-seat": seat, class: result.winners.includes(seat) ? "winner" : null },
        el("td", { class: "rank" }, String(result.ranks[seat])),
        el("td", {}, seatSwatches(room, seat), " ", seatName(room.seats[seat])),
        el("td", { class: "score" }, String(result.scores[seat])),
        ratingCells.get(seat))))));
  fillRatings(room, ratingCells, app);
  return summary;
}

async function fillRatings(room, cells, app) {
  let game;
  try {
    game = await app.getJson(`/api/games/${room.game_id}`);
  } catch (error) {
    app.showError(error);
    return;
  }
  for (const [seat, cell] of cells) {
    const change = game.rating_changes.find((c) => isSeatEntry(c.player, room.seats[seat]));
    cell.textContent = change ? ratingText(change) : "unrated";
    cell.classList.toggle("muted", !change);
  }
}

function isSeatEntry(player, seat) {
  if (seat.kind === "player") return player.id === seat.player_id;
  return seat.kind === "bot" && (player.name === `bot:${seat.bot}` || player.name.startsWith(`bot:${seat.bot}@`));
}

function ratingText({ before, after }) {
  const delta = after.rating - before.rating;
  return `${before.rating.toFixed(1)} → ${after.rating.toFixed(1)} (${delta >= 0 ? "+" : ""}${delta.toFixed(1)})`;
}

// replay.js -- the replay viewer (#/replay/ID): any stored game, stepped
// through ply by ply.
//
// The positions are rebuilt once, on load, from the replay's moves
// (games/replay_positions.js); moving through them only redraws. Controls:
// first / back / play-pause / forward / last buttons, the arrow keys (Home
// and End too), a speed choice, a slider and a number input to jump, and
// the move list (click a move to go there). Each board's container carries
// its rows as data-board="row/row/..." so tests can compare positions.
import { BLOKUS_COLORS, drawBlokus, drawReef } from "../games/boards.js";
import { loadBlokusPieces } from "../games/blokus_pieces.js";
import { blokusPositions, reefPositions } from "../games/replay_positions.js";
import { el } from "../dom.js";
import { formatDate, scrollBox, seatName } from "../ui.js";

const SPEEDS = [["0.5", "0.5×"], ["1", "1×"], ["2", "2×"], ["4", "4×"], ["10", "10×"]];
const BASE_STEP_MS = 800;
const REEF_ORIENTATION_ARROWS = { 0: "→", 90: "↓", 180: "←", 270: "↑" };

/* The Blokus colors a seat plays in a mode (2p: two colors each). */
function seatColors(mode, seat) {
  return mode === "2p" ? [seat, seat + 2] : [seat];
}

/* One line of the move list, in the words a player uses: rows and columns
 * counted from 1, a piece by its name alone (the orientation shows on the board). */
function describePly(replay, ply) {
  if (ply.resign) return `seat ${ply.seat + 1} resigns`;
  if (replay.game === "blokus") {
    const color = BLOKUS_COLORS[ply.color];
    if (ply.action.pass) return `${color} passes`;
    const { piece, row, col } = ply.action;
    return `${color} ${piece} at row ${row + 1}, column ${col + 1}`;
  }
  const who = replay.seats.length > 1 ? `seat ${ply.seat + 1}: ` : "";
  if (ply.action.type === "skip") return `${who}skip (${ply.result.points})`;
  const { row, col, orientation } = ply.action;
  const points = ply.result.points ? ` +${ply.result.points}` : "";
  return `${who}row ${row + 1}, column ${col + 1} ${REEF_ORIENTATION_ARROWS[orientation]}${points}`;
}

function resultLine(replay) {
  if (!replay.result) return `${replay.status}`;
  const reasons = { no_moves: "no color could move", resignations: "resignations", boards_ended: "every board ended" };
  return `${replay.status}: ${reasons[replay.result.reason] || replay.result.reason}`;
}

function playersTable(replay) {
  const rows = replay.seats.map((seat) => {
    const swatches = replay.game === "blokus"
      ? seatColors(replay.mode, seat.seat).map((color) => el("span", { class: `swatch ${BLOKUS_COLORS[color]}`, title: BLOKUS_COLORS[color] }))
      : [];
    return el("tr", { class: seat.winner ? "winner" : null },
      el("td", {}, swatches, ` seat ${seat.seat + 1}`),
      el("td", {}, seatName(seat)),
      el("td", { class: "num" }, seat.score ?? "—"),
      el("td", { class: "num" }, seat.rank ?? "—"),
      el("td", {}, seat.winner ? "winner" : ""));
  });
  return el("table", { class: "players" },
    el("thead", {}, el("tr", {}, ["Seat", "Player", "Score", "Rank", ""].map((text) => el("th", { scope: "col" }, text)))),
    el("tbody", {}, rows));
}

export async function mount(root, [gameId], app) {
  const replay = await app.getJson(`/api/games/${gameId}/replay`);
  const positions = replay.game === "blokus"
    ? blokusPositions(replay, await loadBlokusPieces(app.getJson))
    : reefPositions(replay);
  const last = positions.length - 1;
  let current = 0;
  let timer = null;
  let markedItem = null;

  const boards = el("div", { class: `replay-boards ${replay.game}` });
  const plyLabel = el("span", { class: "ply-label", "aria-live": "polite" });
  const slider = el("input", { type: "range", min: 0, max: last, value: 0, "aria-label": "Ply" });
  const number = el("input", { type: "number", min: 0, max: last, value: 0, "aria-label": "Jump to ply", class: "ply-number" });
  const playButton = el("button", { type: "button", class: "primary play", "aria-label": "Play" }, "▶ Play");
  const speed = el("select", { "aria-label": "Speed" }, SPEEDS.map(([value, text]) => el("option", { value, selected: value === "1" }, text)));
  const moveItems = replay.plies.map((ply, index) =>
    el("li", { dataset: { ply: index + 1 } }, el("button", { type: "button", class: "move", onclick: () => show(index + 1) }, describePly(replay, ply))));
  const scores = el("p", { class: "muted replay-scores" });

  function draw(position) {
    const draws = position.boards.map((board) => {
      const box = el("div", { class: "replay-board", dataset: { board: board.rows.join("/"), seat: board.seat ?? "" } });
      const highlight = board.seat === position.highlightSeat ? position.highlight : [];
      if (replay.game === "blokus") drawBlokus(box, board.rows, { highlight });
      else drawReef(box, board.rows, { highlight });
      if (position.boards.length > 1) box.prepend(el("p", { class: "muted" }, seatName(replay.seats[board.seat])));
      return box;
    });
    boards.replaceChildren(...draws);
  }

  function show(index) {
    current = Math.max(0, Math.min(last, index));
    const position = positions[current];
    draw(position);
    plyLabel.textContent = `Ply ${current} / ${last}`;
    slider.value = current;
    number.value = current;
    scores.textContent = position.scores ? `Scores: ${position.scores.join(" · ")}` : "Start of the game";
    markMove(moveItems[current - 1] || null);
    if (current === last) pause();
  }

  /* Marks the move just played and scrolls the list (never the page) to it. */
  function markMove(item) {
    if (markedItem) {
      markedItem.classList.remove("current");
      markedItem.removeAttribute("aria-current");
    }
    markedItem = item;
    if (!item) return;
    item.classList.add("current");
    item.setAttribute("aria-current", "step");
    const list = item.parentElement;
    if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
    else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
  }

  function pause() {
    clearInterval(timer);
    timer = null;
    playButton.textContent = "▶ Play";
    playButton.setAttribute("aria-label", "Play");
  }

  function play() {
    if (current === last) show(0);
    clearInterval(timer);
    timer = setInterval(() => show(current + 1), BASE_STEP_MS / Number(speed.value));
    playButton.textContent = "Pause";
    playButton.setAttribute("aria-label", "Pause");
  }

  function onKey(event) {
    if (event.target.closest("input, select, textarea")) return;
    const moves = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: last };
    if (!(event.key in moves)) return;
    event.preventDefault();
    pause();
    show(moves[event.key]);
  }

  /* A control button that pauses and goes to target() (a ply number). */
  const jump = (label, text, target) =>
    el("button", { type: "button", "aria-label": label, onclick: () => { pause(); show(target()); } }, text);
  playButton.addEventListener("click", () => (timer ? pause() : play()));
  speed.addEventListener("change", () => { if (timer) play(); });
  slider.addEventListener("input", () => { pause(); show(Number(slider.value)); });
  number.addEventListener("change", () => { pause(); show(Number(number.value)); });
  document.addEventListener("keydown", onKey);

  const title = `Replay #${replay.id}: ${replay.game === "blokus" ? "Blokus" : "Reef Builder"} ${replay.mode}`;
  root.append(
    el("h1", {}, title),
    el("p", { class: "muted" }, `${formatDate(replay.started_at_ms)} · ${resultLine(replay)}`,
      replay.tournament ? el("span", {}, " · ", el("a", { href: `#/tournament/${replay.tournament}` }, `tournament #${replay.tournament}`)) : null,
      replay.game === "blokus" ? el("span", {}, " · ", el("a", { href: `/api/games/${replay.id}.blksgf`, download: `tessera-${replay.id}.blksgf`, class: "sgf" }, "Download SGF")) : null),
    el("div", { class: "replay-layout" },
      el("section", { class: "panel replay-main" },
        boards,
        el("div", { class: "replay-controls" },
          jump("First ply", "«", () => 0), jump("Back one ply", "◀", () => current - 1), playButton,
          jump("Forward one ply", "▶", () => current + 1), jump("Last ply", "»", () => last),
          el("label", {}, "Speed ", speed)),
        el("div", { class: "replay-jump" }, slider, el("label", {}, "Ply ", number), plyLabel),
        scores),
      el("aside", { class: "replay-side" },
        el("section", { class: "panel" }, el("h2", {}, "Players"), scrollBox("Players", playersTable(replay))),
        el("section", { class: "panel" }, el("h2", {}, "Moves"), el("ol", { class: "move-list" }, moveItems)))));
  show(0);

  return () => {
    pause();
    document.removeEventListener("keydown", onKey);
  };
}

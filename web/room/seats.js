// seats.js -- the room's seat list: each seat's colors (Blokus), who sits
// there (player, bot kind, or empty with "Sit here"), markers (you, away,
// left, resigned, out of moves), score and clock. Redrawn from scratch on
// every room or game.state; the clocks fill their [data-clock-seat] slots.
import { el } from "../dom.js";
import { colorName, seatColors, sharedColor } from "../games/catalog.js";
import { colorSwatch, seatSwatches } from "./turn.js";

/* `view`: {room, mySeat, toMoveSeat, toMoveColor, scores, hasClocks, resigned (Set of
 * seats), outColors (Set of colors), onSit (seat => ...) or null}. */
export function seatList(view) {
  const { room } = view;
  const shared = room.game === "blokus" ? sharedColor(room.mode) : null;
  return el("ul", { class: "seats" }, room.seats.map((seat) => seatItem(seat, view)),
    shared !== null && el("li", { class: `seat shared${view.toMoveColor === shared ? " to-move" : ""}` },
      el("span", { class: "swatches" }, colorSwatch(shared)),
      el("span", { class: "seat-name" }, `${colorName(shared)}: shared, the seats play it in turn`),
      view.outColors.has(shared) && el("span", { class: "marker" }, "out of moves")),
    el("li", { class: "spectators muted" }, `${room.spectators} watching`));
}

function seatItem(seat, view) {
  const { room, mySeat, toMoveSeat, scores, hasClocks, resigned, outColors, onSit } = view;
  const classes = ["seat", seat.seat === mySeat && "me", seat.seat === toMoveSeat && "to-move"].filter(Boolean);
  const out = room.game === "blokus" ? seatColors(room.mode, seat.seat).filter((c) => outColors.has(c)) : [];
  const markers = [
    seat.seat === mySeat && "you",
    seat.kind === "player" && !seat.connected && !seat.left && "away",
    seat.left && "left (a bot plays on)",
    resigned.has(seat.seat) && "resigned",
    /* the swatches say which colour; a seat of two colours names the one that is out */
    out.length > 0 && (out.length === seatColors(room.mode, seat.seat).length ? "out of moves" : `${out.map(colorName).join(" and ")} out`),
  ].filter(Boolean);
  return el("li", { class: classes.join(" "), "data-seat": seat.seat },
    el("span", { class: "swatches" }, seatSwatches(room, seat.seat)),
    el("span", { class: "seat-name" }, seat.kind === "empty" ? el("span", { class: "muted" }, "empty seat") : seat.kind === "bot" ? `${seat.bot} (bot)` : seat.name),
    markers.map((text) => el("span", { class: "marker" }, text)),
    el("span", { class: "seat-end" },
      scores && el("span", { class: "score", title: "score" }, String(scores[seat.seat] ?? "")),
      hasClocks && el("span", { class: "clock", "data-clock-seat": seat.seat }),
      seat.kind === "empty" && onSit && el("button", { type: "button", onclick: () => onSit(seat.seat) }, "Sit here")));
}

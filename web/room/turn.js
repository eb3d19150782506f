// turn.js -- whose turn it is, in words and colour, and which Blokus
// colors have run out of moves. A color with no legal placement passes
// automatically and silently (PROTOCOL.md section 7: no event, no ply),
// so the page infers it: when one ply moves `to_move` past a color in the
// rotation, that color could not move, and it never can again.
import { el } from "../dom.js";
import { colorName, seatColors, sharedColor } from "../games/catalog.js";

export function colorSwatch(color) {
  const name = colorName(color);
  return el("span", { class: `swatch swatch-${name}`, title: name, "aria-hidden": "true" });
}

/* The colors a seat plays, as swatches (Blokus only). */
export function seatSwatches(room, seat) {
  if (room.game !== "blokus") return [];
  return seatColors(room.mode, seat).map(colorSwatch);
}

/* The colors passed over between two consecutive Blokus states. */
export function skippedColors(previous, next) {
  if (!previous?.to_move || !next.to_move || next.ply !== previous.ply + 1) return [];
  const count = next.size === 14 ? 2 : 4;
  const skipped = [];
  for (let color = (previous.to_move.color + 1) % count; color !== next.to_move.color; color = (color + 1) % count) {
    skipped.push(color);
  }
  return skipped;
}

/* The ".turn" line of a Blokus state: the color to move and who plays it
 * (3p's shared color names the seat whose turn it is to play it). */
export function turnLine(state, room, mySeat) {
  if (!state.to_move) return el("p", { class: "turn" }, "No moves left.");
  const { seat, color } = state.to_move;
  const who = seat === mySeat ? "you" : room.seats[seat]?.name || `seat ${seat + 1}`;
  const shared = color === sharedColor(room.mode) ? ` (shared color, played this turn by ${who})` : "";
  const text = seat === mySeat ? `Your turn: ${colorName(color)}${shared}` : `${colorName(color)} to move: ${who}${shared}`;
  return el("p", { class: `turn${seat === mySeat ? " mine" : ""}`, "data-color": colorName(color) }, colorSwatch(color), " ", text);
}

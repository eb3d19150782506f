// blokus_tray.js -- a color's 21 pieces, drawn small as buttons: placed
// ones dimmed and disabled, the selected one outlined and shown in its
// current orientation. Picking calls onPick(name). The tray is one Tab stop
// (a roving tabindex): the selected piece, else the first one left, and
// the arrow keys, Home and End move among the pieces left. A redraw keeps
// the focus on the piece that had it. drawPiecesLeft shows the other
// colours' pieces not yet placed, smaller still, to look at.
import { el, svgElement } from "../dom.js";
import { colorName } from "./catalog.js";

const UNIT = 10;
const SMALL_UNIT = 5;

function pieceDrawing(cells, color, unit = UNIT) {
  const rows = Math.max(...cells.map(([r]) => r)) + 1;
  const cols = Math.max(...cells.map(([, c]) => c)) + 1;
  const drawing = svgElement("svg", { viewBox: `0 0 ${cols * UNIT} ${rows * UNIT}`, width: cols * unit, height: rows * unit, "aria-hidden": "true" });
  for (const [r, c] of cells) {
    svgElement("rect", { x: c * UNIT + 0.5, y: r * UNIT + 0.5, width: UNIT - 1, height: UNIT - 1, rx: 1.5, fill: `var(--${colorName(color)})` }, drawing);
  }
  return drawing;
}

/* `tray`: {pieces, left (names not yet placed), color, selected ({name,
 * orientation} or null), isEnabled, onPick(name, clickEvent),
 * onGrab(name, pointerdownEvent) (a drag may start)}. */
export function drawTray(container, tray) {
  const { pieces, left, color, selected, isEnabled, onPick, onGrab } = tray;
  const focused = container.contains(document.activeElement) ? document.activeElement.dataset.piece : null;
  if (!container.dataset.roving) {
    container.dataset.roving = "1";
    container.addEventListener("keydown", moveAmongPieces);
  }
  container.replaceChildren(...pieces.map((piece) => {
    const isLeft = left.includes(piece.name);
    const isSelected = selected?.name === piece.name;
    const orientation = piece.orientations[isSelected ? selected.orientation : 0];
    return el("button", {
      type: "button",
      class: `tray-piece${isLeft ? "" : " used"}${isSelected ? " selected" : ""}`,
      "data-piece": piece.name,
      "aria-label": `${piece.name}, ${piece.size} ${piece.size === 1 ? "square" : "squares"}${isLeft ? "" : ", placed"}`,
      "aria-pressed": isSelected ? "true" : "false",
      disabled: !isLeft || !isEnabled,
      tabindex: -1,
      onclick: (event) => onPick(piece.name, event),
      onpointerdown: (event) => onGrab(piece.name, event),
    }, pieceDrawing(orientation.cells, color));
  }));
  const enabled = [...container.querySelectorAll("button:not(:disabled)")];
  const stop = enabled.find((button) => button.dataset.piece === (focused ?? selected?.name)) || enabled[0];
  if (!stop) return;
  stop.tabIndex = 0;
  if (focused) stop.focus();
}

const STEPS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

/* The tray's keys: arrows to the next or previous piece left, Home and
 * End to the first and last; the focused piece becomes the Tab stop. */
function moveAmongPieces(event) {
  const enabled = [...event.currentTarget.querySelectorAll("button:not(:disabled)")];
  const at = enabled.indexOf(event.target);
  if (at < 0 || event.ctrlKey || event.metaKey || event.altKey) return;
  let to;
  if (event.key in STEPS) to = (at + STEPS[event.key] + enabled.length) % enabled.length;
  else if (event.key === "Home") to = 0;
  else if (event.key === "End") to = enabled.length - 1;
  else return;
  event.preventDefault(); /* the view's own arrow keys move the held piece on the board */
  enabled[at].tabIndex = -1;
  enabled[to].tabIndex = 0;
  enabled[to].focus();
}

/* `others`: [{color, left (piece names)}]: per colour a line "yellow: 12
 * pieces, 47 squares left" and the pieces themselves, unturned. */
export function drawPiecesLeft(container, pieces, others) {
  container.replaceChildren(...others.map(({ color, left }) => {
    const remaining = pieces.filter((piece) => left.includes(piece.name));
    const squares = remaining.reduce((sum, piece) => sum + piece.size, 0);
    const name = colorName(color);
    return el("li", { "data-color": name, "data-squares": squares },
      el("span", { class: "pieces-left-count" }, `${name}: ${remaining.length} ${remaining.length === 1 ? "piece" : "pieces"}, ${squares} ${squares === 1 ? "square" : "squares"} left`),
      el("span", { class: "pieces-left-shapes", "aria-hidden": "true" },
        remaining.map((piece) => pieceDrawing(piece.orientations[0].cells, color, SMALL_UNIT))));
  }));
}

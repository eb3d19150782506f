// blokus_view.js -- a Blokus game in a room: the board (boards.js), the
// preview of the selected piece under the pointer or keyboard cursor, the
// tray of the color the seat plays now, rotate / flip, and sending the
// seat's own moves. room.js feeds it (see createView); it subscribes to
// nothing itself.
//
// Input: pick a piece in the tray, hold it over the board (mouse hover or
// arrow keys), R rotates, F flips, a click / Enter / Space places, Escape
// drops it. With a mouse a piece can also be dragged from the tray and
// released on the board (R and F work while it is held). On touch the
// first tap shows the preview and a second tap on the same cell places.
// Under the tray, every other colour's pieces left (what Pentobi shows).
// "Show where it fits" (remembered in localStorage, tessera.showLegal)
// dots every cell where holding the selected piece, as it is turned,
// would place it legally.
// On the seat's turn the empty cells a piece may start from (the state's
// hints) are ringed. The last move is outlined, and every other colour's
// last move (seen since the page opened) is outlined more lightly. The preview is drawn in the color when blokus_rules.js
// finds it legal, greyed with the reason when not; the server stays the
// judge (an illegal click is still sent, and its refusal shown in
// .move-error).
//
// Test hooks on .blokus-view: data-ply, data-board (rows joined by "/"),
// data-color (the tray's color), data-preview ("legal", "illegal", "none"),
// data-cursor ("row,col" of the cell the piece is held over, or empty).
import { el } from "../dom.js";
import { drawBlokus, drawEmptyBlokus } from "./boards.js";
import { colorName, seatColors } from "./catalog.js";
import { getJson } from "../net.js";
import { loadBlokusPieces } from "./blokus_pieces.js";
import { drawPiecesLeft, drawTray } from "./blokus_tray.js";
import { REASONS, buildPieces, placementAt, placementProblem } from "./blokus_rules.js";

/* The game-view contract of room.js: setRoom, update, moved, over, destroy. */
export function createView(container, ctx) {
  const view = new BlokusView(container, ctx);
  return {
    setRoom: (room) => view.setRoom(room),
    update: (state) => view.update(state),
    moved: (event) => view.moved(event),
    over: () => view.over(),
    destroy: () => view.destroy(),
  };
}

const SHOW_LEGAL_KEY = "tessera.showLegal";
const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

class BlokusView {
  constructor(container, ctx) {
    this.ctx = ctx;
    this.state = null;
    this.pieces = null;
    this.selected = null; /* {name, orientation} */
    this.cursor = null; /* [row, col] under the pointer or keyboard */
    this.pendingTap = null; /* "row,col" of a first tap on touch */
    this.pointerSpot = null; /* "x,y" where the mouse last entered a cell */
    this.dragged = null; /* the tray piece a mouse button went down on, while it is held */
    this.trayKey = null; /* what the tray shows now */
    this.highlight = [];
    this.lastByColor = new Map(); /* color -> the cells of its last move seen */
    this.isSending = false;
    this.isOver = false;
    this.isByKeyboard = false; /* the piece was last moved by the arrow keys */
    this.build(container);
    this.onKey = this.onKey.bind(this);
    this.onRelease = () => { this.dragged = null; };
    document.addEventListener("keydown", this.onKey);
    document.addEventListener("pointerup", this.onRelease);
    loadBlokusPieces(getJson).then((table) => { this.pieces = buildPieces(table.entries); this.draw(); }, (error) => {
      ctx.showError(error);
      ctx.onDrawn?.(); /* the room shows, with the error, rather than nothing */
    });
  }

  build(container) {
    this.board = el("div", { class: "board-wrap", tabindex: 0, role: "application",
      "aria-label": "Board. Arrow keys move the piece, Enter or Space places it, R rotates, F flips, Escape drops it." });
    this.reason = el("p", { class: "preview-reason", "aria-live": "polite" });
    this.moveError = el("p", { class: "move-error", role: "alert", hidden: true });
    this.trayTitle = el("h2", { class: "tray-title" });
    this.showLegal = el("input", { type: "checkbox", name: "show-legal" });
    this.showLegal.checked = localStorage.getItem(SHOW_LEGAL_KEY) === "1";
    this.showLegal.addEventListener("change", () => {
      localStorage.setItem(SHOW_LEGAL_KEY, this.showLegal.checked ? "1" : "0");
      this.draw();
    });
    this.rotateButton = el("button", { type: "button", "aria-keyshortcuts": "R", onclick: () => this.turn("rotate") }, "Rotate (R)");
    this.flipButton = el("button", { type: "button", "aria-keyshortcuts": "F", onclick: () => this.turn("flip") }, "Flip (F)");
    this.tray = el("div", { class: "tray" });
    this.piecesLeft = el("ul", { class: "pieces-left", "aria-label": "The other colours' pieces left" });
    this.piecesLeftKey = null;
    this.root = el("div", { class: "blokus-view", "data-preview": "none" },
      this.board, this.reason, this.moveError,
      el("div", { class: "tray-head" }, this.trayTitle, this.rotateButton, this.flipButton,
        el("label", { class: "check" }, this.showLegal, " Show where it fits")),
      this.tray, this.piecesLeft);
    container.replaceChildren(this.root);
  }

  /* The room comes before its first state and the piece table: its empty
   * board is built now, in a task of its own, and the first drawing then
   * paints only the cells that differ (a phone's main thread is not held
   * for the whole board, tray and pieces at once). */
  setRoom(room) {
    if (!this.state) drawEmptyBlokus(this.board, room.mode);
  }

  update(state) {
    this.state = state;
    const left = state.pieces_left[this.trayColor()];
    if (this.selected && !left.includes(this.selected.name)) this.selected = null;
    this.draw();
  }

  /* A move (another seat's event, or the reply to ours): its cells are
   * outlined as the last move. A server-played pass changes nothing. */
  moved(event) {
    const { piece, orientation, row, col } = event.action;
    const shape = piece && this.pieces?.find((p) => p.name === piece)?.orientations[orientation];
    if (!shape) return;
    this.highlight = shape.cells.map(([r, c]) => [row + r, col + c]);
    this.lastByColor.set(event.color, this.highlight);
  }

  /* The cells of the other colours' last moves. */
  earlierMoves() {
    return [...this.lastByColor.values()].filter((cells) => cells !== this.highlight).flat();
  }

  over() {
    this.isOver = true;
    this.selected = null;
    this.root.classList.add("ended");
    this.draw();
  }

  destroy() {
    document.removeEventListener("keydown", this.onKey);
    document.removeEventListener("pointerup", this.onRelease);
  }

  isMyTurn() {
    const state = this.state;
    return Boolean(state && !this.isOver && state.status === "playing" && state.to_move && state.to_move.seat === state.seat);
  }

  /* The color whose pieces the tray shows: the color to move when it is
   * this seat's turn (or for a spectator), else the seat's first color. */
  trayColor() {
    const { seat, to_move: toMove, mode } = this.state;
    if (toMove && (seat === null || toMove.seat === seat)) return toMove.color;
    return seat === null ? 0 : seatColors(mode, seat)[0];
  }

  selectedOrientation() {
    if (!this.selected || !this.pieces) return null;
    return this.pieces.find((p) => p.name === this.selected.name).orientations[this.selected.orientation];
  }

  /* The selected piece at the cursor: {origin, cells, problem}, or null. */
  preview() {
    const orientation = this.selectedOrientation();
    if (!orientation || !this.cursor || !this.state) return null;
    const color = this.trayColor();
    const placement = placementAt(orientation, ...this.cursor);
    const problem = placementProblem(this.state.board, color, this.selected.name, this.state.pieces_left[color], placement.cells);
    return { ...placement, problem };
  }

  /* Nothing but the empty board (setRoom) is drawn before the piece table
   * is here: the room shows the view once board and tray are both drawn. */
  draw() {
    const state = this.state;
    if (!state || !this.pieces) return;
    const color = this.trayColor();
    const preview = this.preview();
    const canAct = state.seat !== null && !this.isOver;
    drawBlokus(this.board, state.board, {
      highlight: this.highlight,
      earlier: this.earlierMoves(),
      fits: this.showLegal.checked ? this.fittingCells(color) : undefined,
      attach: this.isMyTurn() ? state.hints?.attach : undefined, /* where a piece can start */
      preview: preview && { cells: preview.cells, color: colorName(color), legal: !preview.problem },
      onCell: canAct ? (row, col, event) => this.onCell(row, col, event) : undefined,
    });
    Object.assign(this.root.dataset, {
      ply: state.ply, board: state.board.join("/"), color: colorName(color), cursor: this.cursor?.join(",") ?? "",
      preview: preview ? (preview.problem ? "illegal" : "legal") : "none",
    });
    this.reason.textContent = this.reasonText(preview);
    this.reason.classList.toggle("illegal", Boolean(preview?.problem));
    this.trayTitle.textContent = state.seat === null ? `${colorName(color)}'s pieces` : `Your pieces: ${colorName(color)}`;
    this.rotateButton.disabled = this.flipButton.disabled = !this.selected;
    this.drawTray(color, canAct);
    this.drawPiecesLeft(color);
    this.ctx.onDrawn?.(); /* board and tray both drawn */
  }

  /* The cells where holding the selected piece (as turned) places it
   * legally for `color`: [[row, col], ...], [] with nothing selected. */
  fittingCells(color) {
    const orientation = this.selectedOrientation();
    if (!orientation) return [];
    const { board } = this.state;
    const left = this.state.pieces_left[color];
    const cells = [];
    for (let row = 0; row < board.length; row++) {
      for (let col = 0; col < board.length; col++) {
        const placement = placementAt(orientation, row, col);
        if (!placementProblem(board, color, this.selected.name, left, placement.cells)) cells.push([row, col]);
      }
    }
    return cells;
  }

  /* The other colours' pieces left, redrawn only when they change. */
  drawPiecesLeft(trayColor) {
    const others = this.state.pieces_left.map((left, color) => ({ color, left })).filter(({ color }) => color !== trayColor);
    const key = JSON.stringify(others);
    if (key === this.piecesLeftKey) return;
    this.piecesLeftKey = key;
    drawPiecesLeft(this.piecesLeft, this.pieces, others);
  }

  /* The tray, redrawn only when it changes (not on every hover). */
  drawTray(color, canAct) {
    const left = this.state.pieces_left[color];
    const key = JSON.stringify([color, left, this.selected, canAct]);
    if (key === this.trayKey) return;
    this.trayKey = key;
    const hadFocus = this.tray.contains(document.activeElement);
    drawTray(this.tray, {
      pieces: this.pieces, left, color, selected: this.selected,
      isEnabled: canAct, onPick: (name, event) => this.pick(name, event),
      onGrab: (name, event) => { if (event.pointerType !== "touch") this.dragged = name; },
    });
    if (hadFocus && !this.tray.contains(document.activeElement)) this.board.focus(); /* no piece left to hold it */
  }

  reasonText(preview) {
    if (!preview) return this.selected ? "Hold the piece over the board." : "";
    if (preview.problem) return `Not here: ${REASONS[preview.problem]}.`;
    if (!this.isMyTurn()) return "Legal here, once it is your turn.";
    if (this.pendingTap) return "Tap again to place.";
    return this.isByKeyboard ? "Legal: press Enter to place." : "Legal: click to place.";
  }

  /* Picks a tray piece (picking it again drops it); from the keyboard,
   * the focus moves to the board, where the arrows and Enter work. */
  pick(name, event) {
    if (this.selected?.name === name) {
      this.drop();
      return;
    }
    this.selected = { name, orientation: 0 };
    this.pendingTap = null;
    this.moveError.hidden = true;
    if (!this.cursor && this.state.hints?.attach.length) this.cursor = this.state.hints.attach[0];
    this.draw();
    if (event?.detail === 0) this.board.focus();
  }

  drop() {
    this.selected = null;
    this.pendingTap = null;
    this.draw();
  }

  /* Rotates or flips the selected piece ("rotate" / "flip"). */
  turn(how) {
    if (!this.selected) return;
    const piece = this.pieces.find((p) => p.name === this.selected.name);
    this.selected = { ...this.selected, orientation: piece[how][this.selected.orientation] };
    this.pendingTap = null;
    this.draw();
  }

  onCell(row, col, event) {
    const key = `${row},${col}`;
    const isTouch = event.pointerType === "touch";
    if (event.type === "pointerup") {
      if (!this.dragged) return; /* a plain click: its click event places */
      this.cursor = [row, col];
      this.place(); /* a piece dragged from the tray, released here */
      return;
    }
    if (event.type === "pointerover" && this.dragged && this.selected?.name !== this.dragged) {
      this.selected = { name: this.dragged, orientation: 0 }; /* dragging picks it up */
      this.pendingTap = null;
      this.moveError.hidden = true;
    }
    if (event.type === "pointerover") {
      /* Repainting the cell under a resting mouse makes the browser report
       * an enter at the same spot: only a pointer that moved takes the
       * cursor from the keyboard. */
      const spot = `${event.clientX},${event.clientY}`;
      if (isTouch || spot === this.pointerSpot) return;
      this.pointerSpot = spot;
      this.isByKeyboard = false;
      if (this.cursor?.join(",") === key) return;
      this.cursor = [row, col];
      this.draw();
      return;
    }
    this.cursor = [row, col];
    if (isTouch && this.pendingTap !== key) {
      this.pendingTap = key;
      this.draw();
      return;
    }
    this.place();
  }

  async place() {
    const preview = this.preview();
    if (!preview || !this.isMyTurn() || this.isSending) return;
    const { name, orientation } = this.selected;
    const action = { piece: name, orientation, row: preview.origin[0], col: preview.origin[1] };
    this.isSending = true;
    try {
      const reply = await this.ctx.connection.request({ type: "game.move", room: this.ctx.roomCode, ply: this.state.ply, action });
      this.selected = null;
      this.moveError.hidden = true;
      this.moved(reply);
    } catch (error) {
      this.ctx.showError(error);
      if (error.code === "illegal_move") {
        this.moveError.textContent = `Refused: ${error.message}.`;
        this.moveError.hidden = false;
      }
    } finally {
      this.isSending = false;
      this.pendingTap = null;
      this.draw();
    }
  }

  onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || !this.state) return;
    if (event.target.closest?.("input, select, textarea")) return;
    const key = event.key;
    const onBoard = event.target === this.board || event.target === document.body;
    if (key === "r" || key === "R") this.turn("rotate");
    else if (key === "f" || key === "F") this.turn("flip");
    else if (key === "Escape" && this.selected) this.drop();
    else if (ARROWS[key] && this.selected) this.moveCursor(...ARROWS[key]);
    else if ((key === "Enter" || key === " ") && onBoard && this.selected) this.place();
    else return;
    event.preventDefault();
  }

  moveCursor(rowStep, colStep) {
    const size = this.state.board.length;
    const [row, col] = this.cursor || [Math.floor(size / 2), Math.floor(size / 2)];
    this.cursor = [Math.min(size - 1, Math.max(0, row + rowStep)), Math.min(size - 1, Math.max(0, col + colStep))];
    this.isByKeyboard = true;
    this.pendingTap = null;
    this.draw();
  }
}

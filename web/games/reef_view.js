// reef_view.js -- Reef Builder in a room (solo or race), the game view that
// room.js draws a Reef game with (the view contract: createView returns
// update / moved / over / destroy, plus the optional setRoom below).
//
// Layout: the player's own board large, with its controls (rotate, skip,
// the preview's verdict, a refused move's message); every other board
// small beside it with its racer's name. A spectator sees every board and
// has no controls.
//
// Playing: a mouse previews where the piece lands by moving over the reef
// and places by clicking; touch previews on the first tap and places on a
// second tap of the same cell; the keyboard focuses the reef, moves a
// cursor with the arrows, rotates with R and places with Enter or Space.
// A preview is drawn in the piece's colours when it fits and greyed with
// the reason when not; the server stays the judge (a refused move shows
// its teaching message). After a placement the preview hides until the
// pointer or the cursor moves, so the piece just placed is seen. Hover
// follows pointermove, not pointerenter: redrawing the reef under a still
// (or touch-emulated) mouse fires pointerenter, which must not move it.
//
// Each game.state is the whole truth and redraws every card. A game.moved
// with blooms first shows the placed piece with the cleared cells flashing
// for BLOOM_MS (style.css; a still outline with prefers-reduced-motion),
// then the board settles to the latest state.
import { reefColor } from "./boards.js";
import { seatName } from "./catalog.js";
import { createCard } from "./reef_card.js";
import {
  REEF_COLS, REEF_ROWS, nextOrientation, orientationLabel, placedLetters, placementCells,
  placementProblem, withPiece,
} from "./reef_rules.js";

const BLOOM_MS = 900;
const ARROW_STEPS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
const SKIP_COST = 50;

function button(parent, className, text, onClick) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = className;
  node.textContent = text;
  node.addEventListener("click", onClick);
  parent.append(node);
  return node;
}

function paragraph(parent, className, attributes = {}) {
  const node = document.createElement("p");
  node.className = className;
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  parent.append(node);
  return node;
}

function isTyping(target) {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName));
}

export function createView(container, ctx) {
  const root = document.createElement("div");
  root.className = "reef-view";
  root.style.setProperty("--bloom-ms", `${BLOOM_MS}ms`);
  const mine = document.createElement("div");
  mine.className = "reef-mine";
  const others = document.createElement("div");
  others.className = "reef-others";
  root.append(mine, others);
  container.replaceChildren(root);

  let latest = null; /* the last game.state */
  let result = null; /* game.over's result, once over */
  let names = new Map(); /* seat -> name, from setRoom */
  let maxTurns = null;
  let cards = new Map(); /* seat -> card */
  let cardsKey = "";
  let controls = null; /* the own board's buttons and messages */
  let orientation = 0;
  let cursor = null; /* {row, col}: where the preview is */
  let isPreviewHidden = false; /* since the last placement, until the cursor moves */
  let movingFromPly = null; /* the ply of a move sent and not yet in a state */
  const lastMoves = new Map(); /* seat -> {points, skipped}: the last move's score change */
  const lastCells = new Map(); /* seat -> the last placement's cells */
  const flashes = new Map(); /* seat -> {rows, cells, timer}: a bloom on show */

  function ownBoard() {
    return latest && latest.seat !== null ? latest.boards.find((board) => board.seat === latest.seat) : null;
  }

  function canMove() {
    const board = ownBoard();
    return Boolean(board && !result && board.phase === "playing" && movingFromPly === null);
  }

  /* "ada", "ada (you)"; in a race numbered by seat ("2. greedy"), since
   * bots of one kind share a name. */
  function nameOf(seat) {
    const name = names.get(seat) || `Seat ${seat + 1}`;
    const numbered = latest.boards.length > 1 && names.has(seat) ? `${seat + 1}.\u00a0${name}` : name;
    return seat === latest.seat ? `${numbered} (you)` : numbered;
  }

  /* The cards follow the seats: one large card (own board, or the only
   * board for a spectator of a solo game), small ones for the rest. */
  function syncCards() {
    const seats = latest.boards.map((board) => board.seat);
    const largeSeat = latest.seat !== null ? latest.seat : seats.length === 1 ? seats[0] : null;
    const key = `${largeSeat}:${seats.join(",")}`;
    if (key === cardsKey) return;
    for (const card of cards.values()) card.remove();
    cards = new Map();
    controls = null;
    cardsKey = key;
    root.classList.toggle("reef-watching", latest.seat === null);
    for (const seat of seats) {
      const large = seat === largeSeat;
      const card = createCard(large ? mine : others, { large });
      cards.set(seat, card);
      if (large && seat === latest.seat) controls = buildControls(card);
      else if (large) paragraph(card.controls, "reef-watch-note muted").textContent = "You are watching: the moves are the player's.";
    }
    mine.hidden = largeSeat === null;
    others.hidden = seats.length === (largeSeat === null ? 0 : 1);
  }

  function buildControls(card) {
    const box = card.controls;
    const rotate = button(box, "reef-rotate", "Rotate (R)", rotatePiece);
    const skip = button(box, "reef-skip", "Skip", () => play({ type: "skip" }));
    const orientationNote = paragraph(box, "reef-orientation muted");
    const previewNote = paragraph(box, "reef-preview-note", { "aria-live": "polite" });
    const moveError = paragraph(box, "move-error", { role: "alert" });
    paragraph(box, "reef-help muted").textContent =
      "Hover and click a cell to place half A there (on touch: tap to preview, tap again to place). " +
      "Keyboard: focus the reef, arrows move, R rotates, Enter places.";
    const grid = card.grid;
    grid.tabIndex = 0;
    grid.setAttribute("aria-label", "your reef: arrows move the piece, R rotates, Enter places");
    grid.addEventListener("keydown", onBoardKey);
    grid.addEventListener("pointermove", onBoardPointerMove);
    grid.addEventListener("click", onBoardClick);
    grid.addEventListener("pointerleave", (event) => {
      if (event.pointerType === "mouse") moveCursor(null);
    });
    return { rotate, skip, orientationNote, previewNote, moveError };
  }

  function render() {
    if (!latest) return;
    syncCards();
    for (const board of latest.boards) {
      const isOwn = board.seat === latest.seat;
      const card = cards.get(board.seat);
      card.show(board, {
        name: nameOf(board.seat),
        maxTurns,
        lastMove: lastMoves.get(board.seat) || null,
        orientation: isOwn ? orientation : 0,
        ended: Boolean(result),
        rank: result && latest.boards.length > 1 ? result.ranks[board.seat] : null,
      });
      drawBoard(card, board, isOwn);
    }
    if (controls) renderControls();
  }

  function drawBoard(card, board, isOwn) {
    const label = `reef of ${nameOf(board.seat)}`;
    const flash = flashes.get(board.seat);
    if (flash) {
      card.draw(flash.rows, { flash: flash.cells, label });
      return;
    }
    const placed = (lastCells.get(board.seat) || []).filter(([row, col]) => board.board[row][col] !== ".");
    const options = { highlight: placed, label };
    if (isOwn && canMove() && shownCursor()) options.preview = preview(board);
    card.draw(board.board, options);
  }

  function preview(board) {
    const cells = placedLetters(board.current, cursor.row, cursor.col, orientation);
    return {
      cells: cells.map(([cell]) => cell),
      colorAt: (index) => reefColor(cells[index][1]),
      legal: !placementProblem(board.board, cursor.row, cursor.col, orientation),
    };
  }

  function renderControls() {
    const board = ownBoard();
    const playable = canMove();
    controls.rotate.disabled = !playable;
    controls.skip.disabled = !playable || board.skipsLeft === 0;
    controls.skip.textContent = `Skip (−${SKIP_COST}) · ${board.skipsLeft} left`;
    controls.orientationNote.textContent = `Piece: ${orientationLabel(orientation)}`;
    controls.previewNote.textContent = previewVerdict(board, playable);
    controls.previewNote.classList.toggle("illegal", Boolean(shownCursor() && playable && placementProblem(board.board, cursor.row, cursor.col, orientation)));
  }

  function previewVerdict(board, playable) {
    if (result || board.phase === "ended") return "Your board has ended.";
    if (!playable) return "Placing…";
    if (!shownCursor()) return "Point at a cell to preview the piece.";
    const where = `row ${cursor.row + 1}, column ${cursor.col + 1}`;
    const problem = placementProblem(board.board, cursor.row, cursor.col, orientation);
    return problem ? `Cannot place at ${where}: ${problem.text}.` : `Fits at ${where}.`;
  }

  function shownCursor() {
    return isPreviewHidden ? null : cursor;
  }

  function isAtCursor(cell) {
    return Boolean(cell && cursor && cell.row === cursor.row && cell.col === cursor.col);
  }

  /* Moves the preview to `cell` (null: no preview) and shows it. */
  function moveCursor(cell) {
    if (!isPreviewHidden && (isAtCursor(cell) || (!cell && !cursor))) return;
    cursor = cell;
    isPreviewHidden = false;
    render();
  }

  /* The reef cell an event happened on, as {row, col}, or null. */
  function cellOf(event) {
    const group = event.target instanceof Element ? event.target.closest("g.cell") : null;
    return group ? { row: Number(group.dataset.row), col: Number(group.dataset.col) } : null;
  }

  function onBoardPointerMove(event) {
    const cell = cellOf(event);
    if (cell && event.pointerType !== "touch" && canMove()) moveCursor(cell);
  }

  /* A click places; a tap previews first and places when the same cell
   * is tapped again. */
  function onBoardClick(event) {
    const cell = cellOf(event);
    if (!cell || !canMove()) return;
    if (event.pointerType === "touch" && !(isAtCursor(cell) && shownCursor())) {
      moveCursor(cell);
      return;
    }
    play({ type: "place", row: cell.row, col: cell.col, orientation });
  }

  function onBoardKey(event) {
    const step = ARROW_STEPS[event.key];
    if (step) {
      event.preventDefault();
      const from = cursor || { row: 0, col: 0 };
      const row = Math.min(REEF_ROWS - 1, Math.max(0, from.row + (cursor ? step[0] : 0)));
      const col = Math.min(REEF_COLS - 1, Math.max(0, from.col + (cursor ? step[1] : 0)));
      moveCursor({ row, col });
    } else if ((event.key === "Enter" || event.key === " ") && cursor && canMove()) {
      event.preventDefault();
      if (shownCursor()) play({ type: "place", row: cursor.row, col: cursor.col, orientation });
      else moveCursor(cursor); /* first show where the next piece would go */
    }
  }

  function onDocumentKey(event) {
    if ((event.key === "r" || event.key === "R") && !event.ctrlKey && !event.metaKey && !event.altKey && !isTyping(event.target)) {
      rotatePiece();
    }
  }

  function rotatePiece() {
    if (!canMove()) return;
    orientation = nextOrientation(orientation);
    isPreviewHidden = false;
    render();
  }

  /* Sends the own seat's action; its reply is the move's game.moved. */
  async function play(action) {
    const board = ownBoard();
    if (!canMove()) return;
    movingFromPly = board.ply;
    controls.moveError.textContent = "";
    render();
    try {
      const reply = await ctx.connection.request({ type: "game.move", room: ctx.roomCode, ply: board.ply, action });
      isPreviewHidden = true;
      moved(reply);
    } catch (error) {
      movingFromPly = null;
      if (error.code === "illegal_move") controls.moveError.textContent = error.message;
      ctx.showError(error);
      render();
    }
  }

  /* A move of any seat: remember its points and cells, and flash its blooms. */
  function moved(event) {
    const { seat, action } = event;
    lastMoves.set(seat, { points: event.result.points, skipped: action.type === "skip" });
    if (action.type === "place") lastCells.set(seat, placementCells(action.row, action.col, action.orientation));
    else lastCells.delete(seat);
    const before = latest && latest.boards.find((board) => board.seat === seat);
    if (event.result.blooms.length && action.type === "place" && before && before.ply === event.ply) {
      showBloom(seat, withPiece(before.board, before.current, action.row, action.col, action.orientation), event.result.blooms);
    }
    render();
  }

  function showBloom(seat, rows, blooms) {
    const running = flashes.get(seat);
    if (running) clearTimeout(running.timer);
    const timer = setTimeout(() => {
      flashes.delete(seat);
      render();
    }, BLOOM_MS);
    flashes.set(seat, { rows, cells: blooms.flatMap((bloom) => bloom.cells), timer });
  }

  document.addEventListener("keydown", onDocumentKey);

  return {
    update(state) {
      latest = state;
      const board = ownBoard();
      if (board && board.ply !== movingFromPly) movingFromPly = null;
      if (board && board.phase !== "playing") cursor = null;
      render();
      ctx.onDrawn?.();
    },
    moved,
    over(gameResult) {
      result = gameResult;
      cursor = null;
      render();
    },
    /* Optional (room.js calls it with each room object it gets): the seats'
     * names and the turn cap (options.max_turns), which game.state lacks. */
    setRoom(room) {
      names = new Map(room.seats.filter((seat) => seat.kind !== "empty").map((seat) => [seat.seat, seatName(seat)]));
      maxTurns = room.options.max_turns || null;
      render();
    },
    destroy() {
      document.removeEventListener("keydown", onDocumentKey);
      for (const flash of flashes.values()) clearTimeout(flash.timer);
      root.remove();
    },
  };
}

// boards.js -- the one drawing of a Blokus and a Reef Builder board, as SVG,
// shared by play, spectating and replays.
//
// drawBlokus(container, rows, options) draws `rows` (the protocol's board:
// strings of '.' and '0'..'3') with the start cells marked; options:
//   highlight  [[row, col], ...]   the last move, outlined
//   earlier    [[row, col], ...]   the other colours' last moves, outlined lightly
//   preview    {cells: [[row, col], ...], color, legal}  a piece under the pointer
//   attach     [[row, col], ...]   empty cells a new piece may cover (the hints), ringed
//   fits       [[row, col], ...]   cells where the held piece would place legally, dotted
//   onCell     (row, col, event) => ...   a click, pointerover (the pointer
//              entering the cell) or pointerup on a cell; one listener each
//              on the whole board
//   flash      [[row, col], ...]   cells drawn with class "flash" (Reef
//              blooms: style.css animates them as they clear)
//   label      the drawing's accessible name (aria-label); by default the
//              board's size (and, for Blokus, each colour's squares placed)
// drawEmptyBlokus(container, mode) draws the empty board of a mode.
// drawReef(container, rows, options) draws the 8x6 reef (letters R B G Y P);
// options.highlight and options.preview as above (preview.letters per cell).
// Colours come from CSS variables; with body.patterns each colour also has
// a pattern, so colour-blind players can tell them apart.
// A board is built once per container and size (a Blokus board is ~1,400
// SVG elements, slow to make on a phone); drawing into the same container
// again repaints only the cells whose look changed.
import { svgElement } from "../dom.js";

export const BLOKUS_COLORS = ["blue", "yellow", "red", "green"];
const REEF_COLORS = { R: "red", B: "blue", G: "green", Y: "yellow", P: "purple" };
const PATTERNS = { blue: "dots", yellow: "stripes", red: "cross", green: "checks", purple: "rings" };
const CELL = 24;

/* The pattern fills, once per board (cheap, and each SVG stands alone). */
function definePatterns(svg) {
  const defs = svgElement("defs", {}, svg);
  const shapes = {
    dots: (p) => svgElement("circle", { cx: 6, cy: 6, r: 2.2 }, p),
    stripes: (p) => svgElement("path", { d: "M0 12 L12 0", "stroke-width": 2.5 }, p),
    cross: (p) => svgElement("path", { d: "M2 2 L10 10 M10 2 L2 10", "stroke-width": 2 }, p),
    checks: (p) => svgElement("rect", { x: 0, y: 0, width: 6, height: 6 }, p),
    rings: (p) => svgElement("circle", { cx: 6, cy: 6, r: 3.5, fill: "none", "stroke-width": 1.6 }, p),
  };
  for (const [name, draw] of Object.entries(shapes)) {
    const pattern = svgElement("pattern", { id: `pattern-${name}`, width: 12, height: 12, patternUnits: "userSpaceOnUse" }, defs);
    const shape = draw(pattern);
    shape.setAttribute("class", "pattern-ink");
  }
}

function fillOf(color) {
  return color ? `var(--${color})` : "var(--empty)";
}

/* The boards drawn so far: svg -> {svg, rowCount, colCount, cells,
 * onCell}, where cells[row * colCount + col] is {group, key}: the cell's
 * <g> and the key of the look it shows now. */
const drawn = new WeakMap();

/* The cell a pointer event happened on: its <g>, or null. */
function cellOf(node) {
  return node instanceof Element ? node.closest("g.cell") : null;
}

/* One listener per kind on the whole board, not three per cell: each calls
 * the board's current onCell. A pointerover is passed on only when the
 * pointer comes from outside the cell (what pointerenter would say). */
function listen(svg, board) {
  const pass = (event) => {
    const group = cellOf(event.target);
    if (!group || !board.onCell) return;
    if (event.type === "pointerover" && cellOf(event.relatedTarget) === group) return;
    board.onCell(Number(group.dataset.row), Number(group.dataset.col), event);
  };
  for (const type of ["click", "pointerover", "pointerup"]) svg.addEventListener(type, pass);
}

/* The board in `container` if it is one of this size, else a new one with
 * every cell empty (nothing shown yet: each cell's key is null). */
function boardIn(container, rowCount, colCount) {
  const existing = container.childElementCount === 1 ? drawn.get(container.firstElementChild) : null;
  if (existing && existing.rowCount === rowCount && existing.colCount === colCount) return existing;
  const svg = svgElement("svg", { viewBox: `0 0 ${colCount * CELL} ${rowCount * CELL}`, class: "board", role: "img" });
  definePatterns(svg);
  const board = { svg, rowCount, colCount, cells: [], onCell: null };
  for (let row = 0; row < rowCount; row++) {
    for (let col = 0; col < colCount; col++) {
      const group = svgElement("g", { class: "cell", transform: `translate(${col * CELL} ${row * CELL})`, "data-row": row, "data-col": col }, svg);
      board.cells.push({ group, key: null });
    }
  }
  listen(svg, board);
  drawn.set(svg, board);
  container.replaceChildren(svg);
  return board;
}

/* What a cell shows, as a plain value; `key` says it in one string. */
function cellLook(row, col, color, options, sets) {
  const key = `${row},${col}`;
  const look = { color, className: "cell", last: null, start: false, attach: false, fits: sets.fits.has(key) };
  if (sets.previewAt.has(key)) {
    const preview = options.preview;
    look.color = preview.colorAt ? preview.colorAt(sets.previewAt.get(key)) : preview.color;
    look.className += preview.legal ? " preview" : " preview illegal";
  }
  if (sets.flashing.has(key)) look.className += " flash";
  if (sets.highlighted.has(key)) look.last = "last";
  else if (sets.earlier.has(key)) look.last = "last earlier";
  look.start = Boolean(options.marks?.has(key)) && !look.color;
  look.attach = sets.attach.has(key) && !look.color;
  look.key = `${look.color}|${look.className}|${look.last}|${look.start}|${look.attach}|${look.fits}`;
  return look;
}

/* What a cell of each look holds, drawn once at the cell's own origin:
 * look.key -> a <g> whose children every such cell gets a copy of (copying
 * is several times faster than making each element and its attributes). */
const contents = new Map();

function cellContents(look) {
  let model = contents.get(look.key);
  if (model) return model;
  model = svgElement("g");
  svgElement("rect", { x: 1, y: 1, width: CELL - 2, height: CELL - 2, rx: 3, fill: fillOf(look.color) }, model);
  if (look.color) {
    svgElement("rect", { x: 1, y: 1, width: CELL - 2, height: CELL - 2, rx: 3, class: "pattern", fill: `url(#pattern-${PATTERNS[look.color]})` }, model);
  }
  if (look.last) svgElement("rect", { x: 2, y: 2, width: CELL - 4, height: CELL - 4, rx: 3, class: look.last }, model);
  if (look.start) svgElement("circle", { cx: CELL / 2, cy: CELL / 2, r: 4, class: "start" }, model);
  if (look.attach) svgElement("circle", { cx: CELL / 2, cy: CELL / 2, r: 6, class: "attach" }, model);
  if (look.fits) svgElement("circle", { cx: CELL / 2, cy: CELL / 2, r: 3, class: "fits" }, model);
  contents.set(look.key, model);
  return model;
}

/* Redraws one cell's contents from its look. */
function paintCell(group, look) {
  group.setAttribute("class", look.className);
  group.replaceChildren(...cellContents(look).cloneNode(true).childNodes);
}

/* Draws a grid of cells; colorAt(row, col) names the cell's colour or null.
 * The grid is built once per container and size; a later drawing repaints
 * only the cells whose look changed, so a cell keeps its element (and a
 * running animation) while it shows the same. */
function drawGrid(container, rowCount, colCount, colorAt, options) {
  const board = boardIn(container, rowCount, colCount);
  board.svg.setAttribute("aria-label", options.label);
  board.onCell = options.onCell || null;
  const cellSet = (cells) => new Set((cells || []).map(([r, c]) => `${r},${c}`));
  const sets = {
    previewAt: new Map((options.preview?.cells || []).map(([r, c], i) => [`${r},${c}`, i])),
    highlighted: cellSet(options.highlight),
    earlier: cellSet(options.earlier),
    flashing: cellSet(options.flash),
    attach: cellSet(options.attach),
    fits: cellSet(options.fits),
  };
  for (let row = 0; row < rowCount; row++) {
    for (let col = 0; col < colCount; col++) {
      const cell = board.cells[row * colCount + col];
      const look = cellLook(row, col, colorAt(row, col), options, sets);
      if (look.key === cell.key) continue;
      cell.key = look.key;
      paintCell(cell.group, look);
    }
  }
  return board.svg;
}

/* The start cells of a Blokus board of `size` (20: classic, 14: duo). */
export function blokusStarts(size) {
  return size === 14 ? [[4, 4], [9, 9]] : [[0, 0], [0, 19], [19, 19], [19, 0]];
}

/* What a Blokus board shows, told in words: its size and each colour's squares. */
function blokusLabel(rows) {
  const counts = BLOKUS_COLORS.map((color, index) => [color, rows.join("").split(String(index)).length - 1]).filter(([, count]) => count);
  const placed = counts.length ? counts.map(([color, count]) => `${color} ${count}`).join(", ") : "empty";
  return `Blokus board, ${rows.length} by ${rows.length}, squares placed: ${placed}`;
}

export function drawBlokus(container, rows, options = {}) {
  const marks = new Set(blokusStarts(rows.length).map(([r, c]) => `${r},${c}`));
  return drawGrid(container, rows.length, rows[0].length,
    (row, col) => (rows[row][col] === "." ? null : BLOKUS_COLORS[Number(rows[row][col])]),
    { ...options, label: options.label || blokusLabel(rows), marks });
}

/* The empty board of a Blokus mode: Duo's 14x14, the others' 20x20. */
export function drawEmptyBlokus(container, mode) {
  const size = mode === "duo" ? 14 : 20;
  return drawBlokus(container, Array(size).fill(".".repeat(size)));
}

export function reefColor(letter) {
  return REEF_COLORS[letter] || null;
}

export function drawReef(container, rows, options = {}) {
  return drawGrid(container, rows.length, rows[0].length,
    (row, col) => reefColor(rows[row][col]), { ...options, label: options.label || `Reef, ${rows.length} rows of ${rows[0].length}` });
}

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
//   onCell     (row, col, event) => ...   click / pointerenter / pointerup per cell
//   flash      [[row, col], ...]   cells drawn with class "flash" (Reef
//              blooms: style.css animates them as they clear)
//   label      the drawing's accessible name (aria-label); by default the
//              board's size (and, for Blokus, each colour's squares placed)
// drawReef(container, rows, options) draws the 8x6 reef (letters R B G Y P);
// options.highlight and options.preview as above (preview.letters per cell).
// Colours come from CSS variables; with body.patterns each colour also has
// a pattern, so colour-blind players can tell them apart.
import { svgElement } from "../dom.js";

export const BLOKUS_COLORS = ["blue", "yellow", "red", "green"];
const REEF_COLORS = { R: "red", B: "blue", G: "green", Y: "yellow", P: "purple" };
const PATTERNS = { blue: "dots", yellow: "stripes", red: "cross", green: "checks", purple: "rings" };
const CELL = 24;

/* The pattern fills, once per drawing (cheap, and each SVG stands alone). */
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

/* Draws a grid of cells; colorAt(row, col) names the cell's colour or null. */
function drawGrid(container, rowCount, colCount, colorAt, options) {
  const svg = svgElement("svg", {
    viewBox: `0 0 ${colCount * CELL} ${rowCount * CELL}`,
    class: "board",
    role: "img",
    "aria-label": options.label,
  });
  definePatterns(svg);
  const previewAt = new Map((options.preview?.cells || []).map(([r, c], i) => [`${r},${c}`, i]));
  const highlighted = new Set((options.highlight || []).map(([r, c]) => `${r},${c}`));
  const earlier = new Set((options.earlier || []).map(([r, c]) => `${r},${c}`));
  const flashing = new Set((options.flash || []).map(([r, c]) => `${r},${c}`));
  const attach = new Set((options.attach || []).map(([r, c]) => `${r},${c}`));
  const fits = new Set((options.fits || []).map(([r, c]) => `${r},${c}`));
  for (let row = 0; row < rowCount; row++) {
    for (let col = 0; col < colCount; col++) {
      const key = `${row},${col}`;
      let color = colorAt(row, col);
      let className = "cell";
      if (previewAt.has(key)) {
        const preview = options.preview;
        color = preview.colorAt ? preview.colorAt(previewAt.get(key)) : preview.color;
        className += preview.legal ? " preview" : " preview illegal";
      }
      if (flashing.has(key)) className += " flash";
      const group = svgElement("g", { class: className, "data-row": row, "data-col": col }, svg);
      svgElement("rect", { x: col * CELL + 1, y: row * CELL + 1, width: CELL - 2, height: CELL - 2, rx: 3, fill: fillOf(color) }, group);
      if (color) {
        svgElement("rect", { x: col * CELL + 1, y: row * CELL + 1, width: CELL - 2, height: CELL - 2, rx: 3, class: "pattern", fill: `url(#pattern-${PATTERNS[color]})` }, group);
      }
      if (highlighted.has(key) || earlier.has(key)) {
        svgElement("rect", { x: col * CELL + 2, y: row * CELL + 2, width: CELL - 4, height: CELL - 4, rx: 3, class: highlighted.has(key) ? "last" : "last earlier" }, group);
      }
      if (options.marks?.has(key) && !color) svgElement("circle", { cx: col * CELL + CELL / 2, cy: row * CELL + CELL / 2, r: 4, class: "start" }, group);
      if (attach.has(key) && !color) svgElement("circle", { cx: col * CELL + CELL / 2, cy: row * CELL + CELL / 2, r: 6, class: "attach" }, group);
      if (fits.has(key)) svgElement("circle", { cx: col * CELL + CELL / 2, cy: row * CELL + CELL / 2, r: 3, class: "fits" }, group);
      if (options.onCell) {
        group.addEventListener("click", (event) => options.onCell(row, col, event));
        group.addEventListener("pointerenter", (event) => options.onCell(row, col, event));
        group.addEventListener("pointerup", (event) => options.onCell(row, col, event));
      }
    }
  }
  container.replaceChildren(svg);
  return svg;
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

export function reefColor(letter) {
  return REEF_COLORS[letter] || null;
}

export function drawReef(container, rows, options = {}) {
  return drawGrid(container, rows.length, rows[0].length,
    (row, col) => reefColor(rows[row][col]), { ...options, label: options.label || `Reef, ${rows.length} rows of ${rows[0].length}` });
}

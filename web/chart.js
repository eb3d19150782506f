// chart.js -- small SVG line charts (no library): a player's rating after
// each rated game, and every seat's score after each ply of a game.
//
// drawLineChart(container, points, {yLabel, xLabel, minSpan}) draws points
// [{y, label, href}] evenly spaced left to right (one per game, so a busy
// evening does not squash into one pixel), with both axes, "nice" ticks on
// y, numbered ticks on x, and one marker per point. A marker is a link
// (href) with a <title>; hovering or focusing it shows its label in a
// tooltip inside the chart. Such a chart is a group (role=group), not an
// image: an image may hold nothing focusable. Colours come from the page's
// CSS variables, so the chart reads in light and dark.
//
// drawSeriesChart(container, series, {yLabel, xLabel, label}) draws several
// lines [{name, color, values}] over the same x (values[i] at x = i + 1),
// each stroked by the CSS class series-COLOR, without markers; the caller
// shows the legend.
import { svgElement } from "./dom.js";

const WIDTH = 640;
const HEIGHT = 260;
const MARGIN = { top: 16, right: 16, bottom: 40, left: 52 };
/* About `count` round tick values (steps of 1, 2 or 5 times a power of
 * ten) covering [low, high]; the range is widened to whole steps, and to
 * at least `minSpan` so that a flat history is not drawn as a cliff (nor
 * a whole number's axis ticked in tenths). */
export function niceTicks(low, high, count = 5, minSpan = 1) {
  if (high - low < minSpan) {
    const middle = (low + high) / 2;
    [low, high] = [middle - minSpan / 2, middle + minSpan / 2];
  }
  const raw = (high - low) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= raw);
  const ticks = [];
  for (let value = Math.floor(low / step) * step; ; value += step) {
    ticks.push(Number(value.toFixed(10)) || 0); /* never "-0" */
    if (value >= high - step * 1e-9) return ticks;
  }
}

/* Which x ticks to label: every point when few, else about 8 of them. */
function xTickIndexes(count) {
  const every = Math.max(1, Math.ceil(count / 8));
  const indexes = [];
  for (let i = 0; i < count; i += every) indexes.push(i);
  if (indexes[indexes.length - 1] !== count - 1) indexes.push(count - 1);
  return indexes;
}

/* The hover label: a box sized to its text (whose size the CSS sets). */
function drawTooltip(svg) {
  const group = svgElement("g", { class: "chart-tooltip", visibility: "hidden" }, svg);
  const box = svgElement("rect", { rx: 4 }, group);
  const text = svgElement("text", { x: 6, y: 0 }, group);
  return {
    show(x, y, label) {
      text.textContent = label;
      text.setAttribute("y", 0);
      const bounds = text.getBBox();
      const width = bounds.width + 12;
      const height = bounds.height + 8;
      text.setAttribute("y", 4 - bounds.y);
      box.setAttribute("width", width);
      box.setAttribute("height", height);
      const left = Math.min(Math.max(x - width / 2, MARGIN.left), WIDTH - width - 2);
      const top = y - height - 10 < 0 ? y + 10 : y - height - 10;
      group.setAttribute("transform", `translate(${left} ${top})`);
      group.setAttribute("visibility", "visible");
    },
    hide() { group.setAttribute("visibility", "hidden"); },
  };
}

/* The plot of `count` points over the value range of `values`: scales,
 * and the axes, grid, ticks and axis titles drawn into `svg`. */
function drawFrame(svg, count, values, { yLabel, xLabel, minSpan }) {
  const ticks = niceTicks(Math.min(...values), Math.max(...values), 5, minSpan);
  const low = ticks[0];
  const high = ticks[ticks.length - 1];
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const xOf = (index) => MARGIN.left + (count === 1 ? plotWidth / 2 : (index / (count - 1)) * plotWidth);
  const yOf = (value) => MARGIN.top + plotHeight - ((value - low) / (high - low)) * plotHeight;

  const axes = svgElement("g", { class: "chart-axes" }, svg);
  for (const tick of ticks) {
    svgElement("line", { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: yOf(tick), y2: yOf(tick), class: "chart-grid" }, axes);
    svgElement("text", { x: MARGIN.left - 6, y: yOf(tick) + 4, "text-anchor": "end", class: "chart-tick" }, axes).textContent = String(tick);
  }
  for (const index of xTickIndexes(count)) {
    svgElement("line", { x1: xOf(index), x2: xOf(index), y1: HEIGHT - MARGIN.bottom, y2: HEIGHT - MARGIN.bottom + 5, class: "chart-axis" }, axes);
    svgElement("text", { x: xOf(index), y: HEIGHT - MARGIN.bottom + 18, "text-anchor": "middle", class: "chart-tick" }, axes).textContent = String(index + 1);
  }
  svgElement("line", { x1: MARGIN.left, x2: MARGIN.left, y1: MARGIN.top, y2: HEIGHT - MARGIN.bottom, class: "chart-axis" }, axes);
  svgElement("line", { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: HEIGHT - MARGIN.bottom, y2: HEIGHT - MARGIN.bottom, class: "chart-axis" }, axes);
  svgElement("text", { x: MARGIN.left + plotWidth / 2, y: HEIGHT - 4, "text-anchor": "middle", class: "chart-label x" }, axes).textContent = xLabel;
  svgElement("text", { x: 12, y: MARGIN.top + plotHeight / 2, "text-anchor": "middle", class: "chart-label y", transform: `rotate(-90 12 ${MARGIN.top + plotHeight / 2})` }, axes).textContent = yLabel;
  return { xOf, yOf };
}

/* The path through values[i] at x index i. */
function linePath(values, xOf, yOf) {
  return values.map((value, index) => `${index ? "L" : "M"}${xOf(index).toFixed(1)} ${yOf(value).toFixed(1)}`).join(" ");
}

export function drawLineChart(container, points, { yLabel = "", xLabel = "", minSpan = 1 } = {}) {
  const svg = svgElement("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "chart", role: "group", "aria-label": `${yLabel} over ${points.length} ${xLabel}` });
  const ys = points.map((point) => point.y);
  const { xOf, yOf } = drawFrame(svg, points.length, ys, { yLabel, xLabel, minSpan });
  svgElement("path", { d: linePath(ys, xOf, yOf), class: "chart-line" }, svg);
  const markers = svgElement("g", { class: "chart-markers" }, svg);
  const tooltip = drawTooltip(svg); /* after the markers: drawn above them */
  points.forEach((point, index) => {
    const link = svgElement("a", { href: point.href, class: "chart-point", "data-index": index }, markers);
    svgElement("title", {}, link).textContent = point.label;
    svgElement("circle", { cx: xOf(index), cy: yOf(point.y), r: 5 }, link);
    const show = () => tooltip.show(xOf(index), yOf(point.y), point.label);
    link.addEventListener("pointerenter", show);
    link.addEventListener("focus", show);
    link.addEventListener("pointerleave", tooltip.hide);
    link.addEventListener("blur", tooltip.hide);
  });
  container.replaceChildren(svg);
  return svg;
}

export function drawSeriesChart(container, series, { yLabel = "", xLabel = "", label = "" } = {}) {
  const svg = svgElement("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "chart", role: "img", "aria-label": label });
  const count = Math.max(...series.map((line) => line.values.length));
  const { xOf, yOf } = drawFrame(svg, count, series.flatMap((line) => line.values), { yLabel, xLabel });
  for (const line of series) {
    svgElement("path", { d: linePath(line.values, xOf, yOf), class: `chart-line series-${line.color}`, "data-series": line.name }, svg);
  }
  container.replaceChildren(svg);
  return svg;
}

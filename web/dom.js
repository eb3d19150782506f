// dom.js -- the one way pages build HTML in code: el(tag, attributes,
// ...children). Attributes are set with setAttribute (true gives an empty
// attribute, false/null/undefined none); keys starting with "on" add event
// listeners (onclick, onsubmit, ...), `dataset` is an object of data-*
// values. Children are nodes or text; null and false children are skipped,
// so optional parts read inline. The page runs under a Content-Security-
// Policy (docs/API.md) that refuses inline scripts, handler attributes and
// style attributes: listeners go through addEventListener (the "on" keys),
// and styles set from code through element.style, never a "style" key.
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return node;
}

const SVG = "http://www.w3.org/2000/svg";

/* An SVG element with its attributes, appended to `parent` when given. */
export function svgElement(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.append(node);
  return node;
}

/* Options of a <select> from [value, label] pairs, `selected` chosen. */
export function options(pairs, selected) {
  return pairs.map(([value, label]) => el("option", { value, selected: value === selected }, label));
}

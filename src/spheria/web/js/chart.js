// A small evaluation chart in inline SVG (no library): the first seat's value (+1 a win, -1 a
// loss) after each move, with the marked moves as dots; a click picks a move.

const SVG = "http://www.w3.org/2000/svg";

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

/**
 * @param {(number|null)[]} values seat 0's value at each position (null: unknown)
 * @param {Map<number, string>} marks position index -> "mistake" | "drop"
 * @param {number} current the position shown now
 * @param {(index: number) => void} onPick
 * @param {string} label the chart's accessible name
 */
export function evaluationChart(values, marks, current, onPick, label) {
  const width = 320;
  const height = 96;
  const pad = 6;
  const n = Math.max(1, values.length - 1);
  const x = (i) => pad + ((width - 2 * pad) * i) / n;
  const y = (v) => pad + ((height - 2 * pad) * (1 - v)) / 2;
  const svg = el("svg", { class: "eval-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label });
  el("rect", { x: 0, y: 0, width, height: height / 2, class: "eval-top" }, svg);
  el("rect", { x: 0, y: height / 2, width, height: height / 2, class: "eval-bottom" }, svg);
  el("line", { x1: 0, x2: width, y1: y(0), y2: y(0), class: "eval-zero" }, svg);
  let run = [];
  const flush = () => {
    if (run.length > 1) el("polyline", { points: run.join(" "), class: "eval-line" }, svg);
    run = [];
  };
  values.forEach((v, i) => {
    if (v === null || v === undefined) flush();
    else run.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  });
  flush();
  el("line", { x1: x(current), x2: x(current), y1: 0, y2: height, class: "eval-now" }, svg);
  for (const [i, kind] of marks) {
    const v = values[i];
    el("circle", { cx: x(i), cy: y(v === null || v === undefined ? 0 : v), r: 4.5, class: `eval-mark eval-${kind}`, "data-index": i }, svg);
  }
  svg.addEventListener("click", (event) => {
    const box = svg.getBoundingClientRect();
    const ratio = (event.clientX - box.left) / Math.max(1, box.width);
    const index = Math.round(((ratio * width - pad) / (width - 2 * pad)) * n);
    onPick(Math.max(0, Math.min(values.length - 1, index)));
  });
  return svg;
}

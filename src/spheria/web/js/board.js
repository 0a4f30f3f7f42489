// The pyramid drawn in SVG: shaded balls stacked level on level, each level offset by half a
// ball as on the real board, seen from any of its four sides (3D) or from above (top view),
// and beside it a map of the four levels lifted apart, so that every ball can be seen and
// tapped (each site of the maps is a target of at least 44 CSS px on a phone). Each site of the
// maps is also a control named by what it holds ("0a1, white, pinned"): on a board that takes
// clicks, one tab stop per level, arrow keys across the level, PageUp/PageDown to the level above
// or below, and Enter or Space act as a tap on the focused site.

import { t, colorWord } from "./messages.js";
import { listenForTaps } from "./taps.js";

const SVG = "http://www.w3.org/2000/svg";
export const LEVEL_SIZES = [4, 3, 2, 1];
export const LEVEL_OFFSETS = [0, 16, 25, 29];
export const NUM_SITES = 30;
export const FILES = "abcd";

export const SITES = [];
for (let level = 0; level < 4; level++) {
  const n = LEVEL_SIZES[level];
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      SITES.push({ index: SITES.length, level, row, col, name: `${level}${FILES[col]}${row + 1}` });
    }
  }
}
export const SITE_BY_NAME = new Map(SITES.map((s) => [s.name, s]));

/** The balls below a site (the four it rests on). */
export function below(site) {
  const s = typeof site === "string" ? SITE_BY_NAME.get(site) : typeof site === "number" ? SITES[site] : site;
  if (s.level === 0) return [];
  const n = LEVEL_SIZES[s.level - 1];
  const base = LEVEL_OFFSETS[s.level - 1];
  const out = [];
  for (const dr of [0, 1]) for (const dc of [0, 1]) out.push(SITES[base + (s.row + dr) * n + s.col + dc]);
  return out;
}

/** "wb../.../../." -> array of 30 characters ('.' empty). */
export function parseBoard(text) {
  const chars = (text || "").replace(/\//g, "").split("");
  while (chars.length < NUM_SITES) chars.push(".");
  return chars.slice(0, NUM_SITES);
}

/** The balls resting on a site (up to four, on the level above). */
export function above(site) {
  const s = typeof site === "string" ? SITE_BY_NAME.get(site) : typeof site === "number" ? SITES[site] : site;
  if (s.level === 3) return [];
  const n = LEVEL_SIZES[s.level + 1];
  const out = [];
  for (const row of [s.row - 1, s.row]) for (const col of [s.col - 1, s.col]) if (row >= 0 && col >= 0 && row < n && col < n) out.push(SITES[LEVEL_OFFSETS[s.level + 1] + row * n + col]);
  return out;
}

/** The site a key moves to from ``name``: across its level (arrows, Home, End) or to the level
 * above (PageUp) or below (PageDown); ``name`` itself at an edge; null for any other key. */
export function siteAfterKey(name, key) {
  const s = SITE_BY_NAME.get(name);
  const n = LEVEL_SIZES[s.level];
  const at = (level, row, col) => {
    const size = LEVEL_SIZES[level];
    const clamp = (x) => Math.max(0, Math.min(size - 1, x));
    return SITES[LEVEL_OFFSETS[level] + clamp(row) * size + clamp(col)].name;
  };
  switch (key) {
    case "ArrowLeft":
      return at(s.level, s.row, s.col - 1);
    case "ArrowRight":
      return at(s.level, s.row, s.col + 1);
    case "ArrowUp": // rank 1 is drawn at the bottom
      return at(s.level, s.row + 1, s.col);
    case "ArrowDown":
      return at(s.level, s.row - 1, s.col);
    case "Home":
      return at(s.level, 0, 0);
    case "End":
      return at(s.level, n - 1, n - 1);
    case "PageUp": // the ball resting on this one (the nearest, at an edge)
      return s.level === 3 ? name : at(s.level + 1, s.row, s.col);
    case "PageDown": // the first of the four balls this one rests on
      return s.level === 0 ? name : at(s.level - 1, s.row, s.col);
    default:
      return null;
  }
}

/** A site's name for people who cannot see it: where it is, what it holds, what a tap does. */
function siteLabel(s, ch, ballNames, states) {
  const holds = ch === "." ? t("site.empty") : (ballNames[ch] ?? colorWord(ch));
  return [s.name, holds, ...states].join(t("list.comma"));
}

/** The site (``data-site`` of the ``.site`` group) that ``node`` is part of, or null. */
function siteUnder(node) {
  const site = node && node.closest ? node.closest(".site") : null;
  return site ? site.getAttribute("data-site") : null;
}

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

const D = 78; // ball diameter in the main view
const CX = 250;
const CY = 262;
const R = D / 2 - 1;
const PALETTE = {
  w: ["#ffffff", "#e9f3ec", "#9fbfad"],
  b: ["#8a8796", "#3a3844", "#0d0c12"],
  r: ["#ffb3a8", "#e0263a", "#6d0010"],
  g: ["#d8ffd0", "#3fae4c", "#124d1d"],
  y: ["#fff6c0", "#f2c531", "#7a5a00"],
  u: ["#cfe3ff", "#3b74d8", "#0f2a63"],
};

/** The highest level the main view must show: the highest ball's, before or after a previewed move, or target's. */
function reach(now, shown, targets) {
  let top = 0;
  for (const s of SITES) {
    if (now[s.index] !== "." || shown[s.index] !== "." || targets.has(s.name)) top = Math.max(top, s.level);
  }
  return top;
}

/** The sign drawn on a site by the kind of change a turn made to it. */
export const MARK_SIGNS = { placed: "+", moved: "\u2192", dropped: "\u2193", removed: "\u00d7" };

/**
 * What a turn changed, by site ("0a1" -> "placed" | "moved" | "dropped" | "removed"), from an
 * observation that carries the marks of the turn in progress (``this_turn``) and of the last
 * ended turn (``last_turn``): the turn in progress once it changed something, else the last one.
 * An observation without them marks nothing.
 * @returns {{seat: number|null, current: boolean, sites: Map<string, string>}}
 */
export function turnMarks(observation) {
  const obs = observation || {};
  const sites = (marks) => {
    const found = new Map();
    for (const kind of Object.keys(MARK_SIGNS)) for (const site of (marks && marks[kind]) || []) found.set(site, kind);
    return found;
  };
  const now = sites(obs.this_turn);
  if (now.size) return { seat: obs.this_turn.seat ?? null, current: true, sites: now };
  const last = sites(obs.last_turn);
  return { seat: last.size ? obs.last_turn.seat ?? null : null, current: false, sites: last };
}

/**
 * Whose turn the marks show and what each sign drawn means, in words ("" when nothing is marked);
 * ``nameOf(seat)`` names a seat.
 */
export function marksText(marks, nameOf) {
  if (!marks.sites.size) return "";
  const kinds = new Set(marks.sites.values());
  const legend = Object.keys(MARK_SIGNS)
    .filter((kind) => kinds.has(kind))
    .map((kind) => t(`marks.${kind}`, { sign: MARK_SIGNS[kind] }))
    .join(t("list.comma"));
  return t(marks.current ? "marks.this_turn" : "marks.last_turn", { name: nameOf(marks.seat), legend });
}

export class PyramidView {
  /**
   * @param {Element} host where the SVG goes
   * @param {{onClick?: (name: string) => void, onHover?: (name: string|null) => void}} handlers
   */
  constructor(host, handlers = {}) {
    this.host = host;
    this.handlers = handlers;
    this.topView = false;
    this.side = 0; // which of the four sides faces the viewer (0: rank 1 in front)
    this.svg = el("svg", { class: "pyramid", role: "img", "aria-label": t("board.main") });
    this.maps = el("svg", { class: "levels", role: "group", "aria-label": t("board.levels"), tabindex: "-1" }); // its sites are the tab stops
    host.appendChild(this.svg);
    host.appendChild(this.maps);
    this.hover = null;
    this.last = null;
    this.drawn = null; // what the SVGs show now (render's inputs), to skip redrawing the same
    // A press and release on the same site is a click on it, even if the board was redrawn between.
    for (const view of [this.svg, this.maps]) listenForTaps(view, siteUnder, (name) => this.handlers.onClick && this.handlers.onClick(name));
    // The keyboard's place on each level (its one tab stop there), kept across redraws.
    this.cursor = LEVEL_OFFSETS.map((offset) => SITES[offset].name);
    if (this.handlers.onClick) {
      this.maps.addEventListener("keydown", (e) => this.onKey(e));
      // A click or a tap picks a site without taking the keyboard's focus there: the arrow keys
      // stay the page's (the analysis board's way back) unless the board was reached by keys.
      this.maps.addEventListener("mousedown", (e) => siteUnder(e.target) && e.preventDefault());
      this.maps.addEventListener("focusin", (e) => {
        const name = siteUnder(e.target);
        if (name) this.moveCursor(name, false);
      });
    }
  }

  /** The control of site ``name`` in the level maps. */
  siteControl(name) {
    return this.maps.querySelector(`.strip-site[data-site="${name}"]`);
  }

  /** Make ``name`` its level's tab stop (and focus it). */
  moveCursor(name, focus = true) {
    const level = SITE_BY_NAME.get(name).level;
    const old = this.siteControl(this.cursor[level]);
    if (old && this.cursor[level] !== name) old.setAttribute("tabindex", "-1");
    this.cursor[level] = name;
    const control = this.siteControl(name);
    if (!control) return;
    control.setAttribute("tabindex", "0");
    if (focus) control.focus();
  }

  /** A key on a focused site: move across or between levels, or act as a tap (Enter, Space). */
  onKey(e) {
    const name = siteUnder(e.target);
    if (!name || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      e.stopPropagation(); // the key is this site's tap, not the page's Enter (play the move)
      this.handlers.onClick(name);
      return;
    }
    const next = siteAfterKey(name, e.key);
    if (next === null) return;
    e.preventDefault(); // the page does not scroll under the arrow keys,
    e.stopPropagation(); // nor take them as its own (the analysis board's moves through its tree)
    this.moveCursor(next);
  }

  setTopView(on) {
    this.topView = on;
    if (this.last) this.render(this.last);
  }

  /** Turn the pyramid a quarter turn, so that another side faces the viewer. */
  turn() {
    this.side = (this.side + 1) % 4;
    if (this.last) this.render(this.last);
  }

  /** Screen position of a site in the main view. */
  project(site, elevation) {
    const n = LEVEL_SIZES[site.level] - 1;
    let col = site.col;
    let row = site.row;
    for (let k = 0; k < this.side; k++) [col, row] = [n - row, col];
    const u = col + site.level / 2;
    const v = row + site.level / 2;
    const z = site.level * Math.SQRT1_2;
    const s = Math.sin(elevation);
    const c = Math.cos(elevation);
    return { x: CX + (u - 1.5) * D, y: CY - (v - 1.5) * D * s - z * D * c, depth: v * c - z * s };
  }

  /**
   * Draw a position.
   * @param {object} o
   * @param {string} o.board board string
   * @param {Set<string>} [o.targets] sites that a click may pick now
   * @param {string[]} [o.selected] sites picked so far, in order
   * @param {string[]} [o.lastMove] sites of the last move
   * @param {Set<string>} [o.locked] locked sites (balls that may not move now)
   * @param {string|null} [o.preview] board after the candidate move (drawn in the main view)
   * @param {string} [o.ghostColor] colour of the ball a placement would put down
   * @param {Set<string>} [o.marked] sites to outline (e.g. a winning line)
   * @param {Set<string>} [o.suggested] sites of a suggested move (a hint)
   * @param {Map<string, string>} [o.turnMarks] what a turn changed, by site (see ``turnMarks``)
   * @param {string|null} [o.mapBoard] board to show in the level maps instead of ``board`` (after a relocation)
   * @param {Object<string, string>} [o.ballNames] what each ball is called, by its board character
   *   ("w" -> the seat that places it), for the names of the sites; a ball not named here is called by its colour
   */
  render(o) {
    this.last = o;
    const drawn = JSON.stringify([o, this.topView, this.side, t("board.main")], (_, v) => (v instanceof Set || v instanceof Map ? [...v] : v));
    if (drawn === this.drawn) return; // nothing changed: the same DOM keeps a tap in progress
    this.drawn = drawn;
    this.svg.setAttribute("aria-label", t("board.main")); // (again: the language may have changed)
    this.maps.setAttribute("aria-label", t("board.levels"));
    const svg = this.svg;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const topView = this.topView;
    const elevation = topView ? Math.PI / 2 : (36 * Math.PI) / 180;
    const now = parseBoard(o.board);
    const shown = o.preview ? parseBoard(o.preview) : now;
    const targets = o.targets || new Set();
    const [x0, y0, width, height] = this.frame(elevation, reach(now, shown, targets));
    svg.setAttribute("viewBox", `${x0} ${y0} ${width} ${height}`);
    this.defs(svg);

    const selected = o.selected || [];
    const lastMove = new Set(o.lastMove || []);
    const locked = o.locked || new Set();
    const marked = o.marked || new Set();
    const suggested = o.suggested || new Set();
    const turned = o.preview ? new Map() : o.turnMarks || new Map();
    const changed = new Set();
    if (o.preview) {
      // Balls that moved: a site whose colour changed, or an eaten site that a ball dropped into.
      SITES.forEach((s) => now[s.index] !== shown[s.index] && shown[s.index] !== "." && changed.add(s.name));
      selected.forEach((name) => shown[SITE_BY_NAME.get(name).index] !== "." && changed.add(name));
    }

    // The tray and its sixteen hollows.
    const main = el("g", { class: "main-view" }, svg);
    const corners = [
      [-0.62, -0.62],
      [3.62, -0.62],
      [3.62, 3.62],
      [-0.62, 3.62],
    ].map(([u, v]) => {
      const s = Math.sin(elevation);
      const c = Math.cos(elevation);
      return `${CX + (u - 1.5) * D},${CY + (topView ? 0 : 0) - (v - 1.5) * D * s + 0.42 * D * c}`;
    });
    if (!topView) {
      const front = corners.slice(0, 2).map((p) => p.split(",").map(Number));
      el(
        "polygon",
        {
          points: `${front[0][0]},${front[0][1]} ${front[1][0]},${front[1][1]} ${front[1][0]},${front[1][1] + 16} ${front[0][0]},${front[0][1] + 16}`,
          class: "tray-edge",
        },
        main,
      );
    }
    el("polygon", { points: corners.join(" "), class: "tray" }, main);
    for (const site of SITES.slice(0, 16)) {
      const p = this.project(site, elevation);
      const sy = Math.sin(elevation);
      el("ellipse", { cx: p.x, cy: p.y + 0.42 * D * Math.cos(elevation), rx: R * 0.72, ry: R * 0.72 * sy, class: "hollow" }, main);
    }

    // Balls, far ones first, so nearer and higher balls cover them as on the real board.
    const order = SITES.map((s) => ({ s, p: this.project(s, elevation) })).sort(
      (a, b) => b.p.depth - a.p.depth || a.s.level - b.s.level,
    );
    for (const { s, p } of order) {
      const ch = shown[s.index];
      const isTarget = targets.has(s.name);
      if (ch === ".") {
        const holds = s.level === 0 || below(s).every((t) => shown[t.index] !== ".");
        if (isTarget && holds) this.ghost(main, s, p, o.ghostColor, "target");
        else if (o.preview && now[s.index] !== ".") this.ghost(main, s, p, null, "vacated");
        if (suggested.has(s.name)) el("circle", { cx: p.x, cy: p.y, r: R - 1, class: "ring-suggested", "data-suggested": s.name }, main);
        if (marked.has(s.name) && holds) el("circle", { cx: p.x, cy: p.y, r: R - 3, class: "ring-marked" }, main); // a ball the last move took off
        continue;
      }
      const g = el("g", { class: "ball-g", "data-site": s.name }, main);
      el("circle", { cx: p.x, cy: p.y, r: R, fill: `url(#ball-${ch in PALETTE ? ch : "w"})`, class: `ball ball-${ch}` }, g);
      if (s.level < 3) el("circle", { cx: p.x, cy: p.y, r: R, class: "shade", opacity: (3 - s.level) * 0.05 }, g);
      if (isTarget) el("circle", { cx: p.x, cy: p.y, r: R - 2, class: "ring-target" }, g);
      if (changed.has(s.name)) el("circle", { cx: p.x, cy: p.y, r: R - 2, class: "ring-dropped" }, g);
      if (marked.has(s.name)) el("circle", { cx: p.x, cy: p.y, r: R - 3, class: "ring-marked" }, g);
      if (suggested.has(s.name)) el("circle", { cx: p.x, cy: p.y, r: R - 1, class: "ring-suggested", "data-suggested": s.name }, g);
      this.badges(g, s, p, { selected, lastMove, locked, preview: !!o.preview });
      this.hit(g, s, isTarget);
    }
    // Last-move marks on sites now empty (balls taken off), drawn on top; and a turn's marks.
    for (const { s, p } of order) {
      if (turned.has(s.name)) this.turnMark(main, turned.get(s.name), s.name, p.x - R * 0.5, p.y + R * 0.42, 10);
      if (shown[s.index] === "." && lastMove.has(s.name) && !o.preview) {
        el("circle", { cx: p.x, cy: p.y, r: 7, class: "last-empty" }, main);
      }
    }

    if (o.preview) {
      const label = el("text", { x: x0 + 12, y: y0 + 20, class: "preview-label" }, svg);
      label.textContent = o.previewLabel || t("board.preview");
      const room = width - 24; // the label fits the view: a long one (or a narrow view) is set smaller
      const long = label.getComputedTextLength();
      if (long > room) label.style.fontSize = `${Math.floor((14 * room) / long)}px`;
    }
    this.levelMaps(o.mapBoard ? parseBoard(o.mapBoard) : now, { targets, selected, lastMove, locked, ghostColor: o.ghostColor, marked, suggested, turned, ballNames: o.ballNames });
  }

  /** The sign of what a turn did to ``site`` (placed +, moved, dropped, removed), in a small disc. */
  turnMark(parent, kind, site, x, y, r) {
    const g = el("g", { class: `turn-mark turn-mark-${kind}`, "data-mark": kind, "data-mark-site": site }, parent);
    el("circle", { cx: x, cy: y, r }, g);
    const sign = el("text", { x, y: y + r * 0.45, "text-anchor": "middle", "font-size": r * 1.5 }, g);
    sign.textContent = MARK_SIGNS[kind];
  }

  /** The main view's box: the tray and the levels up to ``top``, with a small margin (no empty band above). */
  frame(elevation, top = 3) {
    const s = Math.sin(elevation);
    const c = Math.cos(elevation);
    const ys = SITES.filter((site) => site.level <= top).map((site) => this.project(site, elevation).y);
    const trayNear = CY + 2.12 * D * s + 0.42 * D * c + (c > 0.01 ? 16 : 0); // the tray's front edge
    const trayFar = CY - 2.12 * D * s + 0.42 * D * c;
    const margin = 8;
    const upper = Math.min(Math.min(...ys) - R, trayFar) - margin; // badges and locks sit inside their ball
    const lower = Math.max(Math.max(...ys) + R, trayNear) + margin;
    const left = CX - 2.12 * D - margin;
    return [left, upper, CX + 2.12 * D + margin - left, lower - upper];
  }

  defs(svg) {
    const defs = el("defs", {}, svg);
    for (const [name, [hi, mid, lo]] of Object.entries(PALETTE)) {
      const g = el("radialGradient", { id: `ball-${name}`, cx: "38%", cy: "32%", r: "70%", fx: "32%", fy: "26%" }, defs);
      el("stop", { offset: "0%", "stop-color": hi }, g);
      el("stop", { offset: "55%", "stop-color": mid }, g);
      el("stop", { offset: "100%", "stop-color": lo }, g);
    }
    const shadow = el("filter", { id: "soft", x: "-20%", y: "-20%", width: "140%", height: "140%" }, defs);
    el("feDropShadow", { dx: 0, dy: 2, stdDeviation: 2, "flood-opacity": 0.35 }, shadow);
  }

  ghost(parent, s, p, color, kind) {
    const g = el("g", { class: `ghost ghost-${kind}`, "data-site": s.name }, parent);
    el("circle", { cx: p.x, cy: p.y, r: R - 3, class: "ghost-ball" }, g);
    if (color && kind === "target") {
      el("circle", { cx: p.x, cy: p.y, r: R - 3, fill: `url(#ball-${color})`, class: "ghost-fill" }, g);
    }
    if (kind === "target") this.hit(g, s, true);
    return g;
  }

  badges(g, s, p, { selected, lastMove, locked, preview }) {
    const k = selected.indexOf(s.name);
    if (k >= 0 && !preview) {
      el("circle", { cx: p.x, cy: p.y, r: R - 1, class: "ring-selected" }, g);
      const b = el("g", { class: "order-badge" }, g);
      el("circle", { cx: p.x + R * 0.55, cy: p.y - R * 0.55, r: 11 }, b);
      const t = el("text", { x: p.x + R * 0.55, y: p.y - R * 0.55 + 4.5, "text-anchor": "middle" }, b);
      t.textContent = String(k + 1);
    }
    if (lastMove.has(s.name) && !preview) el("circle", { cx: p.x, cy: p.y, r: 6, class: "last-dot" }, g);
    if (locked.has(s.name)) this.lock(g, p.x - R * 0.5, p.y - R * 0.62);
  }

  lock(parent, x, y) {
    const g = el("g", { class: "lock", transform: `translate(${x - 8},${y - 9})` }, parent);
    el("circle", { cx: 8, cy: 10, r: 11, class: "lock-bg" }, g);
    el("path", { d: "M4.5 9 V6.5 a3.5 3.5 0 0 1 7 0 V9", class: "lock-shackle" }, g);
    el("rect", { x: 3, y: 9, width: 10, height: 8, rx: 1.5, class: "lock-body" }, g);
  }

  hit(g, s, isTarget) {
    g.classList.add("site");
    if (isTarget) g.classList.add("clickable");
    g.setAttribute("data-site", s.name);
    const title = el("title", {}, g);
    title.textContent = s.name;
    g.addEventListener("mouseenter", () => this.handlers.onHover && this.handlers.onHover(s.name));
    g.addEventListener("mouseleave", () => this.handlers.onHover && this.handlers.onHover(null));
  }

  /** The four levels lifted apart, two by two, each site a large target: nothing is hidden here. */
  levelMaps(now, { targets, selected, lastMove, locked, ghostColor, marked, suggested = new Set(), turned = new Map(), ballNames = {} }) {
    const svg = this.maps;
    // A redraw replaces the site that has the keyboard's focus: the new one takes it back.
    const focused = svg.contains(document.activeElement) ? siteUnder(document.activeElement) : null;
    const interactive = !!this.handlers.onClick;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const d = 60;
    const gap = 26;
    const caption = 24;
    // Each upper level sits half a ball further in, as on the real board.
    const origins = [
      [8, 8],
      [8 + 4 * d + gap, 8 + d / 2],
      [8 + d, 8 + 4 * d + caption + 8],
      [8 + 4 * d + gap + d, 8 + 4 * d + caption + 8 + d / 2],
    ];
    svg.setAttribute("viewBox", `0 0 ${8 + 7 * d + gap + 8} ${8 + 6 * d + 2 * caption + 16}`);
    const strip = el("g", { class: "level-strip" }, svg);
    for (let level = 0; level < 4; level++) {
      const n = LEVEL_SIZES[level];
      const [bx, by] = origins[level];
      const g = el("g", { class: "strip-level", role: "group", "aria-label": t("board.level", { level }) }, strip);
      el("rect", { x: bx - 4, y: by - 4, width: n * d + 8, height: n * d + 8, rx: 10, class: "strip-bg" }, g);
      const label = el("text", { x: bx + (n * d) / 2, y: by + n * d + 20, class: "strip-caption", "text-anchor": "middle", "aria-hidden": "true" }, g);
      label.textContent = t("board.level", { level });
      for (let row = 0; row < n; row++) {
        for (let col = 0; col < n; col++) {
          const s = SITES[LEVEL_OFFSETS[level] + row * n + col];
          const cx = bx + col * d + d / 2;
          const cy = by + (n - 1 - row) * d + d / 2;
          const ch = now[s.index];
          const isTarget = targets.has(s.name);
          const cell = el("g", { class: "strip-site", "data-site": s.name }, g);
          el("rect", { x: cx - d / 2, y: cy - d / 2, width: d, height: d, class: "strip-hit" }, cell);
          if (ch === ".") {
            el("circle", { cx, cy, r: d / 2 - 3, class: isTarget ? "strip-empty strip-target" : "strip-empty" }, cell);
            if (isTarget && ghostColor) el("circle", { cx, cy, r: d / 2 - 6, fill: `url(#ball-${ghostColor})`, opacity: 0.55 }, cell);
          } else {
            el("circle", { cx, cy, r: d / 2 - 2, fill: `url(#ball-${ch in PALETTE ? ch : "w"})`, class: "strip-ball" }, cell);
            if (isTarget) el("circle", { cx, cy, r: d / 2 - 3, class: "ring-target thin" }, cell);
          }
          if (marked.has(s.name)) el("circle", { cx, cy, r: d / 2 - 3, class: "ring-marked thin" }, cell);
          if (suggested.has(s.name)) {
            cell.classList.add("suggested");
            el("circle", { cx, cy, r: d / 2 - 1, class: "ring-suggested thin" }, cell);
          }
          const k = selected.indexOf(s.name);
          if (k >= 0) {
            el("circle", { cx, cy, r: d / 2 - 1, class: "ring-selected thin" }, cell);
            const t = el("text", { x: cx, y: cy + 7, class: "strip-order", "text-anchor": "middle" }, cell);
            t.textContent = String(k + 1);
          }
          if (lastMove.has(s.name)) el("circle", { cx, cy, r: 6, class: "last-dot" }, cell);
          if (turned.has(s.name)) this.turnMark(cell, turned.get(s.name), s.name, cx - d * 0.3, cy + d * 0.28, 10);
          if (locked.has(s.name)) {
            el("circle", { cx, cy, r: d / 2 - 6, class: "strip-lock" }, cell);
            this.lock(cell, cx - d * 0.22, cy - d * 0.26);
          }
          this.hit(cell, s, isTarget);
          const pinned = ch !== "." && above(s).filter((a) => now[a.index] !== ".").length >= 2;
          const states = [
            pinned ? t("site.pinned") : null,
            locked.has(s.name) ? t("site.locked") : null,
            k >= 0 ? t("site.selected", { order: k + 1 }) : null,
            isTarget ? t("site.playable") : null,
            suggested.has(s.name) ? t("site.suggested") : null,
            lastMove.has(s.name) ? t("site.last_move") : null,
            turned.has(s.name) ? t(`site.turn_${turned.get(s.name)}`) : null,
          ].filter(Boolean);
          cell.setAttribute("role", interactive ? "button" : "img");
          cell.setAttribute("aria-label", siteLabel(s, ch, ballNames, states));
          if (interactive) cell.setAttribute("tabindex", this.cursor[level] === s.name ? "0" : "-1");
        }
      }
    }
    if (focused) {
      const control = this.siteControl(focused);
      if (control) control.focus({ preventScroll: true });
    }
  }
}

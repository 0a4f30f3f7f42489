// Small helpers shared by the pages.

import { PyramidView } from "./board.js";
import { t, tOr, has, formatNumber, currentLanguage, errorText, optionLabel, optionValue, optionHelp, joinNames, seatName, colorWord, sentence } from "./messages.js";

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export async function api(path, options = {}) {
  const response = await fetch(path, {
    headers: { "Content-Type": "application/json", "Accept-Language": currentLanguage() }, // the server words its details in the page's language
    ...options,
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.error ? errorText(data.error.code, data.error.message) : `${response.status} ${response.statusText}`;
    const error = new Error(message);
    error.code = data && data.error ? data.error.code : null;
    error.detail = data && data.error ? data.error.message : null; // the server's own words (in the page's language)
    throw error;
  }
  return data;
}

/** The colour of the balls each seat plays ('w', 'b', 'r' or null), from the game's own facts. */
export function seatColors(game, count) {
  const seats = (game && game.seats) || [];
  return Array.from({ length: count }, (_, i) => (seats[i] && seats[i].color) || null);
}

/** Fill ``host`` (a <details>) with the game's "How to play" from the server, in the page's
 * language: its text, with every pictured position drawn as the game page draws the pyramid
 * (before and after a move). */
export async function showHowTo(host, gameName) {
  const lang = currentLanguage();
  if (!host || (host.dataset.game === gameName && host.dataset.lang === lang)) return;
  host.dataset.game = gameName;
  host.dataset.lang = lang;
  let data;
  try {
    data = await api(`/api/howto/${encodeURIComponent(gameName)}?lang=${lang}`);
  } catch {
    data = null;
  }
  if (host.dataset.lang !== lang) return; // switched again while this one was on its way
  const body = clear(host.querySelector(".howto-body"));
  if (!data || !data.blocks || !data.blocks.length) {
    host.hidden = true;
    return;
  }
  for (const block of data.blocks) {
    if (block.kind === "heading") body.appendChild(h("h3", {}, block.text));
    else if (block.kind === "paragraph") body.appendChild(h("p", {}, block.text));
    else if (block.kind === "pre") body.appendChild(h("pre", {}, block.text));
    else if (block.kind === "item") body.appendChild(h("p", { class: "howto-item" }, block.text)); // keeps its "-" or "1."
    else if (block.kind === "position") body.appendChild(positionFigure(block));
  }
  host.hidden = false;
  host.dataset.shown = lang; // until now the body was still in the language it was fetched in before
}

function positionFigure(block) {
  const figure = h("figure", { class: "howto-figure" });
  const draw = (board, locked, marked) => {
    const host = h("div", { class: "board howto-board" });
    figure.appendChild(host);
    new PyramidView(host).render({ board, locked: new Set(locked || []), marked: new Set(marked || []) });
  };
  const moved = block.move ? block.move.match(/[0-3][a-d][1-4]/g) || [] : [];
  draw(block.board, block.board_locked, moved);
  if (block.after) {
    figure.appendChild(h("figcaption", { class: "howto-move" }, `↓ ${block.move}`));
    draw(block.after, block.after_locked, []);
  }
  return figure;
}

/** A finished game's result as people read it, worded from its winners (``players``: {seat, name}). */
export function resultText(result, players) {
  const winners = (result && result.winners) || [];
  if (!winners.length) return t("result.draw");
  const names = winners.map((w) => seatName((players.find((p) => p.seat === w) || {}).name));
  return t("result.winners", { names: joinNames(names) });
}

/** Why a finished game ended, worded from the game's reason (``{code, ...params}``): ``seat`` is
 * named as ``{name}``, ``sides`` (side numbers) as ``{sides}``, ``color`` as its word, a number
 * per side (``totals``) as "12 : 11"; other parameters (a size, a level) as they are. Empty when the page has no words for the code. */
export function reasonText(reason, players, game) {
  if (!reason || !has(`reason.${reason.code}`)) return "";
  const params = { ...reason };
  if (reason.seat !== undefined) params.name = seatName((players.find((p) => p.seat === reason.seat) || {}).name);
  if (reason.color) params.color = colorWord(reason.color);
  if (Array.isArray(reason.sides)) params.sides = joinNames(reason.sides.map((side) => seatName(((game && game.sides) || [])[side])));
  for (const [key, value] of Object.entries(reason)) if (Array.isArray(value) && key !== "sides") params[key] = value.join(" : "); // a number per side
  return t(`reason.${reason.code}`, params);
}

/** The server's own words beside the text the page worded from the refusal's code: which option,
 * which seat, which rule, in the page's language (``api`` asks for it). */
export function serverDetail(text, attrs = {}) {
  return h("div", { class: "detail muted", ...attrs }, sentence(text));
}

/** What the server refused (an Error from ``api``) in one line: the page's words for its code, then
 * the server's own detail (which option, which seat, which rule), each a sentence begun with a
 * capital, both in the page's language; or,
 * for a code the page does not word, the server's message alone. */
export function refusalText(error) {
  return error.detail && has(`error.${error.code}`) ? `${error.message} ${sentence(error.detail)}` : error.message;
}

/** The URL of a websocket at ``path`` on this server, in the page's language (the server words
 * the details of its refusals in it). */
export function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}${path}?lang=${currentLanguage()}`;
}

export function ballSwatch(color, size = 16) {
  const span = h("span", { class: `swatch swatch-${color || "none"}` });
  span.style.width = `${size}px`;
  span.style.height = `${size}px`;
  return span;
}

export function describeOptions(options) {
  return Object.entries(options || {})
    .map(([k, v]) => `${optionLabel(k)} ${optionValue(k, v)}`)
    .join(" · ");
}

export function copyButton(text, label = t("lobby.copy")) {
  const button = h("button", { class: "small", type: "button" }, label);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = t("lobby.copied");
    } catch {
      const input = h("input", { value: text });
      document.body.appendChild(input);
      input.select();
      document.execCommand("copy");
      input.remove();
      button.textContent = t("lobby.copied");
    }
    setTimeout(() => (button.textContent = label), 1500);
  });
  return button;
}

export function absolute(path) {
  return new URL(path, location.href).href;
}

const INVITES = "spheria.invites";

export function savedInvites() {
  try {
    return JSON.parse(localStorage.getItem(INVITES) || "{}");
  } catch {
    return {};
  }
}

export function saveInvites(gameId, seats, owner) {
  const all = savedInvites();
  all[gameId] = seats;
  if (owner) localStorage.setItem(`spheria.owner.${gameId}`, owner);
  localStorage.setItem(INVITES, JSON.stringify(all));
}

/** The score table of a game's sides (a team is one side): its name, colour and face scores. */
export function scoreTable(game, scores) {
  const sides = (game && game.sides) || [];
  const sideColors = sides.map((_, i) => (((game && game.seats) || []).find((s) => s.side === i) || {}).color || null);
  const faces = ["S", "E", "N", "W"].map((f) => h("th", { title: t("scores.face_title") }, t(`scores.face.${f}`)));
  return h(
    "table",
    { class: "scores" },
    h("thead", {}, h("tr", {}, h("th", {}, ""), ...faces, h("th", {}, t("scores.sum")), h("th", { title: t("scores.inner_title") }, t("scores.inner")))),
    h(
      "tbody",
      {},
      scores.map((s, i) =>
        h(
          "tr",
          {},
          h("td", {}, ballSwatch(sideColors[i], 12), " ", sides[i] ? seatName(sides[i]) : t("scores.side", { n: i + 1 })),
          ...(s.faces || []).map((f) => h("td", {}, String(f))),
          h("td", { class: "total" }, String(s.total)),
          h("td", {}, String(s.inner)),
        ),
      ),
    ),
  );
}

/** The box that scrolls a Moves list: its end is where it rests (CSS column-reverse), so the
 * latest move stays in sight whatever resets the scrolling (a resize, a redraw, a screenshot). */
function scroller(list) {
  return list.closest(".history-scroll") || list;
}

/** Scroll a Moves list to its end. */
export function keepEndInSight(list) {
  const box = scroller(list);
  box.scrollTop = box.scrollHeight; // the end, in either scrolling direction
}

/** Scroll a Moves list (only the list, never the page) so that ``item`` is in the middle of it. */
export function keepInSight(list, item) {
  const box = scroller(list);
  const itemBox = item.getBoundingClientRect();
  const frame = box.getBoundingClientRect();
  box.scrollTop += itemBox.top - frame.top - (frame.height - itemBox.height) / 2;
}

/** The inputs of ``game``'s options, in ``rows`` (emptied first): each starts at ``given[name]``
 * when given, else at the option's default; ``onChange`` runs when one changes. The lobby and
 * the position editor share them; :func:`optionValues` reads them back. */
export function renderOptionInputs(rows, game, given, onChange) {
  clear(rows);
  for (const option of game.options) {
    const id = `opt-${option.name}`;
    const value = option.name in given ? given[option.name] : option.default;
    let input;
    if (option.choices.length) {
      input = h("select", { id, name: option.name, "data-option": option.name });
      if (option.default === null) input.appendChild(h("option", { value: "" }, t("lobby.default")));
      for (const choice of option.choices) input.appendChild(h("option", { value: choice }, optionValue(option.name, choice)));
      if (value !== null && value !== undefined) input.value = String(value);
    } else if (option.kind === "bool") {
      input = h("input", { type: "checkbox", id, "data-option": option.name });
      input.checked = value === true || value === "true";
    } else if (option.kind === "int") {
      input = h("input", { type: "number", id, "data-option": option.name, min: option.minimum ?? "", value: value ?? "" });
    } else {
      input = h("input", { type: "text", id, "data-option": option.name, value: value ?? "" });
    }
    input.addEventListener("change", onChange);
    const help = h("div", { class: "option-help muted", id: `${id}-help` }, optionHelp(option.help)); // in sight, on a phone too
    input.setAttribute("aria-describedby", help.id);
    rows.appendChild(h("div", { class: "option" }, h("div", { class: "form-row" }, h("label", { for: id }, sentence(optionLabel(option.name))), input), help));
  }
}

/** Name what "default" means now in the option inputs under ``rows`` (the game works it out from
 * its other options, as "default (any)"); ``resolved``: the
 * options as the server resolved them. */
export function showResolvedDefaults(rows, resolved) {
  for (const select of rows.querySelectorAll("select[data-option]")) {
    const empty = select.querySelector('option[value=""]');
    const value = resolved[select.dataset.option];
    if (empty) empty.textContent = value === undefined || value === null ? t("lobby.default") : t("lobby.default_is", { value: optionValue(select.dataset.option, value) });
  }
}

/** The values of the option inputs made by :func:`renderOptionInputs` (empty ones left out). */
export function optionValues(root = document) {
  const out = {};
  for (const input of root.querySelectorAll("[data-option]")) {
    const name = input.dataset.option;
    if (input.type === "checkbox") out[name] = input.checked;
    else if (input.value !== "") out[name] = input.type === "number" ? Number(input.value) : input.value;
  }
  return out;
}

/** What a finished game did to the ratings (``result.rated``, ``result.unrated``, ``result.ratings``:
 * per seat ``{before, after, provisional}`` or null): each seat's change, before → after and the
 * difference, a "?" on a provisional rating; or why the game moved no rating. Empty for a game
 * the server says nothing about. */
export function ratingLines(result, players) {
  if (result.rated) {
    const rows = (result.ratings || []).map((change, seat) => {
      if (!change) return null;
      const name = seatName((players.find((p) => p.seat === seat) || players[seat] || {}).name);
      const before = Math.round(change.before);
      const after = Math.round(change.after);
      const diff = after - before;
      const mark = change.provisional ? "?" : ""; // a provisional rating's mark, as lichess writes it
      return h(
        "li",
        { class: "rating-change", "data-seat": seat, title: change.provisional ? t("rating.provisional") : null },
        h("span", { class: "rating-name" }, name),
        " ",
        h("span", { class: "rating-values" }, `${formatNumber(before)} → ${formatNumber(after)}${mark}`),
        " ",
        h("span", { class: `rating-diff ${diff > 0 ? "up" : diff < 0 ? "down" : "same"}` }, diff > 0 ? `+${diff}` : diff < 0 ? `−${-diff}` : "±0"),
      );
    });
    return h("div", { class: "result-ratings" }, h("div", { class: "muted" }, t("rating.rated")), h("ul", { class: "rating-list" }, rows));
  }
  if (!result.unrated) return "";
  // An aborted game says so, whether or not it was offered as rated.
  const why = result.reason && result.reason.code === "aborted" ? "aborted" : result.unrated;
  return h("div", { class: "result-ratings unrated", "data-unrated": why }, tOr(`rating.unrated.${why}`, t("rating.unrated.other")));
}

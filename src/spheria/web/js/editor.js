// The position editor: set up any position by tapping sites; the server checks it by the game's
// rules (this page knows none) and says why a position is impossible. From here a position is
// analysed (/analysis) or played against agents (POST /api/games with a start position). The
// page's link is always the position shown (?game=&options=&spn=), so nothing is lost on Back.

import { PyramidView, SITES, LEVEL_SIZES, parseBoard, below } from "./board.js";
import { t, has, tOr, translatePage, onLanguageChange, gameTitle, seatName, agentName, errorText, colorWord, sentence, fieldName, phaseWords, turnText } from "./messages.js";
import { h, clear, api, saveInvites, serverDetail, refusalText, renderOptionInputs, optionValues, showResolvedDefaults, ballSwatch } from "./ui.js";

translatePage(); // static labels (and the title) from the catalogue

const $ = (id) => document.getElementById(id);
const LEVELS = 4;
//: The symmetries of the pyramid the buttons apply (indices of the engine's SYMMETRIES).
const ROTATE = 1;
const MIRROR = 4;
const LEVEL_NAMES = ["level:1", "level:2", "level:3", "level:4", "level:5"];
//: An SPN field of ball counts by colour, in the notation's order of colours (white, black, red).
const COUNTS = /^\d+,\d+,\d+$/;
const COUNT_COLORS = ["w", "b", "r"];

let catalog = null;
let tool = "w";
let sites = parseBoard(""); // 30 characters: 'w', 'b', 'r' or '.'
let fields = []; // the SPN fields after the board
let answer = null; // the server's last answer for this position
let asked = 0; // number of the latest check sent (older answers are dropped)
let checkTimer = null;
const view = new PyramidView($("board"), { onClick: tap, onHover: () => {} });

// A switch of language re-words what the page drew; the position, the options and the seat stay.
onLanguageChange(() => {
  if (!catalog) return;
  for (const option of $("game").options) option.textContent = gameTitle(option.value, option.textContent);
  renderOptions(options());
  if (answer) showResolvedDefaults($("option-rows"), answer.options);
  if (answer && !answer.ok && lastAsked) {
    ask(lastAsked.kind === "check" ? lastAsked : { kind: "check", data: { spn: answer.spn ?? spn() } }, false); // the rules' reason, asked again in the new language
  }
  if (answer) {
    renderFields(answer);
    renderVerdict(answer);
    $("opponent").dataset.key = ""; // re-worded below
    renderPlay(answer);
  } else if (refusal !== null) showRefusal(refusal);
});

async function start() {
  catalog = await api("/api/catalog");
  const select = $("game");
  for (const game of catalog.games) select.appendChild(h("option", { value: game.name }, gameTitle(game.name, game.title)));
  const query = new URLSearchParams(location.search);
  const wanted = query.get("game");
  select.value = wanted && catalog.games.some((g) => g.name === wanted) ? wanted : catalog.default;
  renderOptions(parseOptionText(query.get("options") || ""));
  select.addEventListener("change", () => {
    renderOptions({});
    load(null);
  });
  for (const button of document.querySelectorAll(".tool")) button.addEventListener("click", () => chooseTool(button.dataset.tool));
  chooseTool("w");
  $("btn-clear").addEventListener("click", () => {
    sites = parseBoard("");
    changed();
  });
  $("btn-start").addEventListener("click", () => load(null));
  $("btn-full").addEventListener("click", () => randomPosition(true));
  $("btn-random").addEventListener("click", () => randomPosition(false));
  $("btn-rotate").addEventListener("click", () => transform(ROTATE));
  $("btn-mirror").addEventListener("click", () => transform(MIRROR));
  $("btn-turn").addEventListener("click", () => view.turn());
  $("top-toggle").addEventListener("change", (e) => view.setTopView(e.target.checked));
  $("btn-import").addEventListener("click", () => load($("spn").value));
  $("btn-copy").addEventListener("click", copySpn);
  $("btn-play").addEventListener("click", play);
  await load(query.get("spn"));
}

/** "k=v,k=v" (the /analysis and /editor links' options) as an object. */
function parseOptionText(text) {
  const out = {};
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    if (at > 0) out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

function currentGame() {
  return catalog.games.find((g) => g.name === $("game").value);
}

function renderOptions(given) {
  renderOptionInputs($("option-rows"), currentGame(), given, () => load(null));
}

function options() {
  return optionValues();
}

function chooseTool(name) {
  tool = name;
  for (const button of document.querySelectorAll(".tool")) {
    const on = button.dataset.tool === name;
    button.classList.toggle("chosen", on);
    button.setAttribute("aria-checked", on ? "true" : "false");
  }
}

// -- the position ------------------------------------------------------------------------

function boardText() {
  const parts = [];
  let at = 0;
  for (let level = 0; level < LEVELS; level++) {
    const size = LEVEL_SIZES[level] ** 2;
    parts.push(sites.slice(at, at + size).join(""));
    at += size;
  }
  return parts.join("/");
}

function spn() {
  return [boardText(), ...fields].join(" ");
}

/** The options as the links write them: k=v,k=v (the server's answer's, else the form's). */
function optionText(values) {
  return Object.entries(values)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join(",");
}

/** This page's link is the position shown (game, options, SPN): Back, a reload or a shared link
 * bring it back, possible or not. */
function remember() {
  const values = answer && answer.game === $("game").value ? answer.options : options();
  const link = `/editor?game=${encodeURIComponent($("game").value)}&options=${optionText(values)}&spn=${encodeURIComponent(spn())}`;
  if (`${location.pathname}${location.search}` !== link) history.replaceState(null, "", link);
}

/** A tap puts the chosen colour on a site, or takes the ball off (tapping a ball of that colour). */
function tap(name) {
  const site = SITES.find((s) => s.name === name);
  const now = sites[site.index];
  sites[site.index] = tool === "." || now === tool ? "." : tool;
  changed();
}

function changed() {
  $("spn").value = spn();
  remember();
  draw();
  clearTimeout(checkTimer);
  checkTimer = setTimeout(check, 120);
}

/** Sites a tap may change: every ball, and every empty site that can hold one (all four below it full). */
function tappable() {
  return new Set(SITES.filter((s) => sites[s.index] !== "." || below(s).every((b) => sites[b.index] !== ".")).map((s) => s.name));
}

function draw() {
  const locked = answer && answer.ok ? new Set(answer.locked) : new Set();
  view.render({ board: boardText(), targets: tappable(), locked });
  document.body.dataset.spn = spn();
}

function request(body) {
  return api(`/api/position/${body.kind}`, { method: "POST", body: JSON.stringify({ game: $("game").value, options: options(), ...body.data }) });
}

/** Ask the server about the position (or, with ``text`` null, the game's start); take its answer in. */
async function load(text) {
  await ask({ kind: "check", data: text === null ? {} : { spn: text } }, true);
}

async function check() {
  await ask({ kind: "check", data: { spn: spn() } }, false);
}

async function randomPosition(full) {
  await ask({ kind: "random", data: { full, seed: Math.floor(Math.random() * 2 ** 31) } }, true);
}

async function transform(symmetry) {
  await ask({ kind: "transform", data: { spn: spn(), symmetry } }, true);
}

let lastAsked = null; // the latest question (asked again after a switch of language)

async function ask(body, replace) {
  const number = ++asked;
  lastAsked = body;
  document.body.dataset.checking = "1";
  let result;
  try {
    result = await request(body);
  } catch (error) {
    if (number === asked) showRefusal(error);
    return;
  } finally {
    if (number === asked) delete document.body.dataset.checking;
  }
  if (number !== asked) return;
  answer = result;
  if (replace || result.ok) take(result.ok ? result.spn : result.spn || body.data.spn || spn(), result);
  renderFields(result);
  renderVerdict(result);
  renderPlay(result);
  showResolvedDefaults($("option-rows"), result.options);
  remember();
  draw();
  document.body.dataset.valid = result.ok ? "1" : "0";
  // What this answer is about: the page has settled when it is the position shown (tests wait for it).
  document.body.dataset.checked = result.spn ?? body.data.spn ?? spn();
}

/** Make ``text`` the position shown (the server's normalized SPN, or one it refused but could read). */
function take(text, result) {
  const parts = (text || "").trim().split(/\s+/);
  const board = parts[0] || "";
  const levels = board.split("/");
  if (levels.length !== LEVELS || levels.some((row, level) => row.length !== LEVEL_SIZES[level] ** 2)) return; // the typed text stays for the person to fix
  sites = parseBoard(board);
  const start = result.start.split(" ").slice(1); // a field the text lacks is taken from the game's start
  const count = Math.max(start.length, parts.length - 1);
  fields = Array.from({ length: count }, (_, i) => parts[i + 1] ?? start[i] ?? "-");
  $("spn").value = spn();
}

/** Copy the SPN shown; where the clipboard is not open to the page, select it for the person to copy. */
async function copySpn() {
  const field = $("spn");
  field.value = spn();
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
  } catch {
    document.execCommand("copy");
  }
  $("btn-copy").textContent = t("lobby.copied");
  setTimeout(() => ($("btn-copy").textContent = t("editor.copy")), 1500);
}

// -- the panels --------------------------------------------------------------------------

/** The name of a field after the board: the game's (sent by the server), else its number in the SPN. */
function fieldLabel(game, index) {
  return fieldName(game, index) ?? t("editor.field", { number: index + 2 });
}

/** A value of an SPN field as people read it (the value itself stays in the SPN): a seat's number
 * names the seat, a seat with a colour ("1w") says who places which ball, a word is glossed in the
 * game's own words when it has some for it (a phase, sent by the server), else in the page's. */
function fieldValue(result, index, value) {
  const seat = (text) => result.players[Number(text) - 1];
  const placer = /^(\d+)([wbr])$/.exec(value);
  if (/^\d+$/.test(value) && seat(value)) return seatName(seat(value));
  if (placer && seat(placer[1])) return t("editor.value.placer", { name: seatName(seat(placer[1])), color: colorWord(placer[2]) });
  if (value === "-") return t("editor.value.none");
  return phaseWords(result.game, value) ?? tOr(`editor.value.${value}`, value);
}

/** A field of counts by colour ("8,8,8") as one number input per colour, each named by its ball. */
function countInputs(id, value, onChange) {
  const counts = value.split(",");
  const inputs = COUNT_COLORS.map((color, k) =>
    h("input", { type: "number", id: `${id}-${color}`, class: "count-input", min: 0, max: 99, step: 1, inputmode: "numeric", value: counts[k], "aria-label": colorWord(color) }),
  );
  const read = () => inputs.map((input) => String(Math.max(0, Math.floor(Number(input.value) || 0)))).join(",");
  for (const input of inputs) input.addEventListener("change", () => onChange(read()));
  return h(
    "div",
    { class: "counts", id, role: "group", "data-field": id.slice("field-".length) },
    COUNT_COLORS.map((color, k) => h("label", { class: "count", title: colorWord(color) }, ballSwatch(color, 18), h("span", { class: "count-word" }, colorWord(color)), inputs[k])),
  );
}

function renderFields(result) {
  const host = clear($("fields"));
  fields.forEach((value, i) => {
    const id = `field-${i + 1}`;
    const choices = result.choices[i];
    const set = (text) => {
      fields[i] = text.trim() || "-";
      changed();
    };
    let input;
    if (choices) {
      input = h("select", { id, class: "spn-field", "data-field": i + 1 });
      const all = choices.includes(value) ? choices : [value, ...choices];
      for (const choice of all) input.appendChild(h("option", { value: choice }, fieldValue(result, i, choice)));
      input.value = value;
      input.addEventListener("change", () => set(input.value));
    } else if (COUNTS.test(value)) {
      input = countInputs(id, value, set);
    } else {
      input = h("input", { type: "text", id, class: "spn-field", "data-field": i + 1, value, spellcheck: "false", autocomplete: "off" });
      input.addEventListener("change", () => set(input.value));
    }
    const label = input.tagName === "DIV" ? h("span", { class: "field-label", id: `${id}-label` }, fieldLabel(result.game, i)) : h("label", { for: id }, fieldLabel(result.game, i));
    if (input.tagName === "DIV") input.setAttribute("aria-labelledby", `${id}-label`);
    host.appendChild(h("div", { class: `form-row${input.tagName === "DIV" ? " counts-row" : ""}` }, label, input));
  });
}

function renderVerdict(result) {
  const box = clear($("verdict"));
  box.className = `verdict ${result.ok ? "valid" : "invalid"}`;
  if (!result.ok) {
    box.appendChild(h("div", { class: "verdict-title" }, t("editor.impossible")));
    box.appendChild(h("div", { class: "reason", "data-code": result.code }, t(`editor.reason.${result.code}`)));
    box.appendChild(h("div", { class: "detail", id: "reason-detail" }, sentence(result.reason))); // the rules name the fault exactly, in the page's language
    return;
  }
  box.appendChild(h("div", { class: "verdict-title" }, t("editor.valid")));
  if (result.terminal) box.appendChild(h("div", {}, t("editor.over")));
  else if (result.simultaneous) box.appendChild(h("div", {}, t("editor.simultaneous")));
  else box.appendChild(h("div", {}, t("editor.to_move", { name: seatName(result.to_move_name), count: result.legal_moves })));
  if (result.code.code === "turn") {
    const name = seatName(result.to_move_name);
    const phase = `status.${result.code.phase}`;
    const turn = turnText(result.game, result.code.phase, { name }) ?? (has(phase) ? t(phase, { name }) : undefined); // the game's own words first
    if (turn !== undefined) box.appendChild(h("div", { class: "muted" }, turn));
  }
}

let refusal = null; // what the server refused (shown again after a switch of language)

/** What the server refused (an Error from ``api``), worded by its code in the page's language. */
function showRefusal(error) {
  refusal = error;
  const message = error.code ? errorText(error.code, error.detail) : sentence(error.message);
  const box = clear($("verdict"));
  box.className = "verdict invalid";
  box.appendChild(h("div", { class: "verdict-title" }, t("editor.refused")));
  box.appendChild(h("div", { class: "reason" }, message));
  if (error.detail && has(`error.${error.code}`)) box.appendChild(serverDetail(sentence(error.detail))); // else it is the message
}

/** The /analysis link: the game, its options as k=v,k=v and the SPN (this format is fixed). */
function analysisLink(result) {
  return `/analysis?game=${encodeURIComponent(result.game)}&options=${optionText(result.options)}&spn=${encodeURIComponent(result.spn)}`;
}

function renderPlay(result) {
  const link = $("analyse");
  const usable = result.ok;
  link.classList.toggle("disabled", !usable);
  link.setAttribute("aria-disabled", usable ? "false" : "true");
  link.href = usable ? analysisLink(result) : "#";
  const seat = $("my-seat");
  const previous = seat.value;
  clear(seat);
  result.players.forEach((name, i) => seat.appendChild(h("option", { value: String(i) }, seatName(name))));
  if (previous && Number(previous) < result.players.length) seat.value = previous;
  const opponent = $("opponent");
  const key = JSON.stringify([result.game, result.options]);
  if (opponent.dataset.key !== key) {
    // The levels, then only the agents that fit the game with these options.
    const keep = opponent.value;
    clear(opponent);
    opponent.dataset.key = key;
    LEVEL_NAMES.forEach((level, i) => opponent.appendChild(h("option", { value: level }, t("editor.level", { number: i + 1 }))));
    for (const agent of result.agents) opponent.appendChild(h("option", { value: agent }, agentName(agent)));
    opponent.value = keep && [...opponent.options].some((o) => o.value === keep) ? keep : "level:3";
  }
  $("btn-play").disabled = !usable || result.terminal;
}

/** Play the position shown: an edit still on its way to the server (a field just left, a tap a
 * moment ago) is checked first, so the game starts where the board and the fields say. */
async function play() {
  $("play-error").textContent = "";
  clearTimeout(checkTimer);
  if (!answer || answer.spn !== spn()) await check();
  if (!answer || !answer.ok || answer.spn !== spn()) return;
  const mine = Number($("my-seat").value);
  const agent = $("opponent").value;
  const seats = answer.players.map((_, i) => (i === mine ? { kind: "human" } : { kind: "agent", agent }));
  $("btn-play").disabled = true;
  try {
    const created = await api("/api/games", { method: "POST", body: JSON.stringify({ game: answer.game, options: answer.options, seats, start: answer.spn }) });
    const seat = created.seats.find((s) => s.kind === "human");
    saveInvites(created.id, [seat], created.owner);
    location.href = seat.invite;
  } catch (error) {
    $("play-error").textContent = refusalText(error);
    $("btn-play").disabled = false;
  }
}

start().catch((error) => showRefusal(error));

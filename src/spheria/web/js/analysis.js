// The analysis board: any position of any game (?game=&options=k=v,k=v&spn=), moves made by
// clicking exactly as in play, a variation tree kept in the link (&tree=&at=), and the engine's
// answer computed on the server (/ws/analysis) with live progress. The page knows no rules: each
// position, its click tree and its legal moves come from /api/analysis/position.

import { PyramidView } from "./board.js";
import { listenForTaps, wordUnder, keyboardClick } from "./taps.js";
import { Picker, isSite, moveSites } from "./moves.js";
import { t, tOr, has, translatePage, onLanguageChange, gameTitle, seatName, errorText, colorWord, methodWords, noteWords, sentence } from "./messages.js";
import { h, clear, api, describeOptions, seatColors, ballSwatch, copyButton, resultText, serverDetail, socketUrl } from "./ui.js";
import { Node, nodes, leaves, promote, remove, mainLine, encode, decode } from "./variations.js";
import { evaluationChart } from "./chart.js";
import { ClockView, recordedClock } from "./clock.js";

translatePage();

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const view = new PyramidView($("board"), { onClick: onSiteClick });
listenForTaps($("words"), wordUnder, onWord);

const setup = { game: params.get("game") || "", options: params.get("options") || "", spn: params.get("spn") || "" };
let facts = null; // the game's facts from the server
let root = new Node();
let current = root;
let picker = null;
const answers = new Map(); // path text -> the server's answer for that node
let engineOn = params.get("engine") !== "off";
let engineSeat = Number(params.get("seat") || 0);
let socket = null;
let requestId = 0;
let running = null; // {id, key}
const results = new Map(); // node path text -> the engine's analysis
let recorded = null; // a finished game's record: each move's clocks, shown on its own line
const clockView = new ClockView($("turn").insertAdjacentElement("beforebegin", h("div", { id: "clocks", class: "clocks analysis-clocks", hidden: true })));
let record = params.get("record");
let report = null; // a finished game's analysis
let reportId = null;
let pointed = null; // the engine's move the pointer is on

const pathKey = (node) => node.path().join(",");

function positionUrl(moves, extra = {}) {
  const query = new URLSearchParams({ game: facts ? facts.game : setup.game, options: setup.options, spn: setup.spn, moves: moves.join(","), ...extra });
  return `/api/analysis/position?${query}`;
}

async function fetchNode(node) {
  const key = pathKey(node);
  if (!answers.has(key)) answers.set(key, await api(positionUrl(node.path())));
  return answers.get(key);
}

let problem = null; // why the link does not work (shown again after a switch of language)

function showProblem(error) {
  problem = error;
  const text = error.code ? errorText(error.code, error.detail) : error.message; // worded again after a switch
  document.body.dataset.problem = text;
  $("analysis-main").hidden = true;
  const box = $("problem");
  box.hidden = false;
  clear(box).append(h("h1", {}, t("analysis.bad_link")), h("div", { id: "problem-text" }, text, error.detail && has(`error.${error.code}`) ? serverDetail(error.detail) : null), h("a", { href: "/analysis", class: "button" }, t("analysis.fresh")), " ", h("a", { href: "/", class: "button primary" }, t("links.lobby")));
}

async function start() {
  if (record) {
    const game = await api(`/api/analysis/record/${encodeURIComponent(record)}`);
    recorded = await api(`/api/games/${encodeURIComponent(record)}/record`);
    setup.game = game.game;
    setup.options = Object.entries(game.options).map(([k, v]) => `${k}=${v}`).join(",");
    setup.spn = game.spn;
    if (!params.has("tree")) {
      let node = root;
      for (const move of game.moves) node = node.child(move);
    }
  }
  if (!setup.game) setup.game = (await api("/api/catalog")).default; // the game Spheria offers first
  if (params.has("tree")) root = decode(params.get("tree"));
  const first = await api(positionUrl([]));
  facts = first;
  setup.spn = first.spn; // the start written out (the game's own start when none was given)
  setup.options = Object.entries(first.options).map(([k, v]) => `${k}=${v}`).join(",");
  answers.set("", first);
  // Every line of a linked tree is checked by the server before it is shown.
  for (const leaf of leaves(root)) if (leaf !== root) await fetchNode(leaf);
  renderHeading();
  $("engine-toggle").checked = engineOn;
  wireControls();
  if (record) startReport();
  const at = Number(params.get("at") || 0);
  await go(nodes(root)[at] || root);
}

/** The title and the options (again after a switch of language). */
function renderHeading() {
  const title = gameTitle(facts.game, facts.title);
  document.title = t("page.game", { title: `${t("analysis.title")} ${title}` });
  $("title").textContent = title;
  $("options").textContent = describeOptions(facts.options);
}

// A switch of language re-words what the page drew; the tree, the engine's answers and the socket stay.
onLanguageChange(() => {
  if (problem !== null) showProblem(problem);
  if (!facts) return;
  renderHeading();
  $("share").replaceChildren(copyButton(location.href, t("analysis.share")));
  if (report === null && reportId !== null) $("mistakes-progress").textContent = t("analysis.report_starting");
  render();
});

function wireControls() {
  $("first").addEventListener("click", () => go(root));
  $("prev").addEventListener("click", () => current.parent && go(current.parent));
  $("next").addEventListener("click", () => current.children[0] && go(current.children[0]));
  $("last").addEventListener("click", () => {
    const line = mainLine(current);
    if (line.length) go(line[line.length - 1]);
  });
  $("btn-turn").addEventListener("click", () => view.turn());
  $("top-toggle").addEventListener("change", (e) => view.setTopView(e.target.checked));
  $("btn-play").addEventListener("click", () => submit());
  $("btn-back").addEventListener("click", () => picker && (picker.back(), afterPick()));
  $("btn-clear").addEventListener("click", () => picker && (picker.clear(), afterPick()));
  $("btn-promote").addEventListener("click", () => {
    promote(current);
    changed();
  });
  $("btn-delete").addEventListener("click", () => {
    if (current === root) return;
    const parent = remove(current);
    go(parent);
  });
  $("engine-toggle").addEventListener("change", (e) => {
    engineOn = e.target.checked;
    if (!engineOn) cancelEngine();
    changed();
    if (engineOn) ask();
  });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement) return;
    if (e.key === "ArrowLeft" && current.parent) go(current.parent);
    else if (e.key === "ArrowRight" && current.children[0]) go(current.children[0]);
    else if (e.key === "ArrowUp" || e.key === "ArrowDown") sibling(e.key === "ArrowUp" ? -1 : 1);
    else if (e.key === "Home") go(root);
    else if (e.key === "Escape" && picker) {
      picker.clear();
      afterPick();
    } else return;
    e.preventDefault();
  });
}

function sibling(step) {
  if (!current.parent) return;
  const siblings = current.parent.children;
  const next = siblings[siblings.indexOf(current) + step];
  if (next) go(next);
}

async function go(node) {
  current = node;
  pointed = null;
  document.body.dataset.ready = "0";
  let answer;
  try {
    answer = await fetchNode(node);
  } catch (error) {
    showMessage(error.message, "error");
    return;
  }
  if (current !== node) return;
  picker = new Picker(answer.frame);
  changed();
  ask();
  document.body.dataset.ready = "1";
}

/** The tree or the current node changed: the link, the board, the panel. */
function changed() {
  const query = new URLSearchParams({ game: facts.game, options: setup.options, spn: setup.spn });
  const tree = encode(root);
  if (tree) query.set("tree", tree);
  const at = nodes(root).indexOf(current);
  if (at > 0) query.set("at", String(at));
  if (!engineOn) query.set("engine", "off");
  if (!facts.perfect_information) query.set("seat", String(engineSeat));
  if (record) query.set("record", record);
  history.replaceState(null, "", `/analysis?${query}`);
  document.body.dataset.node = String(at);
  $("share").replaceChildren(copyButton(location.href, t("analysis.share")));
  $("edit-position").href = `/editor?${new URLSearchParams({ game: facts.game, options: setup.options, spn: answerOf(current).position })}`;
  render();
}

function answerOf(node) {
  return answers.get(pathKey(node));
}

function render() {
  const answer = answerOf(current);
  if (!answer) return;
  const frame = answer.frame;
  const options = picker ? picker.options() : { sites: new Set(), words: new Set(), complete: false };
  drawBoard(frame, options);
  $("step").textContent = t("analysis.step", { ply: current.depth });
  renderTurn(frame);
  // On the recorded line, each seat's clock after the move shown, as the record stores it.
  const path = current.path();
  const onRecord = recorded && path.every((move, i) => move === recorded.moves[i]);
  clockView.update(onRecord ? recordedClock(recorded, path.length) : null, facts.players.map((p) => seatName(p.name)), null, true);
  renderPicker(options, frame);
  renderEngine();
  renderTree();
  renderReport();
}

/** The board: the picks so far, and the engine's winning moves (or the move pointed at in its list). */
function drawBoard(frame, options) {
  const analysis = engineOn ? results.get(pathKey(current)) : null;
  const shown = pointed ? [pointed] : bestMoves(analysis);
  const obs = frame.observation || {};
  const over = frame.terminal && frame.result;
  view.render({
    board: frame.board,
    targets: options.sites,
    selected: picker ? picker.selection.filter(isSite) : [],
    lastMove: moveSites(current.move),
    locked: new Set(obs.locked || []),
    preview: picker ? picker.previewBoard() : null,
    previewLabel: t(picker && picker.partialBoard() ? "board.preview_relocation" : "board.preview"),
    mapBoard: picker ? picker.partialBoard() : null,
    ghostColor: ghostColor(frame),
    marked: new Set(over ? frame.result.sites || [] : picker && picker.empty ? shown.flatMap(moveSites) : []),
  });
}

/** The moves to highlight: the winning ones, the best estimated; none in a lost position. */
function bestMoves(analysis) {
  if (!analysis || analysis.verdict === -1) return [];
  return analysis.best_moves || [];
}

/** Point at a move of the engine's list (null: none): the board rings its sites. */
function point(move) {
  pointed = move;
  const answer = answerOf(current);
  if (answer && picker) drawBoard(answer.frame, picker.options());
}

function nameOf(seat) {
  const player = facts.players[seat];
  return player ? seatName(player.name) : "?";
}

/** The colour of the ball the seat to move would place now, as the server sends it (null: none). */
function ghostColor(frame) {
  return (frame.placing || [])[frame.to_move] || null;
}

function renderTurn(frame) {
  const turn = clear($("turn"));
  const code = frame.code || {};
  if (code.code === "over") turn.append(h("div", {}, frame.result ? resultText(frame.result, facts.players) : t("turn.over")));
  else if (code.code === "choose") turn.append(h("div", {}, t("turn.choose")));
  else {
    const key = `status.${code.phase}`;
    turn.append(ballSwatch(seatColors(facts, facts.players.length)[code.seat], 18), " ", t(has(key) ? key : "status.turn", { name: nameOf(code.seat) }));
  }
}

function onWord(word) {
  if (picker && picker.pick(word)) afterPick();
}

function renderPicker(options, frame) {
  const words = clear($("words"));
  const playable = frame.legal_moves.length > 0;
  $("picker").hidden = !playable;
  if (!playable || !picker) return;
  const choosers = frame.choosers || [];
  for (const word of [...options.words].sort()) {
    const shown = colorWord(word);
    const label = shown !== word ? [ballSwatch(word, 20), h("span", {}, shown)] : [h("span", {}, word)];
    words.appendChild(h("button", { class: `choice choice-${word}`, type: "button", "data-word": word, onclick: (e) => keyboardClick(e) && onWord(word) }, h("span", { class: "chip" }, ...label)));
  }
  let text = picker.empty ? t(options.words.size && !options.sites.size ? "picker.choose" : "picker.prompt") : t("picker.picked", { clicks: picker.selection.join(" · ") });
  if (options.words.size && choosers.length > 1) text = t("analysis.chooses", { name: nameOf(choosers[picker.selection.length] ?? choosers[0]) });
  if (options.move) text = t("picker.move", { move: options.move });
  $("selection").textContent = text;
  $("btn-play").disabled = !options.complete;
  $("btn-back").disabled = picker.empty;
  $("btn-clear").disabled = picker.empty;
  $("hint").textContent = picker.kind === "none" || picker.kind === "choose" ? "" : t(`hint.${picker.kind}`);
}

function onSiteClick(name) {
  if (!picker) return;
  if (!picker.pick(name)) {
    if (picker.empty && answerOf(current).frame.legal_moves.length) showMessage(t("picker.not_now", { site: name }), "warn");
    return;
  }
  afterPick();
}

async function afterPick() {
  showMessage("");
  render();
  const wanted = picker.wantsPreview();
  if (wanted) {
    const asked = picker;
    try {
      const answer = await api(positionUrl(current.path(), { preview: wanted }));
      if (picker === asked) {
        picker.preview = answer.preview;
        render();
      }
    } catch {
      /* the preview is a nicety */
    }
  }
  if (picker.options().final) submit();
}

/** Play the picked move: go to its node, made as a new variation if it is not in the tree yet. */
async function submit() {
  const move = picker && picker.move();
  if (!move) return;
  const parent = current;
  let answer;
  try {
    answer = await api(positionUrl([...parent.path(), move]));
  } catch (error) {
    showMessage(error.message, "error");
    return;
  }
  const written = answer.moves[answer.moves.length - 1]; // as the game writes it
  const node = parent.child(written);
  answers.set(pathKey(node), answer);
  go(node);
}

function showMessage(text, kind = "info") {
  const node = $("message");
  node.textContent = text || "";
  node.className = `message ${kind}`;
}

// -- the engine ------------------------------------------------------------------------------

function connect() {
  socket = new WebSocket(socketUrl("/ws/analysis"));
  socket.addEventListener("open", () => {
    ask();
    if (record && !report) startReport();
  });
  socket.addEventListener("message", (event) => onEngine(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    socket = null;
    running = null;
    setTimeout(connect, 2000);
  });
}

function send(data) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return false;
  socket.send(JSON.stringify(data));
  return true;
}

function cancelEngine() {
  if (running) {
    send({ type: "cancel", id: running.id });
    const shown = results.get(running.key);
    if (shown && shown.partial) results.delete(running.key); // asked again when this node is shown again
  }
  running = null;
  document.body.dataset.engine = engineOn ? "idle" : "off";
}

/** Ask for the current node's analysis (once per node; the answer is kept). */
function ask() {
  if (!facts) return;
  const key = pathKey(current);
  if (!engineOn) {
    document.body.dataset.engine = "off";
    return;
  }
  if (results.has(key) || (running && running.key === key)) return;
  const frame = answerOf(current) && answerOf(current).frame;
  if (frame && frame.terminal) return;
  cancelEngine();
  const id = ++requestId;
  const request = { type: "analyse", id, game: facts.game, options: setup.options, spn: setup.spn, moves: current.path() };
  if (!facts.perfect_information) request.seat = engineSeat;
  if (send(request)) {
    running = { id, key, started: performance.now(), progress: null };
    document.body.dataset.engine = "running";
    renderEngine();
  }
}

function onEngine(data) {
  if (data.type === "progress" && running && data.id === running.id) {
    running.progress = data;
    if (data.partial) {
      results.set(running.key, { ...data.partial, partial: true });
      firstVerdict();
    }
    render();
  } else if (data.type === "analysis" && running && data.id === running.id) {
    const key = running.key;
    const took = performance.now() - running.started;
    results.set(key, data.analysis);
    running = null;
    document.body.dataset.engine = "done";
    document.body.dataset.engineMs = String(Math.round(took));
    firstVerdict();
    render();
  } else if (data.type === "progress" && data.id === reportId) {
    $("mistakes-progress").textContent = t("analysis.report_progress", { number: data.number, total: data.total });
  } else if (data.type === "game_analysis" && data.id === reportId) {
    report = data.report;
    markReport();
    render();
  } else if (data.type === "error") {
    if (running && data.id === running.id) {
      running = null;
      document.body.dataset.engine = "error";
      $("engine-verdict").textContent = t("analysis.engine_error", { error: errorText(data.code, data.message) });
    } else if (data.id === reportId) $("mistakes-progress").textContent = t("analysis.engine_error", { error: errorText(data.code, data.message) });
    else showMessage(errorText(data.code, data.message), "error");
  }
}

/** Note when the page first shows an answer (for measurements: milliseconds since it was opened). */
function firstVerdict() {
  if (!document.body.dataset.firstVerdictMs) document.body.dataset.firstVerdictMs = String(Math.round(performance.now()));
}

function valueText(value) {
  if (value === null || value === undefined) return "";
  return `${value > 0 ? "+" : ""}${value.toFixed(2)}`;
}

function renderEngine() {
  const panel = $("engine");
  panel.classList.toggle("off", !engineOn);
  const seatBox = clear($("engine-seat"));
  if (facts && !facts.perfect_information) {
    const select = h("select", { id: "engine-seat-select", "aria-label": t("analysis.seat_view") });
    facts.players.forEach((p) => select.appendChild(h("option", { value: p.seat, selected: p.seat === engineSeat }, t("analysis.view_of", { name: seatName(p.name) }))));
    select.addEventListener("change", () => {
      engineSeat = Number(select.value);
      results.clear();
      cancelEngine();
      changed();
      ask();
    });
    seatBox.appendChild(select);
  }
  const progress = $("engine-progress");
  const verdict = clear($("engine-verdict"));
  const list = clear($("engine-moves"));
  const pv = $("engine-pv");
  pv.textContent = "";
  progress.textContent = "";
  if (!engineOn) {
    verdict.textContent = t("analysis.engine_off");
    return;
  }
  const analysis = results.get(pathKey(current));
  if (running && running.key === pathKey(current)) progress.textContent = progressText(running.progress);
  if (!analysis) {
    if (!running) verdict.textContent = answerOf(current) && answerOf(current).frame.terminal ? t("analysis.over") : "";
    return;
  }
  verdict.dataset.status = analysis.status;
  verdict.dataset.verdict = analysis.verdict === null ? "" : String(analysis.verdict);
  verdict.dataset.partial = analysis.partial ? "1" : "0";
  verdict.append(h("div", { class: "verdict-line" }, verdictText(analysis)));
  // What the verdict does not say yet stands right under it, not below the list of moves.
  const note = verdictNote(analysis);
  if (note) verdict.append(h("div", { class: "verdict-note", id: "engine-note" }, t(note)));
  const why = noteWords(analysis.note); // the game's own word on why it is not (all) exact
  if (why) verdict.append(h("div", { class: "verdict-why muted", id: "engine-why" }, why));
  verdict.append(h("div", { class: "muted method" }, methodText(analysis)));
  if (!analysis.partial && analysis.iterations) {
    const rate = analysis.seconds > 0 ? Math.round(analysis.iterations / analysis.seconds) : null;
    progress.textContent = t("analysis.iterations_done", { count: analysis.iterations, rate: rate ?? "?" });
  } else if (!analysis.partial && analysis.positions !== null && analysis.positions !== undefined) {
    progress.textContent = t("analysis.positions_done", { count: analysis.positions, seconds: analysis.seconds });
  }
  const best = new Set(bestMoves(analysis));
  const proved = analysis.status === "exact" || analysis.status === "unsolved"; // values proved by a search, not estimated
  // Exact answers list the winning moves first (an estimate comes sorted by the search's visits).
  const moves = proved ? [...analysis.moves].sort((a, b) => (b.value ?? 0) - (a.value ?? 0)) : analysis.moves;
  for (const m of moves) {
    const cells = [h("span", { class: "em-move" }, m.move)];
    if (m.value !== null) cells.push(h("span", { class: "em-value" }, proved && Math.abs(m.value) === 1 ? t(m.value > 0 ? "analysis.win" : "analysis.loss") : valueText(m.value)));
    if (m.win_rate !== null && !proved) cells.push(h("span", { class: "em-rate" }, `${Math.round(m.win_rate * 100)}%`, errorCell(m.error)));
    if (m.visits !== null) cells.push(h("span", { class: "em-visits muted" }, t("analysis.visits", { count: m.visits })));
    if (m.probability !== null) cells.push(h("span", { class: "em-prob" }, t("analysis.probability", { p: Math.round(m.probability * 1000) / 10 })));
    const item = h("li", { class: `em${best.has(m.move) ? " best" : ""}${m.value !== null && m.value > 0 && proved ? " win" : ""}${m.value !== null && m.value < 0 && proved ? " loss" : ""}`, "data-move": m.move, "data-value": m.value === null ? "" : String(m.value), title: t("analysis.play_this") }, ...cells);
    item.addEventListener("click", () => playText(m.move));
    item.addEventListener("mouseenter", () => point(m.move));
    item.addEventListener("mouseleave", () => point(null));
    list.appendChild(item);
  }
  if (analysis.principal_variation && analysis.principal_variation.length) pv.textContent = t("analysis.pv", { line: analysis.principal_variation.join(" ") });
}

/** The note under an exact verdict: the moves still being proved, or left unproved by the time cap. */
function verdictNote(a) {
  if (a.status !== "exact" && a.status !== "unsolved") return null;
  if (a.verdict === 1 && !(a.best_moves || []).length) return "analysis.winning_move_pending";
  if (!a.moves.some((m) => m.value === null)) return null;
  return a.partial ? "analysis.proving" : "analysis.unproved";
}

/** An estimate's error, as ± points of win rate (two standard errors; the value's error is on a -1 to +1 scale). */
function errorPoints(error) {
  return error === null || error === undefined || !Number.isFinite(error) ? null : Math.max(1, Math.round(error * 100));
}

function errorCell(error) {
  const points = errorPoints(error);
  return points === null ? null : h("span", { class: "em-error muted", title: t("analysis.error_title") }, ` ±${points}`);
}

function progressText(p) {
  if (!p) return t("analysis.starting");
  if (p.iterations !== null && p.iterations !== undefined) {
    const rate = p.seconds > 0 ? Math.round(p.iterations / p.seconds) : "?";
    return t("analysis.searching", { count: p.iterations, rate });
  }
  return t("analysis.solving", { count: p.positions ?? 0 });
}

/** How the answer was found: a game's own method in its words (sent by the server) after what the
 * answer is ("exact: ..."), a generic method in the page's words. */
function methodText(a) {
  const own = methodWords(a.method);
  if (own === undefined) return t(`analysis.method.${a.method}`);
  return tOr(`analysis.method_by.${a.status}`, sentence(own), { method: own });
}

function verdictText(a) {
  const name = a.seat === null || a.seat === undefined ? "" : nameOf(a.seat);
  if (a.status === "over") return t("analysis.over");
  if (a.status === "unsolved") return t("analysis.unsolved");
  if (a.verdict === 1) return t("analysis.wins", { name });
  if (a.verdict === -1) return t("analysis.loses", { name });
  if (a.status === "exact") return t("analysis.value", { name, value: valueText(a.value) });
  if (a.value === null) return t("analysis.estimate_strategy", { name });
  const error = errorPoints(a.error);
  if (error !== null) return t("analysis.estimate_error", { name, rate: Math.round(a.win_rate * 100), error });
  return t("analysis.estimate", { name, rate: Math.round(a.win_rate * 100) });
}

/** Play a move given as text (the engine's list): it goes through the server like a click. */
async function playText(move) {
  picker = new Picker({ legal_moves: [move], clicks: { move: 0 }, picking: "none" });
  await submit();
}

// -- a finished game: where it was decided ----------------------------------------------------

function startReport() {
  if (reportId !== null && report) return;
  $("mistakes").hidden = false;
  reportId = ++requestId;
  $("mistakes-progress").textContent = t("analysis.report_starting");
  if (!send({ type: "analyse_game", id: reportId, record })) reportId = null;
}

/** Mark the recorded moves: a win thrown away (exact), or the largest falls of the win rate. */
function markReport() {
  const line = mainLine(root);
  const drops = new Set(report.largest_drops);
  for (const move of report.moves) {
    const node = line[move.number - 1];
    if (!node) continue;
    node.mark = move.threw_away_win ? "mistake" : drops.has(move.number) ? "drop" : null;
  }
  $("mistakes-progress").textContent = "";
}

function renderReport() {
  if (!report) return;
  const line = mainLine(root);
  const marks = new Map();
  line.forEach((node, i) => node.mark && marks.set(i + 1, node.mark));
  const index = current.onMainLine ? current.depth : -1;
  $("chart").replaceChildren(evaluationChart(report.evaluation, marks, index, (i) => go(i === 0 ? root : line[i - 1]), t("analysis.chart")));
  const list = clear($("mistakes-list"));
  if (!marks.size) list.appendChild(h("li", { class: "muted" }, t("analysis.no_mistakes")));
  // A mistake is claimed only from exact values, or from an estimated fall larger than its error;
  // a fall within the error is worded as the estimate it is, and names no better move.
  const within = new Set(report.drops_within_error || []);
  for (const move of report.moves) {
    const node = line[move.number - 1];
    if (!node || (!node.mark && !within.has(move.number))) continue;
    const kind = node.mark || "estimate";
    let text;
    let better = "";
    if (kind === "mistake") {
      text = t("analysis.threw_away", { number: move.number, move: move.move, name: nameOf(move.seat) });
      if (move.better_moves.length) better = t("analysis.better", { moves: move.better_moves.slice(0, 4).join(" ") });
    } else {
      const rates = { number: move.number, move: move.move, ...fallOf(move) };
      text = t(kind === "drop" ? "analysis.estimated_fall" : "analysis.estimated_within", rates);
      if (kind === "drop" && move.better_moves.length) better = t("analysis.estimated_better", { moves: move.better_moves.slice(0, 4).join(" ") });
    }
    list.appendChild(h("li", { class: `mistake-${kind}`, "data-number": move.number, onclick: () => go(node.parent) }, text, better ? h("span", { class: "muted better" }, ` ${better}`) : null));
  }
}

/** The mover's estimated win rate before and after a move (as the engine panel rates them), and the error of the fall, in points. */
function fallOf(move) {
  const [before, after] = move.win_rates;
  return { before: Math.round(before * 100), after: Math.round(after * 100), margin: Math.max(1, Math.round((move.drop_margin ?? 0) * 100)) };
}

// -- the tree --------------------------------------------------------------------------------

function renderTree() {
  const box = clear($("tree"));
  const all = nodes(root);
  const moveButton = (node) => {
    const ply = node.depth;
    const label = `${ply}. ${node.move}`;
    return h("button", { type: "button", class: `tnode${node === current ? " current" : ""}${node.mark ? ` mark-${node.mark}` : ""}`, "data-node": all.indexOf(node), onclick: () => go(node) }, label);
  };
  const continuation = (from, host) => {
    for (let node = from; node.children.length; node = node.children[0]) {
      const [main, ...others] = node.children;
      host.appendChild(moveButton(main));
      for (const other of others) {
        const variation = h("span", { class: "variation" }, moveButton(other));
        continuation(other, variation);
        host.appendChild(variation);
      }
    }
  };
  continuation(root, box);
  if (!root.children.length) box.appendChild(h("span", { class: "muted" }, t("analysis.no_moves")));
  $("btn-promote").disabled = current === root || current.onMainLine;
  $("btn-delete").disabled = current === root;
  const now = box.querySelector(".current");
  if (now) box.scrollTop = Math.max(0, now.offsetTop - box.clientHeight / 2);
}

start()
  .then(connect)
  .catch((error) => showProblem(error));

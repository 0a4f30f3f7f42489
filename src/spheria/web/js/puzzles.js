// Puzzles (/puzzles?game=G, /puzzles?daily=1): a position where exactly one move wins, one try.
// The page knows no rules and never the answer before the try: the server sends the position, its
// legal moves and click tree (/api/puzzles/next, /api/puzzles/daily), and judges each move
// (POST /api/puzzles/{id}/attempt): right (with the defence), solved, or wrong (with the oracle's
// refutation and the solution, each move with its board, stepped through here). A guest's puzzle
// rating is kept in this browser (localStorage, one per game) and sent with each try; an
// account's is kept by the server (docs/server.md, Puzzles).

import { PyramidView } from "./board.js";
import { listenForTaps, wordUnder, keyboardClick } from "./taps.js";
import { Picker, isSite, moveSites } from "./moves.js";
import { t, translatePage, onLanguageChange, gameTitle, seatName, colorWord, formatNumber } from "./messages.js";
import { h, clear, api, seatColors, ballSwatch, refusalText } from "./ui.js";
import { post } from "./chat.js";

translatePage();

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const STORED = "spheria.puzzle-ratings";
const view = new PyramidView($("board"), { onClick: onSiteClick });
listenForTaps($("words"), wordUnder, onWord);

let game = params.get("game") || ""; // none: the server's first game with puzzles
let daily = params.get("daily") === "1";
let puzzle = null; // the server's puzzle (no solution)
let frame = null; // the position the person moves in now
let picker = null;
let played = []; // the person's moves so far
let lastMove = null;
let hinted = false;
let hintMoves = null;
let busy = false;
let ending = null; // the server's answer that ended the try
let lines = null; // [{key, steps: [{move, board}], start}] shown after the end
let shown = null; // {line, index}: the step on the board
let message = null; // [key, params, kind]

/** The guest's ratings, by game, as this browser keeps them. */
function guestRatings() {
  try {
    return JSON.parse(localStorage.getItem(STORED) || "{}") || {};
  } catch {
    return {};
  }
}

function keepGuestRating(name, rating) {
  const all = guestRatings();
  all[name] = rating;
  try {
    localStorage.setItem(STORED, JSON.stringify(all));
  } catch {
    // a browser that keeps nothing starts again next time
  }
}

/** The person's rating in ``game``: an account's from the server, else the browser's (null: none yet). */
function personRating() {
  if (puzzle && puzzle.player) return puzzle.player;
  return guestRatings()[puzzle ? puzzle.game : game] || null;
}

async function load() {
  busy = true;
  showMessage("puzzles.loading");
  const guest = game ? guestRatings()[game] : null;
  try {
    const query = new URLSearchParams(game ? { game } : {});
    if (guest) query.set("rating", String(guest.rating));
    if (puzzle) query.set("after", puzzle.id);
    puzzle = await api(daily ? "/api/puzzles/daily" : `/api/puzzles/next?${query}`);
  } catch (error) {
    showError(error);
    return;
  }
  game = puzzle.game;
  history.replaceState(null, "", daily ? "/puzzles?daily=1" : `/puzzles?game=${game}`);
  frame = puzzle.frame;
  picker = new Picker(frame);
  played = [];
  lastMove = null;
  hinted = false;
  hintMoves = null;
  ending = null;
  lines = null;
  shown = null;
  busy = false;
  message = null;
  render();
  document.body.dataset.puzzle = puzzle.id;
  document.body.dataset.state = "asking";
}

function nameOf(seat) {
  const player = puzzle.players[seat];
  return player ? seatName(player.name) : "?";
}

function showMessage(key, values = {}, kind = "") {
  message = key ? [key, values, kind] : null;
  renderMessage();
}

function showError(error) {
  busy = false;
  message = null;
  const box = $("message");
  box.className = "message error";
  box.textContent = refusalText(error);
}

function renderMessage() {
  const box = $("message");
  box.className = `message ${message ? message[2] : ""}`;
  box.textContent = message ? t(message[0], message[1]) : "";
}

function render() {
  if (!puzzle) return;
  document.body.dataset.played = String(played.length);
  $("title").textContent = gameTitle(puzzle.game, puzzle.title) + (puzzle.daily ? ` · ${t("puzzles.daily")}` : "");
  renderGames();
  renderTurn();
  renderRatings();
  renderBoard();
  renderPicker();
  renderMessage();
  renderHint();
  renderLines();
}

function renderGames() {
  const nav = clear($("puzzle-games"));
  for (const name of puzzle.games) {
    const current = !daily && name === game;
    nav.append(h("button", { type: "button", class: current ? "primary" : "", "aria-pressed": String(current), "data-game": name, onclick: () => choose(name, false) }, gameTitle(name)));
  }
  nav.append(h("button", { type: "button", class: daily ? "primary" : "", "aria-pressed": String(daily), id: "btn-daily", onclick: () => choose(game, true) }, t("puzzles.daily")));
}

function choose(name, isDaily) {
  if (busy) return;
  game = name;
  daily = isDaily;
  puzzle = null;
  load();
}

function renderTurn() {
  const turn = clear($("turn"));
  const seat = puzzle.frame.code.seat;
  const swatch = ballSwatch(seatColors(puzzle, puzzle.players.length)[seat], 18);
  if (ending) turn.append(swatch, " ", t(ending.result === "solved" ? "puzzles.solved_title" : "puzzles.wrong_title"));
  else turn.append(swatch, " ", t("puzzles.find", { name: nameOf(seat) }));
}

function renderRatings() {
  const mine = personRating();
  const box = clear($("ratings"));
  const own = mine ? `${formatNumber(Math.round(mine.rating))}${mine.provisional ? "?" : ""}` : "1500?";
  box.append(h("span", { id: "my-rating" }, t("puzzles.your_rating", { rating: own })), " · ", h("span", {}, t("puzzles.its_rating", { rating: formatNumber(puzzle.rating) })));
}

function renderBoard() {
  const obs = frame.observation || {};
  const stepping = shown ? lines[shown.line].steps[shown.index] : null;
  const options = picker && !ending ? picker.options() : { sites: new Set() };
  view.render({
    board: stepping ? stepping.board : frame.board,
    targets: options.sites,
    selected: picker && !ending ? picker.selection.filter(isSite) : [],
    lastMove: moveSites(stepping ? stepping.move : lastMove),
    locked: new Set(stepping ? [] : obs.locked || []),
    preview: null,
    ghostColor: ending ? null : (frame.placing || [])[frame.to_move] || null,
    marked: new Set(stepping && stepping.result ? stepping.result.sites || [] : []),
  });
  $("steps-controls").hidden = !shown;
  if (shown) {
    const line = lines[shown.line];
    $("step-text").textContent = t("puzzles.step", { line: t(line.key), step: shown.index + 1, count: line.steps.length });
    $("step-back").disabled = shown.index === 0 && shown.line === 0;
    $("step-on").disabled = shown.index === line.steps.length - 1 && shown.line === lines.length - 1;
  }
}

function renderPicker() {
  const playable = !ending && !busy && frame.legal_moves.length > 0;
  $("picker").hidden = !!ending;
  $("btn-hint").disabled = !!ending || played.length > 0 || hintMoves !== null;
  const words = clear($("words"));
  if (!picker || ending) return;
  const options = picker.options();
  for (const word of [...options.words].sort()) {
    const label = colorWord(word);
    words.appendChild(h("button", { class: `choice choice-${word}`, type: "button", "data-word": word, onclick: (e) => keyboardClick(e) && onWord(word) }, h("span", { class: "chip" }, label !== word ? ballSwatch(word, 20) : null, h("span", {}, label))));
  }
  let text = picker.empty ? t("picker.prompt") : t("picker.picked", { clicks: picker.selection.join(" · ") });
  if (options.move) text = t("picker.move", { move: options.move });
  $("selection").textContent = text;
  $("btn-play").disabled = !playable || !options.complete;
  $("btn-back").disabled = picker.empty;
  $("btn-clear").disabled = picker.empty;
}

function renderHint() {
  const box = clear($("hint-text"));
  if (hintMoves) box.append(t("puzzles.hint_moves", { moves: hintMoves.join(", ") }));
}

function renderLines() {
  const box = clear($("lines"));
  box.hidden = !lines;
  if (!lines) return;
  lines.forEach((line, number) => {
    const list = h("ol", { class: "puzzle-line", "data-line": line.key });
    line.steps.forEach((step, index) => {
      const current = shown && shown.line === number && shown.index === index;
      list.append(h("li", {}, h("button", { type: "button", class: current ? "small primary" : "small", "aria-current": current ? "step" : null, onclick: () => showStep(number, index) }, step.move)));
    });
    box.append(h("div", { class: "puzzle-line-title" }, t(line.key)), list);
  });
  if (ending.themes && ending.themes.length) box.append(h("div", { class: "muted", id: "themes" }, t("puzzles.themes", { themes: ending.themes.map((name) => t(`puzzles.theme.${name}`)).join(", ") })));
}

function showStep(line, index) {
  shown = { line, index };
  renderBoard();
  renderLines();
}

function step(by) {
  if (!shown) return;
  let { line, index } = shown;
  index += by;
  if (index < 0 && line > 0) {
    line -= 1;
    index = lines[line].steps.length - 1;
  } else if (index >= lines[line].steps.length && line < lines.length - 1) {
    line += 1;
    index = 0;
  }
  index = Math.max(0, Math.min(index, lines[line].steps.length - 1));
  showStep(line, index);
}

function onWord(word) {
  if (!ending && !busy && picker && picker.pick(word)) afterPick();
}

function onSiteClick(name) {
  if (ending || busy || !picker) return;
  if (!picker.pick(name)) {
    if (picker.empty) showMessage("picker.not_now", { site: name }, "warn");
    return;
  }
  afterPick();
}

function afterPick() {
  showMessage(null);
  renderBoard();
  renderPicker();
  if (picker.options().final) submit();
}

async function submit() {
  const move = picker && picker.move();
  if (!move || busy || ending) return;
  busy = true;
  renderPicker();
  showMessage("puzzles.checking");
  const body = { moves: [...played, move], hinted };
  const guest = guestRatings()[puzzle.game];
  if (!puzzle.player && guest) body.rating = guest;
  if (!puzzle.player && !guest) body.rating = { rating: 1500, deviation: 350, volatility: 0.06, games: 0 };
  let answer;
  try {
    answer = await post(`/api/puzzles/${puzzle.id}/attempt`, body);
  } catch (error) {
    showError(error);
    renderPicker();
    return;
  }
  busy = false;
  played.push(move);
  if (answer.result === "right") {
    frame = answer.frame;
    lastMove = answer.reply.move;
    picker = new Picker(frame);
    showMessage("puzzles.right", { name: nameOf((puzzle.frame.code.seat + 1) % puzzle.players.length), move: answer.reply.move }, "good");
    document.body.dataset.state = "asking";
    render();
    return;
  }
  end(answer);
}

function end(answer) {
  ending = answer;
  const rating = answer.rating;
  if (rating && !puzzle.player) keepGuestRating(puzzle.game, rating);
  if (rating && puzzle.player) puzzle.player = rating;
  if (answer.result === "solved") {
    lines = [{ key: "puzzles.solution", steps: answer.solution }];
    shown = { line: 0, index: answer.solution.length - 1 };
    showMessage(rating ? "puzzles.solved_rated" : "puzzles.solved", { rating: rating ? formatNumber(Math.round(rating.rating)) : "" }, "good");
  } else {
    const wrong = { move: answer.move, board: answer.board };
    lines = [
      { key: "puzzles.refutation", steps: [wrong, ...answer.refutation] },
      { key: "puzzles.solution", steps: answer.solution },
    ];
    shown = { line: 0, index: 0 };
    showMessage(rating ? "puzzles.wrong_rated" : "puzzles.wrong", { move: answer.move, rating: rating ? formatNumber(Math.round(rating.rating)) : "" }, "warn");
    playOut();
  }
  document.body.dataset.state = answer.result;
  render();
}

/** The oracle's refutation, played out a move a second (the person may step through it at once). */
function playOut() {
  const id = puzzle.id;
  const timer = setInterval(() => {
    if (!puzzle || puzzle.id !== id || !shown || shown.line !== 0 || shown.index >= lines[0].steps.length - 1) {
      clearInterval(timer);
      return;
    }
    showStep(0, shown.index + 1);
  }, 900);
}

async function askHint() {
  if (!puzzle || ending || hintMoves) return;
  try {
    hintMoves = (await post(`/api/puzzles/${puzzle.id}/hint`)).moves;
  } catch (error) {
    showError(error);
    return;
  }
  hinted = true;
  renderHint();
  renderPicker();
}

$("btn-play").addEventListener("click", submit);
$("btn-back").addEventListener("click", () => {
  picker.back();
  afterPick();
});
$("btn-clear").addEventListener("click", () => {
  picker.clear();
  afterPick();
});
$("btn-hint").addEventListener("click", askHint);
$("btn-next").addEventListener("click", () => {
  if (busy) return;
  daily = false;
  load();
});
$("step-back").addEventListener("click", () => step(-1));
$("step-on").addEventListener("click", () => step(1));
onLanguageChange(() => render());

load();

// The game page: one websocket to the server, the pyramid, and the panel beside it.
// The page knows no rules: what may be clicked, what a reveal showed, the scores and the state
// of play all come from the server as data; the words come from messages.js.

import { PyramidView, turnMarks, marksText } from "./board.js";
import { listenForTaps, wordUnder, keyboardClick } from "./taps.js";
import { Picker, isSite, moveSites } from "./moves.js";
import { t, translatePage, joinNames, onLanguageChange, seatName, gameTitle, agentName, errorText, colorWord } from "./messages.js";
import { h, clear, seatColors, ballSwatch, describeOptions, copyButton, absolute, showHowTo, scoreTable, keepEndInSight, resultText, reasonText, socketUrl } from "./ui.js";
import { MoveBox, Announcer, ballNames, revealVerdict, resultOutcome } from "./keyboard.js";
import { Chat, post } from "./chat.js";
import { ratingLines } from "./ui.js";
import { ClockView } from "./clock.js";

translatePage(); // static labels from the message table

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const token = location.hash.length > 1 ? decodeURIComponent(location.hash.slice(1)) : null;

const $ = (id) => document.getElementById(id);
const view = new PyramidView($("board"), { onClick: onSiteClick, onHover: onSiteHover });
listenForTaps($("words"), wordUnder, onWord); // a word tapped as the buttons are redrawn still counts
// On a phone the action bar is held at the foot of the screen: the page is padded by its height,
// so that nothing of the page stays under it (nor is scrolled to under it).
new ResizeObserver(([entry]) => {
  const fixed = getComputedStyle(entry.target).position === "fixed";
  document.documentElement.style.setProperty("--action-bar-height", fixed ? `${entry.target.offsetHeight}px` : "0px");
}).observe($("action-bar"));
const moveBox = new MoveBox($("move-box"), (move) => submit(move)); // a move typed as in the terminal
const announcer = new Announcer(); // each move and the result, for a screen reader
const chat = new Chat($("chat"), gameId, send); // the players' or the spectators' room
const clocks = new ClockView($("clocks")); // a timed game's clocks, ticking between frames

let socket = null;
let seat = null;
let info = null;
let frame = null;
let picker = null;
let reconnectDelay = 500;
let confirmMoves = localStorage.getItem("spheria.confirm") === "1";
let sending = false;
// The move sent and not yet answered: sent again if the connection drops before the answer
// (the server refuses it as stale if the first one arrived after all).
let pendingMove = null;
let resendPending = false;
let seatTaken = false;
let fallbacksSeen = -1;
// Progress of long work on the server: agent seats thinking (as of ``at``, this page's clock; the
// positions a solver has searched), and the hint this seat asked for (``asked``: since when, the
// deadline, the positions searched) or was given (``shown``).
let thinking = { list: [], at: 0 };
const hint = { asked: null, shown: null };
let ticker = null;
// A seat's invite link is exchanged, on first use, for a credential this browser keeps.
const claimKey = token ? `spheria.claim.${gameId}.${token.slice(0, 16)}` : null;

function joinFrame() {
  const credential = claimKey && localStorage.getItem(claimKey);
  if (credential) return { type: "join", credential };
  return token && !seatTaken ? { type: "join", token } : { type: "join" };
}
let badToken = false;
let previewing = false;
let gone = false; // there is no such game: stop reconnecting

$("confirm-toggle").checked = confirmMoves;
$("confirm-toggle").addEventListener("change", (e) => {
  confirmMoves = e.target.checked;
  localStorage.setItem("spheria.confirm", confirmMoves ? "1" : "0");
  render();
});
const topToggle = $("top-toggle");
topToggle.checked = localStorage.getItem("spheria.top") === "1";
view.setTopView(topToggle.checked);
topToggle.addEventListener("change", (e) => {
  localStorage.setItem("spheria.top", e.target.checked ? "1" : "0");
  view.setTopView(e.target.checked);
});
$("btn-turn").addEventListener("click", () => view.turn());
$("btn-play").addEventListener("click", () => submit());
$("btn-hint").addEventListener("click", askHint);
$("btn-back").addEventListener("click", () => {
  if (!picker) return;
  picker.back();
  afterPick();
});
$("btn-clear").addEventListener("click", () => {
  if (!picker) return;
  picker.clear();
  afterPick();
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && picker) {
    picker.clear();
    afterPick();
  } else if (e.key === "Backspace" && picker && !picker.empty && e.target === document.body) {
    picker.back();
    afterPick();
  } else if (e.key === "Enter" && picker && picker.options().complete) {
    submit();
  }
});

function connect() {
  setConnection("connecting");
  socket = new WebSocket(socketUrl(`/ws/${encodeURIComponent(gameId)}`));
  socket.addEventListener("open", () => {
    reconnectDelay = 500;
    socket.send(JSON.stringify(joinFrame()));
  });
  socket.addEventListener("message", (event) => onFrame(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => {
    if (gone || event.code === 4404) return showMissing(`close ${event.code}`);
    setConnection("offline");
    if (pendingMove) resendPending = true;
    if (frame && frame.terminal) return;
    setTimeout(connect, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 8000);
  });
}

function send(data) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return false;
  socket.send(JSON.stringify(data));
  return true;
}

let connection = "connecting";

function setConnection(state) {
  connection = state;
  const node = $("connection");
  node.className = `connection ${state}`;
  node.textContent = t(`connection.${state}`);
}

function showMissing(reason) {
  gone = true;
  document.body.dataset.missing = reason;
  setConnection("gone");
  document.title = `${t("missing.title")} · Spheria`;
  $("title").textContent = t("missing.title");
  $("game-main").hidden = true;
  const box = $("missing");
  box.hidden = false;
  clear(box).append(h("h1", {}, t("missing.title")), h("p", {}, t("missing.text")), h("a", { href: "/", class: "button primary" }, t("links.lobby")));
}

function onFrame(data) {
  if (chat.handle(data)) return;
  if (data.type === "rematch_offer") {
    rematchOffered = data.seats;
    render();
  } else if (data.type === "rematch") {
    location.assign(data.invite); // the other player made the rematch: this seat's invite to it
  } else if (data.type === "clock_ping") {
    send({ type: "clock_pong", id: data.id }); // the server times its round trip (lag credit, docs/server.md)
  } else if (data.type === "claimed") {
    if (claimKey) localStorage.setItem(claimKey, data.credential);
  } else if (data.type === "presence") {
    if (frame) {
      frame.players = data.players;
      render();
    }
  } else if (data.type === "welcome") {
    seat = data.seat;
    info = data.game;
    chat.joined(seat);
    setConnection("online");
    renderHeading();
  } else if (data.type === "thinking") {
    setThinking(data.thinking);
    renderProgress();
  } else if (data.type === "hint_thinking") {
    hint.asked = { since: performance.now(), seconds: data.seconds, positions: null };
    renderProgress();
  } else if (data.type === "hint_progress") {
    if (hint.asked) hint.asked.positions = data.positions;
    renderProgress();
  } else if (data.type === "hint") {
    hint.asked = null;
    if (frame && data.version === frame.version) hint.shown = data;
    render();
    showSuggestion();
  } else if (data.type === "state") {
    const previous = frame;
    frame = data;
    setThinking(data.thinking);
    const moved = !previous || previous.version !== frame.version;
    if (resendPending && pendingMove && !moved && pendingMove.version === frame.version) {
      send({ type: "move", move: pendingMove.move, version: pendingMove.version });
    } else if (moved || !picker || movesChanged(previous, frame)) {
      picker = new Picker(frame);
      sending = false;
      pendingMove = null;
    }
    resendPending = false;
    if (previous && previous.version !== frame.version) hint.shown = null;
    if (previous && previous.version !== frame.version && frame.reveal && !frame.terminal) showReveal(frame);
    if (frame.terminal) hideReveal(); // the board shows the result: no popup over it
    clocks.update(frame.clock, frame.players.map((p) => seatName(p.name)), seat, frame.terminal);
    render();
    announcer.heard(frame, seat, nameOf);
    showFallback(frame.fallbacks || []);
  } else if (data.type === "preview") {
    previewing = false;
    if (picker && data.version === frame.version) {
      picker.preview = { move: data.move, ok: data.ok, board: data.board, error: data.error };
      render();
    }
  } else if (data.type === "error") {
    sending = false;
    pendingMove = null;
    previewing = false;
    if (HINT_ERRORS.has(data.code)) hint.asked = null;
    if (data.code === "unknown_game") return showMissing(data.message);
    if (data.code === "bad_token") badToken = true;
    if (data.code === "bad_token" && !info) send({ type: "join" });
    if (data.code === "seat_taken") seatTaken = true;
    if (data.code === "bad_credential" && claimKey) localStorage.removeItem(claimKey);
    if ((data.code === "seat_taken" || data.code === "bad_credential") && !info) send(joinFrame());
    if (data.code !== "seat_taken" && !moveBox.refused(data)) showMessage(errorText(data.code, data.message), "error"); // the role line says it
    if (picker && data.code === "illegal_move") picker.clear();
    render();
  }
}

/** Error codes that answer a hint request (docs/server.md, Hints). */
const HINT_ERRORS = new Set(["hints_off", "hint_busy", "hint_timeout", "hint_failed", "stale", "not_your_turn", "game_over", "server_error"]);

function askHint() {
  if (!frame || hint.asked || !hintsOffered()) return;
  hint.asked = { since: performance.now(), seconds: null, positions: null };
  send({ type: "hint" });
  renderProgress();
}

function hintsOffered() {
  return !!(frame && frame.hints && frame.hints.allowed && seat !== null && !frame.terminal);
}

/** The hint in words: the move ringed on the board, or the colour to choose (its button ringed). */
function hintText(given, count) {
  const word = given.clicks.find((click) => !isSite(click));
  if (word !== undefined && given.clicks.length === 1) return t("hints.shown_choice", { color: colorWord(word), count });
  return t("hints.shown", { move: given.move, count });
}

/** On a small screen the board may be out of sight when the hint arrives: bring the suggestion into view. */
function showSuggestion() {
  const ring = document.querySelector("#board [data-suggested], #board .strip-site.suggested, #words .choice.suggested");
  if (!ring) return;
  const box = ring.getBoundingClientRect();
  if (box.bottom < 0 || box.top > innerHeight) ring.scrollIntoView({ block: "center", behavior: "smooth" });
}

function setThinking(list) {
  thinking = { list: list || [], at: performance.now() };
}

/** "… is thinking… 3.1 s" for agent seats (and "· 480,000 positions searched" for a solver), and the
 * hint being worked out: ticking while they last. */
function renderProgress() {
  if (!frame || !info) return;
  const now = performance.now();
  const since = (now - thinking.at) / 1000;
  const lines = thinking.list.map((entry) => {
    const params = { name: nameOf(entry.seat), seconds: (entry.elapsed + since).toFixed(1), count: entry.positions };
    return t(entry.positions === undefined ? "thinking.agent" : "thinking.searching", params);
  });
  const box = $("thinking");
  box.textContent = frame.terminal ? "" : lines.join(" · ");
  document.body.dataset.thinking = thinking.list.map((entry) => entry.seat).join(",");
  const status = $("hint-status");
  const button = $("btn-hint");
  $("hint-row").hidden = !hintsOffered();
  const used = frame.hints && seat !== null ? frame.hints.used[seat] || 0 : 0;
  if (hint.asked) {
    const seconds = ((now - hint.asked.since) / 1000).toFixed(1);
    const params = { seconds, limit: hint.asked.seconds ? hint.asked.seconds.toFixed(1) : "", count: hint.asked.positions };
    if (!hint.asked.seconds) status.textContent = t("hints.asking");
    else status.textContent = t(hint.asked.positions === null ? "hints.thinking" : "hints.searching", params);
  } else if (hint.shown) status.textContent = hintText(hint.shown, used);
  else status.textContent = t("hints.used", { count: used });
  button.disabled = !!hint.asked || !frame.legal_moves.length || sending;
  const busy = hint.asked || thinking.list.length;
  if (busy && !ticker) ticker = setInterval(renderProgress, 200);
  else if (!busy && ticker) {
    clearInterval(ticker);
    ticker = null;
  }
}

/** The title, the options, this browser's role and the links: what the welcome frame told. */
function renderHeading() {
  const title = gameTitle(info.game, info.title);
  document.title = t("page.game", { title });
  $("title").textContent = title;
  $("options").textContent = describeOptions(info.options);
  $("role").textContent = seatTaken
    ? t("role.seat_taken")
    : badToken
      ? t("role.bad_token")
      : seat === null
        ? t("role.watching")
        : t("role.seat", { name: seatName(info.players[seat].name) });
  $("links").hidden = false;
  $("spectate-copy").replaceChildren(copyButton(absolute(`/game/${gameId}`), t("links.watch")));
  showHowTo($("howto"), info.game);
}

// A switch of language re-words everything on the same socket: the game and the seat stay.
onLanguageChange(() => {
  if (gone) return showMissing(document.body.dataset.missing);
  setConnection(connection);
  if (info) renderHeading();
  chat.renderWords();
  resultShown = null;
  render();
});

function showFallback(fallbacks) {
  const latest = fallbacks[fallbacks.length - 1];
  if (fallbacksSeen >= 0 && latest && latest.ply >= fallbacksSeen && info) {
    const player = info.players[latest.seat];
    const name = player ? seatName(player.name) : t("fallback.someone");
    showMessage(t(`fallback.${latest.code}`, { name }), "warn");
  }
  fallbacksSeen = latest ? latest.ply + 1 : Math.max(fallbacksSeen, 0);
}

function movesChanged(a, b) {
  return (a.legal_moves || []).join("|") !== (b.legal_moves || []).join("|");
}

function showMessage(text, kind = "info") {
  const node = $("message");
  node.textContent = text || "";
  node.className = `message ${kind}`;
  clearTimeout(showMessage.timer);
  if (text) showMessage.timer = setTimeout(() => (node.textContent = ""), 6000);
}

function onSiteClick(name) {
  if (!picker || sending) return;
  if (!picker.pick(name)) {
    if (frame && frame.legal_moves.length && picker.empty) showMessage(t("picker.not_now", { site: name }), "warn");
    return;
  }
  afterPick();
}

function onWord(word) {
  if (!picker || sending) return;
  if (picker.pick(word)) afterPick();
}

function afterPick() {
  showMessage("");
  const wanted = picker.wantsPreview();
  if (wanted) {
    previewing = true;
    send({ type: "preview", move: wanted });
  }
  render();
  if (picker.options().final && !confirmMoves) submit();
}

function onSiteHover(name) {
  $("hover").textContent = name || "";
}

/** Send ``move`` (the clicks' move, or a move typed); false if nothing was sent. */
function submit(move = picker && picker.move()) {
  if (!picker || sending || !move) return false;
  sending = true;
  pendingMove = { move, version: frame.version };
  if (!send({ type: "move", move, version: frame.version })) resendPending = true; // sent on reconnection
  render();
  return true;
}

function colors() {
  return seatColors(info, frame.players.length);
}

/** The colour of the ball this seat would place now, as the server sends it (null: none). */
function ghostColor() {
  if (!frame || seat === null) return null;
  return (frame.placing || [])[seat] || null;
}

function render() {
  if (!frame || !info) return;
  const obs = frame.observation || {};
  const options = picker ? picker.options() : { sites: new Set(), words: new Set(), complete: false };
  const myTurn = seat !== null && frame.legal_moves.length > 0 && !sending;
  const preview = picker ? picker.previewBoard() : null;
  // State for people who script the page (and the browser tests): what it shows now.
  document.body.dataset.version = `${frame.version}${frame.your_choice ? "c" : ""}`;
  document.body.dataset.mode = picker ? picker.kind : "";
  document.body.dataset.previewing = previewing ? "1" : "0";
  document.body.dataset.selection = picker ? String(picker.selection.length) : "0";
  document.body.dataset.sending = sending ? "1" : "0";
  view.render({
    board: frame.board,
    targets: myTurn ? options.sites : new Set(),
    selected: picker ? picker.selection.filter(isSite) : [],
    lastMove: moveSites(frame.last_move),
    locked: new Set(obs.locked || []),
    preview,
    previewLabel: t(picker && picker.partialBoard() ? "board.preview_relocation" : "board.preview"),
    mapBoard: picker ? picker.partialBoard() : null,
    ghostColor: ghostColor(),
    marked: new Set(frame.terminal && frame.result ? frame.result.sites || [] : []),
    suggested: new Set(hint.shown && myTurn ? hint.shown.clicks.filter(isSite) : []),
    turnMarks: turnMarks(obs).sites,
    ballNames: ballNames(info),
  });
  moveBox.update(frame, seat);
  renderPlayers();
  renderStatus(obs);
  renderPicker(options, myTurn);
  renderHistory(obs);
  renderResult();
  renderResign();
  renderProgress();
}

function nameOf(s) {
  return frame.players[s] ? seatName(frame.players[s].name) : "?";
}

function renderPlayers() {
  const list = clear($("players"));
  for (const p of frame.players) {
    const toMove = frame.to_move === p.seat || (frame.waiting_for || []).includes(p.seat);
    const row = h(
      "li",
      { class: `player${toMove ? " to-move" : ""}${p.seat === seat ? " me" : ""}`, "data-seat": p.seat },
      ballSwatch(colors()[p.seat], 18),
      h("span", { class: "name" }, seatName(p.name)),
      p.seat === seat ? h("span", { class: "me-tag" }, `(${t("players.you")})`) : null,
      h("span", { class: "who" }, p.kind === "agent" ? t("players.agent", { agent: agentName(p.agent) }) : t("players.human")),
      frame.hints && frame.hints.allowed && p.kind !== "agent" ? h("span", { class: "hint-count", title: t("hints.count_title") }, t("hints.count", { count: frame.hints.used[p.seat] || 0 })) : null,
      h("span", { class: `dot ${p.connected ? "on" : "off"}`, title: t(p.connected ? "players.connected" : "players.disconnected") }),
    );
    if (frame.simultaneous && frame.waiting_for && !frame.waiting_for.includes(p.seat)) row.appendChild(h("span", { class: "chosen" }, t("players.chosen")));
    list.appendChild(row);
  }
  const turn = $("turn");
  const code = frame.code || {};
  if (code.code === "over") turn.textContent = t("turn.over");
  else if (code.code === "choose") turn.textContent = t("turn.choose");
  else if (seat !== null && code.seat === seat) turn.textContent = t("turn.mine");
  else turn.textContent = t("turn.other", { name: nameOf(code.seat) });
  turn.className = `turn${seat !== null && frame.legal_moves.length ? " mine" : ""}`;
  if (frame.last_move && !frame.terminal) turn.appendChild(h("div", { class: "last-move" }, t("turn.last_move", { move: frame.last_move })));
}

/** The state of play, worded from the server's code and data (never from its English lines). */
function statusLine() {
  const code = frame.code || {};
  if (code.code === "over") return "";
  if (code.code === "choose") {
    if (code.chosen) return t("status.choose.chosen");
    const others = code.waiting.filter((s) => s !== seat);
    if (others.length < code.waiting.length) return others.length ? t("status.choose.you_and", { names: joinNames(others.map(nameOf)) }) : t("status.choose.you");
    return t("status.choose.waiting", { names: joinNames(code.waiting.map(nameOf)) });
  }
  const key = `status.${code.phase}`;
  return t(t(key) === key ? "status.turn" : key, { name: nameOf(code.seat) });
}

function renderStatus(obs) {
  const status = clear($("status"));
  const line = statusLine();
  if (line) status.appendChild(h("div", { class: "status-line" }, line));
  const counts = ballCounts(frame.board);
  if (counts) status.appendChild(h("div", { class: "status-line muted" }, t("status.counts", { counts })));
  if (obs.offer) status.appendChild(h("div", { class: "status-line offer-line" }, offerText(obs.offer)));
  const marks = marksText(turnMarks(obs), nameOf);
  if (marks) status.appendChild(h("div", { class: "status-line muted marks-line" }, marks));
  if ((frame.open_as || []).length) status.appendChild(openAsRow(frame.open_as));
  const scores = clear($("scores"));
  if (Array.isArray(obs.scores) && obs.scores.length) scores.appendChild(scoreTable(info, obs.scores));
  const privateInfo = clear($("private"));
  if (obs.supply && typeof obs.supply === "object") {
    privateInfo.appendChild(h("div", { class: "supply-title" }, t("supply.mine")));
    privateInfo.appendChild(supplyRow(obs.supply, "supply-mine"));
  }
  if (typeof obs.opponent_supply === "number") {
    const other = frame.players.find((p) => p.seat !== seat);
    privateInfo.appendChild(h("div", { class: "muted" }, t("supply.opponent", { name: other ? seatName(other.name) : "?", count: obs.opponent_supply })));
  }
  if (Array.isArray(obs.supplies)) {
    obs.supplies.forEach((n, i) => privateInfo.appendChild(h("div", { class: "muted" }, t("supply.seat", { name: nameOf(i), count: n }))));
  }
  if (obs.stunned && Object.values(obs.stunned).some((n) => n > 0)) {
    privateInfo.appendChild(h("div", { class: "supply-title" }, t("supply.stunned")));
    privateInfo.appendChild(supplyRow(obs.stunned, "supply-stunned"));
  }
}

/** Links that open this board as a position of each game the server says it is one of (``frame.open_as``). */
function openAsRow(readings) {
  const row = h("div", { class: "status-line open-as" });
  for (const { game, spn } of readings) {
    const query = new URLSearchParams({ game, spn });
    const title = gameTitle(game, game);
    row.append(
      h(
        "div",
        { class: "open-as-game" },
        h("a", { href: `/analysis?${query}`, class: "open-as-link", "data-game": game }, t("open_as.analysis", { game: title })),
        h("a", { href: `/editor?${query}`, class: "open-as-edit muted", "data-game": game }, t("open_as.editor")),
      ),
    );
  }
  return row;
}

/** A result offered and waiting for answers (``offer``: the seat offering, and the seat it names the winner or null for a draw). */
function offerText(offer) {
  const result = offer.winner === null || offer.winner === undefined ? t("offer.draw") : t("offer.win", { name: nameOf(offer.winner) });
  const answering = seat !== null && frame.legal_moves.length > 0;
  return t(answering ? "offer.answer" : "offer.waiting", { name: nameOf(offer.seat), result });
}

function ballCounts(board) {
  const chars = (board || "").replace(/[^wbr]/g, "");
  if (!chars.length) return "";
  return ["w", "b", "r"]
    .map((c) => [c, chars.split(c).length - 1])
    .filter(([, n]) => n > 0)
    .map(([c, n]) => t("status.count", { count: n, color: colorWord(c) }))
    .join(t("list.comma"));
}

function supplyRow(counts, cls) {
  const row = h("div", { class: `supply ${cls}` });
  for (const color of ["w", "b", "r"]) {
    row.appendChild(h("span", { class: "supply-item", "data-color": color }, ballSwatch(color, 22), h("b", {}, String(counts[color] ?? 0))));
  }
  return row;
}

function renderPicker(options, myTurn) {
  const panel = $("picker");
  panel.hidden = !(seat !== null && !frame.terminal);
  const chosen = $("chosen");
  if (frame.your_choice) {
    chosen.hidden = false;
    chosen.replaceChildren(h("span", {}, t("picker.chosen")), choiceChip(frame.your_choice), h("span", { class: "muted" }, t("picker.chosen_wait")));
  } else chosen.hidden = true;
  if (!myTurn) {
    showWords([], []);
    $("selection").textContent = seat === null || frame.your_choice ? "" : sending ? t("picker.sending") : t("picker.waiting");
    $("btn-play").disabled = true;
    $("btn-back").disabled = true;
    $("btn-clear").disabled = true;
    $("hint").textContent = "";
    return;
  }
  showWords([...options.words], hint.shown ? hint.shown.clicks : []);
  const choosing = picker.kind === "choose";
  const onlyWords = options.words.size > 0 && !options.sites.size;
  const prompt = choosing ? "picker.choose" : onlyWords ? "picker.buttons" : options.words.size ? "picker.words" : "picker.prompt";
  let text = picker.empty ? t(prompt) : t("picker.picked", { clicks: picker.selection.map(clickWord).join(" · ") });
  if (options.move) text = t("picker.move", { move: options.move });
  $("selection").textContent = text;
  panel.classList.toggle("choosing", choosing);
  $("btn-play").disabled = !options.complete;
  $("btn-back").disabled = picker.empty;
  $("btn-clear").disabled = picker.empty;
  const more = !picker.empty && (picker.kind === "set" || picker.kind === "sequence" || picker.kind === "words");
  const kind = picker.kind === "words" && onlyWords && picker.empty ? "buttons" : picker.kind;
  $("hint").textContent = kind === "none" ? "" : t(`hint.${kind}${more ? ".more" : ""}`);
}

let wordsShown = null;

/** The word buttons (a secret colour …), rebuilt only when they change (a tap is heard by ``listenForTaps``). */
function showWords(list, suggested) {
  const key = JSON.stringify([list, suggested, t("picker.choose")]);
  if (key === wordsShown) return;
  wordsShown = key;
  const words = clear($("words"));
  for (const word of list) {
    const cls = `choice choice-${word}${suggested.includes(word) ? " suggested" : ""}`;
    words.appendChild(h("button", { class: cls, type: "button", "data-word": word, onclick: (e) => keyboardClick(e) && onWord(word) }, choiceChip(word)));
  }
}

function choiceChip(word) {
  const span = h("span", { class: "chip" });
  const shown = colorWord(word);
  if (shown !== word) span.append(ballSwatch(word, 20), h("span", {}, shown));
  else span.append(h("span", {}, clickWord(word)));
  return span;
}

/** A click's words: a site as it is, a number as the seat it names (a word's argument), a word as the page's table says. */
function clickWord(click) {
  if (isSite(click)) return click;
  if (/^[0-9]+$/.test(click)) return t("click.seat", { n: click, name: nameOf(Number(click) - 1) });
  const shown = colorWord(click);
  if (shown !== click) return shown;
  const key = `click.${click}`;
  return t(key) === key ? click : t(key);
}

function renderHistory(obs) {
  const list = clear($("history"));
  // A game without memory (its observation holds no history) shows no list of earlier moves.
  document.querySelector(".history-box").hidden = !Array.isArray(obs.history);
  const history = Array.isArray(obs.history) ? obs.history : [];
  history.forEach((entry, i) => list.appendChild(h("li", {}, h("span", { class: "ply" }, `${i + 1}.`), " ", entry)));
  keepEndInSight(list); // the latest move is always in sight
}

let resultShown = null;

function renderResult() {
  const box = $("result");
  if (!frame.terminal || !frame.result) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  // Built once per result (and language): a rebuild under a click on one of its links loses the click.
  const shown = JSON.stringify([frame.result, frame.players.map((p) => p.name), seat, frame.hints, t("result.over"), rematchOffered]);
  if (resultShown === shown) return;
  resultShown = shown;
  const aborted = frame.result.reason && frame.result.reason.code === "aborted";
  const outcome = aborted ? "aborted" : resultOutcome(frame.result, seat);
  const hints = frame.hints && frame.hints.allowed && seat !== null ? h("div", { class: "muted result-hints" }, t("hints.used", { count: frame.hints.used[seat] || 0 })) : "";
  clear(box).append(
    h("div", { class: `result-title${outcome === "over" ? "" : ` ${outcome}`}` }, t(`result.${outcome}`)),
    aborted ? "" : h("div", { class: "result-text" }, resultText(frame.result, frame.players)),
    reasonLine(),
    ratingLines(frame.result, frame.players),
    hints,
    rematchRow(),
    h(
      "div",
      { class: "result-links" },
      h("a", { href: `/replay/${gameId}`, class: "button" }, t("links.replay")),
      h("a", { href: `/analysis?record=${encodeURIComponent(gameId)}`, class: "button" }, t("links.analyse")),
      h("a", { href: `/api/games/${gameId}/record`, class: "button", download: `spheria-${gameId}.json` }, t("links.record")),
      h("a", { href: "/", class: "button" }, t("links.new")),
    ),
  );
}

// Resigning asks once more before it ends the game (POST /api/games/{id}/resign, with this seat's credential).
let resignAsked = false;
let rematchOffered = []; // the seats that have offered a rematch of this ended game

function credentialBody() {
  const credential = claimKey && localStorage.getItem(claimKey);
  return credential ? { credential } : {};
}

function renderResign() {
  const row = $("resign-row");
  row.hidden = seat === null || !frame || frame.terminal;
  if (row.hidden) resignAsked = false;
  const ask = h("button", { type: "button", id: "btn-resign", class: "small" }, t("resign.button"));
  ask.addEventListener("click", () => {
    resignAsked = true;
    renderResign();
  });
  const yes = h("button", { type: "button", id: "btn-resign-yes", class: "small danger" }, t("resign.yes"));
  yes.addEventListener("click", () => {
    resignAsked = false;
    post(`/api/games/${encodeURIComponent(gameId)}/resign`, credentialBody()).catch((error) => showMessage(error.message, "error"));
    renderResign();
  });
  const no = h("button", { type: "button", id: "btn-resign-no", class: "small" }, t("resign.no"));
  no.addEventListener("click", () => {
    resignAsked = false;
    renderResign();
  });
  const shown = resignAsked ? "ask" : "button";
  if (row.dataset.shown === `${shown}${t("resign.button")}`) return; // not rebuilt under a finger
  row.dataset.shown = `${shown}${t("resign.button")}`;
  clear(row).append(...(resignAsked ? [h("span", { class: "resign-question" }, t("resign.confirm")), yes, no] : [ask]));
}

/** Offer a rematch, or take the one offered; the seats asked so far, in words. */
function rematchRow() {
  if (seat === null) return "";
  const mine = rematchOffered.includes(seat);
  const others = rematchOffered.filter((s) => s !== seat);
  const label = mine ? "rematch.offered" : others.length ? "rematch.accept" : "rematch.offer";
  const button = h("button", { type: "button", id: "btn-rematch", class: others.length && !mine ? "primary" : "", disabled: mine }, t(label));
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const answer = await post(`/api/games/${encodeURIComponent(gameId)}/rematch`, credentialBody());
      if (answer.invite) return location.assign(answer.invite);
      rematchOffered = answer.offered || [seat];
      resultShown = null;
      render();
    } catch (error) {
      button.disabled = false;
      showMessage(error.message, "error");
    }
  });
  const note = others.length && !mine ? h("span", { class: "rematch-note muted" }, t("rematch.offered_by", { names: joinNames(others.map(nameOf)) })) : "";
  return h("div", { class: "rematch-row" }, button, note);
}

/** Why the game ended, in the page's words (nothing when the game gives no reason). */
function reasonLine() {
  const text = reasonText(frame.result.reason, frame.players, info);
  return text ? h("div", { class: "result-reason", "data-reason": frame.result.reason.code }, text) : "";
}

function showReveal(now) {
  // What the reveal showed and who won it, as the server tells it.
  const reveal = now.reveal;
  const box = $("reveal");
  const verdict = revealVerdict(reveal, nameOf);
  clear(box).append(
    h("div", { class: "reveal-title" }, t("reveal.title")),
    h(
      "div",
      { class: "reveal-chips" },
      reveal.colors.map((color, i) =>
        h("div", { class: `reveal-seat${reveal.winner === i ? " winner" : ""}`, "data-color": color }, h("span", { class: `reveal-ball swatch swatch-${color}` }), h("div", { class: "muted" }, nameOf(i))),
      ),
    ),
    h("div", { class: "reveal-verdict" }, verdict),
  );
  box.hidden = false;
  box.classList.remove("show");
  void box.offsetWidth;
  box.classList.add("show");
  clearTimeout(showReveal.timer);
  showReveal.timer = setTimeout(hideReveal, 2600);
}

function hideReveal() {
  clearTimeout(showReveal.timer);
  $("reveal").hidden = true;
}

connect();

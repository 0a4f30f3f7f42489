// The game page: one websocket to the server, the pyramid, and the panel beside it.

import { PyramidView } from "./board.js";
import { Picker, isSite, moveSites, tokens } from "./moves.js";
import { h, clear, seatColors, ballSwatch, describeOptions, copyButton, absolute } from "./ui.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const token = location.hash.length > 1 ? decodeURIComponent(location.hash.slice(1)) : null;

const $ = (id) => document.getElementById(id);
const view = new PyramidView($("board"), { onClick: onSiteClick, onHover: onSiteHover });

let socket = null;
let seat = null;
let info = null;
let frame = null;
let picker = null;
let reconnectDelay = 500;
let confirmMoves = localStorage.getItem("spheria.confirm") === "1";
let sending = false;
let seatTaken = false;
let fallbacksSeen = -1;
// A seat's invite link is exchanged, on first use, for a credential this browser keeps.
const claimKey = token ? `spheria.claim.${gameId}.${token.slice(0, 16)}` : null;

function joinFrame() {
  const credential = claimKey && localStorage.getItem(claimKey);
  if (credential) return { type: "join", credential };
  return token && !seatTaken ? { type: "join", token } : { type: "join" };
}
let badToken = false;
let previewing = false;

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
$("btn-play").addEventListener("click", () => submit());
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
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(gameId)}`);
  socket.addEventListener("open", () => {
    reconnectDelay = 500;
    socket.send(JSON.stringify(joinFrame()));
  });
  socket.addEventListener("message", (event) => onFrame(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    setConnection("offline");
    if (frame && frame.terminal) return;
    setTimeout(connect, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 8000);
  });
}

function send(data) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(data));
}

function setConnection(state) {
  const node = $("connection");
  node.className = `connection ${state}`;
  node.textContent = { connecting: "connecting…", online: "live", offline: "reconnecting…" }[state] || state;
}

function onFrame(data) {
  if (data.type === "claimed") {
    if (claimKey) localStorage.setItem(claimKey, data.credential);
  } else if (data.type === "presence") {
    if (frame) {
      frame.players = data.players;
      render();
    }
  } else if (data.type === "welcome") {
    seat = data.seat;
    info = data.game;
    setConnection("online");
    document.title = `${info.title} · Spheria`;
    $("title").textContent = info.title;
    $("options").textContent = describeOptions(info.options);
    $("role").textContent = seatTaken
      ? "This seat was already taken by another browser: watching"
      : badToken
        ? "This invite link is not valid: watching"
        : seat === null
          ? "Watching"
          : `You play ${info.players[seat].name}`;
    $("links").hidden = false;
    $("spectate-copy").replaceChildren(copyButton(absolute(`/game/${gameId}`), "Copy watch link"));
  } else if (data.type === "state") {
    const previous = frame;
    frame = data;
    if (!previous || previous.version !== frame.version || !picker || samePickerChanged(previous, frame)) {
      picker = new Picker(info ? info.game : "", frame);
      sending = false;
    }
    if (previous && previous.simultaneous && previous.version !== frame.version) reveal(previous, frame);
    render();
    showFallback(frame.fallbacks || []);
  } else if (data.type === "preview") {
    previewing = false;
    if (picker && data.version === frame.version) {
      picker.preview = { text: data.move, ok: data.ok, board: data.board, error: data.error, completions: data.completions };
      if (!data.ok && picker.mode === "set" && picker.selection.length > 1) showMessage(data.error, "warn");
      if (picker.mode === "spinca" && !data.ok && (!data.completions || !data.completions.length)) {
        showMessage(data.error || "no placement follows that relocation", "warn");
        picker.back();
      }
      render();
      if (picker.options().final && !confirmMoves) submit();
    }
  } else if (data.type === "error") {
    sending = false;
    if (data.code === "bad_token") badToken = true;
    if (data.code === "bad_token" && !info) send({ type: "join" });
    if (data.code === "seat_taken") seatTaken = true;
    if (data.code === "bad_credential" && claimKey) localStorage.removeItem(claimKey);
    if ((data.code === "seat_taken" || data.code === "bad_credential") && !info) send(joinFrame());
    previewing = false;
    if (data.code !== "seat_taken") showMessage(data.message, "error"); // the role line says it
    if (picker && data.code === "illegal_move") picker.clear();
    render();
  }
}

const FALLBACK_WORDS = {
  agent_timeout: "took too long; a random move was played for it",
  agent_failed: "failed; a random move was played for it",
  agent_illegal_move: "chose an illegal move; a random move was played for it",
};

function showFallback(fallbacks) {
  const latest = fallbacks[fallbacks.length - 1];
  if (fallbacksSeen >= 0 && latest && latest.ply >= fallbacksSeen && info) {
    const player = info.players[latest.seat];
    showMessage(`${player ? player.name : "An agent"}'s agent ${FALLBACK_WORDS[latest.code] || latest.code}`, "warn");
  }
  fallbacksSeen = latest ? latest.ply + 1 : Math.max(fallbacksSeen, 0);
}

function samePickerChanged(a, b) {
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
    if (frame && frame.legal_moves.length && picker.empty) showMessage(`${name} is not a move now`, "warn");
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
  if (picker.wantsPreview()) {
    previewing = true;
    send({ type: "preview", move: picker.text(), complete: picker.mode === "spinca" });
  }
  render();
  const o = picker.options();
  if (o.final && !confirmMoves && !picker.wantsPreview()) submit();
}

function onSiteHover(name) {
  const node = $("hover");
  node.textContent = name ? `site ${name}` : "";
}

function submit() {
  if (!picker || sending) return;
  const o = picker.options();
  if (!o.complete) return;
  sending = true;
  send({ type: "move", move: picker.text(), version: frame.version });
  render();
}

function ghostColor() {
  if (!frame || !info || seat === null) return null;
  const obs = frame.observation || {};
  if (info.game === "special-cake") return obs.phase === "place" ? seatColors(info.game, info.options, 2)[seat] : null;
  if (info.game === "spagyric") return obs.phase === "place" && obs.placer === seat ? obs.placing : null;
  return seatColors(info.game, info.options, info.players.length)[seat];
}

function render() {
  if (!frame || !info) return;
  const obs = frame.observation || {};
  const options = picker ? picker.options() : { sites: new Set(), words: new Set(), complete: false };
  const myTurn = seat !== null && frame.legal_moves.length > 0 && !sending;
  const preview = picker ? picker.previewBoard() : null;
  const locked = new Set(obs.locked || []);
  // State for people who script the page (and the browser tests): what it shows now.
  document.body.dataset.version = `${frame.version}${frame.your_choice ? "c" : ""}`;
  document.body.dataset.mode = picker ? picker.mode : "";
  document.body.dataset.previewing = previewing ? "1" : "0";
  document.body.dataset.selection = picker ? String(picker.selection.length) : "0";
  document.body.dataset.sending = sending ? "1" : "0";
  view.render({
    board: frame.board,
    targets: myTurn ? options.sites : new Set(),
    selected: picker ? picker.selection.filter(isSite) : [],
    lastMove: moveSites(frame.last_move),
    locked,
    preview,
    stripBoard: picker && picker.mode === "spinca" ? preview : null,
    ghostColor: ghostColor(),
    marked: winningSites(obs),
  });
  renderPlayers();
  renderStatus(obs);
  renderPicker(options, myTurn);
  renderHistory(obs);
  renderResult();
}

function winningSites(obs) {
  // A result that names sites (Spline: the winning line) has them outlined.
  if (!frame.terminal) return new Set();
  return new Set(obs.winning_line || moveSites(frame.result ? frame.result.text : ""));
}

function renderPlayers() {
  const list = clear($("players"));
  const colors = seatColors(info.game, info.options, frame.players.length);
  for (const p of frame.players) {
    const toMove = frame.to_move === p.seat || (frame.waiting_for || []).includes(p.seat);
    const row = h(
      "li",
      { class: `player${toMove ? " to-move" : ""}${p.seat === seat ? " me" : ""}`, "data-seat": p.seat },
      ballSwatch(colors[p.seat], 18),
      h("span", { class: "name" }, p.name),
      h("span", { class: "who" }, p.kind === "agent" ? `agent ${p.agent}` : p.seat === seat ? "you" : "human"),
      h("span", { class: `dot ${p.connected ? "on" : "off"}`, title: p.connected ? "connected" : "not connected" }),
    );
    if (frame.simultaneous && frame.waiting_for && !frame.waiting_for.includes(p.seat)) {
      row.appendChild(h("span", { class: "chosen" }, "chosen"));
    }
    list.appendChild(row);
  }
  const turn = $("turn");
  if (frame.terminal) turn.textContent = "Game over";
  else if (frame.simultaneous) turn.textContent = "Everyone chooses in secret";
  else if (seat !== null && frame.to_move === seat) turn.textContent = "Your turn";
  else turn.textContent = `${frame.players[frame.to_move] ? frame.players[frame.to_move].name : "?"} to play`;
  turn.className = `turn${seat !== null && frame.legal_moves.length ? " mine" : ""}`;
  if (frame.last_move && !frame.terminal) turn.appendChild(h("div", { class: "last-move" }, `last move: ${frame.last_move}`));
}

function renderStatus(obs) {
  const status = clear($("status"));
  for (const line of frame.status || []) {
    if (Array.isArray(obs.scores) && /^(Faces|Smallest group)/.test(line)) break; // the table below shows them
    status.appendChild(h("div", { class: "status-line" }, line));
  }
  const scores = clear($("scores"));
  if (Array.isArray(obs.scores) && obs.scores.length) {
    const colors = seatColors(info.game, info.options, frame.players.length);
    const sides = obs.scores.length;
    const names = sides === 2 && frame.players.length === 4 ? ["White team", "Black team"] : frame.players.map((p) => p.name);
    const sideColors = sides === 2 ? ["w", "b"] : colors;
    const table = h(
      "table",
      { class: "scores" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), ...["S", "E", "N", "W"].map((f) => h("th", { title: "face" }, f)), h("th", {}, "sum"), h("th", { title: "inner pyramid marbles" }, "inner"))),
      h(
        "tbody",
        {},
        obs.scores.map((s, i) =>
          h(
            "tr",
            {},
            h("td", {}, ballSwatch(sideColors[i], 12), " ", names[i] || `side ${i + 1}`),
            ...(s.faces || []).map((f) => h("td", {}, String(f))),
            h("td", { class: "total" }, String(s.total)),
            h("td", {}, String(s.inner)),
          ),
        ),
      ),
    );
    scores.appendChild(table);
  }
  const privateInfo = clear($("private"));
  if (obs.supply && typeof obs.supply === "object") {
    privateInfo.appendChild(h("div", { class: "supply-title" }, "Your balls in hand"));
    privateInfo.appendChild(supplyRow(obs.supply, "supply-mine"));
  }
  if (typeof obs.opponent_supply === "number") {
    const other = frame.players.find((p) => p.seat !== seat);
    privateInfo.appendChild(h("div", { class: "muted" }, `${other ? other.name : "Opponent"} holds ${obs.opponent_supply} balls (colours hidden)`));
  }
  if (Array.isArray(obs.supplies)) {
    obs.supplies.forEach((n, i) => privateInfo.appendChild(h("div", { class: "muted" }, `${frame.players[i].name} holds ${n} balls`)));
  }
  if (obs.stunned && Object.values(obs.stunned).some((n) => n > 0)) {
    privateInfo.appendChild(h("div", { class: "supply-title" }, "Stunned this turn"));
    privateInfo.appendChild(supplyRow(obs.stunned, "supply-stunned"));
  }
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
  const words = clear($("words"));
  const chosen = $("chosen");
  if (frame.your_choice) {
    chosen.hidden = false;
    chosen.replaceChildren(h("span", {}, "Your secret choice: "), choiceChip(frame.your_choice), h("span", { class: "muted" }, " — waiting for the reveal"));
  } else chosen.hidden = true;
  if (!myTurn) {
    $("selection").textContent = seat === null ? "" : frame.your_choice ? "" : sending ? "sending…" : "Waiting for the other side…";
    $("btn-play").disabled = true;
    $("btn-back").disabled = true;
    $("btn-clear").disabled = true;
    $("hint").textContent = "";
    return;
  }
  for (const word of [...options.words].sort()) {
    words.appendChild(h("button", { class: `choice choice-${word}`, type: "button", "data-word": word, onclick: () => onWord(word) }, choiceChip(word)));
  }
  const text = picker.text();
  const prompt = options.words.size && !options.sites.size ? "Choose a ball in secret" : "Pick a highlighted site";
  $("selection").textContent = picker.empty ? prompt : `Move: ${text}`;
  $("picker").classList.toggle("choosing", options.words.size > 0 && !options.sites.size);
  $("btn-play").disabled = !options.complete;
  $("btn-back").disabled = picker.empty;
  $("btn-clear").disabled = picker.empty;
  $("hint").textContent = frame.hint ? `Write ${frame.hint}.` : "";
}

const COLOR_WORDS = { w: "w", white: "w", b: "b", black: "b", r: "r", red: "r" };
const COLOR_LABELS = { w: "white", b: "black", r: "red" };
const BEATS = { w: "b", b: "r", r: "w" };

function choiceChip(word) {
  const parts = tokens(word);
  const span = h("span", { class: "chip" });
  for (const part of parts.length ? parts : [word]) {
    const color = COLOR_WORDS[part.toLowerCase()];
    if (color) span.appendChild(ballSwatch(color, 20));
    span.appendChild(h("span", {}, color && part.length === 1 ? COLOR_LABELS[color] : part));
  }
  return span;
}

function renderHistory(obs) {
  const list = clear($("history"));
  // Spagyric's memory rule: people are shown no list of earlier reveals.
  document.querySelector(".history-box").hidden = !Array.isArray(obs.history);
  const history = Array.isArray(obs.history) ? obs.history : [];
  history.forEach((entry, i) => list.appendChild(h("li", {}, h("span", { class: "ply" }, `${i + 1}.`), " ", entry)));
  list.scrollTop = list.scrollHeight;
}

function renderResult() {
  const box = $("result");
  if (!frame.terminal || !frame.result) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const mine = seat !== null && frame.result.winners.includes(seat);
  const lost = seat !== null && frame.result.winners.length && !mine;
  clear(box).append(
    h("div", { class: `result-title${mine ? " won" : lost ? " lost" : ""}` }, mine ? "You win!" : lost ? "You lose" : "Game over"),
    h("div", { class: "result-text" }, frame.result.text),
    h(
      "div",
      { class: "result-links" },
      h("a", { href: `/replay/${gameId}`, class: "button" }, "Replay"),
      h("a", { href: `/api/games/${gameId}/record`, class: "button", download: `spheria-${gameId}.json` }, "Download record"),
      h("a", { href: "/", class: "button" }, "New game"),
    ),
  );
}

function reveal(previous, now) {
  // What was revealed: from the game's public record of the reveal when it is shown, otherwise
  // from what the reveal did (Spagyric: the placer's ball beat the other; equal balls are stunned).
  const before = previous.observation || {};
  const after = now.observation || {};
  const names = now.players.map((p) => p.name);
  const shown = [];
  if (after.phase === "place" && after.placing && after.placer !== null && after.placer !== undefined) {
    shown[after.placer] = after.placing;
    shown[1 - after.placer] = BEATS[after.placing];
  } else if (after.stunned && before.stunned) {
    const color = ["w", "b", "r"].find((c) => (after.stunned[c] || 0) > (before.stunned[c] || 0));
    if (color) shown.push(color, color);
  }
  if (shown.length !== 2 && now.last_move) shown.push(...tokens(now.last_move).slice(0, 2).map((t) => COLOR_WORDS[t] || t));
  if (shown.length !== 2) return;
  const box = $("reveal");
  const verdict = shown[0] === shown[1] ? "Same colour: both balls are stunned" : `${COLOR_LABELS[after.placing] || ""} wins the reveal`;
  clear(box).append(
    h("div", { class: "reveal-title" }, "Reveal"),
    h(
      "div",
      { class: "reveal-chips" },
      shown.map((color, i) => h("div", { class: "reveal-seat" }, h("span", { class: `reveal-ball swatch swatch-${color}` }), h("div", { class: "muted" }, names[i]))),
    ),
    h("div", { class: "reveal-verdict" }, verdict),
  );
  box.hidden = false;
  box.classList.remove("show");
  void box.offsetWidth;
  box.classList.add("show");
  clearTimeout(reveal.timer);
  reveal.timer = setTimeout(() => (box.hidden = true), 2600);
}

connect();

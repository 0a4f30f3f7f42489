// The replay page: every position of a finished game, with step controls.

import { PyramidView, turnMarks, marksText } from "./board.js";
import { moveSites } from "./moves.js";
import { t, translatePage, onLanguageChange, gameTitle, seatName, agentName } from "./messages.js";
import { ClockView, recordedClock, recordedUse } from "./clock.js";
import { h, clear, api, describeOptions, seatColors, ballSwatch, showHowTo, scoreTable, keepInSight, keepEndInSight, resultText } from "./ui.js";

translatePage(); // static labels from the message table

const $ = (id) => document.getElementById(id);
const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const view = new PyramidView($("board"));
let data = null;
let record = null; // the game's record: its time control and each move's clocks
// Each seat's clock after the move shown, from the record (hidden in an untimed game).
const clockBox = h("div", { id: "clocks", class: "clocks replay-clocks", hidden: true });
$("status").before(clockBox);
const clocks = new ClockView(clockBox);
let index = 0;
let timer = null;

async function start() {
  [data, record] = await Promise.all([api(`/api/games/${encodeURIComponent(gameId)}/replay`), api(`/api/games/${encodeURIComponent(gameId)}/record`)]);
  renderHeading();
  $("download").href = `/api/games/${gameId}/record`;
  $("download").setAttribute("download", `spheria-${gameId}.json`);
  const slider = $("slider");
  slider.max = String(data.steps.length - 1);
  slider.addEventListener("input", () => go(Number(slider.value)));
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(index - 1));
  $("next").addEventListener("click", () => go(index + 1));
  $("last").addEventListener("click", () => go(data.steps.length - 1));
  $("play").addEventListener("click", toggle);
  $("top-toggle").addEventListener("change", (e) => view.setTopView(e.target.checked));
  $("btn-turn").addEventListener("click", () => view.turn());
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") go(index - 1);
    else if (e.key === "ArrowRight") go(index + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(data.steps.length - 1);
    else if (e.key === " ") {
      e.preventDefault();
      toggle();
    }
  });
  const history = clear($("history"));
  data.moves.forEach((m, i) => {
    const used = recordedUse(record, i).map((u) => h("span", { class: "muted move-used", "data-seat": u.seat }, ` ${u.text}`));
    history.appendChild(h("li", { "data-step": i + 1, onclick: () => go(i + 1) }, h("span", { class: "ply" }, `${i + 1}.`), " ", m, ...used));
  });
  go(0);
}

/** The title, the options, the players and the How to play (again after a switch of language). */
function renderHeading() {
  $("title").textContent = gameTitle(data.game.game, data.game.title);
  $("options").textContent = describeOptions(data.game.options);
  const colors = seatColors(data.game, data.game.players.length);
  const players = clear($("players"));
  const hints = data.hints && data.hints.allowed ? data.hints.used : null;
  for (const p of data.game.players) {
    const who = h("span", { class: "who" }, p.kind === "agent" ? t("players.agent", { agent: agentName(p.agent) }) : t("players.human"));
    const used = hints && p.kind !== "agent" ? h("span", { class: "hint-count", title: t("hints.count_title") }, t("hints.count", { count: hints[p.seat] || 0 })) : null;
    players.appendChild(h("li", { class: "player", "data-seat": p.seat }, ballSwatch(colors[p.seat], 18), h("span", { class: "name" }, seatName(p.name)), who, used));
  }
  showHowTo($("howto"), data.game.game);
}

onLanguageChange(() => {
  if (!data) return;
  renderHeading();
  $("play").textContent = t(timer ? "replay.pause" : "replay.play");
  go(index);
});

function toggle() {
  if (timer) {
    clearInterval(timer);
    timer = null;
    $("play").textContent = t("replay.play");
    return;
  }
  if (index >= data.steps.length - 1) go(0);
  $("play").textContent = t("replay.pause");
  timer = setInterval(() => {
    if (index >= data.steps.length - 1) toggle();
    else go(index + 1);
  }, 700);
}

function go(i) {
  index = Math.max(0, Math.min(data.steps.length - 1, i));
  const step = data.steps[index];
  $("slider").value = String(index);
  $("analyse").href = `/analysis?record=${encodeURIComponent(gameId)}&at=${index}`; // this move on the analysis board
  $("step").textContent = t("replay.step", { index, total: data.steps.length - 1 });
  const obs = step.observation || {};
  const last = index === data.steps.length - 1;
  const marked = new Set(last && data.result ? data.result.sites || [] : []);
  const marks = turnMarks(obs);
  clocks.update(recordedClock(record, index), data.game.players.map((p) => seatName(p.name)), null, true);
  view.render({ board: step.board, lastMove: moveSites(step.last_move), locked: new Set(obs.locked || []), marked, turnMarks: marks.sites });
  const status = clear($("status"));
  if (last && data.result) status.appendChild(h("div", { class: "status-line" }, resultText(data.result, data.game.players)));
  else if (last && Number.isInteger(record.lost_on_time)) status.appendChild(h("div", { class: "status-line" }, t("reason.time", { name: seatName(data.game.players[record.lost_on_time].name) })));
  else if (step.last_move) status.appendChild(h("div", { class: "status-line muted" }, t("turn.last_move", { move: step.last_move })));
  const legend = marksText(marks, (s) => (data.game.players[s] ? seatName(data.game.players[s].name) : "?"));
  if (legend) status.appendChild(h("div", { class: "status-line muted marks-line" }, legend));
  const scores = clear($("scores"));
  if (Array.isArray(obs.scores) && obs.scores.length) scores.appendChild(scoreTable(data.game, obs.scores));
  const list = $("history");
  for (const li of list.children) li.classList.toggle("current", Number(li.dataset.step) === index);
  const current = list.querySelector(".current");
  // Keep the current move in sight inside the list only (the page itself does not scroll); at the end, the end.
  if (last) keepEndInSight(list);
  else if (current) keepInSight(list, current);
  else list.closest(".history-scroll").scrollTop = -list.scrollHeight; // the start
}

start().catch((error) => ($("status").textContent = t("replay.failed", { error: error.message })));

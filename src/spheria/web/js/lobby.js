// The lobby: who you are, the open challenges (live over /ws/lobby), your games, who is online,
// the new game form (a private game with invite links, or a challenge posted to everyone), games
// in play and finished games. Everything the server sends about people is shown as text (h()).

import { t, translatePage, onLanguageChange, currentLanguage, gameTitle, seatName, agentName, levelWords } from "./messages.js";
import { h, clear, api, renderOptionInputs, optionValues, showResolvedDefaults, describeOptions, copyButton, absolute, savedInvites, saveInvites, seatColors, ballSwatch, resultText, refusalText, showHowTo, socketUrl } from "./ui.js";
import { me, loadSession, send, playerLink, renderAccount, searchBox } from "./account.js";
import { controlText, clockText } from "./clock.js";

translatePage(); // static labels from the message table

const $ = (id) => document.getElementById(id);
let catalog = null;
let controls = null; // the time controls the server offers: each game's presets and a custom one's limits
let checkTimer = null;
let seatNames = [];
let created = null; // the last game made here, whose links stay shown
let chosen = false; // whether the player chose the game or its options (then the link keeps them)

async function start() {
  [catalog, controls] = await Promise.all([api("/api/catalog"), api("/api/time-controls")]);
  await loadSession(); // who this browser is, and the CSRF token every change carries
  const select = $("game");
  for (const game of catalog.games) select.appendChild(h("option", { value: game.name }, gameTitle(game.name, game.title)));
  const query = new URLSearchParams(location.search);
  const wanted = query.get("game");
  const known = wanted && catalog.games.some((g) => g.name === wanted);
  select.value = known ? wanted : catalog.default; // the game Spheria offers first
  showTitles();
  select.addEventListener("change", () => {
    chosen = true;
    renderOptions();
    renderClockChoices();
    check();
  });
  $("clock").addEventListener("change", syncClockCustom);
  renderClockChoices();
  $("link-howto").addEventListener("click", () => ($("howto").open = true));
  $("new-game").addEventListener("submit", create);
  chosen = Boolean(known);
  renderOptions(known ? parseOptionText(query.get("options") || "") : {});
  await check();
  await refreshGames();
  setInterval(refreshGames, 5000);
  await startPeople();
}

/** Every game's title in a line under the heading, in the page's language, as the server lists them. */
function showTitles() {
  $("titles").textContent = catalog.games.map((g) => gameTitle(g.name, g.title)).join(" · ");
}

function currentGame() {
  return catalog.games.find((g) => g.name === $("game").value);
}

// A switch of language re-words the form (keeping what was chosen), the links and the lists.
onLanguageChange(() => {
  if (!catalog) return;
  for (const option of $("game").options) option.textContent = gameTitle(option.value);
  showTitles();
  renderOptions(options());
  renderClockChoices();
  check();
  if (created) showCreated(created);
  if (lastGames) renderGames(lastGames); // at once, in the new words; then fresh from the server
  refreshGames();
  rewordPeople();
});

/** The option inputs of the chosen game; ``keep`` (name: value) what the player had chosen. */
function renderOptions(keep = {}) {
  renderOptionInputs($("option-rows"), currentGame(), keep, () => {
    chosen = true;
    check();
  });
}

/** "k=v,k=v" (the links' options) as an object. */
function parseOptionText(text) {
  const out = {};
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    if (at > 0) out[decodeURIComponent(pair.slice(0, at))] = decodeURIComponent(pair.slice(at + 1));
  }
  return out;
}

/** The options as the links write them: k=v,k=v. */
function optionText(values) {
  return Object.entries(values)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join(",");
}

function options() {
  return optionValues();
}

// ---- The time control: one of the game's presets, or a custom base + increment ----------------

const CUSTOM = "custom";

/** The chosen game's presets (its control's written form as the value), and "custom"; the choice kept. */
function renderClockChoices() {
  const select = $("clock");
  const before = select.value;
  clear(select);
  for (const preset of controls.games[$("game").value] || []) select.appendChild(h("option", { value: preset.control, "data-clock": JSON.stringify(preset.clock) }, controlText(preset.clock)));
  select.appendChild(h("option", { value: CUSTOM }, t("clock.custom")));
  select.value = [...select.options].some((o) => o.value === before) ? before : select.options[0].value;
  $("clock-note").textContent = t("clock.custom_note", { low: controls.base[0], high: controls.base[1] / 60, most: controls.increment });
  syncClockCustom();
}

function syncClockCustom() {
  $("clock-custom").hidden = $("clock").value !== CUSTOM;
}

class ClockChoiceError extends Error {}

/** The chosen time control as the API takes it (null: untimed); a custom one out of the limits throws. */
function chosenClock() {
  const select = $("clock");
  if (select.value !== CUSTOM) return JSON.parse(select.selectedOptions[0].dataset.clock);
  const whole = (id) => (/^\d+$/.test($(id).value.trim()) ? Number($(id).value) : NaN);
  const base = whole("clock-minutes") * 60 + whole("clock-seconds");
  const increment = whole("clock-increment");
  const fits = base >= controls.base[0] && base <= controls.base[1] && increment >= 0 && increment <= controls.increment;
  if (!fits) throw new ClockChoiceError(t("clock.bad_custom", { low: controls.base[0], high: controls.base[1] / 60, most: controls.increment }));
  return { base, increment };
}

/** The error a refused or impossible creation shows. */
function creationError(error) {
  return error instanceof ClockChoiceError ? error.message : refusalText(error);
}

let checkSerial = 0; // answers to earlier checks (slow, out of order) describe a game no longer chosen

async function check() {
  clearTimeout(checkTimer);
  const serial = ++checkSerial;
  $("form-error").textContent = "";
  try {
    const result = await api("/api/check", { method: "POST", body: JSON.stringify({ game: $("game").value, options: options() }) });
    if (serial !== checkSerial) return;
    seatNames = result.players;
    showResolvedDefaults($("option-rows"), result.options);
    showLinks(result);
    renderSeats(result);
    renderChallengeSeats(result);
    $("create").disabled = false;
  } catch (error) {
    if (serial !== checkSerial) return;
    $("form-error").textContent = refusalText(error);
    $("create").disabled = true;
  }
}

/** The ways to the other pages, for the game chosen with its options: the analysis board, the
 * position editor, and how to play it (shown here, under the form). */
function showLinks(result) {
  const query = `game=${encodeURIComponent(result.game)}&options=${optionText(result.options)}`;
  $("link-analysis").href = `/analysis?${query}`;
  $("link-editor").href = `/editor?${query}`;
  showHowTo($("howto"), result.game);
  // A game the player chose stays in the lobby's link: Back from the board or the editor keeps it.
  if (chosen && location.search !== `?${query}`) history.replaceState(null, "", `/?${query}`);
}

/** The level a seat is given by default: the middle one (or the strongest there is below it). */
const DEFAULT_LEVEL = 3;

function renderSeats(result) {
  const rows = $("seat-rows");
  // Seats that would come back the same are not rebuilt: a rebuild under a player's finger takes
  // the focus, and the text being typed, from the seat's options (every option change asks again).
  const shape = JSON.stringify([$("game").value, currentLanguage(), result.players, result.levels, result.agents, seatColors(result, result.players.length)]);
  if (rows.dataset.shape === shape) return;
  rows.dataset.shape = shape;
  const previous = [...rows.querySelectorAll("select.seat-kind")].map((s) => s.value);
  const specs = [...rows.querySelectorAll("input.seat-agent")].map((s) => s.value);
  clear(rows);
  const colors = seatColors(result, result.players.length);
  // Levels first (as words, with the time each takes a move), then under "advanced" the agents
  // by spec: only those that can play this game with these options.
  const levels = result.levels || [];
  const agents = result.agents || [];
  result.players.forEach((name, i) => {
    const kind = h("select", { class: "seat-kind", "data-seat": i, "aria-label": seatName(name) });
    kind.appendChild(h("option", { value: "human" }, t("lobby.human")));
    if (levels.length) {
      const group = h("optgroup", { label: t("lobby.levels") });
      for (const level of levels) group.appendChild(h("option", { value: level.spec }, t("lobby.level", { ...level, words: levelWords(level.level) })));
      kind.appendChild(group);
    }
    if (agents.length) {
      const group = h("optgroup", { label: t("lobby.advanced") });
      for (const agent of agents) group.appendChild(h("option", { value: `agent:${agent}` }, t("lobby.agent", { agent: agentName(agent) })));
      kind.appendChild(group);
    }
    const middle = levels.filter((level) => level.level <= DEFAULT_LEVEL).pop();
    const fallback = i === 0 ? "human" : middle ? middle.spec : agents.length ? `agent:${agents[0]}` : "human";
    kind.value = previous[i] && [...kind.options].some((o) => o.value === previous[i]) ? previous[i] : fallback;
    const spec = h("input", { type: "text", class: "seat-agent", "data-seat": i, placeholder: t("lobby.agent_options"), "aria-label": t("lobby.agent_options"), value: specs[i] || "" });
    const showSpec = () => {
      spec.hidden = !kind.value.startsWith("agent:"); // options belong to an agent given by spec
    };
    kind.addEventListener("change", () => {
      showSpec();
      syncHints();
    });
    showSpec();
    rows.appendChild(h("div", { class: "seat-row" }, h("span", { class: "seat-label" }, ballSwatch(colors[i], 18), h("span", { class: "seat-name" }, seatName(name))), kind, spec));
  });
  syncHints(); // once every seat is back: judged on half-built rows, a ticked box would be cleared
  rows.dataset.game = $("game").value; // which game these seats are for (answers come back late)
}

/** Hints are offered only for one person against agents (the server refuses them otherwise). */
function hintsFit() {
  const kinds = [...document.querySelectorAll("select.seat-kind")].map((s) => s.value);
  return kinds.filter((k) => k === "human").length === 1 && kinds.length > 1;
}

function syncHints() {
  const box = $("hints");
  const fits = hintsFit();
  box.disabled = !fits;
  if (!fits) box.checked = false;
  $("hints-note").hidden = fits;
}

function seats() {
  const kinds = [...document.querySelectorAll("select.seat-kind")];
  const specs = [...document.querySelectorAll("input.seat-agent")];
  return kinds.map((kind, i) => {
    if (kind.value === "human") return { kind: "human" };
    if (!kind.value.startsWith("agent:")) return { kind: "agent", agent: kind.value }; // a level
    const agent = kind.value.slice("agent:".length);
    const extra = specs[i].value.trim();
    return { kind: "agent", agent: extra ? `${agent}:${extra}` : agent };
  });
}

async function create(event) {
  event.preventDefault();
  $("form-error").textContent = "";
  $("create").disabled = true;
  try {
    // Sent with the CSRF token: the game is filed under the signed-in player (their games).
    const result = await send("/api/games", "POST", { game: $("game").value, options: options(), seats: seats(), hints: $("hints").checked, clock: chosenClock() });
    // Only the creator's own seat (the first human one) and the watch link stay in this browser:
    // the first browser to open a seat's link takes that seat. The owner credential re-issues links.
    const own = result.seats.find((s) => s.invite);
    saveInvites(result.id, own ? [own] : [], result.owner);
    if (own && result.seats.every((s) => s === own || s.kind === "agent")) {
      location.href = own.invite; // one person against agents: nobody to send a link to, so straight to the seat
      return;
    }
    showCreated(result);
    refreshGames();
  } catch (error) {
    $("form-error").textContent = creationError(error);
  } finally {
    $("create").disabled = false;
  }
}

function inviteRows(gameId, seatList) {
  const rows = [];
  for (const s of seatList) {
    if (!s.invite) continue;
    const url = absolute(s.invite);
    rows.push(
      h("div", { class: "invite", "data-seat": s.seat }, h("b", {}, seatName(s.name)), h("code", { title: url }, url), copyButton(url), h("a", { href: s.invite, class: "button small open-seat" }, t("lobby.open"))),
    );
  }
  rows.push(h("div", { class: "invite" }, h("b", {}, t("lobby.watch")), h("code", {}, absolute(`/game/${gameId}`)), copyButton(absolute(`/game/${gameId}`))));
  return rows;
}

function showCreated(result) {
  created = result;
  const box = clear($("created"));
  box.append(
    h("h3", {}, t("lobby.created")),
    h("p", { class: "muted" }, t("lobby.secret")),
    ...inviteRows(result.id, result.seats),
  );
}

/** The games list as last fetched, so a switch of language re-words it at once. */
let lastGames = null;

async function refreshGames() {
  let fresh;
  try {
    const [games, clocks] = await Promise.all([api("/api/games"), api("/api/clocks")]);
    fresh = { ...games, clocks: clocks.games };
  } catch {
    return;
  }
  // Unchanged lists are not rebuilt: a rebuild under a click on one of their links loses the click.
  const same = lastGames && JSON.stringify(fresh) === JSON.stringify(lastGames);
  lastGames = fresh;
  if (!same) renderGames(lastGames);
}

function renderGames(data) {
  const invites = savedInvites();
  const active = clear($("active-games").tBodies[0]);
  const finished = clear($("finished-games").tBodies[0]);
  let nActive = 0;
  let nFinished = 0;
  for (const game of data.games) {
    const colors = seatColors(game, game.players.length);
    const seatsCell = h(
      "td",
      { class: "seats" },
      game.players.map((p) => h("span", {}, ballSwatch(colors[p.seat], 12), " ", seatName(p.name), " ", h("span", { class: "muted" }, p.kind === "agent" ? `(${agentName(p.agent)})` : `(${t("players.human")})`))),
    );
    const title = h("td", {}, h("b", {}, gameTitle(game.game, game.title)), h("div", { class: "muted" }, describeOptions(game.options)));
    if (game.status === "finished") {
      nFinished++;
      finished.appendChild(
        h(
          "tr",
          { "data-game": game.id },
          title,
          seatsCell,
          h("td", {}, game.result ? resultText(game.result, game.players) : ""),
          h("td", {}, h("a", { href: `/replay/${game.id}`, class: "button small" }, t("links.replay")), " ", h("a", { href: `/api/games/${game.id}/record`, class: "button small", download: `spheria-${game.id}.json` }, t("links.record"))),
        ),
      );
    } else {
      nActive++;
      const mine = invites[game.id];
      const links = h("td", { class: "links-cell" }, h("a", { href: `/game/${game.id}`, class: "button small" }, t("lobby.watch")));
      if (mine) for (const s of mine) if (s.invite) links.append(" ", h("a", { href: s.invite, class: "button small" }, t("lobby.play", { name: seatName(s.name) })));
      const timed = data.clocks[game.id];
      const plies = h("td", { class: "muted plies" }, t("lobby.moves", { count: game.plies }), timed ? h("div", { class: "game-clock" }, controlText(timed.clock)) : null);
      active.appendChild(h("tr", { "data-game": game.id }, title, seatsCell, plies, links));
    }
  }
  $("no-active").hidden = nActive > 0;
  $("no-finished").hidden = nFinished > 0;
}


// ---- People: who you are, open challenges, your games, who is online ----------------------------

const FOLLOWING = "spheria.following";
/** The open challenges this lobby sees, by id (kept live by the lobby socket). */
const challenges = new Map();
/** The game of every challenge seen (a taken one leaves the list before its game_ready comes). */
const challengeGames = new Map();
let lobbySocket = null;
let reconnectTimer = null;

async function startPeople() {
  renderAccount($("account"), signedChanged);
  renderFollowing();
  renderQuick();
  syncRated();
  $("post-challenge").addEventListener("submit", postChallenge);
  searchBox($("player-search"), $("player-prefix"), $("player-results"));
  connectLobby(); // its first frame, and each change after, say who is online (no polling)
  offerNotifications();
  await refreshMyGames();
  setInterval(refreshMyGames, 10000);
}

/** After a sign-in or sign-out: the socket learns who we are only at its handshake. */
function signedChanged() {
  waitingBefore = null; // another player's games are no news
  syncRated();
  renderChallenges();
  refreshMyGames();
  if (lobbySocket) lobbySocket.close(); // reopened at once, as the new player (its hello says who is online)
}

function rewordPeople() {
  renderAccount($("account"), signedChanged);
  renderFollowing();
  renderQuick();
  renderChallenges();
  if (lastPresence) renderPresence(lastPresence);
  if (lastMyGames) renderMyGames(lastMyGames);
}

/** The games whose challenges this lobby shows (every game until the person unticks some). */
function followed() {
  try {
    const stored = JSON.parse(localStorage.getItem(FOLLOWING) || "null");
    if (Array.isArray(stored)) return stored.filter((name) => catalog.games.some((g) => g.name === name));
  } catch {
    // nothing kept: every game
  }
  return catalog.games.map((g) => g.name);
}

function renderFollowing() {
  const box = clear($("following"));
  const chosen = followed();
  for (const game of catalog.games) {
    const box_ = h("input", { type: "checkbox", value: game.name, checked: chosen.includes(game.name), "data-follow": game.name });
    box_.addEventListener("change", () => {
      const names = [...$("following").querySelectorAll("input:checked")].map((i) => i.value);
      try {
        localStorage.setItem(FOLLOWING, JSON.stringify(names));
      } catch {
        // followed for this page only
      }
      follow();
    });
    box.appendChild(h("label", { class: "follow" }, box_, " ", gameTitle(game.name, game.title)));
  }
}

function follow() {
  if (lobbySocket && lobbySocket.readyState === WebSocket.OPEN) lobbySocket.send(JSON.stringify({ type: "follow", games: followed() }));
}

function connectLobby() {
  clearTimeout(reconnectTimer);
  const socket = new WebSocket(socketUrl("/ws/lobby"));
  lobbySocket = socket;
  socket.addEventListener("open", follow);
  socket.addEventListener("message", (event) => {
    let frame;
    try {
      frame = JSON.parse(event.data);
    } catch {
      return;
    }
    onLobbyFrame(frame);
  });
  socket.addEventListener("close", () => {
    if (lobbySocket !== socket) return;
    lobbySocket = null;
    reconnectTimer = setTimeout(connectLobby, 1000);
  });
}

function onLobbyFrame(frame) {
  if (frame.type === "lobby" || frame.type === "following") {
    challenges.clear();
    for (const c of frame.challenges) challenges.set(c.id, c);
    for (const c of frame.challenges) challengeGames.set(c.id, c.game);
    renderChallenges();
    if (frame.type === "lobby") showPresence(frame.presence); // this lobby now counts among those online
  } else if (frame.type === "presence") {
    showPresence(frame); // pushed when it changes, at most once a second
  } else if (frame.type === "challenge") {
    const c = frame.challenge;
    challengeGames.set(c.id, c.game);
    if (c.status === "open" && followed().includes(c.game)) challenges.set(c.id, c);
    else challenges.delete(c.id);
    renderChallenges();
  } else if (frame.type === "game_ready") {
    land(frame);
  }
}

/** To the seat a started challenge gives us (its invite kept, as the lobby keeps its own seats'). */
let landing = false;

function land(answer) {
  // The accepter hears twice (the accept's answer and game_ready): a second navigation would abort the first.
  if (landing) return;
  landing = true;
  const game = catalog.games.find((g) => g.name === challengeGames.get(answer.challenge));
  const name = game && game.players[answer.seat] ? game.players[answer.seat] : String(answer.seat);
  saveInvites(answer.game_id, [{ seat: answer.seat, name, invite: answer.invite }]);
  location.href = answer.invite;
}

function seatWord(game, seat) {
  if (seat === null || seat === undefined) return t("people.seat_random");
  const known = catalog.games.find((g) => g.name === game);
  return known && known.players[seat] ? seatName(known.players[seat]) : String(seat + 1);
}

function renderChallenges() {
  const list = clear($("challenges"));
  const player = me();
  const isMe = (p) => player && p && !p.guest === !player.guest && p.name === player.name;
  for (const c of [...challenges.values()].sort((a, b) => a.created - b.created)) {
    const own = isMe(c.poster);
    const seated = !own && c.joined.some(isMe); // a seat taken of a 3–4-seat challenge still filling
    let action;
    if (own) action = h("button", { type: "button", class: "small cancel-challenge", onclick: () => cancelChallenge(c.id) }, t("people.cancel"));
    else if (seated) action = h("button", { type: "button", class: "small leave-challenge", onclick: () => leaveChallenge(c.id) }, t("people.leave"));
    else action = h("button", { type: "button", class: "small primary accept-challenge", onclick: () => acceptChallenge(c.id) }, t("people.accept"));
    const facts = [c.rated ? t("people.rated_word") : t("people.casual"), t("people.poster_seat", { seat: seatWord(c.game, c.seat) })];
    if (c.seats > 2) facts.push(t("people.joined", { count: c.joined.length, seats: c.seats }));
    if (c.clock) facts.push(controlText(c.clock));
    list.appendChild(
      h(
        "li",
        { class: "challenge", "data-challenge": c.id, "data-game": c.game },
        h("div", { class: "challenge-what" }, h("b", {}, gameTitle(c.game)), " ", h("span", { class: "muted" }, describeOptions(c.options))),
        h("div", { class: "challenge-who" }, playerLink(c.poster), c.opponent ? h("span", { class: "muted" }, " → ", c.opponent) : null, " · ", h("span", { class: "muted" }, facts.join(" · "))),
        action,
      ),
    );
  }
  $("no-challenges").hidden = challenges.size > 0;
}

async function acceptChallenge(id) {
  $("challenge-error").textContent = "";
  try {
    const answer = await send(`/api/challenges/${encodeURIComponent(id)}/accept`, "POST");
    if (answer.game_id) land(answer);
    else $("challenge-error").textContent = t("people.waiting", { count: answer.waiting });
  } catch (error) {
    $("challenge-error").textContent = refusalText(error);
  }
}

async function leaveChallenge(id) {
  $("challenge-error").textContent = "";
  try {
    await send(`/api/challenges/${encodeURIComponent(id)}/seat`, "DELETE");
    $("challenge-error").textContent = t("people.left"); // the lobby's "left" event redraws the list
  } catch (error) {
    $("challenge-error").textContent = refusalText(error);
  }
}

async function cancelChallenge(id) {
  $("challenge-error").textContent = "";
  try {
    await send(`/api/challenges/${encodeURIComponent(id)}`, "DELETE");
    challenges.delete(id);
    renderChallenges();
  } catch (error) {
    $("challenge-error").textContent = refusalText(error);
  }
}

/** The challenge's seat choice: drawn, or one of the game's seats (as the form's game has them). */
function renderChallengeSeats(result) {
  const select = $("challenge-seat");
  const before = select.value;
  clear(select);
  select.appendChild(h("option", { value: "random" }, t("people.seat_random")));
  result.players.forEach((name, i) => select.appendChild(h("option", { value: String(i) }, seatName(name))));
  select.value = [...select.options].some((o) => o.value === before) ? before : "random";
  // Whom to: anyone, a level of the engine (the game starts at once), or one player by name.
  const to = $("challenge-to");
  const chosenTo = to.value;
  clear(to);
  to.appendChild(h("option", { value: "" }, t("people.anyone")));
  for (const level of result.levels || []) to.appendChild(h("option", { value: `level:${level.level}` }, agentName(`level:${level.level}`)));
  to.appendChild(h("option", { value: "name" }, t("people.named")));
  to.value = [...to.options].some((o) => o.value === chosenTo) ? chosenTo : "";
  to.onchange = () => ($("opponent-row").hidden = to.value !== "name");
  to.onchange();
}

/** Rated games are for registered players: the box is offered to accounts only. */
function syncRated() {
  const player = me();
  const account = Boolean(player && !player.guest);
  $("challenge-rated").disabled = !account;
  if (!account) $("challenge-rated").checked = false;
  $("rated-note").hidden = account;
}

async function postChallenge(event) {
  event.preventDefault();
  $("post-error").textContent = "";
  if (!me()) {
    $("post-error").textContent = t("people.sign_in_first");
    return;
  }
  const seat = $("challenge-seat").value;
  const to = $("challenge-to").value;
  const opponent = to === "name" ? $("challenge-opponent").value.trim() : to;
  const body = { game: $("game").value, options: options(), seat: seat === "random" ? "random" : Number(seat), rated: $("challenge-rated").checked };
  if (opponent) body.opponent = opponent;
  $("post").disabled = true;
  try {
    body.clock = chosenClock();
    const answer = await send("/api/challenges", "POST", body);
    if (answer.invite) land(answer); // against a level: the game has started
    else $("post-error").textContent = "";
  } catch (error) {
    $("post-error").textContent = creationError(error);
  } finally {
    $("post").disabled = false;
  }
}

/** One button per game: take the oldest open casual challenge of it, else post one. */
function renderQuick() {
  const box = clear($("quick"));
  for (const game of catalog.games) {
    box.appendChild(h("button", { type: "button", class: "small quick-pair", "data-game": game.name, onclick: () => quickPair(game.name) }, t("people.quick_game", { game: gameTitle(game.name, game.title) })));
  }
}

async function quickPair(game) {
  $("post-error").textContent = "";
  if (!me()) {
    $("post-error").textContent = t("people.sign_in_first");
    return;
  }
  try {
    const answer = await send("/api/challenges/quick", "POST", { game, options: {} });
    if (answer.invite) land(answer);
  } catch (error) {
    $("post-error").textContent = refusalText(error);
  }
}

let lastPresence = null;

function showPresence(data) {
  lastPresence = data;
  renderPresence(data);
}

function renderPresence(data) {
  const counts = [t("people.online_count", { count: data.online }), t("people.lobby_count", { count: data.lobby }), t("people.games_count", { count: data.games })];
  $("presence-counts").textContent = counts.join(" · ");
  const names = clear($("presence-players"));
  for (const player of data.players) names.appendChild(playerLink(player));
}

let lastMyGames = null;

async function refreshMyGames() {
  if (!me()) {
    lastMyGames = { games: [], clocks: {}, at: performance.now() };
    renderMyGames(lastMyGames);
    return;
  }
  try {
    const [games, clocks] = await Promise.all([api("/api/my/games"), api("/api/my/clocks")]);
    lastMyGames = { ...games, clocks: clocks.games, at: performance.now() };
  } catch {
    return;
  }
  notifyNewMoves(lastMyGames);
  renderMyGames(lastMyGames);
}

/** The game's time control and the time the player's seat has left (its clock as of the list's fetch). */
function timeLeft(data, game) {
  const clock = data.clocks && data.clocks[game.id];
  if (!clock) return null;
  const running = clock.flagged === null && clock.running.includes(game.seat);
  const left = clock.left[game.seat] - (running ? performance.now() - data.at : 0);
  return h("span", { class: "muted game-clock" }, " · ", controlText(clock.clock), " · ", h("span", { class: "time-left" }, t("clock.your_left", { time: clockText(left) })));
}

// ---- Notifications: a move made in one of your games while this tab is open --------------------

/** The games waiting for your move at the last look (null before the first: nothing is news then). */
let waitingBefore = null;

/** The button asking the browser's leave to notify, while it can be asked (not granted, not denied). */
function offerNotifications() {
  const button = $("notify");
  const askable = "Notification" in window && Notification.permission === "default";
  button.hidden = !askable;
  button.onclick = async () => {
    await Notification.requestPermission();
    offerNotifications();
  };
}

/** Tell the person, when they allowed it, of each game that came to their move since the last look. */
function notifyNewMoves(data) {
  const waiting = new Set(data.games.filter((g) => g.your_move).map((g) => g.id));
  const before = waitingBefore;
  waitingBefore = waiting;
  if (before === null || !("Notification" in window) || Notification.permission !== "granted") return;
  for (const game of data.games) {
    if (!waiting.has(game.id) || before.has(game.id)) continue;
    const note = new Notification("Spheria", { body: t("notify.move", { game: gameTitle(game.game, game.title) }), tag: `move-${game.id}`, icon: "/static/favicon.svg" });
    note.onclick = () => {
      window.focus();
      location.href = gameLink(game);
    };
  }
}

/** Where one of your games opens: your seat's kept invite, else the game's page. */
function gameLink(game, invites = savedInvites()) {
  const own = (invites[game.id] || []).find((s) => s.seat === game.seat && s.invite);
  return own ? own.invite : `/game/${game.id}`;
}

function renderMyGames(data) {
  const list = clear($("my-games"));
  const invites = savedInvites();
  for (const game of data.games) {
    list.appendChild(
      h(
        "li",
        { class: "challenge my-game", "data-game": game.id },
        h("div", {}, h("b", {}, gameTitle(game.game, game.title)), " ", h("span", { class: "muted" }, t("lobby.moves", { count: game.plies }))),
        h("div", { class: game.your_move ? "your-move" : "muted" }, game.your_move ? t("people.your_move") : t("people.their_move"), timeLeft(data, game)),
        h("a", { href: gameLink(game, invites), class: "button small" }, t("people.open_game")),
      ),
    );
  }
  $("no-my-games").hidden = data.games.length > 0;
}

start().catch((error) => ($("form-error").textContent = t("lobby.unreachable", { error: error.message })));

// A player's profile (/@/<name>): ratings per rating key (game and options) with their history
// drawn by chart.js, the games played (result, opponents, date; replay and analysis), the games
// in play, and a player search. Names come from the server and are shown as text only.

import { t, translatePage, onLanguageChange, gameTitle, seatName, agentName } from "./messages.js";
import { h, clear, api, describeOptions, refusalText } from "./ui.js";
import { playerLink, searchBox } from "./account.js";
import { evaluationChart } from "./chart.js";

translatePage();

const $ = (id) => document.getElementById(id);
const name = decodeURIComponent(location.pathname.replace(/^\/@\//, ""));
let profile = null;
let games = [];

async function start() {
  searchBox($("player-search"), $("player-prefix"), $("player-results"));
  $("more-games").addEventListener("click", () => load(profile.next));
  try {
    await load(0);
  } catch (error) {
    $("player-name").textContent = name;
    $("profile-error").textContent = refusalText(error);
  }
}

async function load(cursor) {
  const page = await api(`/api/players/${encodeURIComponent(name)}?cursor=${cursor}`);
  games = cursor ? [...games, ...page.games] : page.games;
  profile = page;
  render();
}

onLanguageChange(() => profile && render());

/** A rating key ("<game>/<option>=<value>,...") as people read it: the game's title and its options in words. */
function keyWords(key) {
  const [game, rest] = key.split("/");
  const options = {};
  for (const pair of (rest || "").split(",")) {
    const at = pair.indexOf("=");
    if (at > 0) options[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const described = describeOptions(options);
  return described ? `${gameTitle(game)} · ${described}` : gameTitle(game);
}

function render() {
  document.title = t("page.profile_of", { name: profile.name });
  $("player-name").textContent = profile.level ? agentName(profile.name) : profile.name;
  $("player-guest").hidden = !profile.guest;
  renderRatings();
  renderPlaying();
  renderGames();
}

function renderRatings() {
  const box = clear($("ratings"));
  const keys = Object.keys(profile.ratings);
  for (const key of keys) {
    const r = profile.ratings[key];
    const row = h(
      "div",
      { class: "rating", "data-key": key },
      h("div", {}, h("b", {}, keyWords(key))),
      h(
        "div",
        { class: "rating-figures" },
        h("span", { class: "rating-value" }, Math.round(r.rating), r.provisional ? h("abbr", { class: "provisional", title: t("profile.provisional") }, "?") : null),
        " ",
        h("span", { class: "muted" }, t("profile.deviation", { deviation: Math.round(r.deviation), count: r.games })),
      ),
    );
    const points = chartedRatings(key);
    if (points.length > 1) {
      // chart.js draws values from -1 to 1: the ratings are scaled to the span they cover.
      const low = Math.min(...points);
      const high = Math.max(...points);
      const span = Math.max(1, high - low);
      const values = points.map((v) => (2 * (v - low)) / span - 1);
      row.appendChild(evaluationChart(values, new Map(), values.length - 1, () => {}, t("profile.chart", { low: Math.round(low), high: Math.round(high) })));
    }
    box.appendChild(row);
  }
  $("no-ratings").hidden = keys.length > 0;
}

/** The ratings a key's chart draws: the rating before its first charted game (the starting rating
 * when that game was the first), then the rating after each game. The history gives the ratings after;
 * the rating before comes from that game's line in the games loaded (found by the game and the rating
 * after it), so one game draws a line. */
function chartedRatings(key) {
  const after = (profile.history[key] || []).map((p) => p[1]);
  if (!after.length) return after;
  const game = key.split("/")[0];
  const first = games.findLast((g) => g.game === game && g.rating && g.rating.after === after[0]);
  return first ? [first.rating.before, ...after] : after;
}

function opponentsOf(game) {
  return game.opponents.map((o) => (o.agent ? h("span", { class: "player-name" }, agentName(o.agent)) : o.name ? playerLink(o) : h("span", { class: "muted" }, seatName(null))));
}

/** The game's outcome for this player: won, lost, drawn or aborted. */
function outcome(game) {
  if (game.status === "aborted") return t("profile.aborted");
  const returns = (game.result && game.result.returns) || [];
  const mine = game.seats.map((s) => returns[s]).filter((v) => v !== undefined);
  if (!mine.length) return t("result.over");
  const value = Math.max(...mine);
  return value > 0 ? t("profile.won") : value < 0 ? t("profile.lost") : t("result.draw");
}

function dateText(date) {
  const when = new Date(typeof date === "number" ? date * 1000 : date);
  return Number.isNaN(when.getTime()) ? "" : when.toLocaleDateString(document.documentElement.lang);
}

function renderGames() {
  const body = clear($("games").tBodies[0]);
  for (const game of games) {
    const change = game.rating ? h("span", { class: "rating-change" }, ` ${Math.round(game.rating.before)} → ${Math.round(game.rating.after)}`) : null;
    const links = h("td", { class: "links-cell" });
    if (game.replay) links.append(h("a", { href: game.replay, class: "button small" }, t("links.replay")), " ");
    if (game.analysis) links.append(h("a", { href: game.analysis, class: "button small" }, t("profile.analysis")));
    body.appendChild(
      h(
        "tr",
        { "data-game": game.id },
        h("td", {}, h("b", {}, gameTitle(game.game)), h("div", { class: "muted" }, describeOptions(game.options))),
        h("td", {}, outcome(game), change),
        h("td", { class: "opponents" }, t("profile.against"), " ", ...opponentsOf(game)),
        h("td", { class: "muted" }, dateText(game.date)),
        links,
      ),
    );
  }
  $("no-games").hidden = games.length > 0;
  $("more-games").hidden = profile.next === null || profile.next === undefined;
}

function renderPlaying() {
  const list = clear($("playing"));
  for (const game of profile.playing) {
    list.appendChild(
      h(
        "li",
        { class: "challenge", "data-game": game.id },
        h("div", {}, h("b", {}, gameTitle(game.game)), " ", h("span", { class: "muted" }, describeOptions(game.options))),
        h("div", { class: "opponents" }, t("profile.against"), " ", ...opponentsOf(game)),
        h("a", { href: game.url, class: "button small" }, t("profile.watch")),
      ),
    );
  }
  $("no-playing").hidden = profile.playing.length > 0;
}

start();

// Every text the pages show, looked up by key in the catalogue of the reader's language
// (/static/i18n/<lang>.json, one flat object of key: text), filled in with named parameters:
// t("turn.other", {name}). A text with plural forms is an object of Intl.PluralRules categories
// ("one", "other", ...) chosen by the parameter ``count``. English is the fallback for any key
// a catalogue lacks. The language follows the switch in the header (remembered in
// localStorage), else navigator.languages; switching re-words the page without a reload.
// What the server names in English (game titles, seat and side names, option help), the colour
// and level words, and each game's own words (its options' labels and choices, its agents, its
// analysis methods, its position fields and phases) are the server's sentences: it sends them
// translated (/api/words), and no page catalogue repeats them.

export const LANGUAGES = ["en", "ko"];
/** How each language names itself on the switch. */
const LANGUAGE_NAMES = { en: "EN", ko: "한국어" };
const STORED = "spheria.lang";
const catalogues = {};
// The server's words in each language: {games, names, colors, levels} and each game's own
// {options, agents, methods, fields, phases, turns} (see spheria.server.views.words and spheria.server.words).
const serverWords = {};
const listeners = [];

async function fetchJson(path, what) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`no ${what}: ${response.status}`);
  return response.json();
}

async function load(lang) {
  const [catalogue, words] = await Promise.all([
    catalogues[lang] || fetchJson(`/static/i18n/${lang}.json`, `catalogue for ${lang}`),
    serverWords[lang] || fetchJson(`/api/words?lang=${lang}`, `server words for ${lang}`),
  ]);
  catalogues[lang] = catalogue;
  serverWords[lang] = words;
  return catalogue;
}

/** The language to speak: the stored choice, else the first of ``preferred`` (BCP 47 tags) we speak. */
export function chooseLanguage(stored, preferred) {
  if (LANGUAGES.includes(stored)) return stored;
  for (const tag of preferred || []) {
    const primary = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(primary)) return primary;
  }
  return LANGUAGES[0];
}

function storedLanguage() {
  try {
    return localStorage.getItem(STORED);
  } catch {
    return null;
  }
}

let language = chooseLanguage(storedLanguage(), typeof navigator === "object" ? navigator.languages : []);
await load("en");
try {
  await load(language);
} catch {
  language = "en";
}
if (typeof document === "object") document.documentElement.lang = language;

/** The language the page speaks now ("en", "ko"). */
export function currentLanguage() {
  return language;
}

/** Speak ``lang`` from now on (remembered), re-word the page, and tell every listener. */
export async function setLanguage(lang) {
  if (!LANGUAGES.includes(lang) || lang === language) return;
  await load(lang);
  language = lang;
  try {
    localStorage.setItem(STORED, lang);
  } catch {
    // a browser that keeps nothing still switches for this page
  }
  document.documentElement.lang = lang;
  translatePage();
  for (const listener of listeners) listener(lang);
}

/** Call ``listener(lang)`` after each switch of language (to re-word what the page drew itself). */
export function onLanguageChange(listener) {
  listeners.push(listener);
}

// Touch screens are tapped, others clicked: hints say which ({Tap} / {tap}).
const TOUCH = typeof matchMedia === "function" && matchMedia("(pointer: coarse)").matches;
const ACTION = TOUCH ? { Tap: "word.Tap", tap: "word.tap" } : { Tap: "word.Click", tap: "word.click" };

function entry(key) {
  return catalogues[language]?.[key] ?? catalogues.en?.[key];
}

/** Whether the catalogue has a text for ``key``. */
export function has(key) {
  return entry(key) !== undefined;
}

function pluralForm(forms, count) {
  const category = new Intl.PluralRules(language).select(Number(count));
  return forms[category] ?? forms.other;
}

/** A number as the reader's language writes it ("480,000"). */
export function formatNumber(value) {
  return new Intl.NumberFormat(language).format(value);
}

function shown(value) {
  return typeof value === "number" && Number.isFinite(value) ? formatNumber(value) : String(value);
}

/** The message ``key`` with ``{name}`` parameters filled in (``key`` itself when no catalogue has it);
 * a parameter given as a number is written as the reader's language writes numbers. */
export function t(key, params = {}) {
  let text = entry(key);
  if (text === undefined) return key;
  if (typeof text === "object") text = pluralForm(text, params.count);
  return fill(text, { Tap: entry(ACTION.Tap), tap: entry(ACTION.tap), ...params });
}

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? shown(params[name]) : whole));
}

/** ``t(key, params)`` when the catalogue has ``key``, else ``fallback`` (a name the server sent). */
export function tOr(key, fallback, params = {}) {
  return has(key) ? t(key, params) : fallback;
}

/** The server's word for ``key`` in ``group`` (games, names, colors, levels, agents, methods), in the
 * reader's language; ``[group, key, ...deeper]`` for a word further in (options, fields, phases, turns). */
function serverWord(group, key, ...deeper) {
  const find = (words) => [key, ...deeper].reduce((found, step) => found?.[step], words?.[group]);
  return find(serverWords[language]) ?? find(serverWords.en);
}

/** A seat's or side's name in the reader's language ("White" -> "흰색"), the name itself if unknown. */
export function seatName(name) {
  return name === null || name === undefined ? "?" : (serverWord("names", name) ?? String(name));
}

/** A game's title by its id (its registry name), the server's English title if it sent no word for it. */
export function gameTitle(game, fallback = game) {
  return serverWord("games", game) ?? fallback;
}

/** An option's help (sent in English with the game's options) in the reader's language. */
export function optionHelp(help) {
  return serverWord("names", help) ?? help;
}

/** A ball colour's word by its code ("w" -> "white"), the code itself if unknown. */
export function colorWord(code) {
  return serverWord("colors", code) ?? code;
}

/** The words people choose a level by ("easy"), by its number. */
export function levelWords(level) {
  return serverWord("levels", String(level)) ?? "";
}

/** An agent spec as people read it: "random", "level:3", "mcts:time=1" (its options stay as typed). */
export function agentName(spec) {
  const [name, ...rest] = String(spec).split(":");
  if (name === "level" && rest.length === 1 && /^\d+$/.test(rest[0])) return t("agent.level", { level: rest[0], words: levelWords(rest[0]) });
  const shown = serverWord("agents", name) ?? tOr(`agent.${name}`, name); // a game's own agent is the game's word
  return rest.length ? `${shown}:${rest.join(":")}` : shown;
}

/** An option's name as a label, in the game's words; the name itself, spaced, where the game gives
 * none ("first_player" -> "first player"). */
export function optionLabel(name) {
  return serverWord("options", name, "label") ?? name.replace(/_/g, " ");
}

/** An option's value as shown, in the game's words (the value itself is sent: it stays as it is on
 * the wire); a yes or no in the page's words; else the value itself. */
export function optionValue(name, value) {
  return serverWord("options", name, "choices", String(value)) ?? tOr(`value.${value}`, String(value));
}

/** The game's words for its analysis method ``code`` ("solver"), undefined for a generic method. */
export function methodWords(code) {
  return serverWord("methods", code);
}

/** A game's note on an analysis (``{code, ...params}``: why the answer is less than it could be) in
 * its words, undefined if the server sent none for the code. */
export function noteWords(note) {
  const words = note ? serverWord("notes", note.code) : undefined;
  return words === undefined ? undefined : fill(words, note);
}

/** The name of the ``index``-th field after the board in ``game``'s position notation, undefined if it gives none. */
export function fieldName(game, index) {
  return serverWord("fields", game, index);
}

/** ``game``'s own words for its phase ``phase`` ("place"), undefined where it has none. */
export function phaseWords(game, phase) {
  return serverWord("phases", game, phase);
}

/** What the player to move does in ``game``'s ``phase`` in the game's words ({name}: the player), undefined where it says nothing. */
export function turnText(game, phase, params) {
  const text = serverWord("turns", game, phase);
  return text === undefined ? undefined : fill(text, params);
}

/** What the server refused, in the reader's words: the page's text for its stable code when the
 * page words that code, else the server's own message (worded in the page's language). */
export function errorText(code, message) {
  return tOr(`error.${code}`, sentence(message || code || ""));
}

/** ``text`` begun with a capital, as a sentence shown on its own (the server's details begin in lower case). */
export function sentence(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Word every element of the page marked ``data-t="key"`` from the catalogue, and its marked
 * attributes (``data-t-title``, ``data-t-aria-label``, ``data-t-placeholder``); add the switch. */
export function translatePage(root = document) {
  for (const node of root.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const node of root.querySelectorAll("[data-color-word]")) node.textContent = colorWord(node.dataset.colorWord);
  for (const [attribute, data] of [["title", "tTitle"], ["aria-label", "tAriaLabel"], ["placeholder", "tPlaceholder"]]) {
    for (const node of root.querySelectorAll(`[data-t-${attribute}]`)) node.setAttribute(attribute, t(node.dataset[data]));
  }
  if (root === document) languageSwitch();
}

/** The EN / 한국어 switch at the end of the page's header (made once, then kept up to date). */
function languageSwitch() {
  const bar = document.querySelector(".topbar");
  if (!bar) return;
  let group = bar.querySelector(".lang-switch");
  if (!group) {
    group = document.createElement("div");
    group.className = "lang-switch";
    group.setAttribute("role", "group");
    for (const lang of LANGUAGES) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "small";
      button.lang = lang;
      button.dataset.lang = lang;
      button.textContent = LANGUAGE_NAMES[lang];
      button.addEventListener("click", () => setLanguage(lang));
      group.appendChild(button);
    }
    bar.appendChild(group);
  }
  group.setAttribute("aria-label", t("lang.switch"));
  for (const button of group.querySelectorAll("button")) button.setAttribute("aria-pressed", String(button.dataset.lang === language));
}

/** A list of names as people write it: "A", "A and B", "A, B and C". */
export function joinNames(names) {
  if (names.length <= 1) return names.join("");
  return t("list.and", { first: names.slice(0, -1).join(t("list.comma")), last: names[names.length - 1] });
}

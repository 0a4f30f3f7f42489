// The chat beside the board (docs/server.md, "Chat"): the room this connection is in (the players'
// for a seat, the spectators' for a watcher), over the game's websocket. Every message is shown
// with textContent only: what people type is never read as markup.

import { t, errorText, seatName } from "./messages.js";
import { h, clear, api } from "./ui.js";

/** The longest message the server takes (characters). */
export const CHAT_LIMIT = 300;

/** The refusals of a chat frame this panel words itself. */
const CHAT_ERRORS = new Set(["chat_rate_limited", "bad_chat_text", "chat_too_long", "wrong_room", "not_signed_in"]);

let csrfToken = null;

/** The CSRF token of this browser's session (GET /api/session), asked once. */
export async function csrf() {
  if (csrfToken === null) csrfToken = (await api("/api/session")).csrf;
  return csrfToken;
}

/** Send ``body`` to ``path`` by ``method`` with the CSRF header; the answer's JSON (``api`` throws a refusal). */
async function request(method, path, body = {}) {
  const token = await csrf();
  return api(path, { method, body: JSON.stringify(body), headers: { "Content-Type": "application/json", "X-CSRF-Token": token } });
}

/** POST ``body`` to ``path`` with the CSRF header; the answer's JSON (``api`` throws a refusal). */
export function post(path, body = {}) {
  return request("POST", path, body);
}

export class Chat {
  /** ``host``: the panel; ``send(frame)`` sends over the game's socket (false when closed). */
  constructor(host, gameId, send) {
    this.host = host;
    this.gameId = gameId;
    this.send = send;
    this.room = null;
    this.messages = new Map(); // id -> message, one per id
    this.muted = new Map(); // senders muted here ("name|guest") -> a message of theirs, to unmute by
    this.reported = new Set();
    this.me = null;
    this.build();
    api("/api/session")
      .then((session) => {
        csrfToken = session.csrf;
        this.me = session.player;
        this.renderLog();
      })
      .catch(() => {});
  }

  build() {
    this.title = h("summary", { class: "chat-title" });
    this.log = h("ol", { class: "chat-log", "aria-live": "polite" });
    this.mutedList = h("ul", { class: "chat-muted", hidden: true });
    this.refusal = h("div", { class: "chat-refusal", role: "alert", hidden: true });
    this.input = h("input", { type: "text", class: "chat-input", maxlength: CHAT_LIMIT, autocomplete: "off" });
    this.count = h("span", { class: "chat-count muted" });
    this.button = h("button", { type: "submit", class: "small" });
    this.form = h("form", { class: "chat-form" }, this.input, this.count, this.button);
    this.input.addEventListener("input", () => this.renderCount());
    // Enter in the chat sends the words, never the move picked on the board (the page's Enter).
    this.host.addEventListener("keydown", (e) => e.key === "Enter" && e.stopPropagation());
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.say();
    });
    this.host.open = !matchMedia("(max-width: 900px)").matches; // folded on a phone until opened
    clear(this.host).append(this.title, this.log, this.mutedList, this.refusal, this.form);
    this.renderWords();
  }

  /** The connection joined: ``seat`` (null for a spectator) names the room. */
  joined(seat) {
    const room = seat === null ? "spectators" : "players";
    if (room !== this.room) {
      this.room = room;
      this.messages.clear();
    }
    this.host.hidden = false;
    this.host.dataset.room = room;
    this.renderWords();
  }

  /** Take a frame from the socket; true when it was the chat's. */
  handle(data) {
    if (data.type === "chat_history" && data.room === this.room) {
      for (const message of data.messages) this.messages.set(message.id, message);
      this.renderLog();
      return true;
    }
    if (data.type === "chat" && data.room === this.room) {
      this.messages.set(data.message.id, data.message);
      this.renderLog();
      return true;
    }
    if (data.type === "error" && CHAT_ERRORS.has(data.code)) {
      this.refuse(data.code, data.message, data.retry_after);
      return true;
    }
    return data.type === "chat_history" || data.type === "chat";
  }

  say() {
    const text = this.input.value.trim();
    if (!text) return;
    if (text.length > CHAT_LIMIT) return this.refuse("chat_too_long");
    if (!this.send({ type: "chat", room: this.room, text })) return this.refuse("offline");
    this.input.value = "";
    this.renderCount();
    this.refusal.hidden = true;
  }

  /** Show why the server (or this page) refused a message, in the catalogue's words. */
  refuse(code, message = "", retryAfter = null) {
    const key = `chat.error.${code}`;
    const text = t(key, { seconds: Math.max(1, Math.ceil(Number(retryAfter) || 1)), limit: CHAT_LIMIT });
    clear(this.refusal).append(h("span", {}, text === key ? errorText(code, message) : text));
    this.refusal.dataset.code = code;
    if (code === "not_signed_in") this.refusal.append(this.guestForm());
    this.refusal.hidden = false;
  }

  /** A guest name is enough to write: sign in here (POST /api/guest), then join again signed in. */
  guestForm() {
    const name = h("input", { type: "text", class: "chat-guest-name", maxlength: 20, placeholder: t("chat.guest_name"), "aria-label": t("chat.guest_name") });
    const problem = h("span", { class: "chat-guest-problem muted" });
    const lobby = h("a", { href: "/", class: "chat-lobby" }, t("chat.lobby"));
    const form = h("form", { class: "chat-guest" }, name, h("button", { type: "submit", class: "small" }, t("chat.guest_sign_in")), lobby, problem);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        await post("/api/guest", { name: name.value.trim() });
        location.reload(); // the socket reads who speaks from the session cookie when it opens
      } catch (error) {
        problem.textContent = error.message;
      }
    });
    return form;
  }

  renderWords() {
    this.title.textContent = t(this.room === "spectators" ? "chat.title_spectators" : "chat.title_players");
    this.input.placeholder = t("chat.placeholder");
    this.input.setAttribute("aria-label", t("chat.placeholder"));
    this.button.textContent = t("chat.send");
    this.renderCount();
    this.renderLog();
  }

  renderCount() {
    const used = this.input.value.length;
    this.count.textContent = t("chat.count", { used, limit: CHAT_LIMIT });
    this.count.classList.toggle("full", used >= CHAT_LIMIT);
  }

  mine(message) {
    return Boolean(this.me) && message.name === this.me.name && Boolean(message.guest) === Boolean(this.me.guest);
  }

  renderLog() {
    const list = [...this.messages.values()].filter((m) => !this.muted.has(senderKey(m))).sort((a, b) => a.at - b.at || a.id - b.id);
    clear(this.log);
    if (!list.length) this.log.append(h("li", { class: "chat-empty muted" }, t("chat.empty")));
    for (const message of list) this.log.append(this.line(message));
    this.log.scrollTop = this.log.scrollHeight;
    this.renderMuted();
  }

  /** The senders muted on this page, each with its way back. */
  renderMuted() {
    clear(this.mutedList);
    for (const message of this.muted.values()) {
      const unmute = h("button", { type: "button", class: "link chat-unmute", title: t("chat.unmute_title") }, t("chat.unmute"));
      unmute.addEventListener("click", () => this.unmute(message));
      this.mutedList.append(h("li", { class: "muted", "data-name": message.name }, h("span", {}, t("chat.muted", { name: message.name })), " ", h("span", { class: "chat-actions" }, unmute)));
    }
    this.mutedList.hidden = this.muted.size === 0;
  }

  line(message) {
    // Every part people typed (the words, a name) goes in as a text node: h() never parses markup.
    const name = message.guest ? t("chat.guest", { name: message.name }) : seatName(message.name);
    const item = h("li", { class: "chat-message", "data-id": message.id }, h("span", { class: "chat-name" }, name), " ", h("span", { class: "chat-text" }, message.text));
    if (!this.mine(message) && this.me) {
      const mute = h("button", { type: "button", class: "link chat-mute", title: t("chat.mute_title") }, t("chat.mute"));
      mute.addEventListener("click", () => this.mute(message));
      const reported = this.reported.has(message.id);
      const report = h("button", { type: "button", class: "link chat-report", disabled: reported }, t(reported ? "chat.reported" : "chat.report"));
      report.addEventListener("click", () => this.report(message));
      item.append(h("span", { class: "chat-actions" }, mute, report));
    }
    return item;
  }

  async mute(message) {
    try {
      await post(`/api/games/${encodeURIComponent(this.gameId)}/chat/${message.id}/mute`);
      this.muted.set(senderKey(message), message);
      this.renderLog();
    } catch (error) {
      this.refuse(error.code, error.message);
    }
  }

  /** Their lines reach this reader again: the ones this page kept come back; the server never sent
   * the ones said while they were muted (history on the next join has them). */
  async unmute(message) {
    try {
      await request("DELETE", `/api/games/${encodeURIComponent(this.gameId)}/chat/${message.id}/mute`);
      this.muted.delete(senderKey(message));
      this.renderLog();
    } catch (error) {
      this.refuse(error.code, error.message);
    }
  }

  async report(message) {
    try {
      await post(`/api/games/${encodeURIComponent(this.gameId)}/chat/${message.id}/report`);
      this.reported.add(message.id);
      this.renderLog();
    } catch (error) {
      this.refuse(error.code, error.message);
    }
  }
}

function senderKey(message) {
  return `${message.name}|${Boolean(message.guest)}`;
}

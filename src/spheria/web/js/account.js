// Who you are: nobody, a guest (a name, nothing to sign up) or an account (a name and a password).
// The server keeps the session in an HttpOnly cookie; every request that changes something carries
// the CSRF token GET /api/session gives (the `X-CSRF-Token` header, docs/server.md "Accounts").
// Names the server sends are shown with textContent only (h() makes text nodes).

import { t, currentLanguage } from "./messages.js";
import { h, clear, api, refusalText } from "./ui.js";

/** The last answer of GET /api/session: {player: {name, guest, deleted} | null, games, csrf}. */
let session = { player: null, games: [], csrf: "" };

/** Who this browser is now (null: nobody). */
export function me() {
  return session.player;
}

/** Ask the server who this browser is (and the CSRF token). */
export async function loadSession() {
  session = await api("/api/session");
  return session;
}

/** A request that changes something: JSON ``body`` with the CSRF header. */
export function send(path, method, body = {}) {
  return api(path, {
    method,
    body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", "Accept-Language": currentLanguage(), "X-CSRF-Token": session.csrf },
  });
}

/** A player's name as a link to their profile, a guest's marked as one. */
export function playerLink(player) {
  if (!player || player.deleted || !player.name) return h("span", { class: "player-name muted" }, t("people.deleted"));
  return h(
    "span",
    { class: "player-name" },
    h("a", { href: `/@/${encodeURIComponent(player.name)}` }, player.name),
    player.guest ? h("span", { class: "guest-mark muted" }, ` (${t("people.guest")})`) : null,
  );
}

/** Fill ``box`` with the "who you are" controls; ``changed()`` after each sign-in or sign-out. */
export function renderAccount(box, changed) {
  // Re-drawn on a switch of language: what was being typed stays.
  const typed = Object.fromEntries([...box.querySelectorAll("input[id]")].map((input) => [input.id, input.value]));
  clear(box);
  const error = h("div", { class: "form-error", id: "account-error" });
  const act = async (path, method, body) => {
    error.textContent = "";
    try {
      await send(path, method, body);
      await loadSession();
      renderAccount(box, changed);
      changed();
    } catch (failure) {
      error.textContent = refusalText(failure);
    }
  };
  const player = me();
  if (player) {
    box.append(
      h("p", { class: "you-are", id: "you-are" }, t("people.you_are"), " ", playerLink(player)),
      h("button", { type: "button", id: "log-out", class: "small", onclick: () => act("/api/session", "DELETE") }, t("people.log_out")),
    );
  } else {
    const guestName = h("input", { type: "text", id: "guest-name", autocomplete: "nickname", maxlength: 20, "aria-label": t("people.guest_name"), placeholder: t("people.guest_name") });
    box.append(
      h(
        "form",
        { class: "account-row", id: "guest-form", onsubmit: (e) => (e.preventDefault(), act("/api/guest", "POST", { name: guestName.value.trim() })) },
        guestName,
        h("button", { type: "submit", id: "play-as-guest" }, t("people.as_guest")),
      ),
    );
  }
  if (!player || player.guest) {
    // An account: a guest who registers keeps the games of this browser.
    const name = h("input", { type: "text", id: "account-name", autocomplete: "username", maxlength: 20, "aria-label": t("people.name"), placeholder: t("people.name"), value: player ? player.name : "" });
    const password = h("input", { type: "password", id: "account-password", autocomplete: "current-password", "aria-label": t("people.password"), placeholder: t("people.password") });
    const body = () => ({ name: name.value.trim(), password: password.value });
    box.append(
      h(
        "form",
        { class: "account-form", id: "account-form", onsubmit: (e) => (e.preventDefault(), act("/api/session", "POST", body())) },
        h("div", { class: "account-row" }, name, password),
        h(
          "div",
          { class: "account-row" },
          player ? null : h("button", { type: "submit", id: "log-in" }, t("people.log_in")),
          h("button", { type: "button", id: "register", class: "primary", onclick: () => act("/api/account", "POST", body()) }, t("people.register")),
        ),
      ),
    );
  }
  box.append(error);
  for (const input of box.querySelectorAll("input[id]")) if (typed[input.id]) input.value = typed[input.id];
}

/** Player search by name prefix (GET /api/players?prefix=): ``input`` in ``form``, links in ``results``. */
export function searchBox(form, input, results) {
  let timer = null;
  form.addEventListener("submit", (event) => event.preventDefault());
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const prefix = input.value.trim();
      clear(results);
      if (!prefix) return;
      try {
        const found = await api(`/api/players?prefix=${encodeURIComponent(prefix)}`);
        if (input.value.trim() !== prefix) return; // typed on meanwhile
        for (const player of found.players) results.appendChild(playerLink(player));
        if (!found.players.length) results.appendChild(h("span", { class: "muted" }, t("people.nobody_found")));
      } catch (error) {
        results.appendChild(h("span", { class: "form-error" }, refusalText(error)));
      }
    }, 250);
  });
}

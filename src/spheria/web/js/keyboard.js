// Playing without a mouse or a screen to look at: a box that takes a move typed in the notation
// of the terminal (the server reads it as it reads any move, and its refusal says precisely what
// is wrong), and a live region that tells each move, reveal and result as it happens, in the
// page's language. The sites of the board are keyboard controls themselves (board.js).

import { t, colorWord, seatName, joinNames, errorText, currentLanguage, onLanguageChange } from "./messages.js";
import { h, resultText } from "./ui.js";
import { parseBoard, SITES } from "./board.js";

/** What each ball of the board is called in this game ("w" -> a seat's name): the name of the one seat
 * that plays that colour, else the colour's word. */
export function ballNames(game) {
  const names = {};
  for (const code of ["w", "b", "r"]) {
    const owners = ((game && game.seats) || []).filter((seat) => seat.color === code);
    names[code] = owners.length === 1 ? seatName(owners[0].name).toLocaleLowerCase(currentLanguage()) : colorWord(code);
  }
  return names;
}

/** Who won a reveal, in words (``nameOf``: a seat's name). */
export function revealVerdict(reveal, nameOf) {
  if (reveal.stunned) return t("reveal.stunned");
  return reveal.winner === null ? t("reveal.nobody") : t("reveal.won", { name: nameOf(reveal.winner) });
}

/** A result as ``seat`` sees it: "won", "lost", or "over" (for a spectator, or a draw); its words are ``result.<outcome>``. */
export function resultOutcome(result, seat) {
  const winners = (result && result.winners) || [];
  if (seat === null || !winners.length) return "over";
  return winners.includes(seat) ? "won" : "lost";
}

/** A refusal as a sentence: the server's precise words for a move it cannot read or play, the
 * page's words for any other code. */
function refusalSentence(code, message) {
  if (code !== "illegal_move" || !message) return errorText(code, message);
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?。]$/.test(text) ? text : `${text}.`;
}

/** The sites that hold a ball in ``after`` and were empty in ``before`` (a placement that no history told). */
function filled(before, after) {
  const was = parseBoard(before);
  const now = parseBoard(after);
  return SITES.filter((s) => was[s.index] === "." && now[s.index] !== ".").map((s) => s.name);
}

/** The box to type a move in, with its button, moves legal now as examples of the notation, and
 * the refusal of the last move typed (the text typed stays until a move is played). */
export class MoveBox {
  /**
   * @param {Element} host where the box goes
   * @param {(move: string) => boolean} submit sends a move's text; false if nothing was sent (a move is on its way)
   */
  constructor(host, submit) {
    this.submit = submit;
    this.waiting = false; // a typed move was sent and is not answered yet
    this.version = null;
    this.examples = []; // moves legal now, to show how they are written
    this.input = h("input", {
      id: "move-input",
      type: "text",
      autocomplete: "off",
      autocapitalize: "off",
      spellcheck: "false",
      enterkeyhint: "send",
      "aria-describedby": "move-help move-error",
    });
    this.label = h("label", { for: "move-input" });
    this.button = h("button", { type: "submit", id: "btn-typed" });
    this.help = h("div", { id: "move-help", class: "move-help muted" });
    this.error = h("div", { id: "move-error", class: "move-error", role: "alert" });
    this.form = h("form", { class: "move-box", novalidate: true }, this.label, h("div", { class: "move-row" }, this.input, this.button), this.help, this.error);
    host.replaceChildren(this.form);
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.send();
    });
    // Enter here sends the typed move, never the clicks picked on the board (the page's Enter).
    this.input.addEventListener("keydown", (e) => e.key === "Enter" && e.stopPropagation());
    this.word();
    onLanguageChange(() => this.word());
  }

  word() {
    this.label.textContent = t("movebox.label");
    this.button.textContent = t("movebox.play");
    this.help.textContent = this.examples.length ? t("movebox.help", { examples: this.examples.join(t("list.comma")) }) : "";
  }

  send() {
    const text = this.input.value.trim();
    if (!text) return this.show(t("movebox.empty"));
    if (!this.submit(text)) return this.show(t("picker.sending"));
    this.waiting = true;
    this.show("");
  }

  show(text) {
    this.error.textContent = text;
    this.input.setAttribute("aria-invalid", text ? "true" : "false");
  }

  /** A state frame: a move played clears the box; the moves legal now show how moves are written (all
   * of a few, such as a colour to choose; else the first and the longest: a site, and a line or a relocation). */
  update(frame, seat) {
    const moved = this.version !== null && frame.version !== this.version;
    this.version = frame.version;
    if (this.waiting && (moved || frame.your_choice)) {
      this.waiting = false;
      this.input.value = "";
      this.show("");
    }
    const moves = seat !== null ? frame.legal_moves : [];
    const longest = moves.reduce((a, b) => (b.length > a.length ? b : a), moves[0]);
    this.examples = moves.length <= 3 ? moves : [...new Set([moves[0], longest])];
    this.word();
  }

  /** An error frame: the refusal of the move typed is shown beside it (true), any other is not this box's (false). */
  refused(frame) {
    if (!this.waiting) return false;
    this.waiting = false;
    this.show(refusalSentence(frame.code, frame.message));
    return true;
  }
}

/** The live region that tells, politely, each move played, each reveal and the result. */
export class Announcer {
  constructor() {
    this.node = h("div", { id: "announce", class: "visually-hidden", role: "log", "aria-live": "polite" });
    document.body.appendChild(this.node);
    this.frame = null;
    this.entries = new Map(); // each entry shown, and how to word it again after a switch of language
    onLanguageChange(() => this.entries.forEach((words, entry) => (entry.textContent = words())));
  }

  /**
   * A state frame arrived: tell what changed since the one before (nothing for the first).
   * @param {object} frame
   * @param {number|null} seat this page's seat
   * @param {(seat: number) => string} nameOf a seat's name
   */
  heard(frame, seat, nameOf) {
    const before = this.frame;
    this.frame = frame;
    if (!before || before.version === frame.version) return;
    const next = frame.version === before.version + 1;
    const code = before.code || {};
    const words = () => {
      const parts = [];
      if (next && code.code === "choose" && frame.reveal) {
        const choices = frame.reveal.colors.map((color, i) => t("announce.choice", { name: nameOf(i), color: colorWord(color) }));
        parts.push(t("announce.reveal", { choices: joinNames(choices), verdict: revealVerdict(frame.reveal, nameOf) }));
      } else {
        const move = frame.last_move || filled(before.board, frame.board).join(" ");
        if (move && next && code.code === "turn") parts.push(t("announce.played", { name: nameOf(code.seat), move }));
        else if (move) parts.push(t("turn.last_move", { move }));
      }
      if (frame.terminal && frame.result) parts.push(t("announce.result", { title: t(`result.${resultOutcome(frame.result, seat)}`), result: resultText(frame.result, frame.players) }));
      return parts.join(" ");
    };
    const text = words();
    if (!text) return;
    const entry = h("p", {}, text);
    this.entries.set(entry, words);
    this.node.appendChild(entry);
    while (this.node.childElementCount > 4) {
      this.entries.delete(this.node.firstElementChild);
      this.node.firstElementChild.remove(); // removals are not read
    }
  }
}

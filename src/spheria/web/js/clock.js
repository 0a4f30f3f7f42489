// The clocks of a timed game (docs/server.md, Clocks): each seat's time left as the server's last
// frame gave it, the running ones counted down smoothly on this page's clock and corrected by every
// frame. The server alone decides when time runs out; the page only shows it.

import { h, clear } from "./ui.js";
import { t } from "./messages.js";

/** Under this much time left (ms) a running real-time clock is shown as low. */
export const LOW_REAL_TIME = 10_000;
/** Under this much time left (ms) a correspondence clock is shown as low. */
export const LOW_CORRESPONDENCE = 6 * 60 * 60 * 1000;
const DAY = 24 * 60 * 60 * 1000;

/** Time left as a clock shows it: ``4:59``, ``0:09.5`` under ten seconds, ``1:02:03``, ``2d 03:00``. */
export function clockText(ms) {
  const left = Math.max(0, Math.floor(ms));
  if (left >= DAY) {
    const rest = left % DAY;
    return `${Math.floor(left / DAY)}d ${pad(Math.floor(rest / 3_600_000))}:${pad(Math.floor((rest % 3_600_000) / 60_000))}`;
  }
  if (left < 10_000) return `0:${pad(Math.floor(left / 1000))}.${Math.floor((left % 1000) / 100)}`;
  const seconds = Math.floor(left / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor(seconds / 60) % 60;
  return hours ? `${hours}:${pad(minutes)}:${pad(seconds % 60)}` : `${minutes}:${pad(seconds % 60)}`;
}

function pad(n) {
  return String(n).padStart(2, "0");
}

export class ClockView {
  /** ``box``: the element the clocks are drawn in (hidden in an untimed game). */
  constructor(box) {
    this.box = box;
    this.clock = null;
    this.at = 0;
    this.names = [];
    this.seat = null;
    this.timer = null;
  }

  /** A new frame: its ``clock`` (null: untimed), the seats' names and this page's seat (null: a spectator). */
  update(clock, names, seat, over) {
    this.clock = clock || null;
    this.at = performance.now();
    this.names = names;
    this.seat = seat;
    this.over = over;
    this.box.hidden = !this.clock;
    this.draw();
    const ticking = this.clock && !over && this.clock.flagged === null && this.clock.running.length > 0;
    if (ticking && this.timer === null) this.timer = setInterval(() => this.draw(), 100);
    if (!ticking && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Seat ``s``'s milliseconds left now: the frame's, less the time since it came while it runs. */
  left(s) {
    const clock = this.clock;
    const running = !this.over && clock.flagged === null && clock.running.includes(s);
    return Math.max(0, clock.left[s] - (running ? performance.now() - this.at : 0));
  }

  draw() {
    clear(this.box);
    const clock = this.clock;
    if (!clock) return;
    const low = clock.clock && clock.clock.days ? LOW_CORRESPONDENCE : LOW_REAL_TIME;
    clock.left.forEach((_, s) => {
      const left = this.left(s);
      const running = !this.over && clock.running.includes(s) && clock.flagged === null;
      const classes = ["clock", running ? "running" : "", left < low ? "low" : "", clock.flagged === s ? "flagged" : "", s === this.seat ? "mine" : ""];
      this.box.appendChild(
        h(
          "div",
          { class: classes.filter(Boolean).join(" "), "data-seat": String(s), role: "timer", "aria-label": t("clock.label", { name: this.names[s] || "?", time: clockText(left) }) },
          h("span", { class: "clock-name" }, this.names[s] || "?"),
          h("span", { class: "clock-time" }, clockText(left)),
        ),
      );
    });
  }
}

/** A time control as the lobby names it: "5+3", "30s+0", "3 days", or "Untimed" (``clock`` null). */
export function controlText(clock) {
  if (!clock) return t("clock.untimed");
  if (clock.days) return t("clock.days", { count: clock.days });
  if (clock.base % 60 === 0) return `${clock.base / 60}+${clock.increment}`; // minutes + seconds, as every language writes it
  return t("clock.real_seconds", { base: clock.base, increment: clock.increment });
}

/** The clocks a record (docs/records.md) shows after its first ``moves`` moves, in a frame's shape
 * (null: an untimed game): each seat's time left after its last move so far, none running, and at
 * the end of a game lost on time the seat that ran out, at 0. */
export function recordedClock(record, moves) {
  if (!record.clock || !Array.isArray(record.clocks)) return null;
  const allowance = record.clock.days ? record.clock.days * DAY : record.clock.base * 1000;
  const left = record.players.map(() => allowance);
  for (const move of record.clocks.slice(0, moves)) for (const [seat, , after] of move) left[seat] = after;
  const end = moves >= record.clocks.length && Number.isInteger(record.lost_on_time);
  const flagged = end ? record.lost_on_time : null;
  if (flagged !== null) left[flagged] = 0;
  return { clock: record.clock, left, running: [], flagged };
}

/** The time each seat whose clock ran used on the record's move ``i`` (0-based), as a clock shows it. */
export function recordedUse(record, i) {
  if (!record.clock || !Array.isArray(record.clocks) || !record.clocks[i]) return [];
  return record.clocks[i].map(([seat, used]) => ({ seat, text: clockText(used) }));
}

// Building a move by clicks. The server sends each seat its legal moves as text; a move is
// picked one token (a site, or a word such as a colour) at a time, and only tokens that can
// still lead to a legal move are offered. Three ways of picking:
//   prefix — the tokens of a listed move, in order (placements, colour choices, most games);
//   set    — Special Cake eating: candies of one listed move in any order the player likes;
//            the server previews the exact order and says whether it is legal;
//   spinca — an optional relocation (a free marble, then a neighbouring site) then a
//            placement; after a relocation the server lists the placements it allows.

import { SITE_BY_NAME, LEVEL_SIZES, LEVEL_OFFSETS, SITES, below, parseBoard } from "./board.js";

const TOKEN = /[0-3][a-d][1-4]|[A-Za-z]+|\d+/g;
const SITE = /^[0-3][a-d][1-4]$/;

export function tokens(text) {
  return (text || "").match(TOKEN) || [];
}

export function isSite(token) {
  return SITE.test(token);
}

export function moveSites(text) {
  return tokens(text).filter(isSite);
}

export function pickingMode(gameName, frame) {
  if (gameName === "special-cake" && frame.observation && frame.observation.phase === "eat") return "set";
  if (gameName === "spinca") return "spinca";
  return "prefix";
}

export class Picker {
  constructor(gameName, frame) {
    this.mode = pickingMode(gameName, frame);
    this.moves = frame.legal_moves || [];
    this.parsed = this.moves.map((m) => ({ text: m, tokens: tokens(m) }));
    this.board = parseBoard(frame.board);
    this.selection = [];
    this.preview = null; // {text, ok, board, error, completions}
  }

  get empty() {
    return this.selection.length === 0;
  }

  /** The text of the selection as a (possibly partial) move. */
  text() {
    const s = this.selection;
    if (this.mode === "set") return s.join("+");
    if (this.mode === "spinca") {
      if (s.length === 1) return s[0];
      if (s.length === 2) return `${s[0]}-${s[1]}`;
      if (s.length === 3) return `${s[0]}-${s[1]} ${s[2]}`;
      return "";
    }
    const exact = this.exactListed();
    return exact ? exact.text : s.join(" ");
  }

  exactListed() {
    const s = this.selection;
    return this.parsed.find((m) => m.tokens.length === s.length && m.tokens.every((t, i) => t === s[i])) || null;
  }

  candidates() {
    const s = this.selection;
    return this.parsed.filter((m) => m.tokens.length >= s.length && s.every((t, i) => m.tokens[i] === t));
  }

  /** What may be picked next: sites, words, and whether the selection is already a move. */
  options() {
    const s = this.selection;
    const sites = new Set();
    const words = new Set();
    if (this.mode === "set") {
      const chosen = new Set(s);
      for (const m of this.parsed) {
        const set = new Set(m.tokens);
        if (s.every((t) => set.has(t))) m.tokens.forEach((t) => !chosen.has(t) && sites.add(t));
      }
      const ok = !!(this.preview && this.preview.text === this.text() && this.preview.ok);
      return { sites, words, complete: ok, final: false, waiting: s.length > 0 && !this.preview };
    }
    if (this.mode === "spinca") {
      if (s.length === 0) {
        for (const m of this.parsed) sites.add(m.tokens[0]);
        return { sites, words, complete: false, final: false };
      }
      if (s.length === 1) {
        if (this.exactListed()) return { sites, words, complete: true, final: true }; // a placement alone
        for (const m of this.candidates()) if (m.tokens.length > 1) sites.add(m.tokens[1]);
        for (const t of relocationTargets(this.board, s[0])) sites.add(t);
        return { sites, words, complete: false, final: false };
      }
      if (s.length === 2) {
        const p = this.preview && this.preview.text === this.text() ? this.preview : null;
        if (p && p.completions) p.completions.forEach((c) => sites.add(c.site));
        return { sites, words, complete: false, final: false, waiting: !p };
      }
      return { sites, words, complete: true, final: true };
    }
    const cands = this.candidates();
    for (const m of cands) {
      const next = m.tokens[s.length];
      if (next === undefined) continue;
      if (isSite(next)) sites.add(next);
      else words.add(next);
    }
    const exact = this.exactListed();
    return { sites, words, complete: !!exact, final: !!exact && cands.length === 1 };
  }

  /** Add a token; returns false if it cannot be picked now. */
  pick(token) {
    const s = this.selection;
    if (this.mode === "set" && s.includes(token)) {
      if (s[s.length - 1] === token) this.back();
      return true;
    }
    if (this.mode === "spinca" && s.length === 1 && token === s[0]) {
      this.back();
      return true;
    }
    const { sites, words } = this.options();
    if (!sites.has(token) && !words.has(token)) return false;
    s.push(token);
    this.preview = null;
    return true;
  }

  back() {
    this.selection.pop();
    this.preview = null;
  }

  clear() {
    this.selection = [];
    this.preview = null;
  }

  /** Whether the server should be asked about the current selection. */
  wantsPreview() {
    if (this.mode === "set") return this.selection.length > 0;
    if (this.mode === "spinca") return this.selection.length === 2 || this.selection.length === 3;
    return false;
  }

  /** The board to draw in the main view while picking (after the candidate move), or null. */
  previewBoard() {
    const p = this.preview;
    if (!p || p.text !== this.text()) return null;
    if (p.ok) return p.board;
    if (this.mode === "spinca" && p.completions && p.completions.length) {
      // The board after the relocation alone: a completion's board without its placed marble.
      const c = p.completions[0];
      const chars = parseBoard(c.board);
      chars[SITE_BY_NAME.get(c.site).index] = ".";
      return joinBoard(chars);
    }
    return null;
  }
}

export function joinBoard(chars) {
  return LEVEL_OFFSETS.map((o, l) => chars.slice(o, o + LEVEL_SIZES[l] ** 2).join("")).join("/");
}

/** Empty sites next to ``name`` on its level (orthogonally or diagonally) that can hold a ball. */
export function relocationTargets(board, name) {
  const from = SITE_BY_NAME.get(name);
  if (!from || board[from.index] === "." || from.level === 3) return [];
  const out = [];
  for (const s of SITES) {
    if (s.level !== from.level || s.index === from.index || s.level === 3) continue;
    if (Math.abs(s.row - from.row) > 1 || Math.abs(s.col - from.col) > 1) continue;
    if (board[s.index] !== ".") continue;
    if (below(s).some((t) => board[t.index] === ".")) continue;
    out.push(s.name);
  }
  return out;
}

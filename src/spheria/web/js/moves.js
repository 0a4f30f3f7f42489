// Building a move by clicks. The page knows no rules: the server sends each seat its legal
// moves as text and a tree of clicks (frame.clicks): a node {move, next} says which move the
// clicks so far make (an index into frame.legal_moves) and which clicks lead on. The page
// offers only the clicks of the current node, so a selection always completes to a legal
// move; for games whose sites may be clicked in any order (the sites of a line, say) the tree
// holds every order, each leading to the move the server worked out for it.

import { SITE_BY_NAME } from "./board.js";

const SITE_TOKEN = /[0-3][a-d][1-4]/g;

/** The sites named in a move's text (for marking the last move), in order. */
export function moveSites(text) {
  return (text || "").match(SITE_TOKEN) || [];
}

export function isSite(token) {
  return SITE_BY_NAME.has(token);
}

export class Picker {
  constructor(frame) {
    this.moves = frame.legal_moves || [];
    this.tree = frame.clicks || {};
    this.kind = frame.picking || "none";
    this.selection = [];
    this.preview = null; // {move, ok, board, error}
  }

  get empty() {
    return this.selection.length === 0;
  }

  /** The tree node the selection has reached (never missing: picks follow the tree). */
  node() {
    let node = this.tree;
    for (const click of this.selection) node = (node.next || {})[click] || {};
    return node;
  }

  /** The move text the selection makes now (in the order clicked when that order is legal), or null. */
  move() {
    const node = this.node();
    if (node.move === undefined) return null;
    return node.order || this.moves[node.move];
  }

  /** What may be clicked next, and whether the selection is a move (final: nothing extends it). */
  options() {
    const node = this.node();
    const sites = new Set();
    const words = new Set();
    for (const click of Object.keys(node.next || {})) (isSite(click) ? sites : words).add(click);
    const complete = node.move !== undefined;
    return { sites, words, complete, final: complete && sites.size + words.size === 0, move: this.move() };
  }

  /** Add a click; clicking the last pick again takes it back. Returns false if it cannot be picked now. */
  pick(token) {
    const s = this.selection;
    if (s.length && s[s.length - 1] === token) {
      this.back();
      return true;
    }
    if (!(this.node().next || {})[token]) return false;
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

  /** The move the server should preview (the board after it), or null. */
  wantsPreview() {
    const move = this.move();
    return move && this.kind === "set" ? move : null;
  }

  /** The board the clicks so far leave when the server sent it (after a relocation), or null. */
  partialBoard() {
    return this.node().board || null;
  }

  /** The board to draw in the main view while picking (after the candidate move), or null. */
  previewBoard() {
    const p = this.preview;
    if (p && p.ok && p.move === this.move()) return p.board;
    return this.partialBoard();
  }
}

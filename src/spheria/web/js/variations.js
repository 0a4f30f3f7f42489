// The analysis board's variation tree: moves as text (the server checks them), nodes numbered in
// pre-order, and its text form for a link: moves joined by commas, each variation in brackets
// after the move it replaces, e.g. "0a1,0b1,(0c1,0d1),0b2": 0b1 then 0b2 is the main line, 0c1 0d1
// a variation in place of 0b1. The page knows no rules: a tree holds whatever moves were played.

export class Node {
  constructor(move = null, parent = null) {
    this.move = move;
    this.parent = parent;
    this.children = [];
    this.mark = null; // "mistake" / "drop" on a finished game's moves
  }

  /** The moves from the root to this node. */
  path() {
    const moves = [];
    for (let node = this; node.parent; node = node.parent) moves.unshift(node.move);
    return moves;
  }

  get depth() {
    let depth = 0;
    for (let node = this; node.parent; node = node.parent) depth++;
    return depth;
  }

  /** The child reached by ``move``, made (as a new variation after the others) if it is not there. */
  child(move) {
    let found = this.children.find((c) => c.move === move);
    if (!found) {
      found = new Node(move, this);
      this.children.push(found);
    }
    return found;
  }

  /** Whether this node is on the main line of its parent's children all the way up. */
  get onMainLine() {
    for (let node = this; node.parent; node = node.parent) if (node.parent.children[0] !== node) return false;
    return true;
  }
}

/** Every node in pre-order (the root first, each main continuation before its variations). */
export function nodes(root) {
  const out = [];
  const visit = (node) => {
    out.push(node);
    node.children.forEach(visit);
  };
  visit(root);
  return out;
}

/** The nodes that end a line (every move of the tree lies on the path to one of them). */
export function leaves(root) {
  return nodes(root).filter((n) => !n.children.length);
}

/** Make ``node``'s line the main line at every branch above it. */
export function promote(node) {
  for (let n = node; n.parent; n = n.parent) {
    const siblings = n.parent.children;
    siblings.splice(siblings.indexOf(n), 1);
    siblings.unshift(n);
  }
}

/** Remove ``node`` and everything after it; returns its parent. */
export function remove(node) {
  const parent = node.parent;
  if (!parent) return node;
  parent.children.splice(parent.children.indexOf(node), 1);
  return parent;
}

/** The main line from ``node`` on (its first children). */
export function mainLine(node) {
  const line = [];
  for (let n = node.children[0]; n; n = n.children[0]) line.push(n);
  return line;
}

/** The tree's text for a link. */
export function encode(root) {
  const line = (start) => {
    const out = [];
    for (let node = start; node.children.length; node = node.children[0]) {
      const [main, ...others] = node.children;
      out.push(main.move);
      for (const other of others) out.push(`(${[other.move, ...(other.children.length ? [line(other)] : [])].join(",")})`);
    }
    return out.join(",");
  };
  return line(root);
}

/** A tree from its text (the inverse of ``encode``); throws an Error naming the fault. */
export function decode(text) {
  const root = new Node();
  const tokens = (text || "").split(/([(),])/).filter((t) => t.trim() !== "" && t !== ",");
  let index = 0;
  const line = (start, nested) => {
    let at = start;
    let last = null;
    while (index < tokens.length) {
      const token = tokens[index++];
      if (token === ")") {
        if (!nested) throw new Error("')' without '('");
        return;
      }
      if (token === "(") {
        if (!last) throw new Error("a variation '(' must follow a move");
        line(last.parent, true);
        continue;
      }
      last = at.child(token.trim());
      at = last;
    }
    if (nested) throw new Error("'(' without ')'");
  };
  line(root, false);
  return root;
}

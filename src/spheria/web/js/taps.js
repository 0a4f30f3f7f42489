// Taps that survive a redraw: what is pressed is found by a key under the pointer, not by element.

/** How far (CSS px) a pointer may move between press and release and still be a tap. */
const TAP_SLOP = 16;

/**
 * Call ``onTap(key)`` for a press and release over the same thing inside ``element``, even if it
 * was redrawn in between (a frame from the server or a switch of language may arrive during a
 * tap): ``keyOf(node)`` names the thing a node is part of (or null), so the release is judged by
 * the key under the pointer, not by the element pressed, which a redraw replaces and whose
 * native click then never comes. A press that slides away, or onto another thing, is no tap.
 */
export function listenForTaps(element, keyOf, onTap) {
  let press = null;
  element.addEventListener("pointerdown", (e) => {
    const key = keyOf(e.target);
    press = key !== null && e.button === 0 ? { key, id: e.pointerId, x: e.clientX, y: e.clientY } : null;
  });
  element.addEventListener("pointerup", (e) => {
    if (!press || e.pointerId !== press.id) return;
    const { key, x, y } = press;
    press = null;
    const still = Math.hypot(e.clientX - x, e.clientY - y) <= TAP_SLOP;
    if (still && keyOf(document.elementFromPoint(e.clientX, e.clientY)) === key) onTap(key);
  });
  element.addEventListener("pointercancel", () => (press = null));
}

/** The word (``data-word`` of a choice button) that ``node`` is part of, or null. */
export function wordUnder(node) {
  const button = node && node.closest ? node.closest(".choice[data-word]") : null;
  return button ? button.dataset.word : null;
}

/** A click made without a pointer (a key on a focused button): pointers are heard by ``listenForTaps``. */
export function keyboardClick(event) {
  return event.detail === 0;
}

// Small helpers shared by the pages.

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export async function api(path, options = {}) {
  const response = await fetch(path, {
    headers: { "Content-Type": "application/json" },
    ...options,
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `${response.status} ${response.statusText}`;
    throw new Error(message);
  }
  return data;
}

/** The colour of the balls a seat plays ('w', 'b', 'r') or null, by game and options. */
export function seatColors(game, options, count) {
  if (game === "special-cake") return options && options.variant === "sugar" ? [null, null] : ["w", "b"];
  if (game === "spline") return ["w", "b"];
  if (game === "spinca") {
    if (count === 3) return ["w", "b", "r"];
    if (count === 4) return ["w", "b", "w", "b"];
    return ["w", "b"];
  }
  return Array.from({ length: count }, () => null);
}

export function ballSwatch(color, size = 16) {
  const span = h("span", { class: `swatch swatch-${color || "none"}` });
  span.style.width = `${size}px`;
  span.style.height = `${size}px`;
  return span;
}

export function describeOptions(options) {
  return Object.entries(options || {})
    .map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`)
    .join(" · ");
}

export function copyButton(text, label = "Copy") {
  const button = h("button", { class: "small", type: "button" }, label);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch {
      const input = h("input", { value: text });
      document.body.appendChild(input);
      input.select();
      document.execCommand("copy");
      input.remove();
      button.textContent = "Copied";
    }
    setTimeout(() => (button.textContent = label), 1500);
  });
  return button;
}

export function absolute(path) {
  return new URL(path, location.href).href;
}

const INVITES = "spheria.invites";

export function savedInvites() {
  try {
    return JSON.parse(localStorage.getItem(INVITES) || "{}");
  } catch {
    return {};
  }
}

export function saveInvites(gameId, seats, owner) {
  const all = savedInvites();
  all[gameId] = seats;
  if (owner) localStorage.setItem(`spheria.owner.${gameId}`, owner);
  localStorage.setItem(INVITES, JSON.stringify(all));
}

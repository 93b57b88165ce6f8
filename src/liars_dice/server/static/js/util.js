// Small DOM and formatting helpers shared by every page. No framework: every
// piece of user-supplied text goes through textContent, never innerHTML.
// No rule of the game and no wording of a bid lives here: the server sends each
// bid's words and chance, and which dice count (docs/server-protocol.md).

/** Build an element: h("div", {class: "x", onclick: fn}, child, "text", ...). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace every child of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

const NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen " +
  "fourteen fifteen sixteen seventeen eighteen nineteen twenty").split(" ");

/** 4 -> "four"; above twenty stays digits (as the engine's number_word). */
export function numberWord(n) {
  return n >= 0 && n < NUMBER_WORDS.length ? NUMBER_WORDS[n] : String(n);
}

/** Whether `face` is drawn as a star under these rule options (drawing only). */
export function isStar(rules, face) {
  return !!(rules && rules.star_symbol && face === rules.wild_face);
}

/** "3 dice" / "1 die". */
export function dice(n) {
  return `${n} ${n === 1 ? "die" : "dice"}`;
}

/** Join names: "ann", "ann and bob", "ann, bob and cy". */
export function listWords(items) {
  if (items.length <= 1) return items.join("");
  return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
}

export function percent(p) {
  if (p === null || p === undefined) return "–";
  if (p > 0 && p < 0.01) return "<1%";
  if (p < 1 && p > 0.99) return ">99%";
  return `${Math.round(p * 100)}%`;
}

/** Sorted copy of a list of faces, for comparing multisets. */
export function sortedFaces(faces) {
  return [...faces].sort((a, b) => a - b);
}

export function sameFaces(a, b) {
  const x = sortedFaces(a), y = sortedFaces(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** localStorage that never throws (private mode, quota, disabled storage). */
export const store = {
  get(key) {
    try { return localStorage.getItem(key); } catch { return null; }
  },
  set(key, value) {
    try { localStorage.setItem(key, value); } catch { /* storage unavailable */ }
  },
  remove(key) {
    try { localStorage.removeItem(key); } catch { /* storage unavailable */ }
  },
  keys() {
    try { return Object.keys(localStorage); } catch { return []; }
  },
};

const TOKEN_PREFIX = "liars-dice:seat:";

/** The seat token this browser holds for a table, or null. */
export function seatToken(code) {
  return store.get(TOKEN_PREFIX + code.toUpperCase());
}

export function saveSeatToken(code, token) {
  store.set(TOKEN_PREFIX + code.toUpperCase(), token);
}

export function forgetSeatToken(code) {
  store.remove(TOKEN_PREFIX + code.toUpperCase());
}

/** Every seat token this browser holds. */
export function allSeatTokens() {
  return store.keys().filter((k) => k.startsWith(TOKEN_PREFIX)).map((k) => store.get(k)).filter(Boolean);
}

export function nickname() {
  return store.get("liars-dice:nickname") || "";
}

export function saveNickname(name) {
  store.set("liars-dice:nickname", name);
}

/** "12:04" in the browser's time zone. */
export function clock(iso) {
  const d = new Date(iso);
  return isNaN(d) ? "" : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

export function dateTime(iso) {
  const d = new Date(iso);
  return isNaN(d) ? "" : d.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

/** Tell screen readers one sentence through the page's live region (#announcer). */
export function announce(text) {
  const box = document.getElementById("announcer");
  if (!box || !text) return;
  box.appendChild(h("p", {}, text));
  while (box.children.length > 12) box.firstChild.remove();
}

/** A selector that finds `el`'s twin after a re-draw: its id, else its tag and data-* attributes. */
function focusSelector(el) {
  if (el.id) return `#${CSS.escape(el.id)}`;
  const data = [...el.attributes].filter((a) => a.name.startsWith("data-"));
  if (!data.length) return null;
  return el.tagName.toLowerCase() + data.map((a) => `[${a.name}="${CSS.escape(a.value)}"]`).join("");
}

/**
 * Run `render`, then give the focus back to the twin of the element that had it
 * when the re-draw replaced that element (a keyboard player keeps their place).
 */
export function keepFocus(render) {
  const before = document.activeElement;
  const sel = before && before !== document.body ? focusSelector(before) : null;
  render();
  if (sel && !before.isConnected) {
    const twin = document.querySelector(sel);
    if (twin && !twin.disabled) twin.focus({ preventScroll: true });
  }
}

/**
 * Arrow keys for a radio group (WAI-ARIA Authoring Practices, "Radio Group"):
 * the group is one Tab stop (the checked radio has tabindex 0, the others -1,
 * set by whoever draws them); Right/Down pick the next enabled radio, Left/Up
 * the previous, wrapping, Home/End the first/last; the pick follows focus, as
 * the table's face picker does. The radio is clicked, so the group's own
 * handler picks it; the group may be redrawn by that click, so the checked
 * radio is found again afterwards and focused.
 * Use: h("div", { role: "radiogroup", onkeydown: radioKeys }, ...radios).
 */
export function radioKeys(e) {
  const group = e.currentTarget;
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
  if (!step && e.key !== "Home" && e.key !== "End") return;
  const radios = [...group.querySelectorAll('[role="radio"]:not([disabled])')];
  if (!radios.length) return;
  e.preventDefault();
  const at = radios.findIndex((r) => r.getAttribute("aria-checked") === "true");
  let next;
  if (e.key === "Home") next = radios[0];
  else if (e.key === "End") next = radios[radios.length - 1];
  else next = radios[((at < 0 ? (step > 0 ? -1 : 0) : at) + step + radios.length) % radios.length];
  next.click();
  const checked = group.querySelector('[role="radio"][aria-checked="true"]');
  if (checked) checked.focus();
}

// Small DOM and formatting helpers shared by every page. No framework: every
// piece of user-supplied text goes through textContent, never innerHTML.

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

/** Whether `face` is drawn as a star under these rule options. */
export function isStar(rules, face) {
  return !!(rules && rules.star_symbol && face === rules.wild_face);
}

/** Words for a bid, as the engine's Rules.describe_bid: "four 3s", "three stars". */
export function describeBid(rules, bid) {
  const q = bid.quantity, f = bid.face;
  const noun = isStar(rules, f) ? (q === 1 ? "star" : "stars") : (q === 1 ? `${f}` : `${f}s`);
  return `${numberWord(q)} ${noun}`;
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

/** P[X >= k] for X ~ Binomial(n, p): the engine's odds.binomial_tail. */
export function binomialTail(n, k, p) {
  if (k <= 0) return 1;
  if (k > n) return 0;
  let total = 0;
  let c = 1; // C(n, 0)
  for (let i = 0; i <= n; i++) {
    if (i >= k) total += c * p ** i * (1 - p) ** (n - i);
    c = (c * (n - i)) / (i + 1);
  }
  return Math.min(1, Math.max(0, total));
}

/** Whether one die counts toward a bid on `face` (engine Rules.matches). */
export function matches(rules, die, face, wildsActive) {
  return die === face || (wildsActive && rules.wild_face !== null && die === rules.wild_face && face !== rules.wild_face);
}

/**
 * Chance that `bid` is true from one seat's knowledge (engine odds.view_bid_probability):
 * own hidden dice plus every shown die are known, every other die is a fair roll.
 */
export function bidChance(view, bid) {
  const rules = view.rules_options;
  const seen = [...view.hand, ...Object.values(view.shown || {}).flat()];
  const total = Object.values(view.dice).reduce((a, b) => a + b, 0);
  const unseen = total - seen.length;
  const wilds = view.bids.length || view.palifico
    ? view.wilds_active
    : !(rules.wild_face !== null && rules.wilds_suspended_on_wild_opening && bid.face === rules.wild_face);
  const have = seen.filter((d) => matches(rules, d, bid.face, wilds)).length;
  const wild = wilds && rules.wild_face !== null && bid.face !== rules.wild_face;
  return binomialTail(unseen, bid.quantity - have, (wild ? 2 : 1) / rules.faces);
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

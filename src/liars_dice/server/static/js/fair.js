// Provably fair dice (docs/fair-dice.md): the round's commitment from the deal on,
// and its seed at the reveal. The browser only shows them; `liars-dice verify` checks.
import { h } from "./util.js";

const HOW = "Each round's dice come from a secret server seed, mixed with a seed your own page picks after the server has committed. " +
  "The server seed's SHA-256 (the commitment) is shown before your page sends its seed, and every seed is shown at the reveal, " +
  "so not even the server could choose the dice. Download the game record at the end and run `liars-dice verify` on it " +
  "(docs/fair-dice.md) to check every die.";

// What the player opened stays open when the table re-draws at the next move.
const shownWhole = new Set();
let howOpen = false;

/** "How to check", opened by a click (no hover needed on a phone). */
function how() {
  const el = h("details", { class: "fair-how", open: howOpen }, h("summary", {}, "how to check"), h("span", {}, HOW));
  el.addEventListener("toggle", () => { howOpen = el.open; });
  return el;
}

/** A hash in short form (12 hex digits); the whole on hover, or on click / Enter. */
export function hashChip(hex, id = null, cls = "") {
  const text = () => (shownWhole.has(hex) ? hex : `${hex.slice(0, 12)}…`);
  const chip = h("code", { class: `fair-hash ${cls}`.trim(), id, title: hex, tabindex: "0", role: "button", "aria-label": hex }, text());
  const toggle = () => {
    if (shownWhole.has(hex)) shownWhole.delete(hex); else shownWhole.add(hex);
    chip.textContent = text();
  };
  chip.addEventListener("click", toggle);
  chip.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); } });
  return chip;
}

/** The line under the current round: the dice are committed. */
export function commitmentLine(commitment) {
  if (!commitment) return null;
  return h("div", { class: "fair small muted", id: "fair-commitment" },
    "Fair dice: committed to ", hashChip(commitment, "commitment"), " ", how());
}

/** The line of a reveal: the round's seed, published now. */
export function seedLine(result) {
  if (!result || !result.seed) return null;
  return h("p", { class: "fair small muted fair-seed" },
    "Fair dice: server seed ", hashChip(result.seed, null, "seed"), " (its SHA-256 ", hashChip(result.commitment), ")",
    mixedWith(result), " ", how());
}

/** Version 2: whose own seeds went into the round's dice, and whose page sent none. */
function mixedWith(result) {
  if (!result.contributions) return null;
  const names = Object.keys(result.contributions);
  const missing = result.missing && result.missing.length ? `; none came from ${result.missing.join(", ")}` : "";
  return names.length ? `, mixed with the players' own seeds from ${names.join(", ")}${missing}` : `, with no player's seed${missing}`;
}

// ---- version 2: this page's own seed in every deal ---------------------------------

const SEED_KEY = (code, commitment) => `liars-dice-seed:${code}:${commitment}`;

function randomHex() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Answer the server's commitment to the next deal with a seed of this page's
 * own (once per commitment; kept in this tab to show it went into the dice).
 * `send` sends a websocket message. No seed is sent twice, and none before
 * the commitment it answers is known.
 */
export function contribute(code, commitment, send) {
  if (!commitment) return;
  const key = SEED_KEY(code, commitment);
  let seed = null;
  try { seed = sessionStorage.getItem(key); } catch (e) { seed = null; }
  if (seed) return;
  seed = randomHex();
  try { sessionStorage.setItem(key, seed); } catch (e) { /* private mode: sent, not kept */ }
  send({ type: "seed", commitment, seed });
}

async function sha256Hex(hex) {
  if (!(window.crypto && crypto.subtle)) return null; // not a secure context: the server's digest is shown as is
  const bytes = new Uint8Array(hex.match(/../g).map((b) => parseInt(b, 16)));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** "Your seed: 3fa2…, used": this page's seed for the round in play, checked against the digest published at the deal. */
export function mySeedLine(code, view, myName) {
  if (!view || !view.commitment || !view.contribution_digests || !myName) return null;
  let seed = null;
  try { seed = sessionStorage.getItem(SEED_KEY(code, view.commitment)); } catch (e) { seed = null; }
  const digest = view.contribution_digests[myName];
  if (!seed) return digest ? h("div", { class: "fair small muted", id: "my-seed" }, "Your seed went into this deal (sent from another tab or device).") : null;
  const line = h("div", { class: "fair small muted", id: "my-seed" }, "Your seed: ", hashChip(seed, null, "seed"), digest ? ", used" : ", not in this deal (it came too late)");
  if (digest) {
    sha256Hex(seed).then((mine) => {
      if (mine !== null && mine !== digest) line.replaceChildren("Your seed: ", hashChip(seed, null, "seed"), ", NOT the one in this deal: download the record and run liars-dice verify.");
    });
  }
  return line;
}

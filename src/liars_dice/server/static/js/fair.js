// Provably fair dice (docs/fair-dice.md): the round's commitment from the deal on,
// and its seed at the reveal. The browser only shows them; `liars-dice verify` checks.
import { h } from "./util.js";

const HOW = "Each round's dice come from a secret seed. Its SHA-256 (the commitment) is shown before the first bid; " +
  "the seed is shown at the reveal. Download the game record at the end and run `liars-dice verify` on it " +
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
    "Fair dice: seed ", hashChip(result.seed, null, "seed"), " (its SHA-256 ", hashChip(result.commitment), ") ", how());
}

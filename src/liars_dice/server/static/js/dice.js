// Dice drawn as dice: a 3x3 grid of pips, and a star for the star face of wild-stars.
import { h, isStar } from "./util.js";

// Pip cells of a 3x3 grid (0 = top left, 8 = bottom right) for faces 1..9.
const PIPS = {
  1: [4],
  2: [2, 6],
  3: [2, 4, 6],
  4: [0, 2, 6, 8],
  5: [0, 2, 4, 6, 8],
  6: [0, 2, 3, 5, 6, 8],
  7: [0, 2, 3, 4, 5, 6, 8],
  8: [0, 1, 2, 3, 5, 6, 7, 8],
  9: [0, 1, 2, 3, 4, 5, 6, 7, 8],
};

/**
 * One die. `face` null draws a hidden die (a cup-side "?").
 * opts: {rules, size: "xs"|"sm"|"md"|"lg", match: bool, dim: bool, button: bool, selected: bool, onclick,
 * index: its place in a hand (data-idx, so a re-draw gives the keyboard focus back to it)}
 */
export function die(face, opts = {}) {
  const { rules = null, size = "md", match = false, dim = false, selected = false, onclick = null, title = null, index = null } = opts;
  const classes = ["die", `die-${size}`];
  if (face === null || face === undefined) classes.push("die-hidden");
  if (match) classes.push("die-match");
  if (dim) classes.push("die-dim");
  if (selected) classes.push("die-selected");
  const wild = rules && face !== null && face === rules.wild_face;
  if (wild) classes.push("die-wild");
  // A wild face with a name of its own (a paco in perudo) is labelled and drawn as such.
  const named = wild && Array.isArray(rules.face_names) ? rules.face_names.find((e) => e[0] === face) : null;
  if (named) classes.push("die-named-wild");
  const base = face === null || face === undefined ? "hidden die" : isStar(rules, face) ? "star" : named ? named[1] : `${face}`;
  const label = match ? `${base}, counted` : dim ? `${base}, not counted` : base;
  const tag = onclick ? "button" : "span";
  const el = h(tag, {
    class: classes.join(" "),
    role: onclick ? null : "img",
    "aria-label": label,
    "aria-pressed": onclick ? String(!!selected) : null,
    title: title || label,
    type: onclick ? "button" : null,
    onclick,
    dataset: index === null ? { face: face ?? "" } : { face: face ?? "", idx: index },
  });
  if (face === null || face === undefined) {
    el.appendChild(h("span", { class: "die-q" }, "?"));
  } else if (isStar(rules, face)) {
    el.appendChild(h("span", { class: "die-star" }, "★"));
  } else {
    const cells = PIPS[face] || [];
    for (let i = 0; i < 9; i++) el.appendChild(h("span", { class: cells.includes(i) ? "pip" : "pip pip-off" }));
  }
  return el;
}

/** A row of dice. */
export function diceRow(faces, opts = {}) {
  // counted: per die, whether it counts toward the bid (sent by the server), or null
  const { counted = null, rules = null, size = "md", hiddenCount = 0 } = opts;
  const row = h("span", { class: "dice-row" });
  faces.forEach((f, i) => {
    const m = !!(counted && counted[i]);
    row.appendChild(die(f, { rules, size, match: m, dim: counted !== null && !m }));
  });
  for (let i = 0; i < hiddenCount; i++) row.appendChild(die(null, { rules, size }));
  return row;
}

/** A bid drawn as "4 × [die]". */
export function bidChip(rules, bid, size = "sm") {
  return h("span", { class: "bid-chip" }, h("span", { class: "bid-q" }, String(bid.quantity)), h("span", { class: "bid-x" }, "×"), die(bid.face, { rules, size }));
}

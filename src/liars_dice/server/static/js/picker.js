// The move picker: legal raises only (a face, then a quantity), the show of
// show-and-reroll, the hint for the bid picked, and the challenge. Each raise's
// words and chance come from the server (view.legal.raises).
import { die } from "./dice.js";
import { h, percent, sameFaces } from "./util.js";

/** The bid the picker starts on: the cheapest raise of a face other than the wild
 *  one (an opening on the wild face may cancel wilds, seed 004); else the cheapest. */
export function defaultPick(raises, rules) {
  const first = raises.find((b) => b.face !== rules.wild_face) || raises[0];
  return { face: first ? first.face : null, quantity: first ? first.quantity : null };
}

/**
 * The picker's elements for the seat to move.
 * view: the state view (with `legal`); pick: {face, quantity, show: hand indices}, edited in place;
 * onChange() re-draws; onBid(bid, shownFaces); onChallenge().
 */
export function bidPicker({ view: v, rules: r, pick: p, hint, onChange, onBid, onChallenge, onCalza = null }) {
  const raises = v.legal.raises;
  const byFace = new Map(); // face -> lowest and highest legal quantity, and the lowest raise
  for (const b of raises) {
    const e = byFace.get(b.face) || { min: b.quantity, max: b.quantity, lowest: b };
    if (b.quantity < e.min) { e.min = b.quantity; e.lowest = b; }
    e.max = Math.max(e.max, b.quantity);
    byFace.set(b.face, e);
  }
  if (p.face === null || !byFace.has(p.face)) Object.assign(p, defaultPick(raises, r));
  const range = p.face !== null ? byFace.get(p.face) : null;
  if (range) p.quantity = Math.min(range.max, Math.max(range.min, p.quantity ?? range.min));
  const raise = range ? raises.find((b) => b.face === p.face && b.quantity === p.quantity) : undefined;
  const bidOk = !!raise;

  // A radio group of faces: one Tab stop (the face picked), the arrow keys move the pick.
  const pickFace = (f) => { p.face = f; p.quantity = byFace.get(f).min; onChange(); };
  const faces = h("div", { class: "face-picker", role: "radiogroup", "aria-label": "Face",
    onkeydown: (e) => {
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
      if (!step || p.face === null) return;
      e.preventDefault();
      for (let f = p.face + step; f >= 1 && f <= r.faces; f += step) {
        if (byFace.has(f)) {
          pickFace(f);
          const next = document.querySelector(`.face-btn[data-face="${f}"]`);
          if (next) next.focus();
          return;
        }
      }
    } });
  for (let f = 1; f <= r.faces; f++) {
    const e = byFace.get(f);
    faces.appendChild(h("button", {
      type: "button", class: `face-btn ${p.face === f ? "on" : ""}`, role: "radio", "aria-checked": String(p.face === f),
      tabindex: p.face === f ? "0" : "-1",
      "aria-label": e ? `face ${f}, lowest bid ${e.lowest.words}` : `face ${f}, no raise`,
      disabled: !e, dataset: { face: f }, title: e ? `lowest: ${e.lowest.words}` : "no legal raise on this face",
      onclick: () => pickFace(f),
    }, die(f, { rules: r, size: "md" }), h("span", { class: "face-min", "aria-hidden": "true" }, e ? `${e.min}+` : "–")));
  }
  const qty = h("div", { class: "qty-picker" },
    h("button", { type: "button", class: "btn qty-btn", id: "qty-down", "aria-label": "one fewer", disabled: !range || p.quantity <= range.min, onclick: () => { p.quantity--; onChange(); } }, "−"),
    h("span", { class: "qty", id: "qty", role: "status", title: "quantity" }, p.quantity ?? "–"),
    h("button", { type: "button", class: "btn qty-btn", id: "qty-up", "aria-label": "one more", disabled: !range || p.quantity >= range.max, onclick: () => { p.quantity++; onChange(); } }, "+"));

  const showFaces = p.show.map((i) => v.hand[i]).filter((f) => f !== undefined);
  const showOk = !showFaces.length || v.legal.shows.some((s) => sameFaces(s, showFaces));
  const bid = bidOk ? { quantity: p.quantity, face: p.face } : null;
  const chance = hint && raise ? raise.chance : null;
  const cur = v.bids.length ? v.bids[v.bids.length - 1] : null;
  return [
    h("h2", {}, cur ? "Raise or challenge" : "Open the bidding"),
    raises.length ? h("div", { class: "picker" },
      faces,
      h("div", { class: "bid-line" },
        qty,
        h("button", { type: "button", class: "btn btn-primary btn-bid", id: "bid-btn", disabled: !bid || !showOk,
          onclick: () => onBid(bid, showFaces) },
          bid ? ["Bid ", raise.words, showFaces.length ? ` + show ${showFaces.length}` : ""] : "Pick a bid")),
      chance !== null ? h("div", { class: "small hint" }, `Chance that ${raise.words} is true, from your dice: `, h("strong", {}, percent(chance))) : null,
      !showOk ? h("div", { class: "small warn" }, "Keep at least one die hidden to reroll.") : null)
      : h("p", { class: "muted" }, "No raise is possible: every die is already bid."),
    v.legal.challenge || (v.legal.calza && onCalza) ? callLine({ v, p, cur, hint, onChange, onChallenge, onCalza }) : null,
  ];
}


/**
 * The moves that end a round (a challenge, a calza) take a second tap (issue 38,
 * fault 7: on a phone "Liar!" sits under "Bid", and a mis-tap could not be
 * taken back). The first tap arms the move: the line becomes the question (where
 * the tapped button was, so a double tap lands on words) over "Cancel" and the
 * confirming button; focus moves to the confirming button, whose label
 * says the whole move (Enter confirms, Escape cancels), and nothing is sent
 * before it. A player who meant it taps twice, with no wait.
 * p.confirm: null, "challenge" or "calza" (kept in the pick, so a re-draw keeps it).
 */
function callLine({ v, p, cur, hint, onChange, onChallenge, onCalza }) {
  const arm = (what) => () => {
    p.confirm = what;
    onChange();
    const button = document.getElementById(`confirm-${what}`);
    if (button) button.focus();
  };
  const cancel = () => {
    const what = p.confirm;
    p.confirm = null;
    onChange();
    const back = document.getElementById(`${what}-btn`);
    if (back) back.focus();
  };
  if (p.confirm === "challenge" && v.legal.challenge || p.confirm === "calza" && v.legal.calza && onCalza) {
    const calza = p.confirm === "calza";
    const question = calza ? `Call calza: exactly ${cur.words}? If not exact, you lose a die.`
      : `Call liar on ${cur.player}'s ${cur.words}? The dice are shown and the round ends.`;
    const no = h("button", { type: "button", class: "btn btn-wide", id: "cancel-call", onclick: cancel }, "Cancel");
    const yes = h("button", { type: "button", class: `btn btn-wide ${calza ? "btn-primary" : "btn-danger"}`, id: `confirm-${p.confirm}`,
      "aria-describedby": "confirm-question",
      onclick: () => { p.confirm = null; (calza ? onCalza : onChallenge)(); } },
      calza ? `Yes, call calza on ${cur.words}` : `Yes, call liar on ${cur.player}`);
    // the confirming button under the other move's place (Liar! first, Calza! second in the line)
    const both = calza && v.legal.challenge ? [yes, no] : [no, yes];
    // a re-draw while the question stands (a presence or chat message, the timer)
    // makes new buttons: focus that fell to the page goes back to the confirming one
    queueMicrotask(() => {
      const at = document.activeElement;
      if ((!at || at === document.body) && yes.isConnected) yes.focus();
    });
    return h("div", { class: "call-line call-confirm", role: "group", "aria-labelledby": "confirm-question",
      onkeydown: (e) => { if (e.key === "Escape") { e.preventDefault(); cancel(); } } },
      h("p", { class: "confirm-question", id: "confirm-question", role: "status" }, question),
      h("div", { class: "confirm-buttons" }, both));
  }
  p.confirm = null;
  return h("div", { class: "call-line" },
    v.legal.challenge ? h("button", { type: "button", class: "btn btn-danger btn-wide", id: "challenge-btn", onclick: arm("challenge") },
      "Liar! ", h("span", { class: "btn-sub" }, `challenge ${cur.player}'s ${cur.words}`)) : null,
    v.legal.calza && onCalza ? h("button", { type: "button", class: "btn btn-wide", id: "calza-btn", onclick: arm("calza") },
      "Calza! ", h("span", { class: "btn-sub" }, `exactly ${cur.words}`,
        hint && v.exact_odds !== null && v.exact_odds !== undefined ? ` (${percent(v.exact_odds)} from your dice)` : "")) : null);
}

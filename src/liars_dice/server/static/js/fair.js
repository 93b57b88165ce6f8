// Provably fair dice (docs/fair-dice.md): the round's commitment from the deal on,
// and its seed at the reveal. The page checks every reveal itself (Web Crypto:
// the commitment, the players' seeds, the mixed seed and every die, as
// `liars-dice verify` does), and keeps this player's own seeds in localStorage.
import { h } from "./util.js";

const HOW = "Each round's dice come from a secret server seed, mixed with a seed your own page picks after the server has committed. " +
  "The server seed's SHA-256 (the commitment) is shown before your page sends its seed, and every seed is shown at the reveal, " +
  "so not even the server could choose the dice. This page checks each reveal itself: the seed against its commitment, " +
  "your own seed (kept in this browser) in the mix, and every die against the seeds. To check again elsewhere, download " +
  "the record and run `liars-dice verify --my-seed ROUND=SEED` (docs/fair-dice.md).";

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

/** The line of a reveal: the round's seed, published now, and (with `fair`:
 *  {code, game, me}) the page's own check of it. */
export function seedLine(result, fair = null) {
  if (!result || !result.seed) return null;
  const check = fair ? h("span", { class: "fair-check muted", role: "status" }, "Checking the dice…") : null;
  if (check) checkReveal(check, fair, result);
  return h("p", { class: "fair small muted fair-seed" },
    "Fair dice: server seed ", hashChip(result.seed, null, "seed"), " (its SHA-256 ", hashChip(result.commitment), ")",
    mixedWith(result), ". ", check, " ", how());
}

/** Version 2: whose own seeds went into the round's dice, and whose page sent none. */
function mixedWith(result) {
  if (!result.contributions) return null;
  const names = Object.keys(result.contributions);
  const missing = result.missing && result.missing.length ? `; none came from ${result.missing.join(", ")}` : "";
  return names.length ? `, mixed with the players' own seeds from ${names.join(", ")}${missing}` : `, with no player's seed${missing}`;
}

// ---- version 2: this page's own seed in every deal ---------------------------------

/** This browser's own seeds: {code, commitment, seed, at} entries in localStorage,
 *  the newest last, at most MY_SEEDS_MAX of them (the oldest go first). */
const MY_SEEDS_KEY = "liars-dice:my-seeds";
export const MY_SEEDS_MAX = 500;

export function mySeeds() {
  try {
    const list = JSON.parse(localStorage.getItem(MY_SEEDS_KEY) || "[]");
    return Array.isArray(list) ? list.filter((e) => e && typeof e.seed === "string" && typeof e.commitment === "string") : [];
  } catch (e) { return []; }
}

/** This page's seed answering `commitment` at table `code`, or null. */
export function mySeed(code, commitment) {
  const e = mySeeds().find((x) => x.code === code && x.commitment === commitment);
  return e ? e.seed : null;
}

function keepSeed(code, commitment, seed) {
  const list = mySeeds().filter((x) => !(x.code === code && x.commitment === commitment));
  list.push({ code, commitment, seed, at: new Date().toISOString() });
  try { localStorage.setItem(MY_SEEDS_KEY, JSON.stringify(list.slice(-MY_SEEDS_MAX))); } catch (e) { /* full or private mode: sent, not kept */ }
}

/** The digests of the players' seeds published at the deal, kept with this page's own seed (checked at the reveal). */
function keepDigests(code, commitment, digests) {
  const list = mySeeds();
  const e = list.find((x) => x.code === code && x.commitment === commitment);
  if (!e || JSON.stringify(e.digests) === JSON.stringify(digests)) return;
  e.digests = digests;
  try { localStorage.setItem(MY_SEEDS_KEY, JSON.stringify(list)); } catch (err) { /* full: not kept */ }
}

function randomHex() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return toHex(bytes);
}

/**
 * Answer the server's commitment to the next deal with a seed of this page's
 * own (once per commitment; kept in localStorage, so the player can check the
 * dice used it after the tab is closed). `send` sends a websocket message. No
 * seed is sent twice, and none before the commitment it answers is known.
 */
export function contribute(code, commitment, send) {
  if (!commitment) return;
  if (mySeed(code, commitment)) return;
  const seed = randomHex();
  keepSeed(code, commitment, seed);
  send({ type: "seed", commitment, seed });
}

// ---- the check, as docs/fair-dice.md specifies it ---------------------------------

const te = new TextEncoder();
const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const fromHex = (hex) => new Uint8Array(hex.match(/../g).map((b) => parseInt(b, 16)));

async function sha256(bytes) { return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)); }

async function hmac(keyBytes, text) {
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, te.encode(text)));
}

/** One die (version 1): HMAC-SHA256(seed, "liars-dice-fair-dice/1/" + label + "/" + block), bytes at or
 *  over 256 - 256 mod faces rejected, the first other byte b gives b mod faces + 1. */
export async function fairFace(seed, label, faces = 6) {
  const limit = 256 - (256 % faces);
  for (let block = 0; ; block++) {
    for (const b of await hmac(seed, `liars-dice-fair-dice/1/${label}/${block}`)) if (b < limit) return (b % faces) + 1;
  }
}

/** The dice seed of round r (version 2): HMAC-SHA256(server seed, "liars-dice-fair-dice/2/mix/" + r
 *  + "/" + seat + ":" + hex for each contribution in seat order). */
export async function mixSeeds(serverSeed, r, pairs) {
  const parts = [...pairs].sort((a, b) => a[0] - b[0]).map(([seat, hex]) => `/${seat}:${hex}`).join("");
  return hmac(serverSeed, `liars-dice-fair-dice/2/mix/${r}${parts}`);
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Check round r of a game record (docs/fair-dice.md): the seed's SHA-256 is the
 * commitment, each player's seed matches the digest published at the deal, and
 * every die dealt and rerolled is the one the (mixed) seed gives. Returns
 * {ok: true, dice, contributors} or {ok: false, why: one sentence}.
 */
export async function checkRound(record, r) {
  const players = record.players || [];
  const faces = (record.rules && typeof record.rules === "object" && record.rules.faces) || 6;
  const rnd = record.rounds[r];
  const where = `Round ${r + 1}`;
  if (!rnd.commitment || !rnd.seed) return { ok: false, why: `${where} carries no ${rnd.commitment ? "seed" : "commitment"}, so its dice cannot be checked.` };
  if (!HEX64.test(rnd.seed) || !HEX64.test(rnd.commitment)) return { ok: false, why: `${where}: the seed or the commitment is not 64 hex digits.` };
  const serverSeed = fromHex(rnd.seed);
  if (toHex(await sha256(serverSeed)) !== rnd.commitment) return { ok: false, why: `${where}: the seed does not match the commitment.` };
  let seed = serverSeed;
  const contributors = [];
  if (rnd.contributions) {
    const digests = rnd.contribution_digests || {};
    const pairs = [];
    for (const [s, name] of players.entries()) {
      const hex = rnd.contributions[name];
      if (hex === undefined) {
        if (name in digests) return { ok: false, why: `${where}: ${name}'s seed is missing, though its digest was published at the deal.` };
        continue;
      }
      if (!HEX64.test(hex) || toHex(await sha256(fromHex(hex))) !== digests[name]) {
        return { ok: false, why: `${where}: ${name}'s seed does not match the digest published at the deal.` };
      }
      pairs.push([s, hex]);
      contributors.push(name);
    }
    seed = await mixSeeds(serverSeed, r, pairs);
  } else if (rnd.contribution_digests) {
    return { ok: false, why: `${where} publishes the digests of the players' seeds, but not the seeds.` };
  }
  const gives = rnd.contributions ? "the seeds give" : "the seed gives";
  let dice = 0;
  for (const [s, name] of players.entries()) {
    const hand = (rnd.dice || {})[name] || [];
    for (const [i, got] of hand.entries()) {
      const want = await fairFace(seed, `deal/${r}/${s}/${i}`, faces);
      if (got !== want) return { ok: false, why: `${where}: ${name}'s die ${i + 1} is ${got}, but ${gives} ${want}.` };
      dice++;
    }
  }
  for (const [m, move] of (rnd.moves || []).entries()) {
    if (!move || !Array.isArray(move.reroll)) continue;
    const s = players.indexOf(move.player);
    for (const [i, got] of move.reroll.entries()) {
      const want = await fairFace(seed, `reroll/${r}/${m}/${s}/${i}`, faces);
      if (got !== want) return { ok: false, why: `${where}, move ${m + 1}: ${move.player}'s rerolled die ${i + 1} is ${got}, but ${gives} ${want}.` };
      dice++;
    }
  }
  return { ok: true, dice, contributors };
}

/** Every round of a record with its seed published, in order: {ok, rounds: [results], failed: round index or null, why}. */
export async function checkRecord(record) {
  const rounds = [];
  for (let r = 0; r < record.rounds.length; r++) {
    const got = await checkRound(record, r);
    rounds.push(got);
    if (!got.ok) return { ok: false, rounds, failed: r, why: got.why };
  }
  return { ok: true, rounds, failed: null, why: null };
}

/** The reveal checked by this page, from the served result alone (its round,
 *  dealt hands and rerolls, published with the seed): the commitment, the
 *  players' seeds against the digests this page saw at the deal, every die,
 *  and this browser's own seed among the mixed ones. fair: {code, me, players}. */
async function checkReveal(line, fair, result) {
  const say = (cls, text) => { line.className = `fair-check ${cls}`; line.textContent = text; };
  if (!(window.crypto && crypto.subtle)) { say("muted", "This page cannot check the dice here (no Web Crypto outside HTTPS)."); return; }
  if (typeof result.round !== "number" || !result.dealt || !fair.players) { say("muted", "This reveal does not carry its dealt dice, so this page cannot check them."); return; }
  try {
    const kept = mySeeds().find((x) => x.code === fair.code && x.commitment === result.commitment);
    const rnd = { dice: result.dealt, commitment: result.commitment, seed: result.seed, moves: [] };
    for (const rr of result.rerolls || []) rnd.moves[rr.move] = { player: rr.player, reroll: rr.reroll };
    for (let m = 0; m < rnd.moves.length; m++) rnd.moves[m] = rnd.moves[m] || {};
    if (result.contributions) {
      rnd.contributions = result.contributions;
      rnd.contribution_digests = kept && kept.digests ? kept.digests : Object.fromEntries(await Promise.all(
        Object.entries(result.contributions).map(async ([n, hex]) => [n, toHex(await sha256(fromHex(hex)))])));
    }
    const record = { players: fair.players, rules: { faces: fair.faces || 6 }, rounds: [] };
    record.rounds[result.round] = rnd;
    const got = await checkRound(record, result.round);
    if (!got.ok) { say("warn", `Checked by this page: NOT fair. ${got.why}`); return; }
    let mine = "";
    const seed = kept ? kept.seed : null;
    if (seed && fair.me && result.contributions) {
      mine = result.contributions[fair.me] === seed ? " Your own seed went into them." : " But your own seed is NOT among them.";
    }
    say(mine.includes("NOT") ? "warn" : "ok", `Checked by this page: the seed matches its commitment and gives all ${got.dice} dice.${mine}`);
  } catch (e) {
    say("muted", "This page could not check the dice; download the record and run liars-dice verify.");
  }
}

async function sha256Hex(hex) {
  if (!(window.crypto && crypto.subtle)) return null; // not a secure context: the server's digest is shown as is
  return toHex(await sha256(fromHex(hex)));
}

/** "Your seed: 3fa2…, used": this page's seed for the round in play, checked against the digest published at the deal. */
export function mySeedLine(code, view, myName) {
  if (!view || !view.commitment || !view.contribution_digests || !myName) return null;
  const seed = mySeed(code, view.commitment);
  if (seed) keepDigests(code, view.commitment, view.contribution_digests);
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

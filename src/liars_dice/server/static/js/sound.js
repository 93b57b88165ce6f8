// Sound and motion at the table: a dice roll at the deal, a chime on your turn,
// a drum at the reveal, all made in the page with WebAudio (no file, no outside
// service), and the player's switches for both, kept in localStorage.
// Motion is off by default where the browser asks for reduced motion.
import { store } from "./util.js";

const SOUND_KEY = "liars-dice:sound";
const MOTION_KEY = "liars-dice:motion";

/** Whether sounds play: on unless the player switched them off. */
export function soundOn() {
  return store.get(SOUND_KEY) !== "0";
}

/** Whether dice roll and things move: the player's choice, else off under prefers-reduced-motion. */
export function motionOn() {
  const saved = store.get(MOTION_KEY);
  if (saved === "1" || saved === "0") return saved === "1";
  return !(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

export function setSound(on) {
  store.set(SOUND_KEY, on ? "1" : "0");
}

export function setMotion(on) {
  store.set(MOTION_KEY, on ? "1" : "0");
  applyMotion();
}

/** Put the motion choice on <html> (class "no-motion"), where the style sheet reads it. */
export function applyMotion() {
  document.documentElement.classList.toggle("no-motion", !motionOn());
}

let ctx = null;

function audio() {
  if (!ctx) {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    try { ctx = new AC(); } catch { return null; }
  }
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  return ctx;
}

// Browsers start audio only after a gesture: wake the context on the first one.
for (const kind of ["pointerdown", "keydown"]) {
  window.addEventListener(kind, () => { if (soundOn()) audio(); }, { once: true, capture: true });
}

/** A short burst of filtered noise: one die hitting the table. */
function click(a, at, gain, freq) {
  const len = Math.floor(a.sampleRate * 0.035);
  const buf = a.createBuffer(1, len, a.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < len; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / len) ** 3;
  const src = a.createBufferSource();
  src.buffer = buf;
  const band = a.createBiquadFilter();
  band.type = "bandpass";
  band.frequency.value = freq;
  band.Q.value = 1.2;
  const g = a.createGain();
  g.gain.value = gain;
  src.connect(band).connect(g).connect(a.destination);
  src.start(at);
}

function tone(a, at, freq, dur, gain, type = "sine") {
  const osc = a.createOscillator();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  const g = a.createGain();
  g.gain.setValueAtTime(0.0001, at);
  g.gain.exponentialRampToValueAtTime(gain, at + 0.015);
  g.gain.exponentialRampToValueAtTime(0.0001, at + dur);
  osc.connect(g).connect(a.destination);
  osc.start(at);
  osc.stop(at + dur + 0.02);
}

const SOUNDS = {
  // dice rattling in a cup, then tumbling out
  roll(a, t) {
    for (let i = 0; i < 14; i++) click(a, t + i * 0.028 + Math.random() * 0.012, 0.35, 1800 + Math.random() * 1600);
    for (let i = 0; i < 6; i++) click(a, t + 0.45 + i * 0.07 + Math.random() * 0.03, 0.6 - i * 0.08, 900 + Math.random() * 900);
  },
  // your turn: two rising notes
  turn(a, t) {
    tone(a, t, 660, 0.18, 0.18);
    tone(a, t + 0.12, 990, 0.28, 0.16);
  },
  // the reveal: a low drum and a bell
  reveal(a, t) {
    tone(a, t, 110, 0.35, 0.4, "triangle");
    tone(a, t + 0.02, 70, 0.4, 0.3);
    tone(a, t + 0.18, 1320, 0.6, 0.08);
  },
};

/**
 * Play one of the table's sounds ("roll", "turn", "reveal") if sound is on.
 * Each play is also told to the page as a `liars-dice:sound` event (detail: the name).
 * Returns whether it played.
 */
export function play(name) {
  if (!soundOn() || !SOUNDS[name]) return false;
  const a = audio();
  if (a) {
    try { SOUNDS[name](a, a.currentTime + 0.01); } catch { /* audio unavailable */ }
  }
  window.dispatchEvent(new CustomEvent("liars-dice:sound", { detail: name }));
  return true;
}

applyMotion();

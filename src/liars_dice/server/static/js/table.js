// The table: seats, your cup, the round's bids, the move picker, the reveal, chat, host controls.
import { api, TableSocket } from "./api.js";
import { die, diceRow, bidChip } from "./dice.js";
import { bidPicker, defaultPick } from "./picker.js";
import { revealContent } from "./reveal.js";
import { commitmentLine, contribute, mySeedLine } from "./fair.js";
import { summaryItems } from "./rules-text.js";
import { play, soundOn, motionOn, setSound, setMotion } from "./sound.js";
import {
  h, fill, dice, percent, store, announce, keepFocus, listWords,
  seatToken, saveSeatToken, forgetSeatToken, nickname, saveNickname, clock,
} from "./util.js";

export function tablePage({ root, toast }, code) {
  const S = {
    code,
    seat: null, // my seat index, null for a visitor
    host: false,
    table: null, // the table summary
    view: null, // the latest state.view
    words: new Map(), // "quantity,face" -> {label, words}: the state message's bid_words (sent at sync and start)
    config: null,
    botChoice: store.get("liars-dice:bot") || null,
    hint: store.get("liars-dice:hint") === "1",
    picker: { key: null, face: null, quantity: null, show: [] }, // show: indices into hand
    reveal: null, // {result} shown in the overlay
    socket: null,
    status: "connecting",
    destroyed: false,
  };

  // ---- skeleton ------------------------------------------------------------
  const el = {
    head: h("div", { class: "table-head" }),
    banner: h("div", { id: "banner", class: "banner-box" }),
    seats: h("div", { id: "seats", class: "seats" }),
    center: h("div", { id: "center", class: "center card", tabindex: "-1" }),
    me: h("div", { id: "my-cup", class: "my-cup" }),
    actions: h("div", { id: "actions", class: "actions" }),
    play: null, // the card of your cup and the picker
    bids: h("div", { id: "bids", class: "card bids-card" }),
    history: h("div", { id: "history", class: "card" }),
    score: h("div", { id: "score", class: "card score-card", hidden: true }),
    chatLog: h("ol", { id: "chat-log", class: "chat-log" }),
    chatForm: null,
    reveal: h("div", { id: "reveal", class: "overlay", hidden: true }),
    conn: h("span", { class: "conn", id: "conn" }),
  };
  const chatInput = h("input", { id: "chat-input", maxlength: 300, placeholder: "Say something…", autocomplete: "off", "aria-label": "Chat message" });
  el.chatForm = h("form", { id: "chat-form", class: "row-form", onsubmit: sendChat }, chatInput, h("button", { class: "btn", type: "submit" }, "Send"));
  const chatCard = h("div", { id: "chat", class: "card chat-card" }, h("h2", {}, "Chat"), el.chatLog, el.chatForm);
  el.play = h("div", { id: "play", class: "card play-card" }, el.me, el.actions);

  fill(root,
    h("section", { class: "table-page" },
      el.head,
      el.banner,
      h("div", { class: "table-grid" },
        h("div", { class: "table-main" }, el.seats, el.center, el.play),
        h("aside", { class: "table-side" }, el.score, el.bids, chatCard, el.history)),
      el.reveal));

  // ---- connection ----------------------------------------------------------
  function connect() {
    if (S.socket) S.socket.close();
    S.socket = new TableSocket(code, seatToken(code), {
      onMessage: handle,
      onStatus: (status) => { S.status = status; renderConn(); },
    });
  }

  function send(msg) {
    const id = S.socket && S.socket.send(msg);
    if (id === null || id === undefined) toast("You are offline for a moment; try again when the connection is back.");
    return id;
  }

  // Fair dice version 2 (docs/fair-dice.md): a seated page answers each
  // commitment to a deal still to come with a seed of its own.
  function offerSeed() {
    if (S.seat === null || !S.socket) return;
    const next = S.view ? S.view.next_commitment : (S.table && S.table.status === "open" ? S.table.commitment : null);
    contribute(code, next, (msg) => S.socket.send(msg));
  }

  function handle(msg) {
    handleMessage(msg);
    if (msg.type === "welcome" || msg.type === "table" || msg.type === "state") offerSeed();
  }

  function handleMessage(msg) {
    switch (msg.type) {
      case "welcome":
        S.seat = msg.seat;
        S.host = !!msg.host;
        S.table = msg.table;
        fill(el.chatLog);
        if (msg.seat === null) S.view = S.view && S.view.seat_index === null ? S.view : null;
        renderAll();
        break;
      case "table":
        S.table = msg.table;
        // The host's role passes on when the host leaves before the start.
        if (S.seat !== null && typeof msg.table.host === "number") S.host = msg.table.host === S.seat;
        renderAll();
        break;
      case "state":
        if (msg.bid_words) S.words = new Map(msg.bid_words.map(([q, f, label, words]) => [`${q},${f}`, { label, words }]));
        wordRaises(msg.view);
        onState(msg.view, msg.event || { kind: "sync" });
        break;
      case "chat":
        addChat(msg);
        break;
      case "presence":
        if (S.table) {
          for (const p of msg.seats || []) if (S.table.seats[p.seat]) S.table.seats[p.seat].connected = p.connected;
          S.table.visitors = msg.visitors;
          renderHead();
          renderSeats();
        }
        break;
      case "unseated":
        // The seat was given up (left, removed by the host, not claimed in time): watch from now on.
        forgetSeatToken(code);
        S.seat = null;
        S.host = false;
        toast(msg.message, "info");
        renderAll();
        break;
      case "error":
        if (msg.code === "table/not_found") {
          S.socket.close();
          S.status = "stopped";
          renderConn();
          fill(el.banner, h("div", { class: "banner banner-over", id: "not-found" }, msg.message || `There is no table ${code}.`, " ", h("a", { href: "#/" }, "Back to the lobby")));
          return;
        }
        if (msg.code === "auth/bad_token" || msg.code === "auth/revoked") {
          forgetSeatToken(code);
          toast("This browser's seat at the table is no longer valid; you are watching.");
          connect();
          return;
        }
        if (msg.code === "seed/refused") return; // a seed already in, or sent for a deal that has passed: nothing to do
        toast(msg.message || "The server refused that.");
        if (S.view) renderAll();
        break;
      default:
        break; // ack, pong
    }
  }

  /** The raises of `legal` come without words (they were most of a move's bytes):
   *  give each its label and words from the table's bid_words, as the server worded them. */
  function wordRaises(view) {
    for (const r of (view.legal && view.legal.raises) || []) {
      const w = S.words.get(`${r.quantity},${r.face}`);
      if (w) Object.assign(r, w);
    }
  }

  function onState(view, event) {
    const before = S.view;
    S.view = view;
    const said = []; // what the live region tells screen readers of this change
    if ((event.kind === "challenge" || event.kind === "calza") && event.result) {
      openReveal(event.result, event.player);
      said.push(revealWords(event.result));
    }
    if (event.kind === "bid" && view.bids.length) {
      const b = view.bids[view.bids.length - 1];
      said.push(`${b.player === myName() ? "You bid" : `${b.player} bids`} ${b.words}.`);
    }
    if (event.by_bot && S.seat !== null && event.player === myName()) {
      toast(`Your time ran out, so a bot played for you: ${botMoveWords(view, event)}.`, "info");
    }
    // the note also shows to a page that catches up before the first bid (a sync, not the start event)
    if (event.kind !== "start" && view.round === 1 && view.move_number === 0 && view.phase !== "over") S.startNote = true;
    if (event.kind === "start") {
      closeReveal();
      // Said in the table's centre, not in a toast: on a phone a toast covered the picker (issue 17).
      S.startNote = true;
      said.push(event.game > 1 ? `Game ${event.game} has started. Good luck!` : "The game has started. Good luck!");
    }
    // A new round's dice are rolled: the sound and the roll wait until the reveal is closed.
    const dealt = view.phase === "bid" && (!before || before.round !== view.round || before.phase !== "bid") && !view.bids.length;
    if (dealt && (before || event.kind === "start")) S.rollPending = true;
    if (S.table && S.table.status === "open" && view.phase) S.table.status = view.phase === "over" ? "finished" : "playing";
    if (view.phase === "over" && S.table) { S.table.status = "finished"; S.table.winner = view.winner; }
    if (view.phase === "over" && (!before || before.phase !== "over")) said.push(`${winnerWords(view.winner, true)} the game.`);
    else if (view.phase === "bid" && (event.kind !== "sync" || !before) && (!before || before.to_move !== view.to_move || before.round !== view.round)) {
      said.push(myTurn() ? "Your turn." : `${view.to_move} to ${view.bids.length ? "raise or challenge" : "open"}.`);
    }
    if (said.length) announce(said.join(" "));
    renderAll();
    if (S.rollPending && el.reveal.hidden) rollNow();
  }

  /** The move a bot made for this seat when its time ran out, in words: "it bid four 5s",
   *  "it called liar on Mila's four 5s", "it called calza on Mila's four 5s". */
  function botMoveWords(view, event) {
    if (event.kind === "bid" && view.bids.length) return `it bid ${view.bids[view.bids.length - 1].words}`;
    const r = event.result;
    const on = r ? ` on ${r.bidder}'s ${r.bid_words}` : "";
    if (event.kind === "calza") return `it called calza${on}`;
    if (event.kind === "challenge") return `it called liar${on}`;
    return "it moved";
  }

  /** The reveal in one sentence, for the live region. */
  function revealWords(res) {
    const losses = Object.entries(res.lost).map(([n, k]) => `${n} loses ${dice(k)}`);
    for (const [n, k] of Object.entries(res.gained || {})) losses.push(`${n} gains ${dice(k)}`);
    const out = res.out && res.out.length ? ` ${listWords(res.out)} ${res.out.length === 1 ? "is" : "are"} out.` : "";
    return `${res.challenger} ${res.calza ? "calls calza on" : "calls"} ${res.bidder}'s ${res.bid_words}: ${res.count} counted. ${res.verdict}` +
      `${/[.!]$/.test(res.verdict) ? "" : "."} ${losses.length ? listWords(losses) + "." : "Nobody loses a die."}${out}`;
  }

  /** Roll the new round's dice in (and rattle them) once. */
  function rollNow() {
    S.rollPending = false;
    play("roll");
    if (!motionOn()) return;
    S.rollStart = performance.now();
    for (const row of root.querySelectorAll("#hand, .seat-dice")) rolling(row);
  }

  const ROLL_MS = 800;

  /** Mark a row of dice as rolling while the roll lasts; a re-draw mid-roll goes on where it was (--roll-at). */
  function rolling(row) {
    const elapsed = S.rollStart ? performance.now() - S.rollStart : Infinity;
    if (elapsed >= ROLL_MS || !motionOn()) return row;
    row.classList.add("rolling");
    row.style.setProperty("--roll-at", `${-Math.round(elapsed)}ms`);
    return row;
  }

  // ---- helpers -------------------------------------------------------------
  const rules = () => (S.view && S.view.rules_options) || (S.table && S.table.rules) || {};
  const rulesSummary = () => (S.view && S.view.rules_summary) || (S.table && S.table.rules_summary) || [];
  const myName = () => (S.seat !== null && S.table ? (S.view ? S.view.players[S.seat] : S.table.seats[S.seat].name) : null);
  const myTurn = () => S.view && S.view.phase === "bid" && S.seat !== null && S.view.to_move === S.view.players[S.seat];

  /** The rule set's short name for people ("Milton Bradley" for wild-stars; the server's `catalog`), else the name given. */
  const presetShort = (preset) => (((S.config && S.config.catalog) || []).find((c) => c.preset === preset) || {}).short || preset;

  /** Whether `name`'s seat is played by a bot standing in for the person (they left, or were away too long). */
  function standIn(name) {
    const t = S.table;
    if (!t || !name) return false;
    const s = t.seats.find((x) => x.name === name);
    return !!(s && s.replaced) || (t.winner === name && !!t.winner_stand_in);
  }

  /** "Cy wins" / "Cy's stand-in bot wins" / "You win" (issue 17, fault 2: a bot won under Cy's name). */
  function winnerWords(name, verb = false) {
    const mine = name === myName();
    const who = standIn(name) ? `${mine ? "Your" : `${name}'s`} stand-in bot` : mine ? "You" : name;
    return verb ? `${who} ${who === "You" ? "win" : "wins"}` : who;
  }

  function seatName(i) {
    if (S.view) return S.view.players[i];
    const s = S.table && S.table.seats[i];
    return s && s.name;
  }

  // ---- rendering -----------------------------------------------------------
  function renderAll() {
    if (S.destroyed) return;
    document.title = myTurn() ? "● Your turn · Liar's Dice" : `Liar's Dice · ${code}`;
    keepFocus(() => {
      renderHead();
      renderBanner();
      renderSeats();
      renderCenter();
      renderMe();
      renderActions();
      renderBids();
      renderHistory();
      renderScore();
      renderChatForm();
    });
  }

  /** The cup-and-picker card shows only with something in it (an empty card was a white bar, issue 17 fault 4). */
  function renderPlayCard() {
    el.play.hidden = el.me.hidden && el.actions.hidden;
  }

  // ---- play again: the table's running score -------------------------------
  /** Whether this page may start the next game: the host, or any person when the host's seat holds none. */
  function mayRematch() {
    const t = S.table;
    if (!t || S.seat === null) return false;
    const human = (i) => t.seats[i] && t.seats[i].kind === "human";
    return human(S.seat) && (S.seat === t.host || !human(t.host));
  }

  function renderScore() {
    const t = S.table;
    const score = (t && t.score) || [];
    const played = (t && t.game > 1) || (t && t.status === "finished");
    el.score.hidden = !played || !score.length;
    if (el.score.hidden) return;
    fill(el.score,
      h("h2", {}, t.status === "finished" ? `Score after ${t.game} ${t.game === 1 ? "game" : "games"}` : `Score · game ${t.game} in play`),
      h("ol", { class: "score-list", id: "score-list" }, score.map((e) => h("li", { class: e.name === myName() ? "score-mine" : "" },
        h("span", { class: "score-name" }, e.name), " ",
        h("span", {},
          h("strong", { class: "score-wins" }, `${e.wins} ${e.wins === 1 ? "win" : "wins"}`),
          // a game won by the bot standing in for a person who left is not their win (issue 17, fault 2)
          e.stand_in_wins ? h("span", { class: "muted small score-stand-in" }, ` · ${e.stand_in_wins} won by the stand-in bot`) : null,
          // one name per seat (issue 38): the seat's earlier players, such as a person who left, said with it
          e.before && e.before.length ? h("span", { class: "muted small score-before" },
            ` · before: ${e.before.map((b) => `${b.name} ${b.wins} ${b.wins === 1 ? "win" : "wins"}${b.stand_in_wins ? ` (+${b.stand_in_wins} by the stand-in bot)` : ""}`).join(", ")}`) : null)))));
  }

  function renderConn() {
    const words = { open: "connected", connecting: "connecting…", closed: "reconnecting…", stopped: "not connected" };
    el.conn.className = `conn conn-${S.status}`;
    el.conn.textContent = words[S.status] || S.status;
  }

  /** The link friends open: the server's (honours --public-url) when this browser created the table. */
  function shareUrl() {
    return store.get(`liars-dice:share:${code}`) || `${location.origin}/#/table/${code}`;
  }

  async function copyLink() {
    try {
      await navigator.clipboard.writeText(shareUrl());
      toast("Link copied: send it to your friends.", "info");
    } catch {
      window.prompt("Copy this link and send it to your friends:", shareUrl());
    }
  }

  function renderHead() {
    const t = S.table;
    const r = rules();
    const statusWords = { open: "open", playing: "playing", finished: "game over", closed: "closed" };
    const rulesOpen = !!(el.head.querySelector(".rules-details") || {}).open; // a re-render keeps the panel open
    fill(el.head,
      h("div", { class: "head-main" },
        h("div", { class: "head-code" },
          h("h1", { class: "head-h1" }, h("span", { class: "muted small" }, "Table "), h("span", { class: "code code-big", id: "table-code" }, code)),
          h("button", { class: "btn btn-small", id: "copy-link", onclick: copyLink, title: shareUrl() }, "Copy link")),
        h("div", { class: "head-meta" },
          h("span", { class: "pill", id: "rules-pill" }, presetShort((t && t.preset) || r.name || "")),
          t ? h("span", { class: "pill" }, t.turn_timer ? `${t.turn_timer}s turns` : "no timer") : null,
          t && t.private ? h("span", { class: "pill" }, "private") : null,
          t ? h("span", { class: `pill pill-${t.status}`, id: "table-status" }, statusWords[t.status] || t.status) : null,
          t && t.visitors ? h("span", { class: "pill" }, `${t.visitors} watching`) : null,
          el.conn,
          switchButton("sound-toggle", "Sound", soundOn(), (on) => { setSound(on); if (on) play("turn"); }),
          switchButton("motion-toggle", "Motion", motionOn(), (on) => setMotion(on)))),
      r.name ? h("details", { class: "rules-details", open: rulesOpen }, h("summary", {}, "Rules"), h("ul", { class: "rules-list" }, summaryItems(rulesSummary()))) : null);
    renderConn();
  }

  /** A switch of the table head ("Sound on" / "Sound off"), kept in localStorage by `set`. */
  function switchButton(id, what, on, set) {
    return h("button", { type: "button", class: `btn btn-small switch ${on ? "switch-on" : ""}`, id, "aria-pressed": String(on),
      onclick: () => { set(!on); renderHead(); document.getElementById(id)?.focus(); } },
      h("span", { "aria-hidden": "true" }, on ? "✓ " : "✕ "), `${what} ${on ? "on" : "off"}`);
  }

  function renderBanner() {
    const t = S.table;
    if (!t) { fill(el.banner); return; }
    const parts = [];
    if (S.view && S.view.phase === "over") {
      const won = S.view.winner === myName() && !standIn(S.view.winner);
      parts.push(h("div", { class: `banner ${won ? "banner-win" : "banner-over"}`, id: "game-over" },
        h("div", { class: "banner-title", id: "winner-line" }, h("span", { class: "crown", "aria-hidden": "true" }, "♛"),
          won && !standIn(S.view.winner) ? " You win!" : ` ${winnerWords(S.view.winner, true)} the game`),
        h("div", { class: "banner-actions" },
          mayRematch() ? h("button", { class: "btn btn-primary", id: "play-again", onclick: (e) => { e.target.disabled = true; send({ type: "rematch" }); } }, "Play again") : null,
          h("a", { class: `btn${mayRematch() ? "" : " btn-primary"}`, id: "download-record", href: api.recordUrl(code, t.game), download: `liars-dice-${code}${t.game > 1 ? `-game${t.game}` : ""}.json` }, "Download the record"),
          h("a", { class: "btn", id: "replay-link", href: `#/replay/${code}${t.game > 1 ? `/${t.game}` : ""}` }, "Step through the replay"),
          h("a", { class: "btn btn-ghost", href: "#/" }, "Back to the lobby"))));
    } else if (t.status === "closed") {
      parts.push(h("div", { class: "banner banner-over", id: "closed-banner" },
        h("div", {}, "This table was closed: everyone left before the game started."),
        h("a", { class: "btn", href: "#/" }, "Back to the lobby")));
    } else if (S.seat === null) {
      const hasEmpty = t.status === "open" && t.seats.some((s) => s.kind === "empty");
      parts.push(h("div", { class: "banner banner-watch", id: "visitor-banner" },
        h("div", {}, hasEmpty ? "You are watching. Take a seat to play:" : "You are watching this table."),
        hasEmpty ? joinForm() : null));
    } else if (t.status === "open") {
      const filled = t.seats.filter((s) => s.kind !== "empty").length;
      parts.push(h("div", { class: "banner banner-wait" },
        h("div", {}, S.host
          ? `Send the link or the code ${code} to your friends, fill empty seats with bots, then start. ${filled}/${t.n_seats} seated.`
          : `You are seated. Waiting for the host to start (${filled}/${t.n_seats} seated).`)));
    }
    fill(el.banner, parts);
  }

  function joinForm() {
    const input = h("input", { id: "seat-nickname", maxlength: 24, placeholder: "Your nickname", value: nickname(), autocomplete: "nickname", "aria-label": "Nickname" });
    return h("form", { class: "row-form", id: "seat-form", onsubmit: async (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name) { toast("Type a nickname first: it is how the others see you."); return; }
      saveNickname(name);
      try {
        const res = await api.join(code, name);
        saveSeatToken(res.code, res.token);
        connect();
      } catch (err) {
        toast(err.message);
      }
    } }, input, h("button", { class: "btn btn-primary", type: "submit", id: "take-seat" }, "Take a seat"));
  }

  function seatKind(i) {
    return S.table && S.table.seats[i] ? S.table.seats[i] : { kind: "empty" };
  }

  function renderSeats() {
    const t = S.table;
    if (!t) { fill(el.seats); return; }
    const v = S.view;
    const r = rules();
    const lastBid = {};
    if (v) for (const b of v.bids) lastBid[b.player] = b;
    const cards = [];
    for (let i = 0; i < t.n_seats; i++) {
      const info = seatKind(i);
      const name = seatName(i);
      const mine = i === S.seat;
      const count = v ? v.dice[name] ?? 0 : null;
      const toMove = v && v.phase === "bid" && v.to_move === name;
      const out = v && count === 0;
      const winner = v && v.winner === name;
      const classes = ["seat"];
      if (mine) classes.push("seat-mine");
      if (toMove) classes.push("seat-turn");
      if (out) classes.push("seat-out");
      if (info.kind === "empty") classes.push("seat-empty");
      if (winner) classes.push("seat-winner");
      const badges = [];
      if (i === t.host) badges.push(h("span", { class: "badge" }, "host"));
      if (mine) badges.push(h("span", { class: "badge badge-you" }, "you"));
      // a registered player (issue 18): the mark is a word, read as it is shown
      if (info.registered && info.kind === "human") badges.push(h("span", { class: "badge badge-registered", title: "a registered player" }, "✓ registered"));
      if (info.kind === "bot") badges.push(h("span", { class: "badge badge-bot", title: info.bot }, info.replaced ? `stand-in bot · ${botLevel(info.bot)}` : `bot · ${botLevel(info.bot)}`));
      if (info.kind === "human" && !info.connected && v) badges.push(h("span", { class: "badge badge-off", title: "not connected" }, "away"));
      let body;
      if (info.kind === "empty" && !v) {
        body = h("div", { class: "seat-body muted" }, "Empty seat", S.host && t.status === "open" ? botAdder(i) : null);
      } else if (v) {
        const shown = (v.shown && v.shown[name]) || [];
        // At the end no cup is hidden: draw the faces of the final reveal, so the card shows the dice it counts.
        const last = v.phase === "over" && v.results && v.results.length ? v.results[v.results.length - 1] : null;
        const finalCup = last && last.revealed && last.revealed[name] && last.revealed[name].length === count ? last.revealed[name] : null;
        const hidden = finalCup || (mine && v.phase !== "over" ? v.hand : null);
        const row = rolling(h("span", { class: "dice-row seat-dice" }));
        if (out) row.appendChild(h("span", { class: "muted small" }, "out"));
        else {
          if (hidden) for (const f of hidden) row.appendChild(die(f, { rules: r, size: "sm" }));
          else for (let k = 0; k < count - shown.length; k++) row.appendChild(die(null, { size: "sm" }));
          for (const f of shown) row.appendChild(die(f, { rules: r, size: "sm", match: false, title: "shown" }));
        }
        const lb = lastBid[name];
        // One line for this round's bid and the dice shown, there in every seat even when
        // empty, so the seats keep one height through the game and the picker below them
        // never moves off a desktop screen (it was 20-40 px taller in some rounds).
        const note = [];
        if (lb) note.push("bid ", bidChip(r, lb.bid, "xs"));
        if (shown.length) note.push(h("span", { class: "small" }, `${lb ? " · " : ""}showing ${shown.length}`));
        body = h("div", { class: "seat-body" },
          h("div", { class: "seat-count" }, out ? "" : dice(count)),
          row,
          h("div", { class: "seat-bid" }, note.length ? note : "\u00a0"),
          toMove ? timerBar() : null);
      } else {
        body = h("div", { class: "seat-body" },
          h("div", { class: "seat-count muted" }, info.kind === "bot" || info.connected ? "ready" : "not connected"),
          S.host && t.status === "open" && info.kind === "bot"
            ? h("button", { class: "btn btn-small btn-ghost", dataset: { removeBot: i }, onclick: () => send({ type: "remove_bot", seat: i }) }, "Remove bot")
            : S.host && t.status === "open" && info.kind === "human" && i !== S.seat
              ? h("button", { class: "btn btn-small btn-ghost", dataset: { removeSeat: i }, onclick: () => send({ type: "remove_bot", seat: i }) }, "Remove")
              : null);
      }
      cards.push(h("div", { class: classes.join(" "), dataset: { seat: i, name: name || "" } },
        h("div", { class: "seat-head" },
          h("span", { class: "seat-name" }, winner ? h("span", { class: "crown", "aria-hidden": "true" }, "♛ ") : "", name || `Seat ${i + 1}`,
            winner ? h("span", { class: "visually-hidden" }, standIn(name) ? ", won through a stand-in bot" : ", who won") : null),
          h("span", { class: "seat-badges" }, badges)),
        body));
    }
    fill(el.seats, cards);
    el.seats.dataset.n = String(t.n_seats);
  }

  function botAdder(i) {
    const bots = (S.config && S.config.bots) || [];
    if (!bots.length) return null;
    const choice = defaultBot();
    const sel = h("select", { class: "bot-select", "aria-label": `Bot level for seat ${i + 1}`, dataset: { seat: i },
      onchange: (e) => { S.botChoice = e.target.value; store.set("liars-dice:bot", e.target.value); renderActions(); } },
      botsByLevel(bots).map((b) => h("option", { value: b, selected: b === choice }, botLevel(b))));
    return h("div", { class: "bot-adder" }, sel,
      h("button", { class: "btn btn-small", dataset: { addBot: i }, onclick: () => send({ type: "add_bot", bot: sel.value, seat: i }) }, "Add bot"));
  }

  function timerBar() {
    const v = S.view;
    if (!v || !v.deadline || !v.turn_timer) return null;
    return h("div", { class: "timer" }, h("div", { class: "timer-fill", dataset: { deadline: v.deadline, total: v.turn_timer } }));
  }

  function tickTimers() {
    const now = Date.now() / 1000;
    for (const bar of root.querySelectorAll(".timer-fill")) {
      const left = Number(bar.dataset.deadline) - now;
      const frac = Math.max(0, Math.min(1, left / Number(bar.dataset.total)));
      bar.style.width = `${frac * 100}%`;
      bar.classList.toggle("timer-low", left < 6);
    }
    for (const t of root.querySelectorAll(".countdown")) {
      // the turn's clock starts when the reveal ends: the deadline is the reveal's end plus the timer,
      // so right after a reveal a 60 s turn would read "64s" (issue 38); it never reads more than the timer
      const most = t.dataset.total ? Number(t.dataset.total) : Infinity;
      const left = Math.max(0, Math.min(most, Math.ceil(Number(t.dataset.deadline) - now)));
      t.textContent = `${left}s`;
    }
  }

  function renderCenter() {
    const v = S.view;
    const r = rules();
    el.center.hidden = false;
    if (!v) {
      // Before the start the banner says what the table waits for (once); an empty card
      // was a white bar between the seats and the Host card (issue 17, fault 4).
      if (S.table && S.table.status === "open") { fill(el.center); el.center.hidden = true; }
      else fill(el.center, h("div", { class: "center-line" }, "Connecting to the table…"));
      return;
    }
    if (v.phase === "over") {
      const last = v.results[v.results.length - 1];
      fill(el.center, h("div", { class: "center-line big" }, h("span", { class: "crown", "aria-hidden": "true" }, "♛"), ` ${winnerWords(v.winner, true)}.`),
        last ? h("div", { class: "final-reveal" }, h("h2", { class: "round-no" }, "The last challenge"), revealContent(rules(), last, { challenger: last.challenger, me: myName() })) : null);
      return;
    }
    const cur = v.bids.length ? v.bids[v.bids.length - 1] : null;
    const who = myTurn() ? "Your turn" : `${v.to_move} to ${cur ? "raise or challenge" : "open"}`;
    let toggle = null;
    if (S.seat !== null) {
      toggle = h("label", { class: "hint-toggle", for: "hint-toggle" },
        h("input", { type: "checkbox", id: "hint-toggle", checked: S.hint, onchange: (e) => { S.hint = e.target.checked; store.set("liars-dice:hint", S.hint ? "1" : "0"); keepFocus(() => { renderCenter(); renderActions(); }); } }),
        h("span", {}, "Hint"));
    }
    const lines = [
      h("div", { class: "center-top" },
        h("span", { class: "round-no" }, `Round ${v.round ?? v.results.length + 1}`),
        h("span", { class: `turn ${myTurn() ? "turn-mine" : ""}`, id: "turn" }, who),
        v.deadline ? h("span", { class: "countdown", id: "turn-countdown", dataset: { deadline: v.deadline, total: v.turn_timer || "" } }) : null,
        // the start, said here for the first round (a toast covered the picker on a phone)
        S.startNote && v.round === 1 ? h("span", { class: "start-note", id: "start-note" }, "The game has started. Good luck!") : null,
        toggle),
      cur
        ? h("div", { class: "current-bid", id: "current-bid" },
            h("span", { class: "muted" }, `${cur.player} bids`), bidChip(r, cur.bid, "md"),
            h("span", { class: "bid-words" }, cur.words),
            cur.show && cur.show.length ? h("span", { class: "muted small" }, `(showed ${cur.show.length})`) : null)
        : h("div", { class: "current-bid muted", id: "current-bid" }, "No bid yet this round."),
      // the dice in play and whether wilds count stay in view all round (issue 38: the total went with the first bid,
      // and the page never said that 1s are wild, which the terminal says every turn)
      v.phase !== "over" ? h("div", { class: "round-facts small muted", id: "round-facts" },
        `${Object.values(v.dice).reduce((a, b) => a + b, 0)} dice in play.`, v.wild_note ? ` ${v.wild_note}` : null) : null,
      roundBidsToggle(v, r),
      v.palifico
        // RULES.md perudo "Palifico": announced with what it changes
        ? h("div", { class: "banner banner-palifico", id: "palifico-banner" },
            h("strong", {}, "Palifico round. "),
            `${v.bids.length ? v.bids[0].player : v.to_move} is down to one die: wilds do not count, the opening may name any face, and the face stays for the round (a player with one die may change it).`)
        : null,
      !v.palifico && !v.wilds_active && v.bids.length ? h("div", { class: "small warn" }, "Wilds do not count this round (it opened on the wild face).") : null,
      mySeedLine(code, v, myName()),
    ];
    if (S.seat !== null && S.hint) {
      const current = v.current;
      lines.push(h("div", { class: "hint", id: "hint" }, current && current.chance !== null && current.chance !== undefined
        ? [`Chance that ${current.words} is true, from your dice: `, h("strong", {}, percent(current.chance))]
        : "No bid yet: the hint shows the chance that the current bid is true, from your dice.",
        v.exact_odds !== null && v.exact_odds !== undefined && current
          ? h("div", { id: "exact-hint" }, `Chance that the count is exactly ${current.bid.quantity} (a calza): `, h("strong", {}, percent(v.exact_odds)))
          : null));
    }
    lines.push(commitmentLine(v.commitment));
    fill(el.center, lines);
    tickTimers();
  }

  /** On a phone the round's bids sit one tap away, under the standing bid (the side column is far below). */
  function roundBidsToggle(v, r) {
    if (!v.bids.length) return null;
    const open = !!S.bidsOpen;
    return h("div", { class: "round-bids only-narrow" },
      h("button", { type: "button", class: "btn btn-small", id: "round-bids-toggle", "aria-expanded": String(open), "aria-controls": "round-bids",
        onclick: () => { S.bidsOpen = !open; keepFocus(renderCenter); } },
        open ? "Hide this round's bids" : `This round's bids (${v.bids.length})`),
      open ? bidList(v, r, "round-bids") : null);
  }

  function renderMe() {
    const v = S.view;
    const r = rules();
    if (S.seat === null || !v || v.phase === "over") { el.me.hidden = true; renderPlayCard(); return; }
    el.me.hidden = false;
    const name = myName();
    const shown = (v.shown && v.shown[name]) || [];
    const canShow = myTurn() && v.legal && v.legal.shows && v.legal.shows.length > 1;
    // A new round's dice roll in once (rollNow), when no reveal covers them.
    const hand = rolling(h("div", { class: "dice-row hand", id: "hand", role: canShow ? "group" : null, "aria-label": canShow ? "Your dice: pick the ones to show" : null }));
    v.hand.forEach((f, idx) => {
      const selected = S.picker.show.includes(idx);
      hand.appendChild(die(f, {
        rules: r, size: "lg", selected, index: idx,
        onclick: canShow ? () => { toggleShow(idx); } : null,
        title: canShow ? (selected ? "shown with your bid (tap to keep hidden)" : "tap to show with your bid") : null,
      }));
    });
    fill(el.me,
      h("div", { class: "cup-head" }, h("h2", {}, "Your cup"), h("span", { class: "muted small" }, v.dice[name] ? dice(v.dice[name]) : "out")),
      v.dice[name] ? hand : h("p", { class: "muted" }, "You are out of dice: watch the others finish."),
      shown.length ? h("div", { class: "shown-line" }, h("span", { class: "muted small" }, "Shown on the table: "), diceRow(shown, { rules: r, size: "sm" })) : null,
      canShow ? h("p", { class: "small muted", id: "show-help" }, "Show and reroll: tap dice to set them out face up with your bid; the rest are rerolled. Keep at least one hidden.") : null);
    renderPlayCard();
  }

  function toggleShow(idx) {
    const s = S.picker.show;
    S.picker.show = s.includes(idx) ? s.filter((x) => x !== idx) : [...s, idx];
    keepFocus(() => { renderMe(); renderActions(); });
  }

  function resetPicker() {
    const v = S.view;
    const key = `${v.round}:${v.move_number}`;
    if (S.picker.key === key) return;
    turnStarted();
    S.picker = { key, ...defaultPick(v.legal ? v.legal.raises : [], rules()), show: [] };
  }

  /** Your turn has come: chime, bring the standing bid and the picker into view
   *  together (phones), put the keyboard on the Bid button, and buzz once. */
  function turnStarted() {
    play("turn");
    requestAnimationFrame(() => {
      if (S.destroyed || !myTurn()) return;
      const top = el.center.getBoundingClientRect().top;
      const bottom = el.play.getBoundingClientRect().bottom;
      const behavior = motionOn() ? "smooth" : "auto";
      if (bottom - top <= window.innerHeight) {
        // the whole block fits: scroll the least that shows it all
        if (top < 0) window.scrollBy({ top: top - 8, behavior });
        else if (bottom > window.innerHeight) window.scrollBy({ top: bottom - window.innerHeight + 8, behavior });
      } else {
        const r = el.actions.getBoundingClientRect();
        if (r.top < 0 || r.bottom > window.innerHeight) el.actions.scrollIntoView({ block: "nearest", behavior });
      }
      focusPicker();
    });
    if (navigator.vibrate && document.visibilityState === "visible") {
      try { navigator.vibrate(80); } catch { /* not allowed before a tap */ }
    }
  }

  /** The keyboard goes to the Bid button (or the challenge when no raise is left), unless
   *  the player is typing in the chat or reading a reveal. */
  function focusPicker() {
    const a = document.activeElement;
    if (!el.reveal.hidden || (a && a !== document.body && !el.play.contains(a) && a.id !== "reveal-close")) return;
    const target = el.actions.querySelector("#bid-btn:not([disabled])") || el.actions.querySelector("#challenge-btn");
    if (target) target.focus({ preventScroll: true });
  }

  function renderActions() {
    renderActionsBody();
    renderPlayCard();
  }

  function renderActionsBody() {
    const v = S.view;
    const t = S.table;
    if (!t) { fill(el.actions); el.actions.hidden = true; return; }
    el.actions.hidden = false;
    if (!v) {
      // before the start: host controls
      if (S.host && t.status === "open") {
        const empty = t.seats.filter((s) => s.kind === "empty").length;
        fill(el.actions,
          h("h2", {}, "Host"),
          empty ? h("div", { class: "fill-bots" },
            h("span", { class: "muted small" }, `${empty} empty ${empty === 1 ? "seat" : "seats"}.`),
            h("button", { class: "btn", id: "fill-bots", onclick: fillWithBots }, `Fill with bots (${botLevel(defaultBot())})`)) : null,
          h("button", { class: "btn btn-primary btn-wide", id: "start-game", disabled: empty > 0, onclick: () => send({ type: "start" }) },
            empty ? `Start (fill ${empty} more ${empty === 1 ? "seat" : "seats"} first)` : "Start the game"),
          leaveButton());
      } else if (S.seat !== null) {
        fill(el.actions, leaveButton()); // the banner says what we wait for
      } else {
        el.actions.hidden = true;
      }
      return;
    }
    if (v.phase === "over" || S.seat === null) { el.actions.hidden = true; return; }
    if (!myTurn()) {
      fill(el.actions, h("p", { class: "muted waiting" }, v.dice[myName()] ? `Waiting for ${v.to_move}…` : "You are out."), leaveButton());
      return;
    }
    // The reveal of the last challenge holds the turn (Settings.reveal_seconds): the server refuses a move before.
    const revealLeft = v.reveal_until ? v.reveal_until - Date.now() / 1000 : 0;
    if (revealLeft > 0) {
      fill(el.actions, h("p", { class: "muted waiting", id: "reveal-wait" }, "Your turn begins when the reveal is over: ",
        h("span", { class: "countdown", dataset: { deadline: v.reveal_until } }, `${Math.ceil(revealLeft)}s`)), leaveButton());
      clearTimeout(S.revealTimer);
      S.revealTimer = setTimeout(() => { if (!S.destroyed) renderActions(); }, revealLeft * 1000 + 50);
      return;
    }
    resetPicker();
    const [heading, ...picker] = bidPicker({
      view: v, rules: rules(), pick: S.picker, hint: S.hint,
      onChange: () => keepFocus(renderActions), onBid: placeBid, onChallenge: challenge, onCalza: calza,
    });
    // One may leave on one's turn too (with fast bots the turn came back before the button did).
    fill(el.actions, h("div", { class: "actions-head" }, heading, leaveButton()), picker);
  }

  function placeBid(bid, show) {
    const msg = { type: "bid", quantity: bid.quantity, face: bid.face };
    if (show.length) msg.show = show;
    if (send(msg) !== null) lockActions();
  }

  function challenge() {
    if (send({ type: "challenge" }) !== null) lockActions();
  }

  function calza() {
    if (send({ type: "calza" }) !== null) lockActions();
  }

  function lockActions() {
    for (const b of el.actions.querySelectorAll("button")) b.disabled = true;
  }

  /** The bot the host last picked, else the server's default (the terminal's: probabilistic, issue 17 fault 1). */
  function defaultBot() {
    const bots = (S.config && S.config.bots) || [];
    if (bots.includes(S.botChoice)) return S.botChoice;
    return bots.includes(S.config && S.config.default_bot) ? S.config.default_bot : bots[0];
  }

  /** A bot for people: its level ("Medium" for probabilistic, from the server's
   *  `levels`; names for people, issue 17), else its kind (a bot with no level). */
  function botLevel(bot) {
    const l = ((S.config && S.config.levels) || []).find((x) => x.bot === bot);
    return l ? l.level : bot;
  }

  /** The bots easiest first (the server's `levels` order), then any without a level. */
  function botsByLevel(bots) {
    const order = ((S.config && S.config.levels) || []).map((x) => x.bot).filter((b) => bots.includes(b));
    return [...order, ...bots.filter((b) => !order.includes(b))];
  }

  function fillWithBots() {
    const bot = defaultBot();
    if (!bot) return;
    for (const s of S.table.seats) if (s.kind === "empty") send({ type: "add_bot", bot, seat: s.seat });
  }

  function leaveButton() {
    if (S.seat === null) return null;
    const playing = S.view && S.view.phase === "bid";
    return h("button", { class: "btn btn-ghost btn-small leave-btn", id: "leave-btn", onclick: () => {
      const q = playing ? "Leave this game for good? A bot takes over your seat." : "Leave this table?";
      if (!window.confirm(q)) return;
      send({ type: "leave" });
      forgetSeatToken(code);
      location.hash = "#/";
    } }, playing ? "Leave the game" : "Leave the table");
  }

  function renderBids() {
    const v = S.view;
    const r = rules();
    el.bids.hidden = !!v && v.phase === "over";
    if (!v) { fill(el.bids, h("h2", {}, "This round"), h("p", { class: "muted small" }, "Bids appear here.")); return; }
    fill(el.bids,
      h("h2", {}, v.phase === "over" ? "Final round" : `Round ${v.round ?? v.results.length + 1}: bids`),
      v.bids.length ? bidList(v, r, "bid-list") : h("p", { class: "muted small" }, v.phase === "over" ? "" : `${v.to_move} opens.`));
    const list = el.bids.querySelector("#bid-list");
    if (list) {
      // a long round scrolls in its card (wide screens): show the latest bid; the keyboard may scroll it too
      list.tabIndex = 0;
      list.setAttribute("aria-label", "This round's bids");
      list.scrollTop = list.scrollHeight;
    }
  }

  function bidList(v, r, id) {
    return h("ol", { class: "bid-list", id }, v.bids.map((b, i) => h("li", { class: i === v.bids.length - 1 ? "latest" : "" },
      h("span", { class: "bid-player" }, b.player), bidChip(r, b.bid, "xs"), h("span", { class: "bid-words small" }, b.words),
      b.show && b.show.length ? h("span", { class: "small" }, " shows ", diceRow(b.show, { rules: r, size: "xs" })) : null)));
  }

  function resultSummary(res, r) {
    const lost = Object.entries(res.lost).map(([n, k]) => `${n} −${k}`).join(", ");
    return `${res.challenger} called ${res.bidder}'s ${res.bid_words}: ${res.count} counted${lost ? `; ${lost}` : ""}`;
  }

  function renderHistory() {
    const v = S.view;
    const r = rules();
    if (!v || !v.results.length) { el.history.hidden = true; return; }
    el.history.hidden = false;
    const list = h("ul", { class: "history-list", id: "history-list" });
    for (let i = v.results.length - 1; i >= 0; i--) {
      const res = v.results[i];
      list.appendChild(h("li", {}, h("button", { class: "link-btn", onclick: () => openReveal(res, res.challenger, false) },
        h("span", { class: "history-round" }, `Round ${i + 1}`), " ", resultSummary(res, r))));
    }
    fill(el.history, h("h2", {}, "Past rounds"), list);
  }

  // ---- the reveal ----------------------------------------------------------
  function openReveal(result, challenger, live = true) {
    if (live) play("reveal");
    S.reveal = { result };
    fill(el.reveal,
      h("div", { class: "reveal card", role: "dialog", "aria-modal": "true", "aria-labelledby": "reveal-title" },
        revealContent(rules(), result, { challenger, me: myName(), dialog: true, fair: fairCheck() }),
        h("button", { class: "btn btn-primary btn-wide", id: "reveal-close", onclick: closeReveal, autofocus: true }, result.next ? "Next round" : "See the result")));
    el.reveal.hidden = false;
    const button = el.reveal.querySelector("#reveal-close");
    if (button) button.focus({ preventScroll: true });
  }

  /** What the reveal needs to check its dice in the page (fair.js checkRound). */
  function fairCheck() {
    return { code, me: myName(), players: S.view ? S.view.players : null, faces: rules() ? rules().faces : 6 };
  }

  function closeReveal() {
    const was = !el.reveal.hidden;
    S.reveal = null;
    el.reveal.hidden = true;
    if (!was) return;
    if (S.rollPending) rollNow();
    if (myTurn()) focusPicker();
    else if (document.activeElement === document.body || !document.activeElement) el.center.focus({ preventScroll: true });
  }
  el.reveal.addEventListener("click", (e) => { if (e.target === el.reveal) closeReveal(); });
  const onKey = (e) => { if (e.key === "Escape" && !el.reveal.hidden) closeReveal(); };
  document.addEventListener("keydown", onKey);

  // ---- chat ----------------------------------------------------------------
  function addChat(msg) {
    const mine = S.seat !== null && msg.seat === S.seat;
    el.chatLog.appendChild(h("li", { class: mine ? "chat-mine" : "" },
      h("span", { class: "chat-name" }, msg.name || "?"),
      h("span", { class: "chat-text" }, msg.text),
      h("span", { class: "chat-time" }, clock(msg.at))));
    while (el.chatLog.children.length > 200) el.chatLog.firstChild.remove();
    el.chatLog.scrollTop = el.chatLog.scrollHeight;
  }

  function sendChat(e) {
    e.preventDefault();
    const text = chatInput.value.trim();
    if (!text) return;
    if (send({ type: "chat", text }) !== null) chatInput.value = "";
  }

  function renderChatForm() {
    const seated = S.seat !== null;
    chatInput.disabled = !seated;
    chatInput.placeholder = seated ? "Say something…" : "Take a seat to chat";
    el.chatForm.querySelector("button").disabled = !seated;
  }

  // ---- start ---------------------------------------------------------------
  api.config().then((cfg) => { S.config = cfg; if (!S.destroyed) renderAll(); }).catch(() => {});
  api.table(code).then((t) => { if (!S.table) { S.table = t; renderAll(); } }).catch((e) => {
    if (e.code === "table/not_found" && S.socket) { S.socket.close(); S.status = "stopped"; renderConn(); }
    fill(el.banner, h("div", { class: "banner banner-over", id: "not-found" }, e.message, " ", h("a", { href: "#/" }, "Back to the lobby")));
  });
  connect();
  renderAll();
  const ticker = setInterval(tickTimers, 250);

  return {
    destroy() {
      S.destroyed = true;
      document.title = "Liar's Dice";
      clearInterval(ticker);
      clearTimeout(S.revealTimer);
      document.removeEventListener("keydown", onKey);
      if (S.socket) S.socket.close();
    },
  };
}

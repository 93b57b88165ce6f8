// The replay: step through a finished game, forward and back, every cup face up.
import { api } from "./api.js";
import { die, diceRow, bidChip } from "./dice.js";
import { revealContent } from "./reveal.js";
import { h, fill, dice } from "./util.js";

export function replayPage({ root, toast }, code, game = null) {
  let data = null;
  let step = 0;
  let rules = {};
  let playTimer = null;

  const title = h("h1", { class: "replay-title" }, `Replay of table `, h("span", { class: "code" }, code));
  const narration = h("div", { class: "narration card", id: "narration", "aria-live": "polite" });
  const board = h("div", { class: "replay-board" });
  const bidsBox = h("div", { class: "card bids-card", id: "replay-bids" });
  const counter = h("span", { class: "step-counter", id: "step-counter" });
  const slider = h("input", { type: "range", min: 0, max: 0, value: 0, id: "step-slider", "aria-label": "Move", oninput: (e) => go(Number(e.target.value)) });
  const btn = (id, label, aria, fn) => h("button", { class: "btn step-btn", id, "aria-label": aria, title: aria, onclick: fn }, label);
  const playBtn = btn("play", "▶ Play", "Play the game move by move", () => togglePlay());
  const controls = h("div", { class: "replay-controls card" },
    h("div", { class: "step-buttons" },
      btn("first", "« First", "First step", () => go(0)),
      btn("prev", "◀ Back", "Previous step", () => go(step - 1)),
      btn("next", "Next ▶", "Next step", () => go(step + 1)),
      btn("last", "Last »", "Last step", () => go(data.steps.length - 1))),
    h("div", { class: "step-slider" }, slider, counter),
    h("div", { class: "step-extra" }, playBtn,
      h("a", { class: "btn", href: api.recordUrl(code, game), download: `liars-dice-${code}${game ? `-game${game}` : ""}.json`, id: "replay-record" }, "Download the record"),
      h("a", { class: "btn btn-ghost", href: `#/table/${code}` }, "The table")));

  fill(root, h("section", { class: "replay-page" }, title, h("p", { class: "muted", id: "replay-sub" }, "Loading…"), controls, narration,
    h("div", { class: "replay-grid" }, board, bidsBox)));

  function togglePlay() {
    if (playTimer) { clearInterval(playTimer); playTimer = null; playBtn.textContent = "▶ Play"; return; }
    if (step >= data.steps.length - 1) go(0);
    playBtn.textContent = "⏸ Pause";
    playTimer = setInterval(() => {
      if (step >= data.steps.length - 1) { togglePlay(); return; }
      go(step + 1);
    }, 1200);
  }

  function go(i) {
    if (!data) return;
    step = Math.max(0, Math.min(data.steps.length - 1, i));
    render();
  }

  function render() {
    const s = data.steps[step];
    const st = s.state;
    slider.value = String(step);
    counter.textContent = `${step + 1} / ${data.steps.length}`;
    root.querySelector("#first").disabled = root.querySelector("#prev").disabled = step === 0;
    root.querySelector("#next").disabled = root.querySelector("#last").disabled = step === data.steps.length - 1;
    // A deal's text names its round ("Round 2: the dice are rolled."): the round label heads the moves only.
    fill(narration, s.move ? h("div", { class: "narration-round muted small" }, `Round ${s.round + 1}`) : null,
      h("div", { class: "narration-text", id: "step-text" }, s.text));

    const result = s.result || null;
    const seats = data.players.map((name) => {
      const count = st.dice ? st.dice[name] ?? 0 : 0;
      const hidden = result ? [] : (st.hands || {})[name] || [];
      const shown = result ? [] : (st.shown || {})[name] || [];
      const toMove = !result && st.to_move === name && st.phase !== "over";
      const lost = result && result.lost[name];
      const row = h("span", { class: "dice-row" });
      const counted = (st.counted || {})[name] || [];
      hidden.forEach((f, i) => row.appendChild(die(f, { rules, size: "md", match: !!counted[i] })));
      for (const f of shown) row.appendChild(die(f, { rules, size: "md", selected: true, title: "shown" }));
      const winner = data.winner === name && st.phase === "over";
      return h("div", { class: `seat ${toMove ? "seat-turn" : ""} ${count === 0 ? "seat-out" : ""} ${winner ? "seat-winner" : ""}`, dataset: { name } },
        h("div", { class: "seat-head" }, h("span", { class: "seat-name" }, winner ? h("span", { class: "crown" }, "♛ ") : "", name), h("span", { class: "seat-badges" },
          lost ? h("span", { class: "badge badge-danger" }, `−${lost}`) : null,
          shown.length ? h("span", { class: "badge" }, `${shown.length} shown`) : null)),
        h("div", { class: "seat-body" }, h("div", { class: "seat-count" }, count === 0 ? "out" : dice(count)), row));
    });
    const extra = [];
    if (result) {
      extra.push(h("div", { class: "card reveal-inline", id: "replay-reveal" },
        revealContent(rules, result, { challenger: result.challenger })));
    }
    fill(board, h("div", { class: "seats", dataset: { n: data.players.length } }, seats), extra);
    // A challenge step's state is already the next round: show the bids it ended.
    const bids = result && step > 0 ? data.steps[step - 1].state.bids || [] : st.bids || [];
    fill(bidsBox, h("h3", {}, `Round ${s.round + 1}: bids`),
      bids.length ? h("ol", { class: "bid-list" }, bids.map((b, i) => h("li", { class: i === bids.length - 1 ? "latest" : "" },
        h("span", { class: "bid-player" }, b.player), bidChip(rules, b.bid, "xs"), h("span", { class: "small muted bid-words" }, b.words),
        b.show && b.show.length ? h("span", { class: "small" }, " shows ", diceRow(b.show, { rules, size: "xs" })) : null)))
        : h("p", { class: "muted small" }, "No bids yet."));
  }

  const onKey = (e) => {
    if (!data || e.target.closest("input, textarea, select")) return;
    if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(data.steps.length - 1);
  };
  document.addEventListener("keydown", onKey);

  Promise.all([api.replay(code, game), api.config().catch(() => null)]).then(([res, cfg]) => {
    data = res;
    const rec = res.record || {};
    if (typeof rec.rules === "object" && rec.rules) rules = rec.rules;
    else if (res.rules && typeof res.rules === "object") rules = res.rules;
    else if (cfg && cfg.presets[rec.rules]) rules = cfg.presets[rec.rules];
    const name = rules.name || rec.rules || "";
    root.querySelector("#replay-sub").textContent = `${name} · ${data.players.join(", ")} · ${data.winner ? `${data.winner} won` : ""} · ${data.steps.length} steps. Use ◀ ▶ or the arrow keys.`;
    slider.max = String(data.steps.length - 1);
    go(0);
  }).catch((e) => {
    root.querySelector("#replay-sub").textContent = e.message;
    toast(e.message);
  });

  return { destroy() { clearInterval(playTimer); document.removeEventListener("keydown", onKey); } };
}

// The lobby: join by code, create a table, open public tables, your games.
import { api } from "./api.js";
import { summaryItems } from "./rules-text.js";
import { h, fill, nickname, saveNickname, saveSeatToken, allSeatTokens, dateTime, store, radioKeys } from "./util.js";
import { die } from "./dice.js";
import { ratingBadge } from "./ratings.js";

const CODE_RE = /^[A-Za-z0-9]{4,12}$/;

export function lobbyPage({ root, toast }) {
  let config = null;
  let destroyed = false;
  let refreshTimer = null;

  const nickInput = h("input", {
    id: "nickname", name: "nickname", autocomplete: "nickname", maxlength: 24, required: true,
    placeholder: "Your nickname", value: nickname(),
  });
  // The create form has its own nickname box, the same name: "Create the table" without
  // one no longer sends the focus up to the join card, far away on a phone (issue 17).
  const createNick = h("input", {
    id: "create-nickname", name: "create-nickname", autocomplete: "nickname", maxlength: 24, required: true,
    placeholder: "Your nickname", value: nickname(),
  });
  for (const [from, to] of [[nickInput, createNick], [createNick, nickInput]]) {
    from.addEventListener("input", () => { to.value = from.value; });
    from.addEventListener("change", () => saveNickname(from.value.trim()));
  }

  /** The nickname typed in `input` (the form's own box), or null after saying it is missing. */
  function nick(input = nickInput) {
    const name = input.value.trim();
    if (!name) {
      input.focus();
      toast("Type a nickname first: it is how the others see you.");
      return null;
    }
    saveNickname(name);
    return name;
  }

  // ---- join by code --------------------------------------------------------
  const codeInput = h("input", {
    id: "join-code", name: "code", maxlength: 12, placeholder: "CODE", autocomplete: "off",
    autocapitalize: "characters", spellcheck: "false", class: "code-input",
  });
  async function joinCode(code, watch) {
    code = (code || "").trim().toUpperCase();
    if (!CODE_RE.test(code)) {
      toast("A join code has six letters and digits, such as K7QXMP.");
      codeInput.focus();
      return;
    }
    if (watch) {
      location.hash = `#/table/${code}`;
      return;
    }
    const name = nick();
    if (!name) return;
    try {
      const res = await api.join(code, name);
      saveSeatToken(res.code, res.token);
      location.hash = `#/table/${res.code}`;
    } catch (e) {
      toast(e.message);
    }
  }
  const joinForm = h("form", { class: "row-form", id: "join-form", onsubmit: (e) => { e.preventDefault(); joinCode(codeInput.value, false); } },
    codeInput,
    h("button", { type: "submit", class: "btn btn-primary", id: "join-btn" }, "Join"),
    h("button", { type: "button", class: "btn", id: "watch-btn", onclick: () => joinCode(codeInput.value, true) }, "Watch"),
  );

  // ---- create a table ------------------------------------------------------
  const presetSelect = h("select", { id: "preset", name: "preset", "aria-describedby": "preset-line" });
  // the rule set's one line for people, under its name (the server's `catalog`, issue 17)
  const presetLine = h("p", { class: "small muted preset-line", id: "preset-line" });
  const optionsBox = h("div", { class: "options-grid", id: "rule-options" });
  const rulesList = h("ul", { class: "rules-list", id: "rules-summary" });
  const seatsBox = h("div", { class: "segmented", id: "seats", role: "radiogroup", "aria-label": "Seats", onkeydown: radioKeys });
  const timerBox = h("div", { class: "segmented", id: "timer", role: "radiogroup", "aria-label": "Turn timer", onkeydown: radioKeys });
  const privateBox = h("input", { type: "checkbox", id: "private", name: "private" });
  const ratedBox = h("input", { type: "checkbox", id: "rated", name: "rated" });  // issue 18: needs a turn timer
  // A rules file (TOML or JSON, as `liars-dice rules --schema` describes), uploaded or pasted;
  // the server reads it and answers a bad one with one sentence naming the option.
  const RULES_MAX = 8 * 1024;
  const rulesText = h("textarea", { id: "rules-text", name: "rules_text", maxlength: RULES_MAX, spellcheck: "false",
    placeholder: 'preset = "perudo"\ncalza = false' });
  // A pasted or uploaded rules file is previewed in the summary above, as the table will play it (issue 17).
  let previewTimer = null;
  rulesText.addEventListener("input", () => { clearTimeout(previewTimer); previewTimer = setTimeout(renderSummary, 400); });
  const rulesFile = h("input", { type: "file", id: "rules-file", accept: ".toml,.json,text/plain,application/json",
    onchange: async (e) => {
      const file = e.target.files && e.target.files[0];
      if (!file) return;
      if (file.size > RULES_MAX) { toast(`A rules file holds at most ${RULES_MAX / 1024} KiB.`); e.target.value = ""; return; }
      rulesText.value = await file.text();
      renderSummary();
    } });
  let options = {}; // the rule options as edited
  let seats = 4;
  let timer = null;

  let presetName = "classic";
  function setPreset(name) {
    presetName = name;
    presetLine.textContent = (presetInfo(name) || {}).line || "";
    options = { ...config.presets[name] };
    renderOptions();
  }

  // The rules in words come from the server (the engine's summary); the page words no rule.
  let summaryAsked = 0;
  async function renderSummary() {
    const asked = ++summaryAsked;
    const base = config.presets[presetName];
    const changed = {};
    for (const [k, v] of Object.entries(options)) if (k !== "name" && base[k] !== v) changed[k] = v;
    const text = rulesText.value.trim() ? rulesText.value : null;
    let items;
    try {
      items = summaryItems((await api.rulesSummary(presetName, changed, text)).summary);
      if (text) items.unshift(h("li", { class: "from-file", id: "rules-from-file" }, h("strong", {}, "From your rules file: "), "these rules replace the preset and options."));
    } catch (e) {
      items = [h("li", { class: "warn" }, text ? `Your rules file: ${e.message}` : e.message)];
    }
    if (asked === summaryAsked && !destroyed) fill(rulesList, items);
  }

  function optionControl(key) {
    const value = options[key];
    const id = `opt-${key}`;
    const onchange = (v) => { options[key] = v; renderOptions(false); };
    if (typeof value === "boolean") {
      const input = h("input", { type: "checkbox", id, checked: value, onchange: (e) => onchange(e.target.checked) });
      return h("label", { class: "opt opt-check", for: id }, input, h("span", {}, config.option_labels[key] || key));
    }
    if (config.option_choices[key]) {
      const sel = h("select", { id, onchange: (e) => onchange(e.target.value) },
        config.option_choices[key].map((c) => h("option", { value: c, selected: c === value }, (config.choice_words[key] || {})[c] || c)));
      return h("label", { class: "opt", for: id }, h("span", {}, config.option_labels[key] || key), sel);
    }
    if (key === "wild_face") {
      const sel = h("select", { id, onchange: (e) => onchange(e.target.value === "" ? null : Number(e.target.value)) },
        h("option", { value: "", selected: value === null }, "none"),
        Array.from({ length: options.faces }, (_, i) => i + 1).map((f) => h("option", { value: f, selected: f === value }, String(f))));
      return h("label", { class: "opt", for: id }, h("span", {}, config.option_labels[key]), sel);
    }
    if (typeof value === "number") {
      const bounds = { faces: [2, 9], dice_per_player: [1, 10], min_players: [2, 6], max_players: [2, 6] }[key] || [1, 99];
      const input = h("input", { type: "number", id, value, min: bounds[0], max: bounds[1], inputmode: "numeric",
        onchange: (e) => { const n = Number(e.target.value); if (Number.isInteger(n)) onchange(n); } });
      return h("label", { class: "opt", for: id }, h("span", {}, config.option_labels[key] || key), input);
    }
    return null;
  }

  function renderOptions(rebuildControls = true) {
    const keys = Object.keys(config.option_labels).filter((k) => k in options);
    if (rebuildControls) fill(optionsBox, keys.map(optionControl));
    else {
      // keep focus; only the wild-face list depends on another option
      const wf = optionsBox.querySelector("#opt-wild_face");
      if (wf && wf.options.length !== options.faces + 1) fill(optionsBox, keys.map(optionControl));
    }
    renderSummary();
    const lo = Math.max(config.seats.min, options.min_players);
    const hi = Math.min(config.seats.max, options.max_players);
    seats = Math.min(hi, Math.max(lo, seats));
    fill(seatsBox, Array.from({ length: config.seats.max - config.seats.min + 1 }, (_, i) => config.seats.min + i).map((n) =>
      h("button", { type: "button", role: "radio", "aria-checked": String(n === seats), class: n === seats ? "seg on" : "seg",
        tabindex: n === seats ? "0" : "-1", disabled: n < lo || n > hi, dataset: { seats: n }, onclick: () => { seats = n; renderOptions(false); } }, String(n))));
  }

  function renderTimer() {
    fill(timerBox, config.turn_timer.choices.map((t) =>
      h("button", { type: "button", role: "radio", "aria-checked": String(t === timer), class: t === timer ? "seg on" : "seg",
        tabindex: t === timer ? "0" : "-1", dataset: { timer: t === null ? "none" : t }, onclick: () => { timer = t; renderTimer(); } }, t === null ? "none" : `${t}s`)));
  }

  async function create(e) {
    e.preventDefault();
    const name = nick(createNick);
    if (!name) return;
    const preset = presetSelect.value;
    const base = config.presets[preset];
    const changed = {};
    for (const [k, v] of Object.entries(options)) if (k !== "name" && base[k] !== v) changed[k] = v;
    const button = createForm.querySelector("#create-btn");
    button.disabled = true;
    const body = { nickname: name, preset, options: changed, seats, turn_timer: timer, private: privateBox.checked };
    if (ratedBox.checked) body.rated = true;
    if (rulesText.value.trim()) body.rules_text = rulesText.value;  // a rules file replaces preset and options
    try {
      const res = await api.createTable(body);
      saveSeatToken(res.code, res.token);
      if (res.share_url) store.set(`liars-dice:share:${res.code}`, res.share_url);
      location.hash = `#/table/${res.code}`;
    } catch (err) {
      toast(err.message);
    } finally {
      button.disabled = false;
    }
  }

  const createForm = h("form", { id: "create-form", onsubmit: create, novalidate: true },
    h("label", { class: "field", for: "create-nickname" }, h("span", {}, "Your nickname"), createNick),
    h("label", { class: "field", for: "preset" }, h("span", {}, "Rules"), presetSelect), presetLine,
    h("div", { class: "rules-box" }, rulesList,
      h("details", { class: "customise" }, h("summary", {}, "Change the options"), optionsBox),
      h("details", { class: "customise rules-file", id: "rules-file-box" }, h("summary", {}, "Use a rules file (TOML or JSON)"),
        h("label", { class: "field", for: "rules-file" }, h("span", {}, "Upload"), rulesFile),
        h("label", { class: "field", for: "rules-text" }, h("span", {}, "or paste"), rulesText),
        h("p", { class: "small muted" }, "A rules file replaces the preset and options above: {\"preset\": NAME, ...options} or every option.")),
    ),
    h("div", { class: "field" }, h("span", { id: "seats-label" }, "Seats"), seatsBox),
    h("div", { class: "field" }, h("span", {}, "Turn timer"), timerBox),
    h("label", { class: "opt opt-check", for: "private" }, privateBox, h("span", {}, "Private: not listed in the lobby, join by code only")),
    h("label", { class: "opt opt-check", for: "rated" }, ratedBox, h("span", {}, "Rated: the games count for the players' ratings (needs a turn timer)")),
    h("button", { type: "submit", class: "btn btn-primary btn-wide", id: "create-btn" }, "Create the table"),
  );

  // ---- open tables and your games -----------------------------------------
  const tablesBox = h("div", { id: "open-tables", class: "list" }, h("p", { class: "muted" }, "Loading…"));
  const gamesBox = h("div", { id: "my-games", class: "list" });
  const lookupInput = h("input", { id: "lookup-nick", placeholder: "Nickname", maxlength: 24, value: nickname() });

  /** The catalog's entry for a preset ({title, short, line, research}), or undefined before the config or for a name it lacks. */
  const presetInfo = (preset) => ((config && config.catalog) || []).find((c) => c.preset === preset);
  /** A rule set's short name for people ("Milton Bradley" for wild-stars), else the name given. */
  const presetShort = (preset) => (presetInfo(preset) || {}).short || preset;

  function tableRow(t) {
    const filled = t.seats.filter((s) => s.kind !== "empty").length;
    const host = t.seats[t.host] && t.seats[t.host].name;
    return h("div", { class: "list-row", dataset: { code: t.code } },
      h("div", { class: "list-main" },
        h("div", { class: "list-title" }, h("span", { class: "code" }, t.code), " ", presetShort(t.preset || t.rules.name), t.rated ? h("span", { class: "tag" }, " rated") : null),
        seatRatings(t),
        h("div", { class: "muted small" }, `${filled}/${t.n_seats} seated · host ${host || "?"} · ${t.turn_timer ? `${t.turn_timer}s turns` : "no timer"}`)),
      h("div", { class: "list-actions" },
        h("button", { class: "btn btn-primary btn-small", onclick: () => joinCode(t.code, false) }, "Join"),
        h("a", { class: "btn btn-small", href: `#/table/${t.code}` }, "Watch")));
  }

  // each seated player's rating in the table's rule set, when they have one (issue 18)
  function seatRatings(t) {
    const rated = t.seats.filter((s) => s.rating);
    if (!rated.length) return null;
    return h("div", { class: "small seat-ratings" }, rated.map((s) => h("span", { class: "seat-rating" }, s.name, " ", ratingBadge(s), " ")));
  }

  async function loadTables() {
    try {
      const res = await api.tables();
      if (destroyed) return;
      fill(tablesBox, res.tables.length ? res.tables.map(tableRow)
        : h("p", { class: "muted" }, "No open tables right now. Create one and share its code."));
    } catch (e) {
      if (!destroyed) fill(tablesBox, h("p", { class: "muted" }, e.message));
    }
  }

  function gameRow(g) {
    const status = g.status || "finished";
    const finished = status === "finished";
    const me = g.players && g.seat !== undefined && g.seat !== null ? g.players[g.seat] : null;
    const won = finished && me && g.winner === me && !g.winner_stand_in;
    // A bot that took a leaver's seat plays under their name: say so (issue 17, fault 2).
    const winner = g.winner_stand_in ? `${g.winner}'s stand-in bot` : g.winner;
    return h("div", { class: "list-row", dataset: { code: g.code } },
      h("div", { class: "list-main" },
        h("div", { class: "list-title" }, h("span", { class: "code" }, g.code), g.game > 1 || g.games > 1 ? ` game ${g.game} ` : " ", presetShort(typeof g.rules === "string" ? g.rules : (g.rules && g.rules.name) || ""),
          won ? h("span", { class: "badge badge-win" }, "won") : null),
        h("div", { class: "muted small" }, [
          (g.players || []).filter(Boolean).join(", "),
          finished ? `winner ${winner || "?"}` : { open: "waiting for players", playing: "in play", closed: "closed" }[status] || status,
          g.left ? "you left" : "",
          finished && g.finished_at ? dateTime(g.finished_at) : "",
        ].filter(Boolean).join(" · "))),
      h("div", { class: "list-actions" },
        finished
          ? [h("a", { class: "btn btn-small", href: `#/replay/${g.code}${g.game ? `/${g.game}` : ""}` }, "Replay"),
             h("a", { class: "btn btn-small", href: api.recordUrl(g.code, g.game), download: `liars-dice-${g.code}${g.game ? `-game${g.game}` : ""}.json` }, "Record")]
          : status === "closed" ? null
          : g.left ? h("a", { class: "btn btn-small", href: `#/table/${g.code}` }, "Watch")  // the seat is a bot's for good
          : h("a", { class: "btn btn-primary btn-small", href: `#/table/${g.code}` }, status === "open" ? "Open" : "Rejoin")));
  }

  async function loadMyGames() {
    const tokens = allSeatTokens().slice(-200);
    if (!tokens.length) {
      fill(gamesBox, h("p", { class: "muted" }, "Games you play in this browser appear here."));
      return;
    }
    try {
      const res = await api.myGames(tokens);
      if (destroyed) return;
      fill(gamesBox, res.games.length ? res.games.map(gameRow) : h("p", { class: "muted" }, "No games yet."));
    } catch (e) {
      if (!destroyed) fill(gamesBox, h("p", { class: "muted" }, e.message));
    }
  }

  const lookupBox = h("div", { class: "list", id: "lookup-games" });
  async function lookup(e) {
    e.preventDefault();
    const name = lookupInput.value.trim();
    if (!name) { toast("Type the nickname whose finished games you want to see."); return; }
    try {
      const res = await api.playerGames(name);
      fill(lookupBox, res.games.length ? res.games.map(gameRow) : h("p", { class: "muted" }, `No finished public games for ${name}.`));
    } catch (err) {
      toast(err.message);
    }
  }

  // ---- the page ------------------------------------------------------------
  const hero = h("section", { class: "hero" },
    h("div", { class: "hero-dice", "aria-hidden": "true" }, [5, 1, 3, 6, 2].map((f, i) => die(f, { size: "lg", rules: { star_symbol: true, wild_face: 1 }, title: "" }))),
    h("h1", {}, "Liar's Dice with friends"),
    h("p", { class: "lead" }, "Create a table, send the code to your friends, fill empty seats with bots, and play."));

  fill(root,
    hero,
    h("div", { class: "lobby-grid" },
      h("div", { class: "lobby-col" },
      h("section", { class: "card", id: "join-card" },
        h("h2", {}, "Join a table"),
        h("label", { class: "field", for: "nickname" }, h("span", {}, "Nickname"), nickInput),
        h("label", { class: "field", for: "join-code" }, h("span", {}, "Join code")),
        joinForm),
      h("section", { class: "card", id: "tables-card" },
        h("div", { class: "card-head" }, h("h2", {}, "Open tables"), h("button", { class: "btn btn-small btn-ghost", onclick: loadTables, "aria-label": "Refresh the open tables" }, "↻")),
        tablesBox),
      h("section", { class: "card", id: "games-card" },
        h("h2", {}, "Your games"),
        gamesBox,
        h("form", { class: "row-form", onsubmit: lookup }, lookupInput, h("button", { class: "btn", type: "submit" }, "Finished games")),
        lookupBox)),
      h("div", { class: "lobby-col" },
        h("section", { class: "card", id: "create-card" }, h("h2", {}, "Create a table"), h("p", { class: "muted" }, "Loading the rule sets…")))));

  api.config().then((cfg) => {
    if (destroyed) return;
    config = cfg;
    // Rule sets by their names, in the catalog's order; the research presets (one round,
    // two players) stay for rules files and the API, not this form; the terminal's default (issue 17).
    const names = Object.keys(cfg.presets).filter((n) => !(presetInfo(n) || {}).research);
    const listed = (cfg.catalog || []).map((c) => c.preset);
    const ordered = [...listed.filter((n) => names.includes(n)), ...names.filter((n) => !listed.includes(n))];
    const chosen = ordered.includes(cfg.default_preset) ? cfg.default_preset : ordered[0];
    fill(presetSelect, ordered.map((n) => h("option", { value: n, selected: n === chosen }, (presetInfo(n) || {}).title || n)));
    presetSelect.addEventListener("change", () => setPreset(presetSelect.value));
    timer = cfg.turn_timer.choices.includes(60) ? 60 : null;
    fill(root.querySelector("#create-card"), h("h2", {}, "Create a table"), createForm);
    setPreset(presetSelect.value);
    renderTimer();
    loadTables(); loadMyGames();  // again, with the rule sets' names
  }).catch((e) => toast(e.message));

  loadTables();
  loadMyGames();
  refreshTimer = setInterval(loadTables, 5000);
  return { destroy() { destroyed = true; clearInterval(refreshTimer); clearTimeout(previewTimer); } };
}

// Ratings per rule set (issue 18): the leaderboard page, a player's profile page
// with each rating's history drawn as a small inline SVG plot, and the rating
// badge the lobby shows beside a seated player. Every name goes through
// textContent (h), never innerHTML.
import { h, fill, dateTime } from "./util.js";
import { api } from "./api.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children) if (c) el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  return el;
}

/** "27.4" for a rating number. */
export function ratingText(x) {
  return (Math.round(x * 10) / 10).toFixed(1);
}

/** The badge of a lobby seat with a rating ({mu, sigma, conservative, games}), or null. */
export function ratingBadge(seat) {
  const r = seat && seat.rating;
  if (!r) return null;
  return h("span", { class: "rating-badge", title: `rating ${ratingText(r.mu)} ± ${ratingText(r.sigma)}, ${r.games} rated games`,
    dataset: { seat: seat.seat } }, ratingText(r.conservative));
}

/**
 * A small plot of a rating's history: the conservative rating (mu - 3 sigma)
 * after each rated game, oldest left, as an inline SVG line with one dot per game.
 */
export function historyPlot(history, label) {
  const W = 320, H = 90, P = 8;
  const ys = history.map((p) => p.conservative);
  const lo = Math.min(...ys, 0), hi = Math.max(...ys, 1);
  const x = (i) => P + (history.length === 1 ? (W - 2 * P) / 2 : (i * (W - 2 * P)) / (history.length - 1));
  const y = (v) => H - P - ((v - lo) * (H - 2 * P)) / (hi - lo || 1);
  const pts = history.map((p, i) => `${x(i).toFixed(1)},${y(p.conservative).toFixed(1)}`).join(" ");
  return svg("svg", { class: "rating-plot", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": label },
    svg("title", {}, label),
    svg("line", { x1: P, x2: W - P, y1: y(0), y2: y(0), class: "plot-zero" }),
    svg("polyline", { points: pts, fill: "none", class: "plot-line" }),
    ...history.map((p, i) => svg("circle", { cx: x(i).toFixed(1), cy: y(p.conservative).toFixed(1), r: 2.5, class: "plot-dot" },
      svg("title", {}, `game ${i + 1}: ${ratingText(p.conservative)} (place ${p.place})`))));
}

export function leaderboardPage(ctx, ruleSet) {
  let destroyed = false;
  const picker = h("select", { id: "leaderboard-rule-set", "aria-label": "Rule set",
    onchange: (e) => { location.hash = `#/leaderboard/${encodeURIComponent(e.target.value)}`; } });
  const board = h("div", { id: "leaderboard", class: "list" }, h("p", { class: "muted" }, "Loading…"));
  ctx.root.appendChild(h("section", { class: "card" },
    h("h1", {}, "Leaderboard"),
    h("p", { class: "muted small", id: "leaderboard-note" }, "Ranked by the conservative rating, mean − 3σ."),
    h("label", { class: "field", for: "leaderboard-rule-set" }, h("span", {}, "Rule set"), picker),
    board));
  (async () => {
    try {
      const res = await api.leaderboard(ruleSet);
      if (destroyed) return;
      fill(picker, res.rule_sets.map((r) => h("option", { value: r, selected: r === res.rule_set }, r)));
      document.getElementById("leaderboard-note").textContent =
        `Ranked by the conservative rating, mean − 3σ; players with at least ${res.min_games} rated games.`;
      if (!res.players.length) {
        fill(board, h("p", { class: "muted" }, res.rule_set ? `Nobody has ${res.min_games} rated games of ${res.rule_set} yet.` : "No rated games yet."));
        return;
      }
      fill(board, h("table", { class: "leaderboard-table" },
        h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Player"), h("th", {}, "Rating"), h("th", {}, "Mean ± σ"), h("th", {}, "Games"))),
        h("tbody", {}, res.players.map((p) => h("tr", { dataset: { name: p.name } },
          h("td", {}, String(p.rank)),
          h("td", {}, h("a", { href: `#/player/${encodeURIComponent(p.name)}` }, p.name)),
          h("td", { class: "rating" }, ratingText(p.conservative)),
          h("td", { class: "muted" }, `${ratingText(p.mu)} ± ${ratingText(p.sigma)}`),
          h("td", {}, String(p.games)))))));
    } catch (e) {
      if (!destroyed) fill(board, h("p", { class: "muted" }, e.message));
    }
  })();
  return { destroy() { destroyed = true; } };
}

export function profilePage(ctx, name) {
  let destroyed = false;
  const ratings = h("div", { id: "profile-ratings" }, h("p", { class: "muted" }, "Loading…"));
  const games = h("div", { id: "profile-games", class: "list" });
  ctx.root.appendChild(h("section", { class: "card" }, h("h1", { id: "profile-name" }, name), ratings,
    h("h2", {}, "Public games"), games));
  (async () => {
    try {
      const res = await api.profile(name);
      if (destroyed) return;
      fill(ratings, res.ratings.length ? res.ratings.map((r) => h("div", { class: "profile-rating", dataset: { ruleSet: r.rule_set } },
        h("h3", {}, r.rule_set, " ", h("span", { class: "rating" }, ratingText(r.conservative))),
        h("p", { class: "muted small" }, `mean ${ratingText(r.mu)} ± ${ratingText(r.sigma)} · ${r.games} rated games`),
        historyPlot(r.history, `${r.rule_set}: the rating after each of ${r.history.length} rated games`)))
        : h("p", { class: "muted" }, "No rated games yet."));
      fill(games, res.games.length ? res.games.map((g) => h("div", { class: "list-row", dataset: { code: g.code } },
        h("div", { class: "list-main" },
          h("div", { class: "list-title" }, h("span", { class: "code" }, g.code), " ", g.rules, g.game > 1 ? ` · game ${g.game}` : ""),
          h("div", { class: "muted small" }, `${(g.players || []).join(", ")}${g.winner ? ` · won by ${g.winner}` : ""}${g.finished_at ? ` · ${dateTime(g.finished_at)}` : ""}`)),
        h("div", { class: "list-actions" },
          h("a", { class: "btn btn-small", href: `#/replay/${g.code}${g.game ? `/${g.game}` : ""}` }, "Replay"))))
        : h("p", { class: "muted" }, "No public games yet."));
    } catch (e) {
      if (!destroyed) fill(ratings, h("p", { class: "muted" }, e.message));
    }
  })();
  return { destroy() { destroyed = true; } };
}

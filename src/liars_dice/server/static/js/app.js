// The single-page app: a hash router over the lobby, a table and a replay.
import { h, fill } from "./util.js";
import { lobbyPage } from "./lobby.js";
import { tablePage } from "./table.js";
import { replayPage } from "./replay.js";
import { leaderboardPage, profilePage } from "./ratings.js";
import { accountPage, loadAccount } from "./account.js";

const app = document.getElementById("app");
let current = null; // the page now shown: {destroy()}

/** Show one sentence to the player for a few seconds. */
export function toast(message, kind = "error") {
  const box = document.getElementById("toasts");
  const el = h("div", { class: `toast toast-${kind}`, role: kind === "error" ? "alert" : "status", "aria-live": kind === "error" ? "assertive" : "polite" }, message);
  box.appendChild(el);
  setTimeout(() => el.classList.add("toast-out"), kind === "error" ? 5000 : 2500);
  setTimeout(() => el.remove(), kind === "error" ? 5600 : 3100);
}

function route() {
  const hash = location.hash.replace(/^#\/?/, "");
  const parts = hash.split("/").filter(Boolean).map(decodeURIComponent);
  if (current && current.destroy) current.destroy();
  current = null;
  // A toast speaks of the page it came from: none carries over to the next (issue 17, fault 3).
  fill(document.getElementById("toasts"));
  fill(document.getElementById("announcer"));
  fill(app);
  window.scrollTo(0, 0);
  const ctx = { root: app, toast };
  if (parts[0] === "table" && parts[1]) current = tablePage(ctx, parts[1].toUpperCase());
  else if (parts[0] === "account") current = accountPage(ctx);
  else if (parts[0] === "replay" && parts[1]) current = replayPage(ctx, parts[1].toUpperCase(), Number(parts[2]) || null);
  else if (parts[0] === "leaderboard") current = leaderboardPage(ctx, parts[1] || null);
  else if (parts[0] === "player" && parts[1]) current = profilePage(ctx, parts[1]);
  else current = lobbyPage(ctx);
}

window.addEventListener("hashchange", route);
// Who is signed in, before the first page: a table's socket then takes the account's seat.
loadAccount().finally(route);

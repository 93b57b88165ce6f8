// The reveal after a challenge, shared by the table (overlay, game over) and the replay.
import { diceRow, bidChip } from "./dice.js";
import { h, dice, listWords } from "./util.js";
import { seedLine } from "./fair.js";

/**
 * The reveal of one challenge: every cup face up with the dice that counted,
 * the count against the bid, who lost how many dice, who is out, who opens next.
 * Everything about the rules comes from the server's result: the bid's words
 * (bid_words), which dice counted (counted), whether wilds counted (wilds_active),
 * the verdict in words (verdict: calza right or wrong, a perfect bid, the bid
 * true or a lie). opts: {challenger, me: this browser's player name,
 * dialog: ids for the overlay, fair: {code, game, me} to check the dice in the page}.
 */
export function revealContent(r, result, opts = {}) {
  const { challenger = null, me = null, dialog = false, fair = null } = opts;
  const bid = result.bid;
  const wildsActive = result.wilds_active !== false;
  const counted = result.counted || {};
  const calza = !!result.calza;
  const gained = result.gained || {};
  const cups = Object.keys(result.revealed).map((n) => {
    const faces = result.revealed[n];
    const matched = (counted[n] || []).filter(Boolean).length;
    return h("div", { class: `cup ${result.lost[n] ? "cup-lost" : ""}`, dataset: { name: n } },
      h("div", { class: "cup-name" }, n, n === result.bidder ? h("span", { class: "badge" }, "bid") : null, n === result.challenger ? h("span", { class: "badge badge-danger" }, "called") : null),
      diceRow(faces, { rules: r, size: "md", counted: counted[n] || null }),
      h("div", { class: "cup-foot small" }, h("span", { class: "muted" }, `${matched} counted`),
        result.lost[n] ? h("span", { class: "loss" }, `−${dice(result.lost[n])}`) : null,
        gained[n] ? h("span", { class: "gain" }, `+${dice(gained[n])}`) : null));
  });
  const verdict = result.verdict; // the engine's reading of the result: the page compares no count with the bid
  const lostNames = Object.entries(result.lost).map(([n, k]) => `${n} ${k === 1 ? "loses one die" : `loses ${dice(k)}`}`);
  for (const [n, k] of Object.entries(gained)) lostNames.push(`${n} ${k === 1 ? "gains one die" : `gains ${dice(k)}`}`);
  return [
    h("div", { class: "reveal-head" },
      h(dialog ? "h2" : "h3", { id: dialog ? "reveal-title" : null },
        calza ? `${challenger || result.challenger} calls calza on ${result.bidder}'s bid` : `${challenger || result.challenger} calls ${result.bidder}'s bid`),
      result.palifico ? h("span", { class: "badge" }, "palifico round") : null,
      h("div", { class: "reveal-bid" }, bidChip(r, bid, "md"), h("span", {}, result.bid_words))),
    h("div", { class: "reveal-count", id: dialog ? "reveal-count" : null },
      h("span", { class: "count-num" }, String(result.count)),
      h("span", {}, ` counted, ${bid.quantity} bid. `),
      h("strong", {}, verdict)),
    !wildsActive ? h("p", { class: "small warn" }, result.palifico ? "Wilds did not count: a palifico round." : "Wilds did not count this round.") : null,
    h("div", { class: "cups" }, cups),
    h("ul", { class: "reveal-outcome" },
      lostNames.length ? h("li", {}, listWords(lostNames) + ".") : h("li", {}, "Nobody loses a die."),
      result.out.length ? h("li", {}, `${listWords(result.out)} ${result.out.length === 1 ? "is" : "are"} out.`) : null,
      result.next ? h("li", {}, h("strong", {}, `${result.next === me ? "You open" : `${result.next} opens`} the next round.`)) : h("li", {}, h("strong", {}, "The game is over."))),
    seedLine(result, fair),
  ];
}

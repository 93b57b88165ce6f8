// Every rule option in words, for the create-table form and the table header.
import { numberWord } from "./util.js";

/** Labels of the options, in the order the form shows them. */
export const OPTION_LABELS = {
  dice_per_player: "Dice per player",
  faces: "Faces per die",
  wild_face: "Wild face",
  star_symbol: "Draw the wild face as a star ★",
  wilds_suspended_on_wild_opening: "Opening on the wild face cancels wilds that round",
  ordering: "Bid order",
  loss: "Dice lost on a challenge",
  exact: "When the count is exactly the bid",
  die_hard: "Die Hard (last die survives a perfect bid)",
  show_and_reroll: "Show and reroll after bidding",
  next_opener: "Next round opened by",
  min_players: "Fewest players",
  max_players: "Most players",
  single_round: "One round only",
  wild_opening: "A round may open on the wild face",
  calza: "Calza (claim an exact count, win a die back)",
  calza_min_players: "Calza needs at least this many players in",
  palifico: "Palifico rounds (a player down to one die)",
};

/** Words for an enum value. */
export const CHOICE_WORDS = {
  ordering: { plain: "plain", track: "bidding track", half_up: "perudo conversions" },
  loss: { one: "one die", difference: "the difference" },
  exact: { challenger_loses: "the challenger loses", all_but_bidder: "all but the bidder lose" },
  next_opener: { loser: "the loser", winner: "the winner" },
};

function wildName(r) {
  if (r.wild_face === null) return null;
  if (r.star_symbol) return "Stars ★";
  return r.wild_face === 1 ? "Aces (1s)" : `${r.wild_face}s`;
}

/** One plain sentence per rule option (the preset shown in full). */
export function describeRules(r) {
  const lines = [];
  lines.push(`Each player starts with ${numberWord(r.dice_per_player)} ${r.dice_per_player === 1 ? "die" : "dice"} of ${r.faces} faces; ${r.min_players}–${r.max_players} players.`);
  const wild = wildName(r);
  if (wild) {
    let s = `${wild} are wild: they count toward every other face; a bid on them counts them alone.`;
    if (r.wilds_suspended_on_wild_opening) s += ` If a round opens on ${r.star_symbol ? "stars" : `${r.wild_face}s`}, they are not wild that round.`;
    lines.push(s);
  } else {
    lines.push("No face is wild.");
  }
  lines.push(r.ordering === "track"
    ? "Raise along the bidding track: more dice or a higher face; to switch to wilds bid over half the quantity, to switch back bid at least double."
    : r.ordering === "half_up"
      ? "Raise by bidding more dice or a higher face; to switch to wilds bid at least half the quantity (rounded up), to switch back more than double."
      : "Raise by bidding more dice, or the same number of a higher face.");
  lines.push(r.loss === "difference"
    ? "The loser of a challenge loses the difference between the bid and the count."
    : "The loser of a challenge loses one die.");
  lines.push(r.exact === "all_but_bidder"
    ? "A perfect bid (the count is exactly the bid): everyone but the bidder loses a die."
    : "If the count is exactly the bid, the bid stands and the challenger loses.");
  if (r.die_hard) lines.push("Die Hard: on a perfect bid, a player down to one die (other than the challenger) keeps it.");
  if (r.show_and_reroll) lines.push("Show and reroll: after bidding you may set out some dice face up and reroll the rest (keep at least one hidden).");
  lines.push(`The ${r.next_opener === "winner" ? "winner" : "loser"} of a challenge opens the next round.`);
  if (r.single_round) lines.push("One round only: the first challenge decides the game.");
  if (r.wild_opening === false && wild) lines.push(`A round never opens on the wild face${r.palifico ? " (a palifico round may)" : ""}.`);
  if (r.calza) lines.push(`Calza: instead of raising or challenging, claim the count is exactly the bid; right, you win back a die (up to your starting count); wrong, you lose one. Allowed while at least ${r.calza_min_players} players are in.`);
  if (r.palifico) lines.push("Palifico: the first time a player is down to one die (with more than two in), they open a round with no wilds where the face stays fixed (players with one die may change it); once per player.");
  return lines;
}

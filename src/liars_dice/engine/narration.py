"""The game in sentences: the one wording of moves and reveals, shared by the
server's replay page and ``liars-dice replay --text``.

Bids are worded by :meth:`Rules.describe_bid <liars_dice.engine.rules.Rules.describe_bid>`
("three aces", "four stars"), faces by :meth:`Rules.face_label`; every sentence
ends with a full stop and holds no Python list.

>>> from liars_dice.engine import CHALLENGE, Bid, Game, Rules
>>> game = Game.create(Rules.preset("aces-wild"), ["ann", "bob"], [1, 1])
>>> s = game.initial_state().deal([[1], [5]]).apply(Bid(2, 1)).apply(CHALLENGE)
>>> challenge_sentence(s.rules, s.game.players, s.results[-1])
"bob challenges ann's two aces: the count is 1; ann loses 1 die."
>>> narrate(s)[:3]
['Round 1 · 2 dice in play', '  Dealt: ann 1 · bob 5', '  1. ann bids 2x1: two aces.']
>>> narrate(s)[-1]
'bob wins.'
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Bid
from .rules import Exact, Rules
from .state import Hand, Move, RoundResult, State


def faces_words(rules: Rules, faces: Sequence[int]) -> str:
    """Dice as text: ``5 5``, ``★ 3``."""
    return " ".join(rules.face_label(f) for f in faces)


def list_words(items: Sequence[str]) -> str:
    """``ann``, ``ann and bob``, ``ann, bob and cy``."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def dice_words(n: int) -> str:
    """``1 die``, ``3 dice``."""
    return f"{n} {'die' if n == 1 else 'dice'}"


def round_sentence(round_no: int) -> str:
    """``Round 3: the dice are rolled.`` (``round_no`` counts from 1)."""
    return f"Round {round_no}: the dice are rolled."


def bid_sentence(rules: Rules, who: str, bid: Bid, show: Hand = ()) -> str:
    """``ann bids three aces.``; with a show: ``ann bids four 5s, shows 5 5 and rerolls the rest.``"""
    text = f"{who} bids {rules.describe_bid(bid)}"
    if show:
        text += f", shows {faces_words(rules, show)} and rerolls the rest"
    return text + "."


def losses_words(names: Sequence[str], lost: Sequence[int], gained: Sequence[int] = ()) -> str:
    """``ann loses 1 die``, ``ann loses 1 die, cy loses 2 dice``, ``cy gains 1 die``
    (a right calza), or ``nobody loses a die``."""
    parts = [f"{names[s]} loses {dice_words(k)}" for s, k in enumerate(lost) if k]
    parts += [f"{names[s]} gains {dice_words(k)}" for s, k in enumerate(gained) if k]
    return ", ".join(parts) if parts else "nobody loses a die"


def challenge_sentence(rules: Rules, names: Sequence[str], r: RoundResult) -> str:
    """``bob challenges ann's two 3s: the count is 1; ann loses 1 die.``, or
    for a calza (RULES.md ``perudo``): ``bob calls calza on ann's two 3s: ...``."""
    verb = "calls calza on" if r.calza else "challenges"
    return (
        f"{names[r.challenger]} {verb} {names[r.bidder]}'s {rules.describe_bid(r.bid)}: "
        f"the count is {r.count}; {losses_words(names, r.lost, r.gained)}."
    )


def verdict_sentence(rules: Rules, names: Sequence[str], r: RoundResult) -> str:
    """The reveal's verdict, read from the round's result (never recounted):

    - a calza (RULES.md ``perudo``): right when nobody lost (``r.loser is None``):
      ``Exactly right: bob's calza wins.`` (and, at the starting count, that no
      die came back); else ``Not exact: bob's calza fails.``;
    - a perfect bid (seed 000, ``Exact.ALL_BUT_BIDDER``): ``A perfect bid! Exactly right.``;
    - else the challenger lost (``The bid was true: bob was wrong.``) or the
      bidder did (``The bid was a lie: ann was caught.``).
    """
    if r.calza:
        who = names[r.challenger]
        if r.loser is not None:
            return f"Not exact: {who}'s calza fails."
        if not any(r.gained):
            return f"Exactly right: {who}'s calza wins; {who} is at the starting count, so gains no die."
        return f"Exactly right: {who}'s calza wins."
    if rules.exact is Exact.ALL_BUT_BIDDER and r.count == r.bid.quantity:
        return "A perfect bid! Exactly right."
    if r.loser == r.challenger:
        return f"The bid was true: {names[r.challenger]} was wrong."
    return f"The bid was a lie: {names[r.bidder]} was caught."


def outcome_sentences(rules: Rules, names: Sequence[str], r: RoundResult) -> list[str]:
    """What followed a reveal: wilds suspended, Die Hard, who is out, who opens next."""
    out: list[str] = []
    perfect = rules.exact is Exact.ALL_BUT_BIDDER and r.count == r.bid.quantity and not r.calza
    if perfect:
        out.append("A perfect bid: everyone but the bidder loses a die.")
    if not r.wilds_active and rules.wild_face is not None:
        out.append(f"{rules.face_noun(rules.wild_face).capitalize()} were not wild this round.")
    kept = [
        s for s, h in enumerate(r.revealed)
        if rules.die_hard and perfect and len(h) == 1 and s not in (r.bidder, r.challenger) and not r.lost[s]
    ]
    if kept:
        out.append(f"Die Hard: {list_words([names[s] for s in kept])} {'keeps' if len(kept) == 1 else 'keep'} a last die.")
    if r.out:
        out.append(f"{list_words([names[s] for s in r.out])} {'is' if len(r.out) == 1 else 'are'} out.")
    if r.next_opener is not None:
        out.append(f"{names[r.next_opener]} opens the next round.")
    return out


def _round(rules: Rules, names: Sequence[str], no: int, deal: tuple[Hand, ...], moves: Sequence[Move],
           result: RoundResult | None) -> list[str]:
    lines = [f"Round {no} · {sum(len(h) for h in deal)} dice in play"]
    lines.append("  Dealt: " + " · ".join(f"{names[s]} {faces_words(rules, h)}" for s, h in enumerate(deal) if h))
    k = 0
    for m in moves:
        who = names[m.seat]
        if isinstance(m.action, Bid):
            k += 1
            text = f"  {k}. {who} bids {rules.format_bid(m.action)}: {rules.describe_bid(m.action)}"
            if m.show:
                text += f", shows {faces_words(rules, m.show)} and rerolls the rest"
                if m.reroll:
                    text += f" ({faces_words(rules, m.reroll)})"
            lines.append(text + ".")
        elif result is not None:
            lines.append("  " + challenge_sentence(rules, names, result))
    if result is not None:
        lines.append("  Revealed: " + " · ".join(
            f"{names[s]} {faces_words(rules, h)}" for s, h in enumerate(result.revealed) if h))
        lines.extend("  " + s for s in outcome_sentences(rules, names, result))
    return lines


def narrate(state: State) -> list[str]:
    """Every round of the game that led to ``state``, as lines of text: the
    dice dealt, each bid in notation and in words (with any show and reroll),
    the challenge with the count and the dice lost, the reveal, who is out and
    who opens next, then the winner. A round still under way is narrated as
    far as it went."""
    rules, names = state.rules, state.game.players
    lines: list[str] = []
    for i, (log, result) in enumerate(zip(state.logs, state.results), start=1):
        lines.extend(_round(rules, names, i, log.deal, log.moves, result))
        lines.append("")
    if state.deal_faces:
        lines.extend(_round(rules, names, len(state.results) + 1, state.deal_faces, state.moves, None))
        lines.append("")
    if state.winner is not None:
        lines.append(f"{names[state.winner]} wins.")
    return lines

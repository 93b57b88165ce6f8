"""The game in sentences: the one wording of moves and reveals, shared by the
server's replay page and ``liars-dice replay --text``. A seat named ``you``
(the terminal's default name) reads in the second person: ``you bid``,
``you lose``, ``your two 3s`` (:func:`says`, :func:`possessive`).

Bids are worded by :meth:`Rules.describe_bid <liars_dice.engine.rules.Rules.describe_bid>`
("three aces", "four stars"), faces by :meth:`Rules.face_label`; every sentence
ends with a full stop and holds no Python list.

>>> from liars_dice.engine import CHALLENGE, Bid, Game, Rules
>>> game = Game.create(Rules.preset("aces-wild"), ["ann", "bob"], [1, 1])
>>> s = game.initial_state().deal([[1], [5]]).apply(Bid(2, 1)).apply(CHALLENGE)
>>> challenge_sentence(s.rules, s.game.players, s.results[-1])
"Bob challenges ann's two aces: the count is 1; ann loses 1 die."
>>> narrate(s)[:3]
['Round 1 · 2 dice in play', '  Dealt: ann 1 · bob 5', '  1. Ann bids 2x1: two aces.']
>>> narrate(s)[-1]
'Bob wins.'
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Bid
from .rules import Exact, Rules
from .state import Hand, Move, RoundResult, State


def sentence(text: str) -> str:
    """``text`` as a sentence: its first letter a capital (issue 38, fault 5:
    "nobody loses a die", "you won.", a name typed in lower case). Every
    sentence the terminal, ``replay --text``, ``verify`` and the table's page
    print starts here; the rest of the text is kept as written.

    >>> sentence("you open the next round."), sentence("ann bids two 3s."), sentence("★ is wild.")
    ('You open the next round.', 'Ann bids two 3s.', '★ is wild.')
    """
    first = text[:1]
    up = first.upper()
    return up + text[1:] if len(up) == 1 else text  # "ß" would become "SS": kept


def faces_words(rules: Rules, faces: Sequence[int]) -> str:
    """Dice as text: ``5 5``, ``★ 3``."""
    return " ".join(rules.face_label(f) for f in faces)


def list_words(items: Sequence[str]) -> str:
    """``ann``, ``ann and bob``, ``ann, bob and cy``."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def is_you(name: str) -> bool:
    """Whether a seat's name is the second person, ``you`` (the terminal's
    default name): sentences about it take the verb of ``you``."""
    return name.strip().casefold() == "you"


def says(name: str, verb: str) -> str:
    """``name`` with ``verb`` (its plain form: ``bid``, ``lose``, ``be``) agreeing:
    ``ann bids``, ``you bid``, ``ann is``, ``you are``.

    >>> says("ann", "bid"), says("you", "bid"), says("you", "be"), says("cy", "be")
    ('ann bids', 'you bid', 'you are', 'cy is')
    """
    if verb == "be":
        return f"{name} {'are' if is_you(name) else 'is'}"
    return f"{name} {verb if is_you(name) else verb + 's'}"


def possessive(name: str) -> str:
    """``ann's``, ``your`` (and ``Your`` for ``You``)."""
    if is_you(name):
        return "Your" if name.strip()[0] == "Y" else "your"
    return f"{name}'s"


def dice_words(n: int) -> str:
    """``1 die``, ``3 dice``."""
    return f"{n} {'die' if n == 1 else 'dice'}"


def round_sentence(round_no: int) -> str:
    """``Round 3: the dice are rolled.`` (``round_no`` counts from 1)."""
    return f"Round {round_no}: the dice are rolled."


def bid_sentence(rules: Rules, who: str, bid: Bid, show: Hand = ()) -> str:
    """``ann bids three aces.``; with a show: ``ann bids four 5s, shows 5 5 and rerolls the rest.``"""
    text = f"{says(who, 'bid')} {rules.describe_bid(bid)}"
    if show:
        text += f", {'show' if is_you(who) else 'shows'} {faces_words(rules, show)} and {'reroll' if is_you(who) else 'rerolls'} the rest"
    return sentence(text + ".")


def losses_words(names: Sequence[str], lost: Sequence[int], gained: Sequence[int] = ()) -> str:
    """``ann loses 1 die``, ``ann loses 1 die, cy loses 2 dice``, ``cy gains 1 die``
    (a right calza), or ``nobody loses a die``."""
    parts = [f"{says(names[s], 'lose')} {dice_words(k)}" for s, k in enumerate(lost) if k]
    parts += [f"{says(names[s], 'gain')} {dice_words(k)}" for s, k in enumerate(gained) if k]
    return ", ".join(parts) if parts else "nobody loses a die"


def challenge_sentence(rules: Rules, names: Sequence[str], r: RoundResult) -> str:
    """``bob challenges ann's two 3s: the count is 1; ann loses 1 die.``, or
    for a calza (RULES.md ``perudo``): ``bob calls calza on ann's two 3s: ...``."""
    verb = says(names[r.challenger], "call") + " calza on" if r.calza else says(names[r.challenger], "challenge")
    return sentence(
        f"{verb} {possessive(names[r.bidder])} {rules.describe_bid(r.bid)}: "
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
            return f"Not exact: {possessive(who)} calza fails."
        if not any(r.gained):
            return (
                f"Exactly right: {possessive(who)} calza wins; {says(who, 'be')} at the starting count, "
                f"so {'gain' if is_you(who) else 'gains'} no die."
            )
        return f"Exactly right: {possessive(who)} calza wins."
    if rules.exact is Exact.ALL_BUT_BIDDER and r.count == r.bid.quantity:
        return "A perfect bid! Exactly right."
    if r.loser == r.challenger:
        return f"The bid was true: {names[r.challenger]} {'were' if is_you(names[r.challenger]) else 'was'} wrong."
    return f"The bid was a lie: {names[r.bidder]} {'were' if is_you(names[r.bidder]) else 'was'} caught."


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
        one = len(kept) == 1
        out.append(f"Die Hard: {says(names[kept[0]], 'keep') if one else list_words([names[s] for s in kept]) + ' keep'} a last die.")
    if r.out:
        one = len(r.out) == 1
        out.append(f"{says(names[r.out[0]], 'be') if one else list_words([names[s] for s in r.out]) + ' are'} out.")
    if r.next_opener is not None:
        out.append(f"{says(names[r.next_opener], 'open')} the next round.")
    return [sentence(x) for x in out]


def _round(rules: Rules, names: Sequence[str], no: int, deal: tuple[Hand, ...], moves: Sequence[Move],
           result: RoundResult | None) -> list[str]:
    lines = [f"Round {no} · {sum(len(h) for h in deal)} dice in play"]
    lines.append("  Dealt: " + " · ".join(f"{names[s]} {faces_words(rules, h)}" for s, h in enumerate(deal) if h))
    k = 0
    for m in moves:
        who = names[m.seat]
        if isinstance(m.action, Bid):
            k += 1
            text = f"  {k}. {sentence(says(who, 'bid'))} {rules.format_bid(m.action)}: {rules.describe_bid(m.action)}"
            if m.show:
                verbs = ("show", "reroll") if is_you(who) else ("shows", "rerolls")
                text += f", {verbs[0]} {faces_words(rules, m.show)} and {verbs[1]} the rest"
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
        lines.append(sentence(f"{says(names[state.winner], 'win')}."))
    return lines

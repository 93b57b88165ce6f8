"""A rule set in words: what ``liars-dice rules show`` prints.

Built from the :class:`~liars_dice.engine.rules.Rules` options alone (never a
preset's name), so a custom rule set from a file reads as clearly as a preset.
Sources of the rules: the seeds and ``shared/RULES.md``.
"""

from __future__ import annotations

from .actions import Bid
from .rules import Exact, Loss, Opener, Ordering, Rules, number_word

#: A label per rule option, in the order a form shows them (the server sends
#: these; the browser words no option itself).
OPTION_LABELS: dict[str, str] = {
    "dice_per_player": "Dice per player",
    "faces": "Faces per die",
    "wild_face": "Wild face",
    "star_symbol": "Draw the wild face as a star ★",
    "wilds_suspended_on_wild_opening": "Opening on the wild face cancels wilds that round",
    "ordering": "Bid order",
    "loss": "Dice lost on a challenge",
    "exact": "When the count is exactly the bid",
    "die_hard": "Die Hard (last die survives a perfect bid)",
    "show_and_reroll": "Show and reroll after bidding",
    "next_opener": "Next round opened by",
    "min_players": "Fewest players",
    "max_players": "Most players",
    "single_round": "One round only",
    "wild_opening": "A round may open on the wild face",
    "calza": "Calza (claim an exact count, win a die back)",
    "calza_min_players": "Calza needs at least this many players in",
    "palifico": "Palifico rounds (a player down to one die)",
}

#: Words for each value of the options that take one of a few values.
CHOICE_WORDS: dict[str, dict[str, str]] = {
    "ordering": {Ordering.PLAIN.value: "plain", Ordering.TRACK.value: "bidding track",
                 Ordering.HALF_UP.value: "perudo conversions"},
    "loss": {Loss.ONE.value: "one die", Loss.DIFFERENCE.value: "the difference"},
    "exact": {Exact.CHALLENGER_LOSES.value: "the challenger loses",
              Exact.ALL_BUT_BIDDER.value: "all but the bidder lose"},
    "next_opener": {Opener.LOSER.value: "the loser", Opener.WINNER.value: "the winner"},
}


def switch_sentence(rules: Rules) -> str:
    """How a bid switches to and from the wild face, in words with an example
    (``Ordering.TRACK``: seed 000 "bidding track", seed 003; ``Ordering.HALF_UP``:
    RULES.md ``perudo``, whose check is "after five 4s, three pacos ... after
    three pacos, seven of any face"); the quantities come from
    :meth:`Rules.min_raise_quantity`, so the example is the rule. ``""`` for the
    plain order or no wild face.

    >>> switch_sentence(Rules.preset("perudo"))
    'To pacos: at least half the quantity, rounded up (after five 4s, three pacos); back from pacos: more than double (after three pacos, seven of a face); pacos to pacos: a higher quantity.'
    """
    w = rules.wild_face
    if rules.ordering is Ordering.PLAIN or w is None:
        return ""
    noun = rules.face_noun(w)
    other = 4 if 4 in rules.plain_faces else rules.plain_faces[-1]  # RULES.md's example names 4s
    to_wild = rules.min_raise_quantity(5, other, w)
    back = rules.min_raise_quantity(3, w, other)
    if rules.ordering is Ordering.TRACK:
        to_words, back_words = "more than half the quantity", "at least double"
    else:
        to_words, back_words = "at least half the quantity, rounded up", "more than double"
    return (
        f"To {noun}: {to_words} (after {rules.describe_bid(Bid(5, other))}, {rules.describe_bid(Bid(to_wild, w))}); "
        f"back from {noun}: {back_words} (after {rules.describe_bid(Bid(3, w))}, {number_word(back)} of a face); "
        f"{noun} to {noun}: a higher quantity."
    )


def palifico_note(rules: Rules) -> str:
    """What a palifico round changes (RULES.md ``perudo`` "Palifico"), one
    sentence: the one wording for the rules text, the terminal's announcement
    and its turn screen.

    >>> palifico_note(Rules.preset("perudo"))
    'pacos are not wild, the opening may name any face, and the face stays for the round (a player with one die may change it).'
    """
    w = rules.wild_face
    wild = f"{rules.face_noun(w)} are not wild, " if w is not None else ""
    return f"{wild}the opening may name any face, and the face stays for the round (a player with one die may change it)."


def rules_summary_json(rules: Rules) -> list[dict[str, str]]:
    """:func:`rules_summary` as served: ``[{"topic": ..., "sentence": ...}, ...]``.

    >>> rules_summary_json(Rules.preset("classic"))[0]["topic"]
    'Faces'
    """
    return [{"topic": t, "sentence": s} for t, s in rules_summary(rules)]


def rules_summary(rules: Rules) -> list[tuple[str, str]]:
    """``(topic, sentence)`` pairs: faces, wilds, raise order, opening, what a
    challenge costs, an exact count, who opens, special rounds, players.

    >>> dict(rules_summary(Rules.preset("classic")))["Who opens"]
    'The loser of a challenge opens the next round (the next player still in, if they are out).'
    """
    out: list[tuple[str, str]] = []
    w = rules.wild_face
    noun = rules.face_noun(w) if w is not None else ""
    out.append(("Faces", f"Dice of {rules.faces} faces, 1 to {rules.faces}; {rules.dice_per_player} dice each."))
    if w is None:
        out.append(("Wilds", "None: a bid counts only its own face."))
    else:
        s = f"{noun} (face {w}) are wild: they count for every other face; a bid on {noun} counts only {noun}."
        if rules.wilds_suspended_on_wild_opening:
            s += f" When a round opens on {noun}, they are not wild for the rest of that round."
        out.append(("Wilds", s[0].upper() + s[1:]))
    plain = "a higher quantity of any face, or the same quantity of a higher face"
    if rules.ordering is Ordering.PLAIN or w is None:
        out.append(("Raise order", f"A raise is {plain}."))
    else:
        out.append(("Raise order", f"Between other faces, {plain}. " + switch_sentence(rules)))
    opening = "Any bid."
    if not rules.wild_opening and w is not None:
        opening = f"Any face but {noun}" + (" (a palifico round may open on any face)." if rules.palifico else ".")
    out.append(("Opening", opening))
    if rules.loss is Loss.ONE:
        cost = "The loser of a challenge gives up one die: the bidder if the count is below the bid, else the challenger."
    else:
        cost = (
            "The loser gives up the difference between the count and the bid: the bidder when the count is "
            "short, the challenger when it is over (at least one die)."
        )
    out.append(("A challenge costs", cost))
    if rules.exact is Exact.ALL_BUT_BIDDER:
        s = "A perfect bid: everyone but the bidder loses one die"
        s += " (Die Hard: a player with one die keeps it, unless they challenged)." if rules.die_hard else "."
        out.append(("Exact count", s))
    else:
        out.append(("Exact count", "The bid stands: the challenger loses."))
    if rules.single_round:
        out.append(("Who opens", "One round only: the winner of the challenge wins the game."))
    elif rules.next_opener is Opener.LOSER:
        out.append(("Who opens", "The loser of a challenge opens the next round (the next player still in, if they are out)."))
    else:
        out.append(("Who opens", "The winner of a challenge opens the next round."))
    special: list[str] = []
    if rules.calza:
        special.append(
            "Calza: instead of raising or challenging, claim the count is exactly the bid; right, you gain a die "
            f"(never above {rules.dice_per_player}, the dice a player starts with); wrong, you lose one; you open "
            f"next. Allowed while at least {rules.calza_min_players} players are in."
        )
    if rules.palifico:
        special.append(
            "Palifico: the first time a player is down to one die, with more than two players in, they open "
            f"a palifico round: {palifico_note(rules)} Once per player."
        )
    if rules.show_and_reroll:
        special.append("Show and reroll: after a bid, show some hidden dice and reroll the rest (one stays hidden).")
    out.append(("Special rounds and moves", " ".join(special) if special else "None."))
    many = (
        f"exactly {rules.min_players}" if rules.min_players == rules.max_players
        else f"{rules.min_players} to {rules.max_players}"
    )
    out.append(("Players", f"{many} players."))
    return out


def wild_name(rules: Rules) -> str:
    """The wild face as the rules name it: ``★ stars``, ``aces (1s)``, ``1s``."""
    w = rules.wild_face
    assert w is not None
    if rules.star_symbol:
        return "★ stars"
    noun = rules.face_noun(w)
    return noun if noun == f"{w}s" else f"{noun} ({w}s)"


def wild_note(rules: Rules, wilds_active: bool, opened: bool, palifico: bool = False) -> str:
    """Whether wilds count this round, in a few words (``""`` without wilds): the
    terminal says it every turn and the table's page shows it (issue 38).

    >>> wild_note(Rules.preset("classic"), True, True)
    '1s are wild'
    """
    w = rules.wild_face
    if w is None:
        return ""
    name = wild_name(rules)
    if palifico:
        return f"{rules.face_noun(w)} are not wild this round (a palifico round)"
    if not wilds_active:
        return f"{name} are not wild this round (it opened on {rules.face_noun(w)})"
    if rules.wilds_suspended_on_wild_opening and not opened:
        return f"{name} are wild (unless the round opens on {rules.face_noun(w)})"
    return f"{name} are wild"

"""Reading bids as people type them, in the words a rule set allows.

The one parser behind :meth:`Rules.parse_action <liars_dice.engine.rules.Rules.parse_action>`,
:meth:`Rules.parse_bid <liars_dice.engine.rules.Rules.parse_bid>` and the
rule-free :func:`~liars_dice.engine.actions.parse_action` (python-chess's
``parse_san`` plays the same part). A rule set's vocabulary is built from its
options, never from its name:

- digits and English words for faces (``4x5``, ``4 5s``, ``four fives``);
- the names of :attr:`Rules.face_names` (``aces`` in aces-wild, ``stars`` in wild-stars);
- the star glyphs ``*`` and ``★`` only where :attr:`Rules.star_symbol` is set;
- ``wild``/``wilds`` for the wild face wherever there is one;
- quantities as digits or words up to ninety-nine (``twenty-one``, ``twenty one``).

Every entry is bounded: text longer than :data:`MAX_TEXT` characters is refused
without being echoed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from .actions import CALZA, CHALLENGE, Action, Bid
from .errors import InvalidBidError

if TYPE_CHECKING:  # rules.py imports this module
    from .rules import Rules

#: The longest text read as a move; the longest bid in words ("ninety-nine sixes") is far shorter.
MAX_TEXT = 40

_UNITS = "zero one two three four five six seven eight nine".split()
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}

_NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(_UNITS + _TEENS)}
_NUMBER_WORDS.update(_TENS)
_NUMBER_WORDS.update({"a": 1, "an": 1})
for _tens, _t in _TENS.items():
    for _u in range(1, 10):
        _NUMBER_WORDS[f"{_tens}-{_UNITS[_u]}"] = _t + _u

#: "twenty one" -> "twenty-one" before the text is split into words.
_COMPOUND = re.compile(r"\b(" + "|".join(_TENS) + r")[\s-]+(" + "|".join(_UNITS[1:]) + r")\b")

#: English names of faces 1..9, singular and plural; any rule set may use them.
_FACE_WORDS: dict[str, int] = {}
for _f, (_one, _many) in enumerate(
    [("one", "ones"), ("two", "twos"), ("three", "threes"), ("four", "fours"), ("five", "fives"),
     ("six", "sixes"), ("seven", "sevens"), ("eight", "eights"), ("nine", "nines")],
    start=1,
):
    _FACE_WORDS[_one] = _FACE_WORDS[_many] = _f
_FACE_WORDS.update({"deuce": 2, "deuces": 2, "trey": 3, "treys": 3, "sixs": 6})

#: Words for the wild face of a rule set that draws it as a star.
_STAR_WORDS = frozenset({"star", "stars", "*", "★", "s", "wildstar", "wildstars"})
#: Words for the wild face of any rule set that has one.
_WILD_WORDS = frozenset({"wild", "wilds"})
#: Words some rule set gives a face; outside it they are explained, not guessed.
_OTHER_WORDS = frozenset({"ace", "aces", "paco", "pacos"}) | _STAR_WORDS

CHALLENGE_WORDS = frozenset({"liar", "challenge", "call", "dudo", "doubt", "l", "c"})
#: Words for a calza (RULES.md ``perudo``), white space folded; any rule set
#: reads them, and a rule set without the ``calza`` option refuses the move.
CALZA_WORDS = frozenset({"calza", "exact", "spot on", "spot-on", "spoton"})


def _digits(token: str) -> bool:
    """ASCII digits only, of any length: a number too large for the table is
    still a quantity or a face, refused by the state's range sentence like any
    other (``999999999999x5`` as ``1000x5``); :data:`MAX_TEXT` bounds its length."""
    return token.isascii() and token.isdigit()


def _number(token: str) -> int | None:
    if _digits(token):
        return int(token)
    return _NUMBER_WORDS.get(token)


def _face(token: str, words: dict[str, int]) -> int | None:
    if _digits(token):
        return int(token)
    m = re.fullmatch(r"([0-9]+)'?s", token)
    if m:
        return int(m.group(1))
    return words.get(token)


def _tokens(text: str) -> list[str]:
    t = text.lower().replace("×", "x")
    t = _COMPOUND.sub(r"\1-\2", t)
    t = re.sub(r"(\d)\s*([x*★])", r"\1 \2", t)
    t = re.sub(r"([x*★])\s*(\d)", r"\1 \2", t)
    return [tok for tok in re.split(r"[\s,]+", t) if tok and tok != "x" and tok != "of"]


def face_words(rules: Rules | None, star_face: int = 1) -> dict[str, int]:
    """Every word naming a face: for ``rules``, only the words it allows; with
    no rules, every word of every rule set (stars and aces naming ``star_face``
    and 1)."""
    if rules is None:
        words = dict(_FACE_WORDS)
        words.update({"ace": 1, "aces": 1, "paco": 1, "pacos": 1})
        words.update({w: star_face for w in _STAR_WORDS | _WILD_WORDS})
        return words
    return dict(_rule_words(rules))


@lru_cache(maxsize=64)
def _rule_words(rules: Rules) -> tuple[tuple[str, int], ...]:
    words = {w: f for w, f in _FACE_WORDS.items() if f <= rules.faces}
    wild = rules.wild_face
    if wild is not None:
        words.update({w: wild for w in _WILD_WORDS})
        if rules.star_symbol:
            words.update({w: wild for w in _STAR_WORDS})
    for f, one, many in rules.face_names:
        words[one.lower()] = words[many.lower()] = f
    return tuple(words.items())


def example(rules: Rules | None) -> str:
    """Examples of bids for a "not a bid" message, in the rule set's own words:
    ``'3 stars'`` only where there are stars, ``'3 aces'`` where 1s are aces."""
    if rules is None:
        return "4x5, 'four fives' or '3 stars'"
    named = next((many for _, _, many in rules.face_names), None)
    if named is None and rules.star_symbol:
        named = "stars"
    return f"4x5, 'four fives' or '3 {named}'" if named else "4x5 or 'four fives'"


def parse(text: str, rules: Rules | None = None, star_face: int = 1) -> Action:
    """Read a bid, a challenge or a calza (``calza``, ``exact``, ``spot on``).

    :param rules: the rule set whose words are allowed; ``None`` accepts every
        word of every rule set (``star_face`` names the star).
    :raises InvalidBidError: for text that is neither a bid nor a challenge in
        those words, a quantity below one, or more than :data:`MAX_TEXT` characters.
        Whether a bid is legal now is the state's business
        (:meth:`~liars_dice.engine.state.State.check`).
    """
    entry = text.strip()
    ex = example(rules)
    if not entry:
        raise InvalidBidError(f"Type a bid such as {ex}, or 'liar' to challenge.")
    if len(entry) > MAX_TEXT:
        raise InvalidBidError(
            f"That entry is {len(entry)} characters long, too long for a bid: type one such as {ex},"
            " or 'liar' to challenge."
        )
    if entry.lower().rstrip("!.") in CHALLENGE_WORDS:
        return CHALLENGE
    if " ".join(entry.lower().rstrip("!.").split()) in CALZA_WORDS:
        return CALZA
    tokens = _tokens(entry)
    words = face_words(rules, star_face) if rules is None else dict(_rule_words(rules))
    if len(tokens) == 2:
        q, f = _number(tokens[0]), _face(tokens[1], words)
        if q is not None and f is not None:
            if q < 1:
                raise InvalidBidError(f"A bid needs a quantity of at least one, not {q}.")
            return Bid(q, f)
        if q is not None and rules is not None and tokens[1] in _OTHER_WORDS:
            raise InvalidBidError(_foreign_word(rules, tokens[1], q))
    raise InvalidBidError(
        f"{entry!r} is not a bid: type a quantity and a face such as {ex}, or 'liar' to challenge."
    )


def _foreign_word(rules: Rules, word: str, quantity: int) -> str:
    """One sentence for a face word another rule set uses (``stars`` in classic)."""
    wild = rules.wild_face
    if wild is None:
        return f"{rules.name} has no {word!r}: name a face from 1 to {rules.faces}, such as '{quantity} 1s'."
    return f"{rules.name} has no {word!r}: write the face as a number, such as '{quantity} {wild}s'."

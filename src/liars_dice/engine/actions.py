"""Actions: a :class:`Bid` or the :data:`CHALLENGE`, and their text notation.

A bid stands alone (as python-chess's ``Move``): a small frozen, hashable value.
Parsing is lenient; formatting is canonical (``4x5``; ``3★`` needs the rules,
see :meth:`liars_dice.engine.rules.Rules.format_bid`).

>>> parse_action("four fives")
Bid(quantity=4, face=5)
>>> parse_action("3 stars")
Bid(quantity=3, face=1)
>>> parse_action("liar")
Challenge()
>>> str(Bid(4, 5))
'4x5'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from .errors import InvalidBidError


@dataclass(frozen=True, slots=True, order=False)
class Bid:
    """A claim that at least ``quantity`` dice match ``face``.

    :ivar quantity: 1 .. dice in play.
    :ivar face: 1 .. faces; in ``wild-stars`` face 1 is the star.
    """

    quantity: int
    face: int

    def __str__(self) -> str:
        return f"{self.quantity}x{self.face}"

    def to_json(self) -> dict[str, int]:
        """``{"quantity": Q, "face": F}`` as in RECORD-FORMAT.md."""
        return {"quantity": self.quantity, "face": self.face}


@dataclass(frozen=True, slots=True)
class Challenge:
    """Call the latest bid a lie ("liar", "challenge", "call")."""

    def __str__(self) -> str:
        return "liar"


#: The one challenge value.
CHALLENGE = Challenge()


@dataclass(frozen=True, slots=True)
class Calza:
    """Claim that the count is exactly the latest bid ("calza", "exact",
    "spot on"); only under rules with the ``calza`` option (RULES.md
    ``perudo`` "Calza")."""

    def __str__(self) -> str:
        return "calza"


#: The one calza value.
CALZA = Calza()

Action = Union[Bid, Challenge, Calza]

_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_WORDS.update({"a": 1, "an": 1, "twenty-one": 21, "twenty-two": 22, "twenty-three": 23,
               "twenty-four": 24, "twenty-five": 25, "twenty-six": 26, "twenty-seven": 27,
               "twenty-eight": 28, "twenty-nine": 29, "thirty": 30})
_FACE_WORDS = {
    "one": 1, "ones": 1, "ace": 1, "aces": 1, "paco": 1, "pacos": 1, "two": 2, "twos": 2, "deuce": 2, "deuces": 2,
    "three": 3, "threes": 3, "trey": 3, "treys": 3, "four": 4, "fours": 4,
    "five": 5, "fives": 5, "six": 6, "sixes": 6, "sixs": 6,
}
_STAR_WORDS = {"star", "stars", "*", "★", "wild", "wilds", "s", "wildstar", "wildstars"}
_CHALLENGE_WORDS = {"liar", "challenge", "call", "dudo", "doubt", "l", "c"}
_CALZA_WORDS = {"calza", "exact", "spot on", "spot-on", "spoton"}


_MAX_DIGITS = 6  # no table holds a million dice; longer numbers are not bids


def _digits(token: str) -> bool:
    """ASCII digits only, and few enough to be a quantity or a face."""
    return token.isascii() and token.isdigit() and len(token) <= _MAX_DIGITS


def _number(token: str) -> int | None:
    if _digits(token):
        return int(token)
    return _WORDS.get(token)


def _face(token: str, star_face: int) -> int | None:
    if token in _STAR_WORDS:
        return star_face
    if _digits(token):
        return int(token)
    m = re.fullmatch(r"([0-9]{1,6})'?s", token)
    if m:
        return int(m.group(1))
    return _FACE_WORDS.get(token)


def parse_action(text: str, star_face: int = 1) -> Action:
    """Read a bid or a challenge in any notation a person types.

    Accepted: ``4x5``, ``4 5``, ``4 5s``, ``4 fives``, ``four fives``,
    ``3 stars``, ``3*``, ``3★``, ``3 aces``, ``liar``, ``challenge``, ``call``,
    and ``calza`` (``exact``, ``spot on``). Whether calza is allowed is the
    state's business.

    :param star_face: the face that "star"/"*"/"★" names (the wild face).
    :raises InvalidBidError: when the text is neither a bid nor a challenge.
        Whether the bid is legal is the state's business, not the parser's.
    """
    t = text.strip().lower().replace("×", "x")
    if not t:
        raise InvalidBidError("Type a bid such as 4x5 or 'four fives', or 'liar' to challenge.")
    if t.rstrip("!.") in _CHALLENGE_WORDS:
        return CHALLENGE
    if " ".join(t.rstrip("!.").split()) in _CALZA_WORDS:
        return CALZA
    t = re.sub(r"(\d)\s*([x*★])", r"\1 \2", t)
    t = re.sub(r"([x*★])\s*(\d)", r"\1 \2", t)
    tokens = [tok for tok in re.split(r"[\s,]+", t) if tok and tok != "x" and tok != "of"]
    if len(tokens) == 2:
        q, f = _number(tokens[0]), _face(tokens[1], star_face)
        if q is not None and f is not None:
            if q < 1:
                raise InvalidBidError(f"A bid needs a quantity of at least one, not {q}.")
            return Bid(q, f)
    raise InvalidBidError(
        f"{text.strip()!r} is not a bid: type a quantity and a face such as 4x5, "
        "'four fives' or '3 stars', or 'liar' to challenge."
    )

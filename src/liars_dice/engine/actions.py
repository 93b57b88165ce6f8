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

from dataclasses import dataclass
from typing import Union

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

def parse_action(text: str, star_face: int = 1) -> Action:
    """Read a bid or a challenge in any notation of any rule set.

    Read a bid or a challenge in any notation of any rule set.

    Accepted: ``4x5``, ``4 5s``, ``4 5``, ``4 fives``, ``four fives``,
    ``twenty one 5s``, ``3 stars``, ``3*``, ``3★``, ``3 aces``, ``liar``,
    ``challenge``, ``call``, and ``calza`` (``exact``, ``spot on``; whether a
    calza is allowed is the state's business). With a rule set at hand, prefer
    :meth:`Rules.parse_action <liars_dice.engine.rules.Rules.parse_action>`,
    which allows only that rule set's words (no stars in classic).

    :param star_face: the face that "star"/"*"/"★" names (the wild face).
    :raises InvalidBidError: when the text is neither a bid nor a challenge.
        Whether the bid is legal is the state's business, not the parser's.
    """
    from .notation import parse  # notation.py imports this module

    return parse(text, None, star_face)

"""Private hands as multisets, with their chance weights.

A player's hand is a sorted tuple of faces: the order of dice under a cup never
matters, so a multiset stands for all its orderings and carries their summed
chance, the multinomial weight ``n! / prod(c_f!) / faces**n``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from math import factorial

import numpy as np

from ..engine import Hand, Rules


@dataclass(frozen=True)
class Hands:
    """Every hand of ``n_dice`` dice, with chance weights and face counts.

    :ivar n_dice: dice in the hand.
    :ivar faces: faces on a die.
    :ivar hands: the hands, sorted tuples, in lexicographic order; ``n_hands`` of them.
    :ivar weights: ``(n_hands,)`` float64, the chance of rolling each hand; sums to 1.
    :ivar face_counts: ``(n_hands, faces)`` int64, dice showing face ``f`` at column ``f - 1``.
    """

    n_dice: int
    faces: int
    hands: tuple[Hand, ...]
    weights: np.ndarray
    face_counts: np.ndarray
    _index: dict[Hand, int] = field(repr=False, compare=False, default_factory=dict)

    @property
    def n_hands(self) -> int:
        return len(self.hands)

    def index(self, hand: Hand) -> int:
        """Row of ``hand`` (any order of its faces).

        :raises KeyError: when ``hand`` is not a hand of this many dice and faces.
        """
        return self._index[tuple(sorted(hand))]

    def matching(self, rules: Rules, face: int, wilds_active: bool) -> np.ndarray:
        """``(n_hands,)`` int64: dice in each hand that count toward a bid on ``face``
        (``rules.matches``)."""
        cols = [f for f in range(1, self.faces + 1) if rules.matches(f, face, wilds_active)]
        counts: np.ndarray = self.face_counts[:, [c - 1 for c in cols]].sum(axis=1)
        return counts


def enumerate_hands(n_dice: int, faces: int) -> Hands:
    """All ``C(n_dice + faces - 1, n_dice)`` hands of ``n_dice`` dice with ``faces`` faces."""
    hands = tuple(combinations_with_replacement(range(1, faces + 1), n_dice))
    counts = np.zeros((len(hands), faces), dtype=np.int64)
    for i, h in enumerate(hands):
        for f in h:
            counts[i, f - 1] += 1
    denom = float(faces**n_dice)
    weights = np.array(
        [factorial(n_dice) / np.prod([factorial(int(c)) for c in row]) / denom for row in counts],
        dtype=np.float64,
    )
    return Hands(n_dice, faces, hands, weights, counts, {h: i for i, h in enumerate(hands)})

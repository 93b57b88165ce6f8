"""Terminal payoffs of a round: one ``(n_hands_p0, n_hands_p1)`` matrix per challenge type.

The count of a bid is ``m0[h0] + m1[h1]`` (each hand's matching dice, a count
matrix), and a challenge's result depends on the count alone
(:func:`~liars_dice.solver.outcome.challenge_outcome`), so a payoff matrix is a
gather of one value per count.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .hands import Hands
from .outcome import Outcome, challenge_outcome
from .tree import BidTree

#: Value of an outcome to player 0: +1 / -1 for a won / lost game, or the value
#: of the position it leads to in a whole game.
LeafValue = Callable[[Outcome], float]


def single_round_value(outcome: Outcome) -> float:
    """+1 when player 0 wins the challenge, -1 when player 1 does: OpenSpiel's
    utilities for a single-round game, and the round's winner in a preset that
    plays on (whole-game values need :mod:`liars_dice.solver.endgame`)."""
    return 1.0 if outcome.round_winner == 0 else -1.0


def terminal_payoffs(tree: BidTree, hands: tuple[Hands, Hands], leaf_value: LeafValue = single_round_value) -> np.ndarray:
    """``(2, 2, K, n0, n1)`` float64: payoff to player 0 when the bidder
    (axis 0) is challenged on bid ``j`` (axis 2), with wilds active (axis 1 = 1)
    or not, for every pair of hands."""
    rules = tree.rules
    h0, h1 = hands
    k = tree.n_bids
    n = sum(tree.dice)
    out = np.zeros((2, 2, k, h0.n_hands, h1.n_hands), dtype=np.float64)
    for wild in (0, 1):
        for j, bid in enumerate(tree.bids):
            count = h0.matching(rules, bid.face, bool(wild))[:, None] + h1.matching(rules, bid.face, bool(wild))[None, :]
            for bidder in (0, 1):
                by_count = np.array(
                    [leaf_value(challenge_outcome(rules, tree.dice, bidder, bid.quantity, c)) for c in range(n + 1)]
                )
                out[bidder, wild, j] = by_count[count]
    return out

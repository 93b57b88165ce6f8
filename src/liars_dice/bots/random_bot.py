"""``random``: uniform over the legal actions; never shows dice."""

from __future__ import annotations

import random

from ..engine import SeatView
from .base import Decision, Probabilities, register


class RandomBot:
    """Picks uniformly among ``view.legal_actions()``."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def decide(self, view: SeatView) -> Decision:
        return Decision(self._rng.choice(view.legal_actions()))

    def action_probabilities(self, view: SeatView) -> Probabilities:
        """Every legal action at ``1 / len(view.legal_actions())``."""
        legal = view.legal_actions()
        return {Decision(a): 1.0 / len(legal) for a in legal}


register("random")(RandomBot)

"""``random``: uniform over the legal actions; never shows dice."""

from __future__ import annotations

import random

from ..engine import SeatView
from .base import Decision, register


class RandomBot:
    """Picks uniformly among ``view.legal_actions()``."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def decide(self, view: SeatView) -> Decision:
        return Decision(self._rng.choice(view.legal_actions()))


register("random")(RandomBot)

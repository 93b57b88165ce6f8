"""Bots behind one interface (view -> decision).

Layer: bots, above batch; imports the engine and the solver only.

``random`` and ``probabilistic`` load with the package; ``strong`` (numpy)
loads when the first one is made, so a command that never seats it never
imports numpy. :mod:`~liars_dice.bots.names` gives each a level label (Easy,
Medium, Hard), the default bot, and names that read like players.
"""

from . import probabilistic as _probabilistic  # noqa: F401  (registers "probabilistic")
from . import random_bot as _random_bot  # noqa: F401  (registers "random")
from .base import REGISTRY, Bot, Decision, UnknownBotError, make_bot, register
from .names import DEFAULT_BOT, LEVELS, bot_names, level


def _strong(seed: int | None = None) -> Bot:
    """A :class:`~liars_dice.bots.strong.StrongBot`, importing its module (and numpy) on first use."""
    from .strong import StrongBot

    return StrongBot(seed)


REGISTRY.setdefault("strong", _strong)

__all__ = [
    "Bot", "DEFAULT_BOT", "Decision", "LEVELS", "REGISTRY", "UnknownBotError", "bot_names", "level", "make_bot",
    "register",
]

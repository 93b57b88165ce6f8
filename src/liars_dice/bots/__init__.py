"""Bots behind one interface (view -> decision).

Layer: bots, above batch; imports the engine and the solver only.
"""

from . import probabilistic as _probabilistic  # noqa: F401  (registers "probabilistic")
from . import random_bot as _random_bot  # noqa: F401  (registers "random")
from . import strong as _strong  # noqa: F401  (registers "strong")
from .base import REGISTRY, Bot, Decision, UnknownBotError, make_bot, register

__all__ = ["Bot", "Decision", "REGISTRY", "UnknownBotError", "make_bot", "register"]

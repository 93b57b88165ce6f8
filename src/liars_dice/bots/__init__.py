"""Bots behind one interface (view -> decision). Imports engine only."""

from .base import REGISTRY, Bot, Decision, make_bot, register
from . import random_bot as _random_bot  # noqa: F401  (registers "random")

try:
    from . import probabilistic as _probabilistic  # noqa: F401
except ImportError:  # pragma: no cover
    pass
from . import strong as _strong  # noqa: F401,E402  (registers "strong")

__all__ = ["Bot", "Decision", "REGISTRY", "make_bot", "register"]

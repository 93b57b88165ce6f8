"""Dice sources: where rolls come from. Injected, never global.

* :class:`SeededDice` for simulation and tests: a seed plus the actions
  reproduce a game exactly.
* :class:`SecureDice` for human and online play: the OS's secure random source
  (:mod:`secrets`).
* :class:`ScriptedDice` hands out given faces, for tests.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable
from typing import Protocol

from .errors import ChanceError


class DiceSource(Protocol):
    """Anything that rolls ``n`` dice of ``faces`` faces."""

    def roll(self, n: int, faces: int = 6) -> tuple[int, ...]:
        """``n`` faces, each in 1..faces."""
        ...


class SeededDice:
    """Reproducible rolls from :class:`random.Random` seeded with ``seed``."""

    __slots__ = ("_rng", "_below", "seed")

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        # randrange(k) is _randbelow(k) after argument checks: the same draws, faster.
        self._below = getattr(self._rng, "_randbelow", self._rng.randrange)

    def roll(self, n: int, faces: int = 6) -> tuple[int, ...]:
        below = self._below
        return tuple([below(faces) + 1 for _ in range(n)])


class SecureDice:
    """Rolls from the OS's secure random source, for play between people."""

    __slots__ = ()

    def roll(self, n: int, faces: int = 6) -> tuple[int, ...]:
        return tuple(secrets.randbelow(faces) + 1 for _ in range(n))


class ScriptedDice:
    """Hands out the given faces in order.

    :raises ChanceError: when asked for more dice than remain.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._i = 0

    def roll(self, n: int, faces: int = 6) -> tuple[int, ...]:
        if self._i + n > len(self._faces):
            raise ChanceError("The scripted dice have run out.")
        out = tuple(self._faces[self._i : self._i + n])
        self._i += n
        return out

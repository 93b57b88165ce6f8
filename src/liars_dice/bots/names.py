"""Bots for people: a level label per registered bot, the default bot, and
names that read like players (not "random bot 4").

Data and functions the terminal and the server share: :data:`LEVELS` (Easy,
Medium, Hard for ``random``, ``probabilistic``, ``strong``), :data:`DEFAULT_BOT`
(the bot a new seat gets, in the terminal and in the browser) and
:func:`bot_names`, deterministic given a seed and never colliding at a table.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

#: A level label per registered bot, easiest first (the order a list offers them).
LEVELS: dict[str, str] = {"random": "Easy", "probabilistic": "Medium", "strong": "Hard"}

#: The bot a new seat gets unless someone chooses: the middle level.
DEFAULT_BOT = "probabilistic"

#: Names for bot seats: short, easy to tell apart at a glance.
NAMES: tuple[str, ...] = (
    "Ada", "Bruno", "Cleo", "Dario", "Elsa", "Felix", "Greta", "Hugo", "Iris", "Jonas", "Kira", "Leo",
    "Mila", "Nico", "Olga", "Pablo", "Quinn", "Rosa", "Sami", "Tess", "Umar", "Vera", "Wes", "Xena",
    "Yusuf", "Zoe", "Anouk", "Basil", "Carmen", "Dmitri", "Esme", "Farah", "Gus", "Hana", "Ivo", "Juno",
)


def level(kind: str) -> str | None:
    """The level label of a registered bot (``"Medium"`` for ``probabilistic``),
    or ``None`` for a bot without one (a program over the bot protocol)."""
    return LEVELS.get(kind)


def levels_json() -> list[dict[str, str | bool]]:
    """The bots by level for a form, easiest first:
    ``[{"bot": "random", "level": "Easy", "default": false}, ...]``.

    >>> [(b["level"], b["default"]) for b in levels_json()]
    [('Easy', False), ('Medium', True), ('Hard', False)]
    """
    return [{"bot": k, "level": v, "default": k == DEFAULT_BOT} for k, v in LEVELS.items()]


def bot_names(n: int, seed: int | None = None, taken: Iterable[str] = ()) -> list[str]:
    """``n`` player-like names for bot seats, drawn from :data:`NAMES` in an
    order fixed by ``seed`` (any order with ``None``): the same seed gives the
    same names. No two are alike, and none is a name in ``taken`` (the people
    at the table), compared without case.

    :raises ValueError: for ``n`` below 0 or more than the free names (30 or
        more, far beyond any table).

    >>> bot_names(3, seed=1) == bot_names(3, seed=1), len(set(bot_names(14, seed=2)))
    (True, 14)
    >>> "Ada" in bot_names(len(NAMES) - 1, seed=3, taken=["ADA"])
    False
    """
    busy = {t.casefold() for t in taken}
    free = [name for name in NAMES if name.casefold() not in busy]
    if not 0 <= n <= len(free):
        raise ValueError(f"There are {len(free)} free bot names, so {n} bots cannot all be named.")
    random.Random(seed).shuffle(free)
    return free[:n]

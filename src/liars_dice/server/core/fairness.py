"""Provably fair dice at the table (``docs/fair-dice.md``): the one place where
the server's deal, rerolls and reveal meet the round seeds.

At each deal the server draws a fresh secret round seed (32 bytes from its dice
source: :class:`~liars_dice.engine.SecureDice`, that is :mod:`secrets`),
derives every seat's dice from it (:class:`~liars_dice.engine.FairDice`), and
stores the seed with its commitment in the ``dealt`` event (events never leave
the server). Every rerolled die of that round comes from the same seed, so a
restarted server, rebuilding the table from its events, resumes with the same
seeds. Clients see the commitment of the round in play (``view.commitment``)
from the deal on, and a round's seed only in that round's result, after its
reveal.

``seeds`` below is :attr:`Table.seeds <liars_dice.server.core.tables.Table.seeds>`:
per round index, ``(commitment, seed)`` in hex, or ``None`` for a round dealt
before fair dice (events stored by an older server).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...engine import DiceSource, FairDice, Phase, State, seed_from_source

Seeds = Sequence[tuple[str, str] | None]


def deal(state: State, dice: DiceSource) -> dict[str, Any]:
    """The ``dealt`` event's payload for ``state``'s round (phase ``deal``), from a
    fresh seed drawn from ``dice``: ``hands`` (every seat's faces, ``[]`` for a
    seat out), ``commitment`` and ``seed`` (hex; the seed is secret until the
    round's reveal)."""
    fair = FairDice(seed_from_source(dice))
    hands = fair.deal(len(state.logs), state.dice, state.rules.faces)
    return {"hands": [list(h) for h in hands], "commitment": fair.commitment, "seed": fair.hex}


def seed_of(seeds: Seeds, r: int) -> tuple[str, str] | None:
    """Round ``r``'s ``(commitment, seed)``, or ``None`` without fair dice."""
    return seeds[r] if 0 <= r < len(seeds) else None


def reroll(state: State, seeds: Seeds, seat: int, n: int, dice: DiceSource) -> list[int]:
    """The ``n`` new faces of ``seat``'s reroll after the bid it is making now
    (``state`` is before that bid: the bid's index is ``len(state.moves)``), from
    the round's seed; from ``dice`` for a round dealt before fair dice."""
    entry = seed_of(seeds, len(state.logs))
    if entry is None:
        return list(dice.roll(n, state.rules.faces))
    fair = FairDice.from_hex(entry[1])
    return list(fair.reroll(len(state.logs), len(state.moves), seat, n, state.rules.faces))


def with_seed(seeds: Seeds, state: State, payload: dict[str, Any]) -> tuple[tuple[str, str] | None, ...]:
    """``seeds`` after a ``dealt`` event with ``payload`` for ``state``'s round
    (``None`` for an event stored before fair dice)."""
    r = len(state.logs)
    entry = (payload["commitment"], payload["seed"]) if payload.get("seed") is not None else None
    out = list(seeds[:r]) + [None] * (r - len(seeds))
    return (*out, entry)


def record_seeds(state: State, seeds: Seeds) -> list[tuple[str, str | None] | None]:
    """Per round of ``state``, ``(commitment, seed)`` for the record writer (which
    leaves out the seed of a round still in play)."""
    n = len(state.logs) + (0 if state.phase is Phase.OVER else 1)
    return [seed_of(seeds, r) for r in range(n)]


def current_commitment(state: State, seeds: Seeds) -> str | None:
    """The commitment of the round in play, or ``None`` (game over, or a round
    dealt before fair dice)."""
    if state.phase is Phase.OVER:
        return None
    entry = seed_of(seeds, len(state.logs))
    return entry[0] if entry is not None else None


def reveal(result: dict[str, Any], r: int, seeds: Seeds) -> dict[str, Any]:
    """Add ``commitment`` and ``seed`` (``null`` without fair dice) to the served
    result of round ``r``, which has ended: its seed is now public."""
    entry = seed_of(seeds, r)
    result["commitment"], result["seed"] = entry if entry is not None else (None, None)
    return result

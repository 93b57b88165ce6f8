"""Provably fair dice at the table (``docs/fair-dice.md``): the one place where
the server deals, rerolls and reveals.

At each deal the server draws a fresh secret round seed (:class:`FairDice`,
32 bytes from :mod:`secrets`), derives every seat's dice from it, and stores the
seed with its commitment in the ``dealt`` event (events never leave the server).
Every rerolled die of that round comes from the same seed, so a restarted
server, rebuilding the table from its events, resumes with the same seeds.
Clients see the commitment of the round in play (``view.commitment``) from the
deal on, and a round's seed only in that round's result, after its reveal.
"""

from __future__ import annotations

from typing import Any

from ..engine import DiceSource, FairDice, Phase, State


def deal(state: State) -> tuple[State, dict[str, Any]]:
    """Deal ``state``'s round (phase ``deal``) from a fresh seed.

    :returns: the dealt state and the ``dealt`` event's payload:
        ``hands`` (every seat's faces), ``commitment`` and ``seed`` (hex, secret
        until the round's reveal).
    """
    fair = FairDice()
    nxt = state.roll(fair.source(state))
    payload = {"hands": [list(h) for h in nxt.deal_faces], "commitment": fair.commitment, "seed": fair.hex}
    return nxt, payload


def reroll(state: State, seeds: dict[int, tuple[str, str]], fallback: DiceSource) -> State:
    """Roll ``state``'s pending reroll (phase ``reroll``) from its round's seed;
    from ``fallback`` for a round dealt before fair dice (no stored seed)."""
    assert state.phase is Phase.REROLL
    entry = seeds.get(len(state.logs))
    if entry is None:
        return state.roll(fallback)
    return state.roll(FairDice.from_hex(entry[1]).source(state))


def record_seeds(state: State, seeds: dict[int, tuple[str, str]]) -> list[tuple[str, str | None] | None]:
    """Per round of ``state``, ``(commitment, seed)`` for the record writer (which
    leaves out the seed of a round still in play)."""
    n = len(state.logs) + (0 if state.phase is Phase.OVER else 1)
    return [seeds.get(r) for r in range(n)]  # type: ignore[misc]


def current_commitment(state: State, seeds: dict[int, tuple[str, str]]) -> str | None:
    """The commitment of the round in play, or ``None`` (game over, or a round
    dealt before fair dice)."""
    if state.phase is Phase.OVER:
        return None
    entry = seeds.get(len(state.logs))
    return entry[0] if entry is not None else None


def reveal(result: dict[str, Any], r: int, seeds: dict[int, tuple[str, str]]) -> dict[str, Any]:
    """Add ``commitment`` and ``seed`` (``null`` without fair dice) to the served
    result of round ``r``, which has ended: its seed is now public."""
    entry = seeds.get(r)
    result["commitment"], result["seed"] = entry if entry is not None else (None, None)
    return result

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

Version 2 (issue 17, "Dice that not even the server can choose"): at a table
with persons, the server commits to the NEXT round's seed before that round
is dealt (at the table's creation for the first round, at each deal for the
one after it), and each person's page answers the commitment with a random
seed of its own. The round's dice come from :func:`~liars_dice.engine.mix_seeds`
of the server's seed and every seed contributed in time; the digests of the
contributions are public from the deal, the seeds themselves from the reveal.
A table of bots alone deals from the server's seed alone (version 1).

``seeds`` below is :attr:`Table.seeds <liars_dice.server.core.tables.Table.seeds>`:
per round index, a :class:`RoundSeeds`, or ``None`` for a round dealt before
fair dice (events stored by an older server).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...engine import DiceSource, FairDice, Phase, State, commitment, mix_seeds, seed_from_hex, seed_from_source


@dataclass(frozen=True, slots=True)
class RoundSeeds:
    """One round's fair-dice values, all hex.

    :ivar commitment: SHA-256 of the server's seed, public before the round's first bid.
    :ivar seed: the server's seed, secret until the round's reveal.
    :ivar dice_seed: the seed the dice come from: ``seed`` (version 1) or the mix of
        ``seed`` and ``contributions`` (version 2); secret until the reveal.
    :ivar contributions: version 2's ``(seat, seed)`` pairs in seat order (``None``: version 1).
    :ivar missing: the persons' seats whose page sent no seed in time (version 2).
    """

    commitment: str
    seed: str
    dice_seed: str
    contributions: tuple[tuple[int, str], ...] | None = None
    missing: tuple[int, ...] = ()

    def digests(self) -> dict[int, str]:
        """Each contributed seed's SHA-256 by seat: public from the deal."""
        return {s: commitment(bytes.fromhex(h)) for s, h in self.contributions or ()}


Seeds = Sequence[RoundSeeds | None]


def commit(dice: DiceSource) -> dict[str, str]:
    """A fresh server seed for a round still to be dealt, drawn from ``dice``:
    ``{"commitment", "seed"}`` (hex; the seed is secret until that round's reveal)."""
    fair = FairDice(seed_from_source(dice))
    return {"commitment": fair.commitment, "seed": fair.hex}


def deal(
    state: State, dice: DiceSource, pending: tuple[str, str] | None = None,
    contributions: Sequence[tuple[int, str]] = (), persons: Sequence[int] = (),
) -> dict[str, Any]:
    """The ``dealt`` event's payload for ``state``'s round (phase ``deal``):
    ``hands`` (every seat's faces, ``[]`` for a seat out), ``commitment`` and
    ``seed`` (hex; the seed is secret until the round's reveal).

    Version 1 (``pending`` is ``None``): the seed is drawn now from ``dice``.
    Version 2: the seed is ``pending``'s (committed before any contribution),
    mixed with the ``contributions`` of seats still in; the payload adds
    ``contributions`` (``[[seat, seed], ...]``) and ``missing`` (the seats of
    ``persons`` still in that sent none). When ``persons`` is not empty the
    payload also carries ``next``: the commitment and seed of the round after.
    """
    r = len(state.logs)
    in_game = {s for s, n in enumerate(state.dice) if n > 0}
    payload: dict[str, Any]
    if pending is None:
        fair = FairDice(seed_from_source(dice))
        payload = {"commitment": fair.commitment, "seed": fair.hex}
    else:
        pairs = sorted((s, h) for s, h in contributions if s in in_game)
        mixed = mix_seeds(seed_from_hex(pending[1]), r, [(s, bytes.fromhex(h)) for s, h in pairs])
        fair = FairDice(mixed)
        sent = {s for s, _ in pairs}
        payload = {
            "commitment": pending[0], "seed": pending[1],
            "contributions": [[s, h] for s, h in pairs],
            "missing": sorted(s for s in persons if s in in_game and s not in sent),
        }
    hands = fair.deal(r, state.dice, state.rules.faces)
    payload["hands"] = [list(h) for h in hands]
    if persons:
        payload["next"] = commit(dice)
    return payload


def seed_of(seeds: Seeds, r: int) -> RoundSeeds | None:
    """Round ``r``'s seeds, or ``None`` without fair dice."""
    return seeds[r] if 0 <= r < len(seeds) else None


def reroll(state: State, seeds: Seeds, seat: int, n: int, dice: DiceSource) -> list[int]:
    """The ``n`` new faces of ``seat``'s reroll after the bid it is making now
    (``state`` is before that bid: the bid's index is ``len(state.moves)``), from
    the round's seed; from ``dice`` for a round dealt before fair dice."""
    entry = seed_of(seeds, len(state.logs))
    if entry is None:
        return list(dice.roll(n, state.rules.faces))
    fair = FairDice.from_hex(entry.dice_seed)
    return list(fair.reroll(len(state.logs), len(state.moves), seat, n, state.rules.faces))


def with_seed(seeds: Seeds, state: State, payload: dict[str, Any]) -> tuple[RoundSeeds | None, ...]:
    """``seeds`` after a ``dealt`` event with ``payload`` for ``state``'s round
    (``None`` for an event stored before fair dice)."""
    r = len(state.logs)
    entry: RoundSeeds | None = None
    if payload.get("seed") is not None:
        raw = payload.get("contributions")
        if raw is None:
            entry = RoundSeeds(payload["commitment"], payload["seed"], payload["seed"])
        else:
            pairs = tuple((int(s), str(h)) for s, h in raw)
            mixed = mix_seeds(seed_from_hex(payload["seed"]), r, [(s, bytes.fromhex(h)) for s, h in pairs])
            entry = RoundSeeds(payload["commitment"], payload["seed"], mixed.hex(), pairs, tuple(payload.get("missing", ())))
    out = list(seeds[:r]) + [None] * (r - len(seeds))
    return (*out, entry)


def record_seeds(state: State, seeds: Seeds) -> list[tuple[str, str | None] | tuple[str, str | None, dict[str, Any]] | None]:
    """Per round of ``state``, the record writer's fair-dice entry
    (:data:`~liars_dice.records.writer.FairEntry`; the writer leaves out the
    seeds of a round still in play)."""
    names = state.game.players
    n = len(state.logs) + (0 if state.phase is Phase.OVER else 1)
    out: list[tuple[str, str | None] | tuple[str, str | None, dict[str, Any]] | None] = []
    for r in range(n):
        e = seed_of(seeds, r)
        if e is None:
            out.append(None)
        elif e.contributions is None:
            out.append((e.commitment, e.seed))
        else:
            out.append((e.commitment, e.seed, {
                "contributions": {names[s]: h for s, h in e.contributions},
                "digests": {names[s]: d for s, d in e.digests().items()},
                "missing": [names[s] for s in e.missing],
            }))
    return out


def current_commitment(state: State, seeds: Seeds) -> str | None:
    """The commitment of the round in play, or ``None`` (game over, or a round
    dealt before fair dice)."""
    if state.phase is Phase.OVER:
        return None
    entry = seed_of(seeds, len(state.logs))
    return entry.commitment if entry is not None else None


def current_digests(state: State, seeds: Seeds) -> dict[str, str] | None:
    """The SHA-256 of each seed contributed to the round in play, by player
    (public from the deal: a page checks its own seed went in), or ``None``
    for a round of the server's seed alone."""
    if state.phase is Phase.OVER:
        return None
    entry = seed_of(seeds, len(state.logs))
    if entry is None or entry.contributions is None:
        return None
    return {state.game.players[s]: d for s, d in entry.digests().items()}


def reveal(result: dict[str, Any], r: int, seeds: Seeds, names: Sequence[str] = ()) -> dict[str, Any]:
    """Add ``commitment`` and ``seed`` (``null`` without fair dice) to the served
    result of round ``r``, which has ended: its seed is now public; and for
    version 2, ``contributions`` (the players' seeds by name) and ``missing``."""
    entry = seed_of(seeds, r)
    result["commitment"], result["seed"] = (entry.commitment, entry.seed) if entry is not None else (None, None)
    if entry is not None and entry.contributions is not None:
        result["contributions"] = {names[s]: h for s, h in entry.contributions}
        result["missing"] = [names[s] for s in entry.missing]
    return result


def reveal_dice(result: dict[str, Any], r: int, log: Any, names: Sequence[str]) -> dict[str, Any]:
    """Add what the page needs to check round ``r``'s dice itself (issue 38,
    fault 8; ``static/js/fair.js checkReveal``) to its served result, once its
    seed is public (nothing when it has none): ``round`` (0-based), ``dealt``
    (every seat's dealt hand, by name) and ``rerolls`` (``[{"move", "player",
    "reroll"}]``, the move's 0-based index in the round). The seed, public now,
    gives all of these anyway: nothing secret is added.

    :param log: the round's ``RoundLog`` (``deal``, ``moves``).
    """
    if result.get("seed") is None:
        return result
    result["round"] = r
    result["dealt"] = {names[s]: list(h) for s, h in enumerate(log.deal) if h}
    result["rerolls"] = [{"move": m, "player": names[mv.seat], "reroll": list(mv.reroll)}
                         for m, mv in enumerate(log.moves) if mv.reroll]
    return result

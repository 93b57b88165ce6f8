"""Dice sources: where rolls come from. Injected, never global.

* :class:`SeededDice` for simulation and tests: a seed plus the actions
  reproduce a game exactly.
* :class:`SecureDice` for human and online play: the OS's secure random source
  (:mod:`secrets`).
* :class:`ScriptedDice` hands out given faces, for tests.
* :class:`FairDice` for dice anyone can check afterwards (provably fair):
  every die of a round, dealt or rerolled, is derived from one secret
  per-round seed, whose SHA-256 (the commitment) is published before the first
  bid and the seed itself at the reveal. The derivation is specified in
  ``docs/fair-dice.md``; :func:`fair_face` is its reference implementation.
  :class:`FairRounds` deals a whole game that way (``liars-dice play``).
"""

from __future__ import annotations

import hashlib
import hmac
from itertools import repeat
import random
import secrets
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from .errors import ChanceError

if TYPE_CHECKING:
    from .state import State


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
        # below(faces) + 1 per die, in order, iterated in C (no comprehension frame):
        # range(1, faces + 1)[k] is k + 1.
        return tuple(map(range(1, faces + 1).__getitem__, map(self._below, repeat(faces, n))))


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


# -- provably fair dice (docs/fair-dice.md) ------------------------------------------

#: The derivation's name and version; the first part of every HMAC message.
FAIR_DICE_VERSION = "liars-dice-fair-dice/1"
#: Bytes in a round's seed.
SEED_BYTES = 32
#: HMAC blocks tried for one die before giving up; the chance of needing a second
#: block for a six-sided die is (4/256)**32, below 10**-57.
_MAX_BLOCKS = 64


def new_seed() -> bytes:
    """A fresh secret round seed: :data:`SEED_BYTES` bytes from :mod:`secrets`."""
    return secrets.token_bytes(SEED_BYTES)


def seed_from_source(source: DiceSource) -> bytes:
    """A round seed of :data:`SEED_BYTES` bytes drawn from a dice source, one
    256-faced die per byte (face ``f`` is byte ``f - 1``): secret from
    :class:`SecureDice` (:mod:`secrets`), reproducible from :class:`SeededDice`."""
    return bytes(f - 1 for f in source.roll(SEED_BYTES, 256))


def commitment(seed: bytes) -> str:
    """The commitment to ``seed``: SHA-256 of the seed's raw bytes (not of its
    hex text), as 64 lowercase hex digits."""
    return hashlib.sha256(seed).hexdigest()


def seed_from_hex(text: str) -> bytes:
    """The seed written as 64 lowercase hex digits, back to its 32 bytes.

    :raises ChanceError: for anything but exactly 64 lowercase hex digits.
    """
    if not isinstance(text, str) or len(text) != 2 * SEED_BYTES or text.strip("0123456789abcdef"):
        raise ChanceError(f"A round seed is written as {2 * SEED_BYTES} lowercase hex digits.")
    return bytes.fromhex(text)


#: The name of the mixing step of version 2 (players' contributed seeds).
MIX_VERSION = "liars-dice-fair-dice/2/mix"


def mix_seeds(server_seed: bytes, round: int, contributions: Sequence[tuple[int, bytes]]) -> bytes:
    """The dice seed of a round whose players contributed seeds of their own
    (``docs/fair-dice.md``, version 2): ``HMAC-SHA256(key = server_seed, message
    = ASCII "liars-dice-fair-dice/2/mix/" + ROUND`` followed, for each
    contribution in seat order, by ``"/" + SEAT + ":" + hex of its 32 bytes``).
    The round's dice are the version-1 dice of this seed (:func:`fair_deal`,
    :func:`fair_reroll`). The server commits to ``server_seed`` before any
    contribution is sent, so it cannot choose the dice; a player who sends
    one never sees the server's seed or another's before the deal.

    >>> mix_seeds(bytes(32), 0, []).hex()[:16]
    '7d57854952958926'

    :param contributions: ``(seat, seed)`` pairs, each seed :data:`SEED_BYTES` bytes,
        at most one per seat (any order: they are sorted by seat).
    :returns: :data:`SEED_BYTES` bytes.
    :raises ChanceError: a seed of another length, or two for one seat.
    """
    if len(server_seed) != SEED_BYTES:
        raise ChanceError(f"A round seed is {SEED_BYTES} bytes.")
    parts = [f"{MIX_VERSION}/{round}"]
    seats: set[int] = set()
    for seat, seed in sorted(contributions):
        if len(seed) != SEED_BYTES:
            raise ChanceError(f"A contributed seed is {SEED_BYTES} bytes.")
        if seat in seats:
            raise ChanceError(f"Seat {seat} contributed two seeds to one round.")
        seats.add(seat)
        parts.append(f"{seat}:{seed.hex()}")
    return hmac.digest(server_seed, "/".join(parts).encode("ascii"), "sha256")


def deal_label(round: int, seat: int, die: int) -> str:
    """The label of a dealt die: ``deal/ROUND/SEAT/DIE`` (decimal, 0-based:
    the round's index in the record, the seat's index in ``players``, the die's
    index in that seat's dealt hand)."""
    return f"deal/{round}/{seat}/{die}"


def reroll_label(round: int, move: int, seat: int, die: int) -> str:
    """The label of a rerolled die: ``reroll/ROUND/MOVE/SEAT/DIE`` (decimal,
    0-based: MOVE is the bid's index among the round's moves, DIE the index in
    that move's ``reroll`` list)."""
    return f"reroll/{round}/{move}/{seat}/{die}"


def fair_face(seed: bytes, label: str, faces: int = 6) -> int:
    """One die from ``seed``: the first acceptable byte of the HMAC-SHA256 stream
    for ``label``.

    Block ``j`` (0, 1, 2, ...) is ``HMAC-SHA256(key=seed, msg=ASCII
    "liars-dice-fair-dice/1/" + label + "/" + decimal j)``, 32 bytes. The bytes
    are read in order; a byte ``b`` is rejected when ``b >= 256 - 256 % faces``
    (so every face is equally likely: rejection sampling), else the die shows
    ``b % faces + 1``.

    :param faces: faces on the die, 2 to 256.
    :returns: a face in ``1..faces``.
    :raises ChanceError: for ``faces`` outside 2..256 (or, never in practice,
        after :data:`_MAX_BLOCKS` blocks with no acceptable byte).
    """
    if not 2 <= faces <= 256:
        raise ChanceError(f"Fair dice have 2 to 256 faces, not {faces}.")
    limit = 256 - 256 % faces
    prefix = f"{FAIR_DICE_VERSION}/{label}/"
    for block in range(_MAX_BLOCKS):
        digest = hmac.digest(seed, f"{prefix}{block}".encode("ascii"), "sha256")
        for b in digest:
            if b < limit:
                return b % faces + 1
    raise ChanceError("The seed gave no usable byte for this die.")  # pragma: no cover - p < 10**-1000


def fair_deal(seed: bytes, round: int, held: Sequence[int], faces: int = 6) -> tuple[tuple[int, ...], ...]:
    """Every seat's dealt hand in round ``round``: seat ``s`` gets
    ``held[s]`` dice, die ``i`` being ``fair_face(seed, deal_label(round, s, i))``."""
    return tuple(
        tuple(fair_face(seed, deal_label(round, s, i), faces) for i in range(n)) for s, n in enumerate(held)
    )


def fair_reroll(seed: bytes, round: int, move: int, seat: int, n: int, faces: int = 6) -> tuple[int, ...]:
    """The ``n`` new faces of ``seat``'s reroll after the bid at index ``move``
    of round ``round``."""
    return tuple(fair_face(seed, reroll_label(round, move, seat, i), faces) for i in range(n))


class FairDice:
    """One round's secret seed and every die it gives (``docs/fair-dice.md``).

    :meth:`source` returns a :class:`DiceSource` for a state's pending chance
    event (the round's deal, or a reroll after a show), so the engine's
    :meth:`State.roll` takes provably fair dice exactly as it takes any other:

    >>> from liars_dice.engine import Game, Rules
    >>> fair = FairDice(bytes(32))
    >>> s = Game.create(Rules.preset("classic"), ["ann", "bob"]).initial_state()
    >>> s.roll(fair.source(s)).hidden
    ((4, 2, 2, 5, 1), (4, 6, 3, 2, 1))
    >>> fair.commitment[:16]
    '66687aadf862bd77'

    :param seed: :data:`SEED_BYTES` bytes; a fresh :func:`new_seed` when omitted.
    :raises ChanceError: for a seed of another length.
    """

    __slots__ = ("seed",)

    def __init__(self, seed: bytes | None = None) -> None:
        if seed is None:
            seed = new_seed()
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise ChanceError(f"A round seed is {SEED_BYTES} bytes.")
        self.seed = seed

    @classmethod
    def from_hex(cls, text: str) -> "FairDice":
        """:raises ChanceError: unless ``text`` is 64 lowercase hex digits."""
        return cls(seed_from_hex(text))

    @property
    def hex(self) -> str:
        """The seed as published at the reveal: 64 lowercase hex digits."""
        return self.seed.hex()

    @property
    def commitment(self) -> str:
        """:func:`commitment` of the seed, published before the first bid."""
        return commitment(self.seed)

    def deal(self, round: int, held: Sequence[int], faces: int = 6) -> tuple[tuple[int, ...], ...]:
        """:func:`fair_deal` with this seed."""
        return fair_deal(self.seed, round, held, faces)

    def reroll(self, round: int, move: int, seat: int, n: int, faces: int = 6) -> tuple[int, ...]:
        """:func:`fair_reroll` with this seed."""
        return fair_reroll(self.seed, round, move, seat, n, faces)

    def source(self, state: "State") -> "ScriptedDice":
        """The dice of ``state``'s pending chance event, as a :class:`DiceSource`
        for :meth:`State.roll`: the deal of round ``len(state.logs)``, or the
        reroll of the bid just played (index ``len(state.moves) - 1``).

        :raises ChanceError: when ``state`` waits for no dice.
        """
        faces = state.game.rules.faces
        phase = state.phase.value
        if phase == "deal":
            hands = self.deal(len(state.logs), state.dice, faces)
            return ScriptedDice(f for hand in hands for f in hand)
        if phase == "reroll":
            seat = state.to_move
            assert seat is not None
            return ScriptedDice(self.reroll(len(state.logs), len(state.moves) - 1, seat, len(state.hidden[seat]), faces))
        raise ChanceError("No dice are due: it is a player's turn to bid or challenge, or the game is over.")


class FairRounds:
    """Provably fair dice for a whole game, round after round, as the server
    deals them (``docs/fair-dice.md``): each deal draws a fresh round seed from
    ``seeds`` (one 256-faced die per byte, :func:`seed_from_source`) and every
    die of that round, dealt or rerolled, comes from it (:class:`FairDice`).
    :func:`liars_dice.match.play_game` takes it as its dice, so a terminal game
    (``liars-dice play``) writes a record that ``liars-dice verify`` checks.

    >>> from liars_dice.engine import Game, Rules
    >>> fair = FairRounds(SeededDice(1))
    >>> s = Game.create(Rules.preset("classic"), ["ann", "bob"]).initial_state()
    >>> s = s.roll(fair.source(s))
    >>> [(c[:8], len(seed)) for c, seed in fair.rounds]
    [('2fe152bc', 64)]
    >>> s.hidden == FairDice.from_hex(fair.rounds[0][1]).deal(0, (5, 5))
    True

    :param seeds: where the round seeds come from: :class:`SecureDice` (secret,
        the default) or :class:`SeededDice` (a reproducible game).
    :ivar rounds: per round index dealt so far, ``(commitment, seed)`` as 64
        lowercase hex digits each: what
        :func:`~liars_dice.records.record_from_state` takes as ``fair`` (a
        record leaves out the seed of a round still in play).
    """

    __slots__ = ("_seeds", "_dealt")

    def __init__(self, seeds: DiceSource | None = None) -> None:
        self._seeds: DiceSource = seeds if seeds is not None else SecureDice()
        self._dealt: list[FairDice] = []

    @property
    def rounds(self) -> list[tuple[str, str]]:
        return [(f.commitment, f.hex) for f in self._dealt]

    def source(self, state: "State") -> "ScriptedDice":
        """The dice of ``state``'s pending chance event: a deal draws the round's
        seed (once per round), a reroll uses the seed of the round in play.

        :raises ChanceError: when ``state`` waits for no dice, or for a reroll
            of a round this source did not deal.
        """
        r = len(state.logs)
        if state.phase.value == "deal" and r == len(self._dealt):
            self._dealt.append(FairDice(seed_from_source(self._seeds)))
        if r >= len(self._dealt):
            raise ChanceError(f"Round {r + 1} was not dealt from these fair dice.")
        return self._dealt[r].source(state)

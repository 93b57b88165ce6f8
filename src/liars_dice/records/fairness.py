"""Check a record's fair dice (``docs/fair-dice.md``): every round's seed against
its commitment, and every die, dealt or rerolled, against the dice its seed gives.

:func:`verify_record` is what ``liars-dice verify`` runs. It replays the record
(a record whose dice match their seeds but that breaks a rule, or drops a die,
is not a game that was played), then checks the dice of every round the replay
reached, with the record's own hand sizes: a die that is not its seed's is
named even in the round where the replay stopped. The replay bounds the work:
no more rounds are checked than the game's rules let it last.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..engine import commitment, fair_deal, fair_reroll, mix_seeds, seed_from_hex
from .replay import RecordError, parse_record, replay, rules_from_record, where_round
from .schema import RoundModel, explain


class FairDiceError(RecordError):
    """A record whose dice cannot be shown fair: a round without its commitment
    or seed, a seed that does not hash to its commitment, or a die (dealt or
    rerolled) that is not the one its round's seed gives.

    :ivar round: 0-based index of the round at fault.
    :ivar move: 0-based index of the move of a rerolled die at fault, else ``None``.
    """

    code = "record/unfair"


@dataclass(frozen=True)
class FairRound:
    """One checked round: its commitment and seed (hex), dealt dice and rerolled dice counted."""

    round: int
    commitment: str
    seed: str
    dealt: int
    rerolls: int
    rerolled: int
    #: version 2: the players whose contributed seeds went into the dice, and
    #: those whose page sent none (both empty for a round of the server's seed alone)
    contributors: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    mixed: bool = False
    #: version 2: each contributor's seed (hex), checked against its digest, in seat order
    seeds: tuple[tuple[str, str], ...] = ()


@dataclass
class FairReport:
    """What :func:`verify_record` checked: every round, in order."""

    players: tuple[str, ...]
    rounds: list[FairRound] = field(default_factory=list)
    winner: str | None = None

    @property
    def dealt(self) -> int:
        return sum(r.dealt for r in self.rounds)

    @property
    def rerolled(self) -> int:
        return sum(r.rerolled for r in self.rounds)

    @property
    def rerolls(self) -> int:
        return sum(r.rerolls for r in self.rounds)


@dataclass(frozen=True)
class OwnSeed:
    """A player's own seed for a round, looked for in a checked record
    (``liars-dice verify --my-seed ROUND=HEX``)."""

    #: 0-based round index
    round: int
    #: the seed, 64 lowercase hex digits
    seed: str
    #: the player whose contribution it is in the record (the dice used it), or ``None`` (they did not)
    used_as: str | None


def own_seeds(report: FairReport, seeds: dict[int, str]) -> list[OwnSeed]:
    """Whether each of a player's own seeds (``{0-based round: hex}``) went into
    its round's dice: it is one of the round's contributions, which
    :func:`verify_record` checked against the digests published at the deal
    and mixed into the seed every die was checked against. A record written by
    the server is checked against seeds only the player's page knew, so a
    server that dropped or replaced a player's seed is caught.

    :raises RecordError: a round the record does not have, or that the check did not reach.
    """
    out = []
    for r, seed in sorted(seeds.items()):
        if not 0 <= r < len(report.rounds):
            raise RecordError(f"--my-seed names round {r + 1}, but the record has {len(report.rounds)} rounds checked.")
        used = next((name for name, hexed in report.rounds[r].seeds if hexed == seed), None)
        out.append(OwnSeed(r, seed, used))
    return out


def _key(name: str) -> str:
    """A player's name as a key in a path such as ``rounds[0].dice["ann"][2]``."""
    return json.dumps(name, ensure_ascii=False)


def verify_record(data: str | bytes | dict[str, Any]) -> FairReport:
    """Recompute every commitment and every die of a record.

    :returns: the report of every round checked.
    :raises FairDiceError: on the first round with no commitment or no seed, a
        seed that does not hash to its commitment, or a die that differs from
        what the seed gives; the message is one sentence naming the round (1-based,
        and its 0-based path in the record), the player and the die.
    :raises RecordError: for a record that is malformed or does not replay
        (the replay's own sentence), once the rounds up to the fault have been
        checked.
    """
    rec = parse_record(data)
    try:
        faces = rules_from_record(rec.rules).faces
    except (RecordError, ValueError, TypeError) as e:
        raise RecordError(f"The record's rules cannot be read: {getattr(e, 'message', e)}") from None
    players = tuple(rec.players)
    result = replay(data)
    err = result.error
    if err is None:
        reached = len(rec.rounds)
    elif err.round is None:
        raise RecordError(f"The record does not replay: {err.message}")
    else:
        reached = err.round + 1
    if not rec.rounds:
        raise FairDiceError("The record has no rounds, so there are no dice to check.")
    report = FairReport(players)
    for r, raw in enumerate(rec.rounds[:reached]):
        try:
            rnd = RoundModel.model_validate(raw)
        except ValidationError as e:
            raise RecordError(explain(e, where_round(r)), r) from None
        report.rounds.append(_check_round(r, rnd, players, faces))
    if err is not None:
        raise RecordError(f"The dice match their seeds, but the record does not replay: {err.message}", err.round, err.move)
    if result.state is not None and result.state.winner is not None:
        report.winner = players[result.state.winner]
    return report


def _check_round(r: int, rnd: RoundModel, players: tuple[str, ...], faces: int) -> FairRound:
    where = where_round(r)
    if rnd.commitment is None:
        raise FairDiceError(f"{where} carries no commitment, so its dice cannot be checked.", r)
    if rnd.seed is None:
        raise FairDiceError(f"{where} carries its commitment but no seed, so its dice cannot be checked.", r)
    server_seed = seed_from_hex(rnd.seed)
    digest = commitment(server_seed)
    if digest != rnd.commitment:
        raise FairDiceError(
            f"{where}: the seed does not match the commitment (SHA-256 of the seed is {digest[:16]}…, "
            f"the commitment is {rnd.commitment[:16]}…).", r,
        )
    for name in rnd.dice:
        if name not in players:
            raise RecordError(f"{where} deals dice to {name!r}, who is not a player.", r)
    seed, contributors, missing = _dice_seed(r, rnd, players, server_seed)
    held = [len(rnd.dice.get(name, [])) for name in players]
    dealt = fair_deal(seed, r, held, faces)
    gives = "the seeds give" if rnd.contributions else "the seed gives"
    for seat, name in enumerate(players):
        for i, (got, want) in enumerate(zip(rnd.dice.get(name, []), dealt[seat])):
            if got != want:
                raise FairDiceError(
                    f"Round {r + 1}: {name}'s die {i + 1} (rounds[{r}].dice[{_key(name)}][{i}]) "
                    f"is {got}, but {gives} {want}.", r,
                )
    rerolls = rerolled = 0
    for m, move in enumerate(rnd.moves):
        if not isinstance(move, dict) or not isinstance(move.get("reroll"), list):
            continue
        mover = move.get("player")
        if not isinstance(mover, str) or mover not in players:
            raise RecordError(f"{mover!r} is not a player in this game.", r, m)
        name = mover
        got_faces = move["reroll"]
        want_faces = fair_reroll(seed, r, m, players.index(name), len(got_faces), faces)
        for i, (got, want) in enumerate(zip(got_faces, want_faces)):
            if got != want:
                raise FairDiceError(
                    f"Round {r + 1}, move {m + 1}: {name}'s rerolled die {i + 1} "
                    f"(rounds[{r}].moves[{m}].reroll[{i}]) is {got}, but {gives} {want}.", r, m,
                )
        rerolls += 1
        rerolled += len(got_faces)
    return FairRound(
        r, rnd.commitment, rnd.seed, sum(held), rerolls, rerolled, contributors, missing, rnd.contributions is not None,
        tuple((name, (rnd.contributions or {})[name]) for name in contributors),
    )


def _dice_seed(r: int, rnd: RoundModel, players: tuple[str, ...], server_seed: bytes) -> tuple[bytes, tuple[str, ...], tuple[str, ...]]:
    """The seed round ``r``'s dice come from: the server's alone (version 1), or
    mixed with the players' contributed seeds (version 2, :func:`~liars_dice.engine.mix_seeds`),
    each checked against the digest published at the deal. Returns it with the
    contributors and the players named missing.

    :raises FairDiceError: a contribution without its digest or not matching it,
        or digests without their contributions.
    :raises RecordError: a contribution or a missing name that is no player.
    """
    where = where_round(r)
    if rnd.contributions is None:
        if rnd.contribution_digests is not None:
            raise FairDiceError(f"{where} publishes the digests of contributed seeds, but not the seeds.", r)
        return server_seed, (), ()
    digests = rnd.contribution_digests or {}
    named = [*rnd.contributions, *digests, *(rnd.missing or [])]
    for name in named:
        if name not in players:
            raise RecordError(f"{where} names {name!r} among the seeds' players, who is not a player.", r)
    pairs: list[tuple[int, bytes]] = []
    for name in players:  # seat order
        text = rnd.contributions.get(name)
        if text is None:
            if name in digests:
                raise FairDiceError(f"{where}: {name}'s contributed seed is missing, though its digest was published at the deal.", r)
            continue
        got = commitment(bytes.fromhex(text))
        if digests.get(name) != got:
            raise FairDiceError(
                f"{where}: {name}'s contributed seed (rounds[{r}].contributions[{_key(name)}]) does not match "
                f"the digest published at the deal, so it is not the seed {name}'s page sent.", r,
            )
        pairs.append((players.index(name), bytes.fromhex(text)))
    contributors = tuple(players[s] for s, _ in pairs)
    return mix_seeds(server_seed, r, pairs), contributors, tuple(rnd.missing or ())

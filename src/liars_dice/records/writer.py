"""Write a game record (``shared/RECORD-FORMAT.md``) from an engine state."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..engine import Bid, Calza, Challenge, Move, Phase, State
from .schema import FORMAT

#: One round's fair-dice values for :func:`record_from_state`: ``(commitment,
#: seed or None)``, or with a third item for version 2's contributed seeds.
FairEntry = tuple[str, str | None] | tuple[str, str | None, dict[str, Any]]


def _move_json(m: Move, names: tuple[str, ...]) -> dict[str, Any]:
    if isinstance(m.action, Challenge):
        return {"player": names[m.seat], "challenge": True}
    if isinstance(m.action, Calza):
        return {"player": names[m.seat], "calza": True}
    assert isinstance(m.action, Bid)
    out: dict[str, Any] = {"player": names[m.seat], "bid": m.action.to_json()}
    if m.show:
        out["show"] = list(m.show)
        out["reroll"] = list(m.reroll)
    return out


def record_from_state(
    state: State, start: int | None = None, fair: Sequence[FairEntry | None] = (),
) -> dict[str, Any]:
    """The record of everything played up to ``state``.

    :param start: the first round's opener; derived from the first move (or the
        opener waiting to move) when omitted.
    :param fair: per round index, ``(commitment, seed)`` as 64 lowercase hex
        digits each, or ``None`` for a round dealt without fair dice
        (``docs/fair-dice.md``). A round gets ``commitment`` and, once it has
        ended (it is in ``state.logs``), ``seed``: a round still in play never
        carries its seed, whatever ``fair`` holds. An entry of version 2
        (``docs/fair-dice.md``) has a third item, ``{"contributions": {name:
        seed}, "digests": {name: sha256}, "missing": [name, ...]}``: the round
        gets ``contribution_digests`` and ``missing``, and ``contributions``
        once it has ended.
    :returns: a JSON-ready dict; :func:`~liars_dice.records.replay.replay` of it
        gives back ``state`` (a bid whose reroll is still pending is left out).
    """
    game = state.game
    names = game.players
    rounds: list[tuple[tuple[tuple[int, ...], ...], tuple[Move, ...]]] = [(log.deal, log.moves) for log in state.logs]
    if state.phase in (Phase.BID, Phase.REROLL):
        moves = state.moves
        if state.phase is Phase.REROLL:
            moves = moves[:-1]
        rounds.append((state.deal_faces, moves))
    if start is None:
        if rounds and rounds[0][1]:
            start = rounds[0][1][0].seat
        elif state.to_move is not None:
            start = state.to_move
        else:
            start = 0
    rules = game.rules
    rules_json: Any = rules.to_json()
    out_rounds: list[dict[str, Any]] = []
    for r, (deal, moves) in enumerate(rounds):
        rnd: dict[str, Any] = {
            "dice": {names[i]: list(h) for i, h in enumerate(deal) if h},
            "moves": [_move_json(m, names) for m in moves],
        }
        entry = fair[r] if r < len(fair) else None
        if entry is not None:
            commit, seed = entry[0], entry[1]
            rnd["commitment"] = commit
            ended = r < len(state.logs)
            if seed is not None and ended:
                rnd["seed"] = seed
            if len(entry) > 2:  # version 2: the players' contributed seeds
                mixed = entry[2]
                rnd["contribution_digests"] = dict(mixed["digests"])
                if ended:
                    rnd["contributions"] = dict(mixed["contributions"])
                rnd["missing"] = list(mixed["missing"])
        out_rounds.append(rnd)
    return {
        "format": FORMAT,
        "rules": rules_json,
        "players": list(names),
        "start": names[start],
        "dice": {names[i]: d for i, d in enumerate(game.dice)},
        "rounds": out_rounds,
    }


def dumps_record(
    state: State, start: int | None = None, fair: Sequence[FairEntry | None] = (),
) -> str:
    """:func:`record_from_state` as indented JSON text."""
    return json.dumps(record_from_state(state, start, fair), indent=1, ensure_ascii=False)

"""Replay a game record through the engine (``shared/RECORD-FORMAT.md``).

:func:`replay` plays a record and returns its result; the first fault stops it,
keeping the results of the rounds completed before. The result and the error
follow RECORD-FORMAT.md "Result" and "Errors" to the letter.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..engine import (
    CALZA,
    CHALLENGE,
    Action,
    Bid,
    Game,
    LiarsDiceError,
    Phase,
    RoundResult,
    Rules,
    RulesError,
    State,
    result_to_json,
)
from .schema import MoveModel, RecordModel, RoundModel, explain


class RecordError(LiarsDiceError):
    """A record that breaks the format or a rule.

    :ivar round: 0-based round index, or ``None`` for a fault outside the rounds.
    :ivar move: 0-based move index in that round, or ``None`` for a fault in
        the round's dice or a round after the game ended.
    """

    code = "record/invalid"

    def __init__(self, message: str, round: int | None = None, move: int | None = None) -> None:
        super().__init__(message)
        self.round = round
        self.move = move

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "move": self.move, "message": self.message}


@dataclass
class Replay:
    """The outcome of :func:`replay`.

    :ivar state: the engine state after the last good entry (``None`` when the
        record failed before a game could be set up).
    :ivar error: the first fault, or ``None``.
    """

    state: State | None
    error: RecordError | None = None
    players: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return self.error is None

    def result(self) -> dict[str, Any]:
        """The result object of RECORD-FORMAT.md, with ``error`` on a fault."""
        out: dict[str, Any] = {"rounds": [], "dice": {}, "to_move": None, "winner": None}
        s = self.state
        if s is not None:
            names = s.game.players
            out["rounds"] = [round_result_json(r, names) for r in s.results]
            out["dice"] = {names[i]: d for i, d in enumerate(s.dice)}
            out["to_move"] = names[s.to_move] if s.to_move is not None else None
            out["winner"] = names[s.winner] if s.winner is not None else None
        if self.error is not None:
            out["error"] = self.error.to_json()
        return out


def round_result_json(r: RoundResult, names: tuple[str, ...]) -> dict[str, Any]:
    """One entry of the result's ``rounds``, exactly as RECORD-FORMAT.md gives it
    (the engine's public round result without the reveal)."""
    out = result_to_json(r, names)
    del out["revealed"]
    return out


def rules_from_record(rules: str | dict[str, Any]) -> Rules:
    """A preset name, or an object of rule options: ``{"preset": NAME, ...}``
    with the options that differ from that preset, or every option
    (RECORD-FORMAT.md "rules").

    :raises RulesError: for an unknown preset or option, or a bad value.
    """
    return Rules.from_json(rules)


def parse_record(data: str | bytes | dict[str, Any]) -> RecordModel:
    """Validate the top level of a record given as JSON text or parsed data.

    :raises RecordError: for malformed JSON or a malformed top level (round and
        move ``None``).
    """
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as e:
            raise RecordError(f"The record is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}.") from None
        except UnicodeDecodeError:
            raise RecordError("The record is not UTF-8 text.") from None
        except RecursionError:
            raise RecordError("The record nests its JSON too deeply to be a game record.") from None
        except ValueError:  # e.g. an integer longer than Python's digit limit
            raise RecordError("The record holds a number far too long to be a quantity, a face or a dice count.") from None
    if not isinstance(data, dict):
        raise RecordError("A record is a JSON object with rules, players and rounds.")
    if "rules" not in data and isinstance(data.get("record"), dict):
        raise RecordError(
            "This is a scenario file ({\"record\": ..., \"expected\": ...}), not a record: "
            "its game record is the object under \"record\"."
        )
    try:
        return RecordModel.model_validate(data)
    except ValidationError as e:
        raise RecordError(explain(e, "The record")) from None


def replay(data: str | bytes | dict[str, Any]) -> Replay:
    """Play a record through the engine's checked transitions.

    Never raises for a bad record: the fault is in :attr:`Replay.error`.
    """
    try:
        rec = parse_record(data)
        rules = rules_from_record(rec.rules)
        game = Game.create(rules, rec.players, rec.dice)
        if rec.start is not None and rec.start not in game.players:
            raise RecordError(f"The record's start {rec.start!r} is not one of its players.")
        start = game.seat(rec.start) if rec.start is not None else 0
    except RecordError as e:
        return Replay(None, e)
    except RulesError as e:
        return Replay(None, RecordError(e.message))
    state = game.initial_state(start)
    for r_index, raw_round in enumerate(rec.rounds):
        try:
            state = _play_round(state, r_index, raw_round)
        except _Fault as f:
            return Replay(f.state, f.error, game.players)
    return Replay(state, None, game.players)


class _Fault(Exception):
    def __init__(self, state: State, error: RecordError) -> None:
        self.state, self.error = state, error


def where_round(r: int) -> str:
    """How a sentence names round index ``r`` (0-based, as the error object's
    ``round``): counted from 1 as players count, with its place in the record:
    ``Round 1 (rounds[0])``."""
    return f"Round {r + 1} (rounds[{r}])"


def where_move(r: int, m: int) -> str:
    """How a sentence names move ``m`` of round ``r`` (both 0-based): ``Move 1 of
    round 2 (rounds[1].moves[0])``."""
    return f"Move {m + 1} of round {r + 1} (rounds[{r}].moves[{m}])"


def _play_round(state: State, r: int, raw: Any) -> State:
    game = state.game
    names = game.players
    if state.phase is Phase.OVER:
        assert state.winner is not None
        raise _Fault(state, RecordError(f"{where_round(r)} is played after the game ended; {names[state.winner]} had already won.", r))
    if state.phase is not Phase.DEAL:
        raise _Fault(state, RecordError(f"{where_round(r)} starts before round {r} ended with a challenge.", r))
    try:
        rnd = RoundModel.model_validate(raw)
    except ValidationError as e:
        raise _Fault(state, RecordError(explain(e, where_round(r)), r)) from None
    unknown = [p for p in rnd.dice if p not in names]
    if unknown:
        raise _Fault(state, RecordError(f"{where_round(r)} deals dice to {unknown[0]!r}, who is not a player.", r))
    hands = []
    for seat, name in enumerate(names):
        if state.dice[seat] > 0 and name not in rnd.dice:
            raise _Fault(state, RecordError(f"{where_round(r)} gives no dice for {name}, who holds {state.dice[seat]}.", r))
        if state.dice[seat] == 0 and rnd.dice.get(name):  # an out player may be listed with no dice
            raise _Fault(state, RecordError(f"{where_round(r)} deals dice to {name}, who is out of the game.", r))
        hands.append(rnd.dice.get(name, []))
    try:
        state = state.deal(hands)
    except LiarsDiceError as e:
        raise _Fault(state, RecordError(f"{where_round(r)}: {e.message}", r)) from None
    for m_index, raw_move in enumerate(rnd.moves):
        if state.phase is not Phase.BID:
            raise _Fault(state, RecordError(f"{where_move(r, m_index)} comes after the challenge that ended the round.", r, m_index))
        try:
            move = MoveModel.model_validate(raw_move)
        except ValidationError as e:
            raise _Fault(state, RecordError(explain(e, where_move(r, m_index)), r, m_index)) from None
        if move.player not in names:
            raise _Fault(state, RecordError(f"{move.player!r} is not a player in this game.", r, m_index))
        seat = names.index(move.player)
        if move.challenge:
            action: Action = CHALLENGE
        elif move.calza:
            action = CALZA
        else:
            assert move.bid is not None  # a move is a bid, a challenge or a calza (check_move_kind)
            action = Bid(move.bid.quantity, move.bid.face)
        try:
            nxt = state.apply(action, tuple(move.show or ()), seat=seat)
            if move.show:
                nxt = nxt.reroll(tuple(move.reroll or ()))
        except LiarsDiceError as e:
            raise _Fault(state, RecordError(e.message, r, m_index)) from None
        state = nxt
    return state

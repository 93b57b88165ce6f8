"""The bot protocol's messages as pydantic models (``docs/bot-protocol.md``).

One request and one reply per line of JSON, as UCI is for chess engines and
python-chess's ``chess.engine`` models it: typed requests, typed replies.

* :class:`Request`: one seat's view of a position where it must bid or
  challenge. ``moves`` (this round) and ``history`` (past rounds) use the
  record format's moves (``shared/RECORD-FORMAT.md``).
* :class:`Reply`: ``{"bid": {"quantity", "face"}}`` optionally with
  ``"show": [faces]``, or ``{"challenge": true}``, or ``{"calza": true}``
  (rules with calza), or ``{"error": "..."}``.

Everything is size-limited: a line holds at most :data:`MAX_LINE_BYTES` bytes
and the lists inside at most the bounds below, so a request can never make a
bot do unbounded work.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field, StrictBool, StrictInt, StrictStr, ValidationError, field_validator, model_validator

from ..engine import CALZA, CHALLENGE, MAX_DICE_PER_PLAYER, Action, Bid, Calza, Challenge, LiarsDiceError
from ..engine import MAX_PLAYERS as RULES_MAX_PLAYERS
from ..records.schema import BidModel, StrictModel, check_move_kind  # the record format's pieces, shared

#: Longest request or reply line, in bytes (1 MiB), newline excluded.
MAX_LINE_BYTES = 1 << 20
#: Most seats a request may name: the most any rule set seats (the engine's bound).
MAX_PLAYERS = RULES_MAX_PLAYERS
#: Most dice a request may give one seat: the engine's bound.
MAX_DICE = MAX_DICE_PER_PLAYER
#: Most moves in one round of a request.
MAX_MOVES = 20_000
#: Most past rounds in a request's history.
MAX_HISTORY = 10_000

_Name = StrictStr
_Faces = Annotated[list[StrictInt], Field(max_length=MAX_DICE)]
_Count = Annotated[StrictInt, Field(ge=0, le=MAX_DICE)]


class ProtocolError(LiarsDiceError):
    """A message that breaks the protocol: bad JSON, a bad shape, or a position
    that cannot arise (not that seat's turn, dice that do not add up, an illegal
    move in ``moves``).

    :ivar code: stable machine-readable code, ``"protocol/invalid"``.
    :ivar message: one sentence naming the problem (what a reply's ``error`` holds).
    """

    code = "protocol/invalid"


class MoveModel(StrictModel):
    """A move in record format: ``{"player", "bid"[, "show"]}`` or
    ``{"player", "challenge": true}``. A ``reroll`` is accepted and ignored:
    another seat's rerolled faces are hidden, and the request's ``hand`` holds
    the asking seat's own dice as they are now."""

    player: _Name
    bid: BidModel | None = None
    challenge: StrictBool | None = None
    calza: StrictBool | None = None
    show: _Faces | None = None
    reroll: _Faces | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> "MoveModel":
        check_move_kind(self, "only a bid can show dice")
        return self

    @property
    def action(self) -> Action:
        if self.challenge:
            return CHALLENGE
        if self.calza:
            return CALZA
        assert self.bid is not None  # a move is a bid, a challenge or a calza (check_move_kind)
        return Bid(self.bid.quantity, self.bid.face)


class PastRound(StrictModel):
    """A finished round: its moves (the last one the challenge or the calza),
    every die revealed at the end, per player who held dice (hidden and shown),
    and ``"palifico": true`` for a palifico round."""

    moves: list[MoveModel] = Field(min_length=2, max_length=MAX_MOVES)
    revealed: dict[_Name, _Faces] = Field(max_length=MAX_PLAYERS)
    palifico: StrictBool | None = None


class Request(StrictModel):
    """What a bot receives: one seat's view where that seat must move.

    :ivar rules: a preset name, or an object of rule options (optionally with
        ``"preset"``), as records accept.
    :ivar players: seat order, unique names.
    :ivar seat: the name of the seat to move.
    :ivar dice: dice held per player, hidden and shown (0 for a player who is out).
    :ivar hand: the asking seat's hidden faces.
    :ivar shown: faces set out in the open this round, per player; optional,
        and when given it must match the shows in ``moves``.
    :ivar moves: this round's moves, in record format, oldest first.
    :ivar history: optional past rounds, oldest first.
    :ivar start_dice: under rules with calza, each player's starting dice count
        (the most a right calza can bring back); optional, by default the rules'
        ``dice_per_player``.
    :ivar palifico: this round is a palifico round (rules with ``palifico``):
        pacos are not wild and the face is fixed except for one-die players.
    :ivar models: optional opponent models by player name (the objects of
        ``liars-dice model fit`` files); a bot that does not take them answers
        with the error for an unknown field (:data:`MODELS_UNSUPPORTED`).
    """

    rules: StrictStr | dict[str, Any]
    players: list[_Name] = Field(min_length=2, max_length=MAX_PLAYERS)
    seat: _Name
    dice: dict[_Name, _Count] = Field(max_length=MAX_PLAYERS)
    hand: _Faces
    shown: dict[_Name, _Faces] | None = Field(default=None, max_length=MAX_PLAYERS)
    moves: list[MoveModel] = Field(default_factory=list, max_length=MAX_MOVES)
    history: list[PastRound] = Field(default_factory=list, max_length=MAX_HISTORY)
    start_dice: dict[_Name, _Count] | None = Field(default=None, max_length=MAX_PLAYERS)
    palifico: StrictBool | None = None
    models: dict[_Name, dict[str, Any]] | None = Field(default=None, max_length=MAX_PLAYERS)

    @field_validator("rules", mode="before")
    @classmethod
    def _rules_kind(cls, v: Any) -> Any:
        # one sentence, rather than pydantic's per-branch "at 'rules.str'"
        if not isinstance(v, (str, dict)):
            raise ValueError('it is a preset name such as "classic", or an object of rule options')
        return v


#: The reply of a bot that does not take ``models``: the same sentence as for any unknown field.
MODELS_UNSUPPORTED = "The request is malformed at 'models': Extra inputs are not permitted."


class Reply(StrictModel):
    """What a bot answers: a bid (with an optional show), a challenge, or an error."""

    bid: BidModel | None = None
    show: _Faces | None = None
    challenge: StrictBool | None = None
    calza: StrictBool | None = None
    error: StrictStr | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> "Reply":
        kinds = sum(x is not None for x in (self.bid, self.challenge, self.calza, self.error))
        if kinds != 1:
            raise ValueError('a reply is exactly one of "bid", "challenge", "calza" or "error"')
        if self.challenge is not None and self.challenge is not True:
            raise ValueError('a challenge is written "challenge": true')
        if self.calza is not None and self.calza is not True:
            raise ValueError('a calza is written "calza": true')
        if self.show is not None and self.bid is None:
            raise ValueError("only a bid can show dice")
        return self

    @property
    def action(self) -> Action:
        """The move; :raises ProtocolError: for an error reply."""
        if self.error is not None:
            raise ProtocolError(f"The bot answered with an error: {self.error}")
        if self.challenge:
            return CHALLENGE
        if self.calza:
            return CALZA
        assert self.bid is not None  # a move is a bid, a challenge or a calza (check_move_kind)
        return Bid(self.bid.quantity, self.bid.face)

    @staticmethod
    def of(action: Action, show: tuple[int, ...] = ()) -> "Reply":
        """The reply for a move."""
        if isinstance(action, Challenge):
            return Reply(challenge=True)
        if isinstance(action, Calza):
            return Reply(calza=True)
        return Reply(bid=BidModel(quantity=action.quantity, face=action.face), show=list(show) if show else None)

    def to_line(self) -> str:
        """Canonical one-line JSON, no newline; fields that are unset are left out."""
        return json.dumps(self.model_dump(exclude_none=True), separators=(",", ":"))


def error_line(message: str) -> str:
    """``{"error": message}`` as one line of JSON."""
    return json.dumps({"error": message}, separators=(",", ":"), ensure_ascii=False)


def explain(err: ValidationError, what: str) -> str:
    """One sentence from a pydantic error: what is malformed, where, and why."""
    e = err.errors()[0]
    loc = ".".join(str(p) for p in e["loc"])
    msg = e["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    where = f" at '{loc}'" if loc else ""
    return f"{what} is malformed{where}: {msg}."


def _load(line: str | bytes, what: str) -> Any:
    if len(line) > MAX_LINE_BYTES:
        raise ProtocolError(f"The {what} is longer than the limit of {MAX_LINE_BYTES} bytes.")
    try:
        return json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        detail = f": {e.msg} at column {e.colno}" if isinstance(e, json.JSONDecodeError) else ""
        raise ProtocolError(f"The {what} is not valid JSON{detail}.") from None
    except RecursionError:
        raise ProtocolError(f"The {what} nests its JSON too deeply to read.") from None
    except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise ProtocolError(f"The {what} holds a number too long to read.") from None


def parse_request(line: str | bytes) -> Request:
    """Read one request line.

    :raises ProtocolError: for an over-long line, bad JSON, or a bad shape.
        Whether the position is possible is :func:`~liars_dice.protocol.view_from_request`'s business.
    """
    data = _load(line, "request")
    if not isinstance(data, dict):
        raise ProtocolError("A request is a JSON object with rules, players, seat, dice, hand and moves.")
    try:
        return Request.model_validate(data)
    except ValidationError as e:
        raise ProtocolError(explain(e, "The request")) from None


def parse_reply(line: str | bytes) -> Reply:
    """Read one reply line.

    :raises ProtocolError: for an over-long line, bad JSON, or a bad shape.
    """
    data = _load(line, "reply")
    if not isinstance(data, dict):
        raise ProtocolError('A reply is a JSON object: {"bid": {...}}, {"challenge": true} or {"error": "..."}.')
    try:
        return Reply.model_validate(data)
    except ValidationError as e:
        raise ProtocolError(explain(e, "The reply")) from None

"""The shape of a game record (``shared/RECORD-FORMAT.md``, version 1) as
pydantic models, validated piece by piece so that a fault names its round and move.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    StringConstraints,
    ValidationError,
    model_validator,
)

FORMAT = "liars-dice-record/1"

#: A SHA-256 digest or a 32-byte seed as 64 lowercase hex digits (``docs/fair-dice.md``).
Hex32 = Annotated[StrictStr, StringConstraints(pattern=r"^[0-9a-f]{64}$")]

#: Every number of a record (quantity, face, die, dice count) is within a
#: million: far past any real game, yet a hostile record cannot make an error
#: sentence repeat a 4,000-digit number (attack review of issue 7).
RecordInt = Annotated[StrictInt, Field(ge=-1_000_000, le=1_000_000)]
#: Every name (a player) is at most 200 characters, for the same reason.
RecordStr = Annotated[StrictStr, StringConstraints(max_length=200)]


class StrictModel(BaseModel):
    """Base of the record format's models (and the bot protocol's): unknown
    fields are refused and values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class BidModel(StrictModel):
    quantity: RecordInt
    face: RecordInt


def check_move_kind(move: Any, show_needs_bid: str) -> None:
    """The checks every move in record format shares (records and the bot
    protocol): exactly one of a bid, a challenge or a calza, a challenge or
    calza written ``true``, no show or reroll on either, no empty show.

    :param show_needs_bid: the sentence for a challenge that shows or rerolls.
    :raises ValueError: naming the first check that fails (pydantic turns it
        into a validation error).
    """
    calza = getattr(move, "calza", None)
    if (move.bid is not None) + (move.challenge is not None) + (calza is not None) != 1:
        raise ValueError("a move is exactly one of a bid, a challenge or a calza")
    if move.challenge is not None and move.challenge is not True:
        raise ValueError('a challenge is written "challenge": true')
    if calza is not None and calza is not True:
        raise ValueError('a calza is written "calza": true')
    if (move.challenge or calza) and (move.show is not None or move.reroll is not None):
        raise ValueError(show_needs_bid)
    if move.show is not None and not move.show:
        raise ValueError("a show names at least one die")


class MoveModel(StrictModel):
    """``{"player", "bid"[, "show", "reroll"]}``, ``{"player", "challenge": true}``
    or ``{"player", "calza": true}``."""

    player: RecordStr
    bid: BidModel | None = None
    challenge: StrictBool | None = None
    calza: StrictBool | None = None
    show: list[RecordInt] | None = None
    reroll: list[RecordInt] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> "MoveModel":
        check_move_kind(self, "only a bid can show and reroll dice")
        if (self.show is None) != (self.reroll is None):
            raise ValueError("a bid that shows dice must give the reroll too, and a reroll needs a show")
        return self


class RoundModel(StrictModel):
    """One round: dealt faces per player still in, and moves (each validated later).

    ``commitment`` and ``seed`` are the optional fair-dice fields of
    ``docs/fair-dice.md`` (an extension of RECORD-FORMAT.md): the SHA-256 the
    server published before the round's first bid, and the round seed it
    revealed after the round; both 64 lowercase hex digits. ``contributions``,
    ``contribution_digests`` and ``missing`` are version 2's: the players'
    own seeds mixed into the dice. The replay ignores them; ``liars-dice
    verify`` checks them.
    """

    dice: dict[RecordStr, list[RecordInt]]
    moves: list[Any] = Field(default_factory=list)
    commitment: Hex32 | None = None
    seed: Hex32 | None = None
    #: Version 2 (``docs/fair-dice.md``): the seeds the players' pages
    #: contributed, by player, published at the reveal; their SHA-256 digests,
    #: published at the deal; and the players whose page sent none in time.
    contributions: dict[RecordStr, Hex32] | None = Field(default=None, max_length=100)
    contribution_digests: dict[RecordStr, Hex32] | None = Field(default=None, max_length=100)
    missing: list[RecordStr] | None = Field(default=None, max_length=100)


class RecordModel(StrictModel):
    """The top level; ``rounds`` entries are validated one at a time during replay."""

    format: Literal["liars-dice-record/1"] | None = None
    rules: StrictStr | dict[str, Any]
    players: list[RecordStr] = Field(min_length=2)
    start: RecordStr | None = None
    dice: dict[RecordStr, RecordInt] | None = None
    rounds: list[Any] = Field(default_factory=list)


def explain(err: ValidationError, what: str) -> str:
    """One sentence from a pydantic error: what is malformed, where, and why."""
    e = err.errors()[0]
    if e["type"] == "missing" and len(e["loc"]) == 1:
        # A shared scenario ({"record", "expected"}) read as a record landed here
        # with "malformed at 'rules'": say what is missing instead.
        return f"{what} has no '{e['loc'][0]}' (a game record holds \"rules\", \"players\" and \"rounds\")."
    if e["loc"] and e["loc"][0] == "rules":
        return f"{what} is malformed at 'rules': rules is a preset name or an object of rule options."
    loc = ".".join(str(p) for p in e["loc"])
    msg = e["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    where = f" at '{loc}'" if loc else ""
    return f"{what} is malformed{where}: {msg}."

"""Client messages and HTTP request bodies: pydantic models, strict and closed.

Every websocket frame from a client is parsed by :func:`parse_client_message`;
anything that does not fit (unknown ``type``, a missing, extra or mistyped
field) raises :class:`MessageError` with code ``message/invalid``, and nothing
changes. See ``docs/server-protocol.md``.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Union, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StrictBool, StrictInt, StrictStr, StringConstraints, TypeAdapter, ValidationError

from .errors import MessageInvalid, MessageTooDeep
from .explain import explain
from .text import json_depth_exceeds

#: The largest message id that is a number: JSON's safe integers (every
#: client's JSON reads them back exactly).
ID_INT_MAX = 2**53 - 1
#: A message id: echoed back in the reply, so a safe integer or printable
#: ASCII (no text that could break or disguise a reply).
MsgId = Union[
    Annotated[StrictInt, Field(ge=-ID_INT_MAX, le=ID_INT_MAX)],
    Annotated[StrictStr, Field(max_length=64, pattern=r"^[\x20-\x7e]*$")],
    None,
]
#: What a bad ``id`` is told (rather than pydantic's words for one member of the union).
ID_RULE = (
    f"an id is a whole number from -{ID_INT_MAX} to {ID_INT_MAX}, "
    "or a string of at most 64 printable ASCII characters"
)
#: A seat token as :func:`~liars_dice.server.core.security.new_token` makes them (URL-safe base64).
Token = Annotated[StrictStr, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]
#: A name the server knows (a preset, a bot): lower-case letters, digits, ``_`` and ``-``.
Ident = Annotated[StrictStr, Field(min_length=1, max_length=40, pattern=r"^[a-z0-9_-]+$")]


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: MsgId = None


class Hello(_Msg):
    type: Literal["hello"]
    token: Token | None = None
    #: claim the seat the signed-in account holds at this table (issue 18), when there is no token
    account: StrictBool = False


class BidMsg(_Msg):
    type: Literal["bid"]
    quantity: Annotated[StrictInt, Field(ge=1, le=1000)]
    face: Annotated[StrictInt, Field(ge=1, le=9)]
    show: Annotated[list[Annotated[StrictInt, Field(ge=1, le=9)]], Field(max_length=60)] = []
    # A raise from ``legal.raises`` may be sent back as served: its words and
    # chance are bounded and ignored (the bid is ``quantity`` and ``face``).
    label: Annotated[StrictStr, Field(max_length=64)] | None = None
    words: Annotated[StrictStr, Field(max_length=200)] | None = None
    chance: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] | None = None


class ChallengeMsg(_Msg):
    type: Literal["challenge"]


class CalzaMsg(_Msg):
    """Claim the count is exactly the current bid (rules with ``calza``, RULES.md ``perudo``)."""

    type: Literal["calza"]


class ChatMsg(_Msg):
    type: Literal["chat"]
    # A structural bound only: the text rules and Settings.chat_max are checked after parsing.
    text: Annotated[StrictStr, Field(min_length=1, max_length=2000)]


#: A seed or a commitment: 64 lowercase hex digits (``docs/fair-dice.md``).
Hex64 = Annotated[StrictStr, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


class SeedMsg(_Msg):
    """A person's page's own seed for the next deal, answering the server's
    commitment to it (fair dice version 2, ``docs/fair-dice.md``)."""

    type: Literal["seed"]
    commitment: Hex64
    seed: Hex64


class AddBotMsg(_Msg):
    type: Literal["add_bot"]
    bot: Ident
    seat: Annotated[StrictInt, Field(ge=0, le=5)] | None = None


class RemoveBotMsg(_Msg):
    type: Literal["remove_bot"]
    seat: Annotated[StrictInt, Field(ge=0, le=5)]


class StartMsg(_Msg):
    type: Literal["start"]


class RematchMsg(_Msg):
    """"Play again": the table's next game, once this one is over (issue 17)."""

    type: Literal["rematch"]


class LeaveMsg(_Msg):
    type: Literal["leave"]


class PingMsg(_Msg):
    type: Literal["ping"]


ClientMessage = Annotated[
    Union[
        Hello, BidMsg, ChallengeMsg, CalzaMsg, ChatMsg, SeedMsg, AddBotMsg, RemoveBotMsg, StartMsg, RematchMsg, LeaveMsg,
        PingMsg,
    ],
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(ClientMessage)


def client_message_types() -> tuple[type[BaseModel], ...]:
    """Every member of the client message union (:data:`ClientMessage`): the
    registry the session's dispatch is checked against."""
    return tuple(get_args(get_args(ClientMessage)[0]))


class MessageError(MessageInvalid):
    """A refused client message. :ivar code: ``message/invalid`` or
    ``message/too_large``. :ivar message: one sentence. :ivar msg_id: the message's ``id``, if read."""

    def __init__(self, code: str, message: str, msg_id: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.msg_id = msg_id


def parse_client_message(text: str, max_bytes: int, max_depth: int = 8) -> Any:
    """One websocket frame to a message model. The text of a chat line is
    checked by :func:`liars_dice.server.core.text.clean_text` after this.

    :raises MessageError: ``message/too_large`` over ``max_bytes`` (UTF-8),
        ``message/invalid`` for anything that is not one well-formed message.
    :raises MessageTooDeep: JSON nested deeper than ``max_depth`` (checked
        before parsing, so no recursive decoder ever sees it).
    """
    if len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise MessageError("message/too_large", f"A message may hold at most {max_bytes} bytes.")
    if json_depth_exceeds(text, max_depth):
        raise MessageTooDeep(f"JSON may nest arrays and objects at most {max_depth} deep.")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise MessageError("message/invalid", "The message is not JSON.") from None
    if not isinstance(data, dict):
        raise MessageError("message/invalid", "A message must be a JSON object with a 'type'.")
    msg_id = _echoable_id(data.get("id"))
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as e:
        # Client values and keys reach the sentence bounded (server/explain.py).
        where, what = explain(e.errors(), MESSAGE_FIELDS, hints={"id": ID_RULE}, skip=_TYPE_NAMES)
        raise MessageError("message/invalid", f"Bad message ({where or 'message'}): {what}.", msg_id) from None


#: The longest refused frame whose ``id`` is read (:func:`id_of`): a move is
#: under 200 characters; a 4 KiB frame of brackets inside a string cost 260 us
#: to scan for depth, so a refused flood cost as much as a read one.
ID_SCAN_CHARS = 512


def id_of(text: Any, max_bytes: int, max_depth: int = 8) -> Any:
    """The ``id`` of a frame the server will not read (over the message rate),
    to repeat in its refusal; ``None`` unless ``text`` is a JSON object of at
    most :data:`ID_SCAN_CHARS` characters within :func:`parse_client_message`'s
    bounds with a valid ``id``. Never raises. The work is bounded: a
    connection draws a bounded number of refusals, each of a short frame."""
    if not isinstance(text, str) or len(text) > min(max_bytes, ID_SCAN_CHARS) or json_depth_exceeds(text, max_depth):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return _echoable_id(data.get("id")) if isinstance(data, dict) else None


def _echoable_id(value: Any) -> Any:
    """``value`` if it is a valid :data:`MsgId` to repeat in an error reply, else ``None``."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= ID_INT_MAX:
        return value
    if isinstance(value, str) and len(value) <= 64 and value.isascii() and value.isprintable():
        return value
    return None


_TYPE_NAMES = {
    "hello", "bid", "challenge", "calza", "chat", "seed", "add_bot", "remove_bot", "start", "rematch", "leave", "ping",
}


#: Fields of :class:`CreateTable` that say what table to make: a value that
#: breaks a rule there is ``table/invalid`` (docs/server-protocol.md), not
#: ``message/invalid``. Their ranges come from the settings (checked by the service).
RULE_FIELDS = frozenset({"preset", "options", "rules_text", "seats", "turn_timer"})

# -- HTTP bodies ---------------------------------------------------------------


#: The longest rules file text a create request may carry (characters).
RULES_TEXT_MAX = 8192


class CreateTable(BaseModel):
    """``POST /api/tables``."""

    model_config = ConfigDict(extra="forbid")
    nickname: Annotated[StrictStr, Field(max_length=200)]
    preset: Ident = "classic"
    options: dict[str, Any] = {}
    #: a rules file's text, TOML or JSON (``{"preset": NAME, ...}`` or every
    #: option), uploaded or pasted in the form; replaces ``preset`` and ``options``.
    #: Every option fits in about 1 KiB; the body limit (16 KiB) bounds it anyway.
    rules_text: Annotated[StrictStr, Field(max_length=RULES_TEXT_MAX)] | None = None
    #: the rule set ``rules_text`` reads as, set once by the edge's gate (it parses
    #: the file and checks its strings); the core takes it from here, not parsing again
    _parsed_rules: Any = PrivateAttr(default=None)
    seats: StrictInt = 4
    turn_timer: StrictInt | None = None
    private: bool = False
    #: "bots learn from this player's past games" (docs/opponent-models.md): the
    #: table's bots get opponent models fitted on the seated people's finished public games.
    bots_learn: bool = False
    #: the table's games count for the ratings (issue 18): needs a turn timer
    #: and a standard rule set (a preset unchanged, or a rules file)
    rated: bool = False


class RulesQuery(BaseModel):
    """``POST /api/rules/summary``: a preset and options, or a rules file's text,
    as in :class:`CreateTable` (the body limit, 16 KiB, bounds ``options``)."""

    model_config = ConfigDict(extra="forbid")
    preset: Ident = "classic"
    options: dict[str, Any] = {}
    #: a rules file's text, previewed before the table is made (issue 17); replaces ``preset`` and ``options``
    rules_text: Annotated[StrictStr, Field(max_length=RULES_TEXT_MAX)] | None = None
    #: as :attr:`CreateTable._parsed_rules`
    _parsed_rules: Any = PrivateAttr(default=None)


class JoinTable(BaseModel):
    """``POST /api/tables/{code}/join``."""

    model_config = ConfigDict(extra="forbid")
    nickname: Annotated[StrictStr, Field(max_length=200)]
    seat: Annotated[StrictInt, Field(ge=0, le=5)] | None = None


class MyGames(BaseModel):
    """``POST /api/my-games``."""

    model_config = ConfigDict(extra="forbid")
    tokens: Annotated[list[Token], Field(max_length=200)]


def _field_names(*models: type[BaseModel]) -> frozenset[str]:
    return frozenset(name for m in models for name in m.model_fields)


#: Every field of a websocket message (the parts of an error's path worth naming).
MESSAGE_FIELDS = _field_names(
    Hello, BidMsg, ChallengeMsg, CalzaMsg, ChatMsg, SeedMsg, AddBotMsg, RemoveBotMsg, StartMsg, RematchMsg, LeaveMsg,
    PingMsg,
)
#: Every field of an HTTP body.
BODY_FIELDS = _field_names(CreateTable, JoinTable, MyGames, RulesQuery)

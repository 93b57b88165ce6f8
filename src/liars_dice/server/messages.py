"""Client messages and HTTP request bodies: pydantic models, strict and closed.

Every websocket frame from a client is parsed by :func:`parse_client_message`;
anything that does not fit (unknown ``type``, a missing, extra or mistyped
field) raises :class:`MessageError` with code ``message/invalid``, and nothing
changes. See ``docs/server-protocol.md``.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, TypeAdapter, ValidationError

from .errors import MessageInvalid

MsgId = Union[StrictInt, Annotated[StrictStr, Field(max_length=64)], None]


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: MsgId = None


class Hello(_Msg):
    type: Literal["hello"]
    token: Annotated[StrictStr, Field(min_length=1, max_length=128)] | None = None


class BidMsg(_Msg):
    type: Literal["bid"]
    quantity: Annotated[StrictInt, Field(ge=1, le=1000)]
    face: Annotated[StrictInt, Field(ge=1, le=9)]
    show: Annotated[list[Annotated[StrictInt, Field(ge=1, le=9)]], Field(max_length=60)] = []


class ChallengeMsg(_Msg):
    type: Literal["challenge"]


class ChatMsg(_Msg):
    type: Literal["chat"]
    text: Annotated[StrictStr, Field(min_length=1, max_length=300)]


class AddBotMsg(_Msg):
    type: Literal["add_bot"]
    bot: Annotated[StrictStr, Field(min_length=1, max_length=40)]
    seat: Annotated[StrictInt, Field(ge=0, le=5)] | None = None


class RemoveBotMsg(_Msg):
    type: Literal["remove_bot"]
    seat: Annotated[StrictInt, Field(ge=0, le=5)]


class StartMsg(_Msg):
    type: Literal["start"]


class LeaveMsg(_Msg):
    type: Literal["leave"]


class PingMsg(_Msg):
    type: Literal["ping"]


ClientMessage = Annotated[
    Union[Hello, BidMsg, ChallengeMsg, ChatMsg, AddBotMsg, RemoveBotMsg, StartMsg, LeaveMsg, PingMsg],
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(ClientMessage)


class MessageError(MessageInvalid):
    """A refused client message. :ivar code: ``message/invalid`` or
    ``message/too_large``. :ivar message: one sentence. :ivar msg_id: the message's ``id``, if read."""

    def __init__(self, code: str, message: str, msg_id: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.msg_id = msg_id


def parse_client_message(text: str, max_bytes: int) -> Any:
    """One websocket frame to a message model.

    :raises MessageError: ``message/too_large`` over ``max_bytes`` (UTF-8),
        ``message/invalid`` for anything that is not one well-formed message.
    """
    if len(text) > max_bytes or len(text.encode("utf-8")) > max_bytes:
        raise MessageError("message/too_large", f"A message may hold at most {max_bytes} bytes.")
    try:
        data = json.loads(text)
    except ValueError:
        raise MessageError("message/invalid", "The message is not JSON.") from None
    if not isinstance(data, dict):
        raise MessageError("message/invalid", "A message must be a JSON object with a 'type'.")
    msg_id = data.get("id") if isinstance(data.get("id"), (int, str)) else None
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ()) if p not in _TYPE_NAMES) or "message"
        raise MessageError("message/invalid", f"Bad message ({where}): {err.get('msg', 'invalid')}.", msg_id) from None


_TYPE_NAMES = {"hello", "bid", "challenge", "chat", "add_bot", "remove_bot", "start", "leave", "ping"}


# -- HTTP bodies ---------------------------------------------------------------


class CreateTable(BaseModel):
    """``POST /api/tables``."""

    model_config = ConfigDict(extra="forbid")
    nickname: Annotated[str, Field(max_length=200)]
    preset: Annotated[str, Field(max_length=40)] = "classic"
    options: dict[str, Any] = {}
    seats: Annotated[int, Field(ge=2, le=6)] = 4
    turn_timer: Annotated[int, Field(ge=5, le=600)] | None = None
    private: bool = False


class JoinTable(BaseModel):
    """``POST /api/tables/{code}/join``."""

    model_config = ConfigDict(extra="forbid")
    nickname: Annotated[str, Field(max_length=200)]
    seat: Annotated[int, Field(ge=0, le=5)] | None = None


class MyGames(BaseModel):
    """``POST /api/my-games``."""

    model_config = ConfigDict(extra="forbid")
    tokens: Annotated[list[Annotated[str, Field(max_length=128)]], Field(max_length=200)]

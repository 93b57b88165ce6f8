"""The bot protocol (``docs/bot-protocol.md``): JSON lines between a game and
a bot program, as UCI is for chess engines.

* :mod:`.messages`: the typed :class:`Request` and :class:`Reply`, size limits,
  :class:`ProtocolError`.
* :mod:`.convert`: a request to a :class:`~liars_dice.engine.SeatView` and back.
* :mod:`.serve`: the loop behind ``liars-dice bot``.
* :mod:`.external`: :class:`ExternalBot`, a subprocess behind the bot interface.

Layer: protocol, above match; imports engine, records and bots only.
"""

from .convert import request_from_view, rules_of, rules_spec, view_from_request
from .external import DEFAULT_TIMEOUT, BotCrashedError, BotError, BotReplyError, BotTimeoutError, ExternalBot
from .messages import MAX_LINE_BYTES, ProtocolError, Reply, Request, error_line, parse_reply, parse_request
from .serve import answer, serve

__all__ = [
    "BotCrashedError", "BotError", "BotReplyError", "BotTimeoutError", "DEFAULT_TIMEOUT", "ExternalBot",
    "MAX_LINE_BYTES", "ProtocolError", "Reply", "Request", "answer", "error_line", "parse_reply",
    "parse_request", "request_from_view", "rules_of", "rules_spec", "serve", "view_from_request",
]

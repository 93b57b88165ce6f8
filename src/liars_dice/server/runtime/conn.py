"""One websocket client: its seat, its rate limit, and its own send queue
and sender task, so a slow client never holds up a table."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from typing import Any, Protocol

from starlette.websockets import WebSocket

from ..core.explain import bounded


class ConnLimiter(Protocol):
    """A connection's message rate (the edge's :class:`~liars_dice.server.edge.limits.ConnLimiter`)."""

    def allow(self) -> bool:
        """Whether one more message is allowed now."""


#: Close codes (docs/server-protocol.md, "Close codes"): the client broke the
#: protocol (said no hello in time...): a page does not reconnect.
CLIENT_FAULT = 1008
#: The server failed serving this connection: a page reconnects with back-off.
SERVER_FAULT = 1011
#: The client read its messages too slowly (its queue filled): it may reconnect.
TOO_SLOW = 4408


def dumps(msg: dict[str, Any]) -> str:
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


class Conn:
    """One websocket client. ``seat`` is ``None`` for a visitor (or before ``hello``).

    :param queue_max: messages queued before the client counts as stuck and is closed.

    The send queue is a deque with one future the sender waits on when it is
    empty, not an ``asyncio.Queue``: that holds three deques and an event per
    socket the sender never needs (about 2 KiB a socket; issue 16, "at most
    250 KiB per open table").
    """

    __slots__ = ("ws", "seat", "limiter", "queue", "queue_max", "sender", "closed", "hello_done", "close_code",
                 "_wake")

    def __init__(self, ws: WebSocket, limiter: "ConnLimiter", queue_max: int = 256) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.limiter = limiter
        #: texts waiting to be sent, in order; ``None`` last: close after them
        self.queue: deque[str | None] = deque()
        self.queue_max = queue_max
        self._wake: asyncio.Future[None] | None = None  #: set while the sender waits for a text
        self.sender: asyncio.Task[None] | None = None
        self.closed = False
        self.hello_done = False
        #: the close code the sender ends with (docs/server-protocol.md, "Close codes")
        self.close_code = CLIENT_FAULT

    def start(self) -> None:
        self.sender = asyncio.create_task(self._send_loop())

    def send(self, msg: dict[str, Any]) -> None:
        """Queue one message (serialised here)."""
        self.send_text(dumps(msg))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if len(self.queue) >= self.queue_max:
            self.close(TOO_SLOW)
            return
        self._put(text)

    def _put(self, text: str | None) -> None:
        self.queue.append(text)
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    def close(self, code: int) -> None:
        """Send what is queued, then close with ``code`` (the first code asked for wins)."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            self._put(None)

    def error(self, code: str, message: str, msg_id: Any = None) -> None:
        self.send({"type": "error", "code": code, "message": bounded(message), "id": msg_id})

    async def _send_loop(self) -> None:
        text: str | None = ""
        try:
            loop = asyncio.get_running_loop()
            while True:
                while not self.queue:
                    self._wake = loop.create_future()
                    try:
                        await self._wake
                    finally:
                        self._wake = None
                text = self.queue.popleft()
                if text is None:
                    break
                await self.ws.send_text(text)
        except Exception:  # noqa: BLE001 - the client went away
            pass
        finally:
            self.closed = True
            if text is None:
                try:
                    await self.ws.close(code=self.close_code)
                except Exception:  # noqa: BLE001
                    pass

    async def stop(self) -> None:
        self.closed = True
        if self.sender is not None:
            self.sender.cancel()
            try:
                await self.sender
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass

"""Websocket connections: one :class:`Conn` per client, each with its own send
queue and sender task, so a slow client never holds up a table."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from typing import TYPE_CHECKING

from starlette.websockets import WebSocket

if TYPE_CHECKING:
    from .limits import ConnLimiter
    from .tables import Table

#: Messages queued for one client before it counts as stuck and is closed.
QUEUE_LIMIT = 256


class Conn:
    """One websocket client. ``seat`` is ``None`` for a visitor (or before ``hello``)."""

    __slots__ = ("ws", "seat", "limiter", "queue", "sender", "closed", "hello_done")

    def __init__(self, ws: WebSocket, limiter: "ConnLimiter") -> None:
        self.ws = ws
        self.seat: int | None = None
        self.limiter = limiter
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.sender: asyncio.Task[None] | None = None
        self.closed = False
        self.hello_done = False

    def start(self) -> None:
        self.sender = asyncio.create_task(self._send_loop())

    def send(self, msg: dict[str, Any]) -> None:
        """Queue one message (serialised here)."""
        self.send_text(json.dumps(msg, separators=(",", ":"), ensure_ascii=False))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= QUEUE_LIMIT:
            self.closed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(text)

    def error(self, code: str, message: str, msg_id: Any = None) -> None:
        self.send({"type": "error", "code": code, "message": message, "id": msg_id})

    async def _send_loop(self) -> None:
        text: str | None = ""
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                await self.ws.send_text(text)
        except Exception:  # noqa: BLE001 - the client went away
            pass
        finally:
            self.closed = True
            if text is None:
                try:
                    await self.ws.close(code=1008)
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


# -- telling a table's clients --------------------------------------------------


def _dumps(msg: dict[str, Any]) -> str:
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


def broadcast_state(table: "Table") -> None:
    """Send each client its own seat's state message (visitors the public one);
    each distinct message is built and serialised once."""
    from .views import state_message_text

    cache: dict[int | None, str] = {}
    for c in list(table.conns):
        if not c.hello_done:
            continue
        text = cache.get(c.seat)
        if text is None:
            text = cache[c.seat] = state_message_text(table, c.seat)
        c.send_text(text)


def broadcast(table: "Table", msg: dict[str, Any]) -> None:
    """The same message to every client of ``table``."""
    text = _dumps(msg)
    for c in list(table.conns):
        if c.hello_done:
            c.send_text(text)


def broadcast_table(table: "Table") -> None:
    broadcast(table, {"type": "table", "table": table.summary()})


def broadcast_presence(table: "Table") -> None:
    connected = table.connected_seats()
    broadcast(table, {
        "type": "presence",
        "seats": [{"seat": s.index, "connected": s.kind == "bot" or s.index in connected} for s in table.seats],
        "visitors": table.visitors(),
    })

"""Websocket clients and telling them things.

One :class:`Conn` per client, each with its own send queue and sender task,
so a slow client never holds up a table. The :class:`Broadcaster` sends a
room's clients what changed: each its own view (built once per seat), the
table summary, chat, and presence, which is coalesced: connects and
disconnects within ``presence_interval`` seconds make one ``presence``
message per client, so a crowd arriving costs a number of messages linear in
its size, not its square.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket

from .security import RateLimiter
from .tables import SeatKind

if TYPE_CHECKING:
    from .room import Room


def dumps(msg: dict[str, Any]) -> str:
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


class Conn:
    """One websocket client. ``seat`` is ``None`` for a visitor (or before ``hello``).

    :param queue_max: messages queued before the client counts as stuck and is closed.
    """

    __slots__ = ("ws", "seat", "limiter", "queue", "queue_max", "sender", "closed", "hello_done")

    def __init__(self, ws: WebSocket, limiter: RateLimiter, queue_max: int = 256) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.limiter = limiter
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.queue_max = queue_max
        self.sender: asyncio.Task[None] | None = None
        self.closed = False
        self.hello_done = False

    def start(self) -> None:
        self.sender = asyncio.create_task(self._send_loop())

    def send(self, msg: dict[str, Any]) -> None:
        """Queue one message (serialised here)."""
        self.send_text(dumps(msg))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= self.queue_max:
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


class Broadcaster:
    """Tells a room's clients (those past ``hello``) what changed.

    :param presence_interval: seconds over which presence changes are gathered
        into one message (0: one message per change, sent at once).
    """

    def __init__(self, presence_interval: float = 0.25) -> None:
        self.presence_interval = presence_interval

    def state(self, room: "Room") -> None:
        """Each client its own seat's ``state`` message, visitors the spectators'
        one; each distinct message is built and serialised once."""
        from .views import state_message_text

        if room.table.state is None:
            return
        cache: dict[int | None, str] = {}
        for c in list(room.conns):
            text = cache.get(c.seat)
            if text is None:
                text = cache[c.seat] = state_message_text(room, c.seat)
            c.send_text(text)

    def send_all(self, room: "Room", msg: dict[str, Any]) -> None:
        """The same message to every client of ``room``."""
        text = dumps(msg)
        for c in list(room.conns):
            c.send_text(text)

    def table(self, room: "Room") -> None:
        self.send_all(room, {"type": "table", "table": room.summary()})

    def chat(self, room: "Room", line: dict[str, Any]) -> None:
        self.send_all(room, {"type": "chat", **line})

    def presence(self, room: "Room") -> None:
        """Presence changed: one ``presence`` message to every client within
        ``presence_interval`` seconds, however many changes come meanwhile."""
        if self.presence_interval <= 0:
            self._flush_presence(room)
            return
        if room.presence_pending:
            return
        room.presence_pending = True
        asyncio.get_running_loop().call_later(self.presence_interval, self._flush_presence, room)

    def _flush_presence(self, room: "Room") -> None:
        room.presence_pending = False
        connected = room.connected_seats()
        self.send_all(room, {
            "type": "presence",
            "seats": [
                {"seat": s.index, "connected": s.kind is SeatKind.BOT or s.index in connected}
                for s in room.table.seats
            ],
            "visitors": room.visitors,
        })

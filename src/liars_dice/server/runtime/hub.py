"""Telling a room's clients what changed.

The :class:`Broadcaster` sends each client its own view (the public part
built once per event, each seat's part once per seat), the table summary,
chat, and presence, which is coalesced: connects and disconnects within
``presence_interval`` seconds make one ``presence`` message per client, and
the interval grows with the room's size, so a crowd arriving costs a number
of messages linear in its size, not its square.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .conn import dumps
from .room import Room
from ..core.tables import SeatKind
from ..core.views import state_texts


class Broadcaster:
    """Tells a room's clients (those past ``hello``) what changed.

    :param presence_interval: seconds over which presence changes are gathered
        into one message (0: one message per change, sent at once).
    :param presence_fanout: clients a room may have before its interval grows
        in proportion: a room of ``n > presence_fanout`` clients waits
        ``presence_interval * n / presence_fanout`` seconds, so presence costs
        at most ``presence_fanout / presence_interval`` sends a second per room,
        and a crowd of ``n`` arriving costs O(n) sends in all, not O(n^2).
    """

    def __init__(self, presence_interval: float = 0.25, presence_fanout: int = 200) -> None:
        self.presence_interval = presence_interval
        self.presence_fanout = presence_fanout

    def state(self, room: Room) -> None:
        """Each client its own seat's ``state`` message, visitors the spectators'
        one: the public part is built once per event, each seat's own part once
        per seat (:func:`~liars_dice.server.core.views.state_texts`)."""
        if room.table.state is None:
            return
        conns = list(room.conns)
        texts = state_texts(room, {c.seat for c in conns})
        for c in conns:
            c.send_text(texts[c.seat])

    def send_all(self, room: Room, msg: dict[str, Any]) -> None:
        """The same message to every client of ``room``."""
        text = dumps(msg)
        for c in list(room.conns):
            c.send_text(text)

    def table(self, room: Room) -> None:
        self.send_all(room, {"type": "table", "table": room.summary()})

    def chat(self, room: Room, line: dict[str, Any]) -> None:
        self.send_all(room, {"type": "chat", **line})

    def presence(self, room: Room) -> None:
        """Presence changed: one ``presence`` message to every client within
        ``presence_interval`` seconds, however many changes come meanwhile."""
        if self.presence_interval <= 0:
            self._flush_presence(room)
            return
        if room.presence_pending:
            return
        room.presence_pending = True
        delay = self.presence_interval * max(1.0, len(room.conns) / self.presence_fanout)
        asyncio.get_running_loop().call_later(delay, self._flush_presence, room)

    def _flush_presence(self, room: Room) -> None:
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

"""The runtime side of a table: what is never stored.

A :class:`Room` holds the current :class:`~liars_dice.server.core.tables.Table`
value and everything around it that lives only in this process: the lock that
orders its changes, the connected clients (with per-seat counts, so a summary
costs the number of seats, not the number of clients), the pending timers,
the bot objects, and the caches of what is sent.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...bots import Bot, make_bot
from .conn import Conn
from ..core.tables import SeatKind, Table


class Room:
    """One live table. ``table`` is replaced (never mutated) by each change,
    under ``lock``.

    :ivar timers: pending timer tasks by key (see :class:`~liars_dice.server.runtime.timers.Scheduler`).
    :ivar deadline: the turn timer's end (UNIX seconds), or ``None``.
    :ivar reveal_until: when the reveal of the last challenge is over (UNIX
        seconds; 0.0: no reveal showing). The next turn's clock starts then.
    :ivar results_cache: ``(rounds, results as data, as JSON text)``, see :mod:`~liars_dice.server.core.views`.
    :ivar presence_pending: a coalesced ``presence`` message is due.
    :ivar unsure: a write of this table failed or its commit is uncertain: the
        next change first re-reads the table's events from the store of record.
    """

    __slots__ = (
        "table", "lock", "conns", "_seat_conns", "visitors", "timers", "deadline", "reveal_until", "_bots",
        "results_cache", "presence_pending", "turn_for", "learned", "models_given", "unsure", "refreshed", "refreshing",
        "creator",
        "__weakref__",
    )

    def __init__(self, table: Table) -> None:
        self.table = table
        self.lock = asyncio.Lock()
        self.conns: set[Conn] = set()
        self._seat_conns: dict[int, int] = {}
        self.visitors = 0
        self.timers: dict[Any, asyncio.Task[Any]] = {}
        self.deadline: float | None = None
        self.reveal_until = 0.0
        self._bots: dict[int, tuple[str, Bot]] = {}
        self.results_cache: tuple[int, list[dict[str, Any]], str] | None = None
        #: when a replica was last read again for a token it did not know (monotonic s; :meth:`.cluster.Cluster.refresh`)
        self.refreshed = 0.0
        #: the replica's next such read, while it waits to start (an ``asyncio.Task``; :meth:`.cluster.Cluster.refresh`)
        self.refreshing: Any = None
        self.presence_pending = False
        self.turn_for: tuple[Any, ...] | None = None  #: what the pending turn timer is for
        self.learned: dict[str, Any] | None = None  #: opponent models by person (table option bots_learn)
        self.models_given: set[int] = set()  #: bot seats that got them
        #: a write failed or its commit is uncertain: re-read the events before the next change
        self.unsure = False
        #: the address that created the table (stored in ``tables.creator`` while it is live, and read
        #: back at a restart or a takeover; None for a replica): the key of its bots' turns
        #: (:mod:`.bot_queue`) and of its place under the open-table cap per address
        self.creator: str | None = None

    @property
    def code(self) -> str:
        return self.table.code

    # -- clients -------------------------------------------------------------------

    def attach(self, conn: Conn, seat: int | None) -> None:
        """``conn`` said hello, for ``seat`` (``None``: a visitor)."""
        conn.seat = seat
        self.conns.add(conn)
        self._count(seat, +1)

    def detach(self, conn: Conn) -> bool:
        """``conn`` went away; whether it had been attached."""
        if conn not in self.conns:
            return False
        self.conns.discard(conn)
        self._count(conn.seat, -1)
        return True

    def unseat(self, seat: int) -> list[Conn]:
        """Every client of ``seat`` now watches (the seat was given up); returns them."""
        moved = [c for c in self.conns if c.seat == seat]
        for c in moved:
            self._count(seat, -1)
            c.seat = None
            self._count(None, +1)
        return moved

    def _count(self, seat: int | None, d: int) -> None:
        if seat is None:
            self.visitors += d
        else:
            n = self._seat_conns.get(seat, 0) + d
            if n:
                self._seat_conns[seat] = n
            else:
                self._seat_conns.pop(seat, None)

    def connected_seats(self) -> set[int]:
        return set(self._seat_conns)

    def is_connected(self, seat: int) -> bool:
        return seat in self._seat_conns

    def summary(self) -> dict[str, Any]:
        return self.table.summary(self.connected_seats(), self.visitors)

    # -- bots ------------------------------------------------------------------------

    def release(self) -> None:
        """The game is over (finished or closed): let go of what only play
        needs, the bot objects (a strong bot's plans and caches) and the
        opponent models (issue 16 fault 12). The table value, its clients and
        the views' caches stay while the room is in memory."""
        self._bots.clear()
        self.learned = None
        self.models_given.clear()
        self.turn_for = None
        self.deadline = None

    def bot(self, seat: int) -> Bot:
        """The bot object playing ``seat`` (made once per seat and bot name)."""
        name = self.table.seats[seat].bot
        assert self.table.seats[seat].kind is SeatKind.BOT and name is not None
        have = self._bots.get(seat)
        if have is None or have[0] != name:
            have = self._bots[seat] = (name, make_bot(name))
        return have[1]

    def stand_in(self, name: str) -> Bot:
        """The bot that plays a move for a person whose turn timer ran out."""
        have = self._bots.get(-1)
        if have is None or have[0] != name:
            have = self._bots[-1] = (name, make_bot(name))
        return have[1]

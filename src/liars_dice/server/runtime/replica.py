"""A replica of a table another worker owns, kept for this worker's sockets.

The owner publishes each committed batch of events (:mod:`.broker`); this
worker applies them to its room's table with the pure core
(:func:`~liars_dice.server.core.tables.apply`, the same function the owner
ran), then tells its own sockets, each its own view, as the owner tells its
own (:mod:`.hub`). It never schedules a timer or a bot turn: the owner does.

Batches are numbered (the first event's ``seq``): an old batch (already
applied, e.g. the reply of a command this worker forwarded) is skipped, and a
gap (a message lost on the way) makes the replica read the table again from
the database, so a replica is never wrong, only at most one batch late.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from collections.abc import Sequence
from typing import Any

from ..core.tables import Event, EventKind, apply, rebuild
from .hub import Broadcaster
from .room import Room
from .store import Store

#: Events after which the table summary changes (as the owner's :mod:`.service`).
_TABLE_EVENTS = frozenset({
    EventKind.JOINED, EventKind.BOT_ADDED, EventKind.SEAT_FREED, EventKind.HOST, EventKind.CLOSED,
    EventKind.STARTED, EventKind.REPLACED, EventKind.RETURNED, EventKind.FINISHED,
})
#: Events after which the game view changes.
_GAME_EVENTS = frozenset({
    EventKind.STARTED, EventKind.DEALT, EventKind.MOVE, EventKind.REPLACED, EventKind.RETURNED, EventKind.FINISHED,
})


def decode(events: Sequence[tuple[str, dict[str, Any]]]) -> list[Event]:
    """``[(kind, payload)]`` as published, as events.

    :raises ValueError: an unknown kind."""
    return [Event(EventKind(k), p) for k, p in events]


async def catch_up(room: Room, first: int, events: Sequence[Event], store: Store, tell: Broadcaster, chat_kept: int) -> str:
    """Apply a published batch of events numbered from ``first`` to ``room``
    under its lock, then tell its sockets. Returns what was done: ``"old"``
    (nothing new), ``"applied"``, or ``"reread"`` (a gap: the table was read
    again from the database)."""
    async with room.lock:
        t = room.table
        last = first + len(events) - 1
        if last <= t.seq:
            return "old"
        if first > t.seq + 1:
            stored = await asyncio.to_thread(store.events, t.id)
            room.table = rebuild(stored, chat_kept)
            # the sockets learn of every event they missed, not only this batch's
            # (an empty batch, after a takeover, told them nothing: a stale view)
            how, told = "reread", [Event(EventKind(k), p) for seq, k, p in stored if seq > t.seq]
        else:
            new = t
            told = list(events[t.seq + 1 - first:])
            for e in told:
                new = replace(apply(new, e), seq=new.seq + 1)
            room.table = new
            how = "applied"
    tell_sockets(room, told, tell)
    return how


def tell_sockets(room: Room, events: Sequence[Event], tell: Broadcaster) -> None:
    """This worker's sockets learn of ``events`` (already applied): seats
    given up lose their view, then the summary, state and chat."""
    kinds = {e.kind for e in events}
    unseated = False
    for e in events:
        if e.kind is EventKind.SEAT_FREED or (e.kind is EventKind.REPLACED and e.payload.get("reason") != "grace"):
            for conn in room.unseat(e.payload["seat"]):
                unseated = True
                conn.send({"type": "unseated", "seat": e.payload["seat"], "message": (
                    "You left this game: a bot plays your seat, and you are watching."
                    if e.kind is EventKind.REPLACED else "You no longer hold a seat here: you are watching."
                )})
    if kinds & _TABLE_EVENTS:
        tell.table(room)
    if unseated:
        tell.presence(room)
    if kinds & _GAME_EVENTS or unseated:
        tell.state(room)
    for e in events:
        if e.kind is EventKind.CHAT:
            tell.chat(room, e.payload)

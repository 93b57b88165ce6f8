"""Who runs which table: the port the table service is given.

The service (:class:`~.service.TableService`) runs every change through one
path; *whether this worker may decide a table's command* is not its business.
It is given an :class:`Owners` once, at construction, as boardgame.io's master
is given its storage and transport, and never branches on which it got:

* :class:`LocalOwners`: one process runs every table (SQLite or PostgreSQL,
  no Redis);
* :class:`~.cluster.Cluster`: many workers sharing PostgreSQL and Redis; the
  table's lease holder decides, the others forward (:mod:`.cluster`).

The port talks back to the service only through :class:`Host`, given at
:meth:`Owners.start`: no back-pointer is set on the service, and neither
module imports the other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any, Protocol, TypeVar

from ...engine import DiceSource

from ..core.commands import Command
from ..core.tables import Event
from .room import Room
from .store import Op, Store

T = TypeVar("T")


class Host(Protocol):
    """What a port may ask of the service that holds it."""

    rooms: dict[str, Room]
    store: Store
    dice: DiceSource

    async def stored(self, work: Awaitable[T]) -> T:
        """``work`` on the store, a failure as a ``server/unavailable`` refusal."""

    async def resume(self, table_id: str) -> Room:
        """Rebuild ``table_id`` from the store and run it here (a takeover)."""

    async def run(self, room: Room, command: Command) -> list[Event]:
        """The one change path (a command forwarded by another worker)."""

    async def get_room(self, code: str) -> Room:
        """The room of join code ``code``, loaded if need be."""

    async def catch_up(self, room: Room, first: int, events: Sequence[Event]) -> str:
        """Apply a published batch to a replica (or re-read the store at a gap)."""

    def stop_timers(self, room: Room) -> None:
        """Another worker runs ``room`` now: none of its timers fires here."""

    def announce(self, room: Room) -> None:
        """Tell ``room``'s sockets its table and state as they are now."""


class Owners(Protocol):
    """The ownership port (see the module's text)."""

    async def start(self, host: Host) -> None:
        """Begin: the tables nobody runs are taken, the heartbeat starts."""

    async def close(self) -> None:
        """Stop; give up what this worker holds."""

    def owns(self, room: Room) -> bool:
        """This worker runs ``room``'s table."""

    async def route(self, room: Room, command: Command) -> list[Event] | None:
        """``None``: run ``command`` here; else the events the owner made of it.

        :raises LiarsDiceError: the owner refused it (its code and sentence),
            or did not answer in time."""

    def fence(self, table_id: str) -> Op | None:
        """The op that makes a write of ``table_id`` check this worker still
        owns it, in the write's transaction (``None``: nothing to check)."""

    async def regain(self, table_id: str) -> bool:
        """A write found this worker's hold on ``table_id`` lapsed: take it
        back if nobody else took it (fenced as always). Whether it did."""

    def committed(self, room: Room, first: int, events: Sequence[Event]) -> None:
        """A batch numbered from ``first`` is committed: tell the other workers."""

    async def loaded(self, room: Room) -> None:
        """A table just read from the store: run it if nobody does, else follow it."""

    async def refresh(self, room: Room) -> bool:
        """Bring a replica up to the store (a token it does not know yet); whether it read."""

    async def dropped(self, room: Room) -> None:
        """A replica left memory: stop following it."""

    def seats_changed(self, room: Room) -> None:
        """This worker's sockets at ``room`` changed seats (presence, for every worker)."""

    async def held_elsewhere(self, room: Room, seat: int) -> bool | None:
        """A socket on another worker holds ``seat`` now; ``None``: cannot be
        known now (the shared presence is away or was just restarted)."""

    def lobby(self, here: list[dict[str, Any]], most: int) -> list[dict[str, Any]]:
        """The lobby of every worker, this worker's own entries ``here`` as they are now."""

    async def owner_route(self, room: Room) -> str | None:
        """The route of the worker that runs ``room`` (``None``: no routes, or nobody)."""


class LocalOwners:
    """One process runs every table: nothing to route, fence, publish or share."""

    async def start(self, host: Host) -> None:
        return None

    async def close(self) -> None:
        return None

    def owns(self, room: Room) -> bool:
        return True

    async def route(self, room: Room, command: Command) -> list[Event] | None:
        return None

    def fence(self, table_id: str) -> Op | None:
        return None

    async def regain(self, table_id: str) -> bool:
        return True

    def committed(self, room: Room, first: int, events: Sequence[Event]) -> None:
        return None

    async def loaded(self, room: Room) -> None:
        return None

    async def refresh(self, room: Room) -> bool:
        return False

    async def dropped(self, room: Room) -> None:
        return None

    def seats_changed(self, room: Room) -> None:
        return None

    async def held_elsewhere(self, room: Room, seat: int) -> bool | None:
        return False

    def lobby(self, here: list[dict[str, Any]], most: int) -> list[dict[str, Any]]:
        return here

    async def owner_route(self, room: Room) -> str | None:
        return None


__all__ = ["Host", "LocalOwners", "Owners"]

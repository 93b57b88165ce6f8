"""Timers: what happens after a while without a client message.

:class:`Scheduler` knows nothing of the game: it runs a callback after a delay,
at most one per ``(room, key)``, and cancels them. The
:class:`~liars_dice.server.runtime.service.TableService` is given one and decides what
to schedule: a bot's turn after its pause, the turn timer, the grace period of
a person not connected, and dropping a finished table from memory.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from .room import Room

log = logging.getLogger(__name__)


class Scheduler:
    """Keyed one-shot timers per room, on the running event loop."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        """Run ``coro`` as a task the scheduler keeps (and cancels at :meth:`shutdown`)."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def after(self, room: Room, key: Hashable, delay: float, fn: Callable[[], Awaitable[Any]]) -> None:
        """Call ``fn()`` after ``delay`` seconds, replacing the timer ``key`` of ``room``."""
        self.cancel(room, key)
        task = self.spawn(self._run(room, key, delay, fn))
        room.timers[key] = task

    def pending(self, room: Room, key: Hashable) -> bool:
        task = room.timers.get(key)
        return task is not None and not task.done()

    def cancel(self, room: Room, key: Hashable) -> None:
        """Cancel the timer ``key`` of ``room`` (never the task calling this)."""
        task = room.timers.pop(key, None)
        if task is not None and task is not asyncio.current_task() and not task.done():
            task.cancel()

    def cancel_room(self, room: Room) -> None:
        for key in list(room.timers):
            self.cancel(room, key)

    async def _run(self, room: Room, key: Hashable, delay: float, fn: Callable[[], Awaitable[Any]]) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        if room.timers.get(key) is asyncio.current_task():
            del room.timers[key]
        try:
            await fn()
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a timer's failure must not stop the others
            log.exception("timer %r failed at table %s", key, room.code)

    async def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

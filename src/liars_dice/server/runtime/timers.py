"""Timers: what happens after a while without a client message.

:class:`Scheduler` knows nothing of the game: it fires a timer command into
the one change path after a delay, at most one per ``(room, key)``, and
cancels them. The commands are :class:`GraceOver` (a person not connected
within the grace period), :class:`TurnDue` (a bot's pause or the turn timer
is over) and :class:`Evict` (a finished table leaves memory); what schedules
them is :mod:`.turns`, what runs them is
:meth:`~liars_dice.server.runtime.service.TableService.execute`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, Union

from .clock import Clock, SystemClock
from .room import Room

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class GraceOver:
    """``seat``'s person has been away past the grace period."""

    seat: int


@dataclass(frozen=True, slots=True)
class TurnDue:
    """``seat`` is to move at move number ``expect``: its bot (``bot`` names
    it), or the turn timer's stand-in for a person (``bot`` is ``None``)."""

    seat: int
    expect: int
    bot: str | None


@dataclass(frozen=True, slots=True)
class Evict:
    """A finished or closed table may leave memory (if nobody came back)."""


TimerCommand = Union[GraceOver, TurnDue, Evict]
Fire = Callable[[Room, TimerCommand], Awaitable[Any]]

#: Seconds before a timer command that met a store failure is fired again: the
#: first retry, then doubled at each failure up to :data:`RETRY_MAX_SECONDS`
#: (retried until the store is back: every game goes on by itself after an
#: outage; issue 16 fault 7).
RETRY_FIRST_SECONDS = 0.25
RETRY_MAX_SECONDS = 5.0


class Scheduler:
    """Keyed one-shot timers per room, on the running event loop, each firing
    a :data:`TimerCommand` into ``fire`` (bound by the service: :meth:`bind`).

    :param clock: whose time the delays are in (:class:`~.clock.SystemClock` if
        ``None``; a test's :class:`~.clock.ManualClock` runs every timer to its
        end without a sleep)."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock or SystemClock()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._fire: Fire | None = None
        self._retry_on: tuple[type[BaseException], ...] = ()
        self.retrying = 0  #: timer commands waiting to be fired again after a failure (for tests)

    def bind(self, fire: Fire, retry_on: tuple[type[BaseException], ...] = ()) -> None:
        """Where the timer commands go (the runtime's change path), and the
        failures after which a command is fired again, with a backoff
        (:data:`RETRY_FIRST_SECONDS`, doubled, at most :data:`RETRY_MAX_SECONDS`),
        until it passes; an outage is logged once, when it starts, and once
        when it is over."""
        self._fire = fire
        self._retry_on = retry_on

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        """Run ``coro`` as a task the scheduler keeps (and cancels at :meth:`shutdown`)."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def after(self, room: Room, key: Hashable, delay: float, command: TimerCommand) -> None:
        """Fire ``command`` after ``delay`` seconds, replacing the timer ``key`` of ``room``."""
        self.cancel(room, key)
        task = self.spawn(self._run(room, key, delay, command))
        room.timers[key] = task

    def _again(self, room: Room, key: Hashable, command: TimerCommand, failures: int) -> None:
        """``command`` failed ``failures`` times in a row: fire it again after
        the backoff, unless the timer ``key`` was set anew meanwhile."""
        if key in room.timers:
            return
        if self.retrying == 0:
            log.warning("the store failed; timer commands are fired again until it is back (table %s first)", room.code)
        self.retrying += 1
        delay = min(RETRY_FIRST_SECONDS * 2 ** (failures - 1), RETRY_MAX_SECONDS)
        room.timers[key] = self.spawn(self._run(room, key, delay, command, failures))

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

    async def _run(self, room: Room, key: Hashable, delay: float, command: TimerCommand, failures: int = 0) -> None:
        passed = False
        try:
            if delay > 0:
                await self.clock.sleep(delay)
            if room.timers.get(key) is asyncio.current_task():
                del room.timers[key]
            assert self._fire is not None, "Scheduler.bind was never called"
            try:
                await self._fire(room, command)
                passed = True
            except asyncio.CancelledError:
                raise
            except self._retry_on:
                self._again(room, key, command, failures + 1)
            except Exception:  # noqa: BLE001 - a timer's failure must not stop the others
                log.exception("timer %r failed at table %s", key, room.code)
        finally:
            if failures:
                self.retrying -= 1
                if passed and self.retrying == 0:
                    log.warning("the store is back: the timer commands fired again have passed")

    async def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

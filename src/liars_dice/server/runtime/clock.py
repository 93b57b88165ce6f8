"""Time, passed in: one clock for the scheduler's timers (the grace, the turn
timer, a bot's pause, the reveal, eviction), the cluster's heartbeat (leases,
presence, the replicas' resync) and the owner-route cache.

Production runs on :class:`SystemClock`. A test passes a :class:`ManualClock`
and moves time with :meth:`ManualClock.advance` instead of sleeping, so every
timer can be run to its end (issue 36: "no test ever ran a replica's grace to
its end"; FoundationDB's simulation tests control time the same way).

The lease's expiry itself is PostgreSQL's clock (``clock_timestamp()``, see
:mod:`.ownership`): the database decides who owns a table, never a worker's
clock; this clock only says *when* a worker renews.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time
from typing import Protocol


class Clock(Protocol):
    """What the runtime asks of time. Units: seconds (float)."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (for intervals)."""

    def time(self) -> float:
        """UNIX seconds (for what a page shows: the turn's deadline, the reveal's end)."""

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (at least one pass of the event loop)."""


class SystemClock:
    """The machine's clocks and :func:`asyncio.sleep`."""

    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class ManualClock:
    """A clock that moves only when told (:meth:`advance`), for tests.

    Thread-safe: a test thread may advance it while the app's event loop runs
    in another thread (Starlette's ``TestClient``); each sleeper that falls
    due is woken on its own loop. ``time()`` starts at ``start`` (UNIX
    seconds; now if ``None``) and moves with ``monotonic()``.
    """

    def __init__(self, start: float | None = None) -> None:
        self._now = 0.0
        self._start = time.time() if start is None else start
        self._lock = threading.Lock()
        self._order = itertools.count()
        self._sleepers: list[tuple[float, int, asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def monotonic(self) -> float:
        return self._now

    def time(self) -> float:
        return self._start + self._now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        with self._lock:
            heapq.heappush(self._sleepers, (self._now + seconds, next(self._order), loop, fut))
        await fut  # a cancelled sleep leaves a done future behind: skipped when due

    def sleepers(self) -> int:
        """How many sleeps are waiting (a test may wait for a timer to be set)."""
        with self._lock:
            return sum(1 for *_, f in self._sleepers if not f.done())

    def advance(self, seconds: float) -> None:
        """Move time on by ``seconds`` and wake every sleep that fell due, in order.

        :raises ValueError: ``seconds`` is negative (time never goes back)."""
        if seconds < 0:
            raise ValueError("A clock never goes back: advance by 0 seconds or more.")
        with self._lock:
            self._now += seconds
            due = []
            while self._sleepers and self._sleepers[0][0] <= self._now:
                due.append(heapq.heappop(self._sleepers))
        for _, _, loop, fut in due:
            if not loop.is_closed():
                loop.call_soon_threadsafe(_wake, fut)


def _wake(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


__all__ = ["Clock", "ManualClock", "SystemClock"]

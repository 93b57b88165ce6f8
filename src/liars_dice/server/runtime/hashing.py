"""Password hashes (Argon2id) shared fairly between client addresses (issue 36, fault 5).

"100 client addresses through nginx, one wrong sign-in each, three waves:
honest sign-ins took 28.6, 8.3, 34.3 and 11.9 s, and one got 503. The
per-address and per-name limits hold; nothing bounds the sum fairly."

:class:`FairHashing` runs at most ``threads`` hashes at once (the hashing
pool's threads, so the pool never queues), and keeps the others waiting in a
fair queue:

* by address, round robin: an address waits behind its own earlier requests,
  not behind everyone's (each address has a queue of its own, and the
  addresses take turns, one hash each);
* in two classes: addresses with no failed sign-in (nor a request refused
  here) within :data:`SUSPECT_SECONDS`, or a good sign-in since, are served
  before the others (a flood of wrong passwords falls behind every honest
  sign-in after its first wave);
* bounded: at most ``waiting_max`` wait in all, and none is queued that
  would wait longer than :data:`WAIT_SECONDS` (the hashes ahead of it in its
  class, at the recent time of one hash, over the threads: on a loaded
  machine a hash took seconds, and 16 waiting meant 30 s). One more is
  refused at once with ``rate/limited`` (429, one sentence), never a 503 or a
  timeout; a request of an address in good standing first takes the place of
  the newest waiting request of a suspect one (which gets the 429 instead).

The address a hash is for is :data:`HASHING_FOR`, set by the edge for the
request (``edge/accounts_api.py _limit``); the metrics count the waiting
hashes (:mod:`.metrics`).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, deque
from concurrent.futures import Executor
from contextvars import ContextVar
from typing import Callable, TypeVar

from ..core.errors import RateLimited
from . import metrics

T = TypeVar("T")

#: The client address the current request's hashes are for ("" when unknown: one shared turn).
HASHING_FOR: ContextVar[str] = ContextVar("liars_dice_hashing_for", default="")

#: Seconds a failed sign-in (or recovery) puts its address behind the others.
SUSPECT_SECONDS = 600.0
#: Addresses whose failures are remembered at once (the oldest are forgotten first).
SUSPECTS_MAX = 100_000
#: The longest a request is queued to wait for its hash, seconds (issue 36:
#: an honest sign-in answered within 5 s, the hash itself included).
WAIT_SECONDS = 3.0
#: Weight of the newest hash in the running mean of a hash's time.
HASH_TIME_WEIGHT = 0.2


class HashingRefused(RateLimited):
    """Too many password checks wait already: ``rate/limited`` (429), try again soon."""


def _refused() -> HashingRefused:
    return HashingRefused("Too many password checks are waiting on this server: try again in a few seconds.")


class FairHashing:
    """The hashing pool's turns, fair by address (see the module docstring).

    :param pool: the hashing threads' executor.
    :param threads: hashes run at once (the pool's threads).
    :param waiting_max: hashes that may wait at once, over every address.
    :param clock: monotonic seconds (passed in, so tests move time).
    """

    def __init__(self, pool: Executor, threads: int, waiting_max: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.pool = pool
        self.threads = max(1, threads)
        self.waiting_max = max(0, waiting_max)
        self.clock = clock
        self.running = 0
        self.waiting = 0
        #: class (0: good standing, 1: suspect) -> address -> its waiting turns, in order
        self._queues: tuple[OrderedDict[str, deque[asyncio.Future[None]]], ...] = (OrderedDict(), OrderedDict())
        self._failed: OrderedDict[str, float] = OrderedDict()  #: address -> its last failure
        self.hash_seconds = 0.0  #: a hash's recent time (running mean; 0: none measured yet)

    # -- standing ------------------------------------------------------------------

    def failed(self, address: str) -> None:
        """A sign-in (or recovery) from ``address`` failed: its hashes wait behind
        the good-standing addresses' for :data:`SUSPECT_SECONDS`."""
        self._failed.pop(address, None)
        self._failed[address] = self.clock()
        while len(self._failed) > SUSPECTS_MAX:
            self._failed.popitem(last=False)

    def succeeded(self, address: str) -> None:
        """A sign-in from ``address`` succeeded: it is in good standing again."""
        self._failed.pop(address, None)

    def suspect(self, address: str) -> bool:
        at = self._failed.get(address)
        if at is None:
            return False
        if self.clock() - at >= SUSPECT_SECONDS:
            del self._failed[address]
            return False
        return True

    # -- turns ---------------------------------------------------------------------

    async def run(self, fn: Callable[[], T]) -> T:
        """``fn()`` on the pool, in this request's address's turn (:data:`HASHING_FOR`).

        :raises HashingRefused: ``waiting_max`` wait already (nothing was started).
        """
        address = HASHING_FOR.get()
        if self.running >= self.threads or self.waiting:
            await self._wait_turn(address)
        else:
            self.running += 1
        loop = asyncio.get_running_loop()
        began = self.clock()
        try:
            job = self.pool.submit(fn)
        except BaseException:
            self._release()
            raise

        def done(_: object) -> None:  # on the hashing thread: the turn ends on the loop
            try:
                loop.call_soon_threadsafe(self._hashed, self.clock() - began)
            except RuntimeError:  # the loop closed (shutdown)
                pass

        job.add_done_callback(done)  # the turn ends when the hash does, even if its request went away
        return await asyncio.wrap_future(job)

    def _hashed(self, seconds: float) -> None:
        w = HASH_TIME_WEIGHT
        self.hash_seconds = seconds if self.hash_seconds == 0.0 else (1 - w) * self.hash_seconds + w * seconds
        self._release()

    def _too_long(self, ahead: int) -> bool:
        """Whether a request with ``ahead`` hashes before it (and the running
        ones) would wait past :data:`WAIT_SECONDS`."""
        return (ahead + 1) * self.hash_seconds / self.threads > WAIT_SECONDS

    async def _wait_turn(self, address: str) -> None:
        cls = 1 if self.suspect(address) else 0
        ahead = sum(len(q) for q in self._queues[0].values()) if cls == 0 else self.waiting
        if self._too_long(ahead) or (
                self.waiting >= self.waiting_max and not (cls == 0 and self._evict_suspect())):
            self.failed(address)  # pressing on a full queue: behind the others next time too
            raise _refused()
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queues[cls].setdefault(address, deque()).append(fut)
        self.waiting += 1
        metrics.HASHES_WAITING.inc()
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                self._release()  # the turn was given as the request went away: pass it on
            else:
                self._drop(cls, address, fut)
            raise

    def _drop(self, cls: int, address: str, fut: asyncio.Future[None]) -> None:
        q = self._queues[cls].get(address)
        if q is not None and fut in q:
            q.remove(fut)
            self.waiting -= 1
            metrics.HASHES_WAITING.dec()
            if not q:
                del self._queues[cls][address]

    def _evict_suspect(self) -> bool:
        """Refuse the newest waiting turn of the suspect address last in line, to
        make room for an address in good standing; whether there was one."""
        suspects = self._queues[1]
        if not suspects:
            return False
        address = next(reversed(suspects))
        q = suspects[address]
        fut = q.pop()
        if not q:
            del suspects[address]
        self.waiting -= 1
        metrics.HASHES_WAITING.dec()
        fut.set_exception(_refused())
        return True

    def _release(self) -> None:
        """A hash ended: give its turn to the next address, good standing first,
        round robin within a class."""
        self.running -= 1
        while self.running < self.threads and self.waiting:
            for queues in self._queues:
                if queues:
                    address, q = next(iter(queues.items()))
                    fut = q.popleft()
                    if q:
                        queues.move_to_end(address)  # its next turn after the other addresses'
                    else:
                        del queues[address]
                    break
            else:  # pragma: no cover - waiting counts the queues' turns
                return
            self.waiting -= 1
            metrics.HASHES_WAITING.dec()
            if not fut.done():
                self.running += 1
                fut.set_result(None)


__all__ = ["FairHashing", "HASHING_FOR", "HashingRefused", "SUSPECT_SECONDS", "WAIT_SECONDS"]

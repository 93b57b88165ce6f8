"""Fair turns for the bots' decisions of one worker: round-robin over who
made the tables, not first come, first served.

A worker thinks for every bot of every table it owns on a few slots (the bots'
threads, :data:`~.bots_runner.BOT_THREADS`, or its bot processes). First come,
first served let one address's tables take every slot: stop 31's attacker
created 20 tables from one address under an accepted rules file (9 faces, 10
dice each), seated 6 ``strong`` bots at each (250-500 ms of CPU per decision,
against 3 ms in ``classic``) and left; an honest table's bot then answered in
3.4-13.5 s instead of 3 ms, for as long as those games lasted (hours).

:class:`FairQueue` gives the free slots to the waiting decisions by key (the
address that created the table, or the table's code where that is not known,
after a restart or a failover), each key's oldest first, the keys taking turns.
Within a key it is first come, first served, as before.

Taking turns was not enough (issue 36, fault 8): a decision holds its slot until
it ends, and at the largest sizes a ``strong`` decision takes 0.6 s of CPU (9
faces, 6 players of 10 dice), 2-3 s on the bots' threads that share one
interpreter lock. One address's 8 tables of 6 such bots held every slot, so an
honest bot waited for one of those to end before its turn came (0.62 s a move
became 2.3-4.8 s). So no key holds every slot: a key holds at most half of
them, rounded up (:attr:`FairQueue.share`: 2 of the 4 threads, 1 of 2
processes, all of one slot), and a freed slot goes to the waiting key that
holds the fewest, round-robin among equals. Another key's decision then starts
at once, on a slot the busiest key may not take, and on the threads it shares
the interpreter lock with 2 of that key's decisions, not 3: in
``benchmarks/bot_fairness.py`` an honest strong table's move took a median of
55 ms beside such an attack with half the slots, 229 ms with all but one, and
9,317 ms before (15-21 ms alone; benchmarks/RESULTS.md). One key alone uses
half the slots: on the threads that costs it little (they share one lock),
with bot processes half its parallelism while it is alone.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class FairQueue:
    """At most ``slots`` holders at once, at most :attr:`share` of them one key's;
    the waiting ones served by key: the key holding the fewest slots first,
    round-robin among equals, each key's oldest first.

    :param slots: how many may hold a slot at once (at least 1).
    :raises ValueError: ``slots`` below 1.
    """

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"a fair queue needs 1 slot or more, not {slots}")
        self.slots = slots
        #: the most slots one key may hold: half, rounded up (1 of 1 slot), so
        #: another key's decision never waits for the busiest key's to end
        self.share = max(1, (slots + 1) // 2) if slots > 1 else 1
        self.running = 0  #: slots held now
        self.held: dict[str, int] = {}  #: slots held now, by key
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    def waiting(self) -> int:
        """How many wait for a slot."""
        return sum(len(q) for q in self._waiting.values())

    @asynccontextmanager
    async def turn(self, key: str) -> AsyncIterator[None]:
        """Hold a slot for the block, waiting for ``key``'s turn if none is free
        (or ``key`` holds its :attr:`share`).

        A holder cancelled while it waits gives its place up; one cancelled
        once it holds the slot passes the slot on."""
        await self._take(key)
        try:
            yield
        finally:
            self._release(key)

    async def _take(self, key: str) -> None:
        if self.running < self.slots and self.held.get(key, 0) < self.share and key not in self._waiting:
            self._hold(key)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, deque()).append(fut)
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # the slot was handed over as it was cancelled: pass it on
                self._release(key)
            else:
                self._forget(key, fut)
            raise

    def _hold(self, key: str) -> None:
        self.running += 1
        self.held[key] = self.held.get(key, 0) + 1

    def _forget(self, key: str, fut: asyncio.Future[None]) -> None:
        q = self._waiting.get(key)
        if q is not None and fut in q:
            q.remove(fut)
            if not q:
                del self._waiting[key]

    def _release(self, key: str) -> None:
        """``key``'s slot is free: the free slots go to the oldest waiters of the
        keys holding the fewest (below their share), each key served once a round."""
        self.running -= 1
        left = self.held[key] - 1
        if left:
            self.held[key] = left
        else:
            del self.held[key]
        while self.running < self.slots:
            best = None
            for k in self._waiting:  # round-robin order: the first of the fewest held
                n = self.held.get(k, 0)
                if n < self.share and (best is None or n < self.held.get(best, 0)):
                    best = k
            if best is None:
                return
            q = self._waiting[best]
            fut = q.popleft()
            if q:
                self._waiting.move_to_end(best)  # this key has had its turn: the others first
            else:
                del self._waiting[best]
            if not fut.done():
                self._hold(best)
                fut.set_result(None)  # the slot passes straight to it

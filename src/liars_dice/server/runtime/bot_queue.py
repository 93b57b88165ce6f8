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
So one address's tables, however many and however costly, hold at most the
slots they already have plus one turn in each round: an honest decision waits
for at most the decisions running and one of each other key. Within a key it
is first come, first served, as before.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class FairQueue:
    """At most ``slots`` holders at once; the waiting ones served round-robin by key.

    :param slots: how many may hold a slot at once (at least 1).
    :raises ValueError: ``slots`` below 1.
    """

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"a fair queue needs 1 slot or more, not {slots}")
        self.slots = slots
        self.running = 0  #: slots held now
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    def waiting(self) -> int:
        """How many wait for a slot."""
        return sum(len(q) for q in self._waiting.values())

    @asynccontextmanager
    async def turn(self, key: str) -> AsyncIterator[None]:
        """Hold a slot for the block, waiting for ``key``'s turn if none is free.

        A holder cancelled while it waits gives its place up; one cancelled
        once it holds the slot passes the slot on."""
        await self._take(key)
        try:
            yield
        finally:
            self._release()

    async def _take(self, key: str) -> None:
        if self.running < self.slots and not self._waiting:
            self.running += 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, deque()).append(fut)
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # the slot was handed over as it was cancelled: pass it on
                self._release()
            else:
                self._forget(key, fut)
            raise

    def _forget(self, key: str, fut: asyncio.Future[None]) -> None:
        q = self._waiting.get(key)
        if q is not None and fut in q:
            q.remove(fut)
            if not q:
                del self._waiting[key]

    def _release(self) -> None:
        """A slot is free: it goes to the oldest waiter of the next key in turn."""
        while self._waiting:
            key, q = next(iter(self._waiting.items()))
            fut = q.popleft()
            if q:
                self._waiting.move_to_end(key)  # this key has had its turn: the others first
            else:
                del self._waiting[key]
            if not fut.done():
                fut.set_result(None)  # the slot passes straight to it: running stays the same
                return
        self.running -= 1

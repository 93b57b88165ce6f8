"""Rate limits and caps per client address: the abuse guard of one app.

Rates are counted by the :mod:`limits` library (moving windows: in memory
with one worker; with several, in Redis through ``limits.aio`` on redis-py's
asyncio client, and a websocket's own message rate in its worker's memory);
caps (open tables, sockets) are live counts kept here, shared between the
workers at each heartbeat (:meth:`Guard.share`); with several workers a
socket's place under its caps is also claimed in Redis in one step
(:meth:`Guard.open_socket`). Every number comes from
the :class:`~liars_dice.server.core.config.Settings`. A refusal is one of the
server's errors (:mod:`.errors`), with a stable code and one sentence:

===================  ======  ===================================================
``rate/limited``     429     too many requests or messages of one kind
``table/too_many``   429     too many open tables from this address
``server/busy``      503     as many open tables as the server takes
``socket/too_many``  429/WS  too many websocket connections (address, visitors of a table, seat)
===================  ======  ===================================================
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

from limits import RateLimitItem, parse
from limits.aio.storage import RedisStorage as AsyncRedisStorage
from limits.aio.strategies import MovingWindowRateLimiter as AsyncMovingWindowRateLimiter
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from ..core.config import Settings
from ..core.errors import RateLimited, ServerBusy, ServerError, ServerUnavailable, TooManySockets, TooManyTables
from ..runtime import metrics

log = logging.getLogger(__name__)

#: Any refusal of this module.
LimitError = ServerError


class SweptMemoryStorage(MemoryStorage):
    """The :mod:`limits` library's in-memory storage with its expiry sweep run
    at most once per :attr:`SWEEP_SECONDS`.

    The library schedules its sweep 10 ms after any hit, on a new thread, and
    the sweep walks every key: under steady traffic (a few hundred
    connections, each with its own key) that is about 100 thread starts and
    full sweeps a second, holding the GIL the event loop needs. The windows
    are exact either way (a hit checks its own timestamps); the sweep only
    frees the memory of expired keys, here within a second. The library's
    sweep also leaves an empty list behind for every expired key (a leak of one
    entry per connection, since each connection has a key of its own): this
    sweep removes them.
    """

    SWEEP_SECONDS = 1.0

    #: Attempts of one sweep when the event loop's thread changes the keys meanwhile.
    SWEEP_TRIES = 5

    def _MemoryStorage__expire_events(self) -> None:  # overrides the library's private sweep
        # The sweep runs on a timer thread while the event loop adds keys: copying
        # the keys (list(dict)) can meet a change of size (a garbage collection
        # inside the copy lets the other thread run) and raise RuntimeError. Then
        # try again; a sweep that never gets a quiet moment is left to the next
        # one, a second later (it only frees memory: the windows are exact anyway).
        for _ in range(self.SWEEP_TRIES):
            try:
                self._sweep()
                return
            except RuntimeError:
                continue

    def _sweep(self) -> None:
        MemoryStorage._MemoryStorage__expire_events(self)  # type: ignore[attr-defined]  # the private sweep of limits.MemoryStorage (name-mangled)
        for key in [k for k, v in list(self.events.items()) if not v]:
            with self.locks[key]:
                if not self.events.get(key):
                    self.events.pop(key, None)
            self.locks.pop(key, None)

    def _MemoryStorage__schedule_expiry(self) -> None:  # overrides the library's private scheduler
        if not self.timer.is_alive():
            self.timer = threading.Timer(self.SWEEP_SECONDS, self._MemoryStorage__expire_events)
            self.timer.daemon = True
            self.timer.start()


def _redis_failed(e: Exception) -> ServerUnavailable:
    metrics.REDIS_ERRORS.inc()
    log.warning("a rate-limit check failed on Redis: %s: %s", type(e).__name__, e)
    return ServerUnavailable("The server cannot check its limits now (its Redis failed): try again in a moment.")


def _too_many_tables(have: int, cap: int) -> TooManyTables:
    """The refusal of an address's table past its open-table cap."""
    noun = "table" if have == 1 else "tables"
    return TooManyTables(f"You already have {have} {noun} open or in play (the most is {cap}): finish one first.")


def _tables_full() -> ServerBusy:
    """The refusal of a table past the server's total open-table cap."""
    return ServerBusy("The server has as many tables open or in play as it takes: try again later.")


def _per(item: RateLimitItem) -> str:
    unit = item.GRANULARITY.name
    return f"{item.amount} per {'' if item.multiples == 1 else f'{item.multiples} '}{unit}{'' if item.multiples == 1 else 's'}"


#: The key of the shared open-table counts that holds a worker's open tables
#: in all (no address is written so: addresses are IPs or IPv6 /64 networks).
ALL_TABLES = "*"


class SharedCounts(Protocol):
    """Caps held in one step across the workers (the cluster's, over Redis:
    :meth:`~liars_dice.server.runtime.broker.Broker.claim_count`)."""

    async def claim_count(self, kind: str, key: str, cap: int) -> bool:
        """Take one place of ``key`` under ``cap`` in the shared counts of ``kind``; whether it was taken."""

    async def release_count(self, kind: str, key: str) -> None:
        """Give one back."""


class Guard:
    """The rate limits and caps of one app (one per :func:`create_app`).

    :param limits: the settings holding the rates and caps.
    :param open_tables: a function giving the tables this worker runs that are
        open or in play (created, not finished, not closed), as code to the
        address that created each (``None``: not known); the open-table caps
        count them. The address is the table's, kept with it in the store
        (``tables.creator``), so a table restarted or taken over by another
        worker still counts under its address's cap (stop 32's attacker's
        note: before, the guard's own memory of who made which table was lost
        at a restart, and every such table counted under no address).
    """

    def __init__(self, limits: Settings, open_tables: Callable[[], dict[str, str | None]] | None = None) -> None:
        self.limits = limits
        #: the rates in this process's memory: every rate with one worker, and a
        #: websocket's own message rate always (one connection lives on one
        #: worker; in Redis each frame of each socket was a round trip)
        self.limiter = MovingWindowRateLimiter(SweptMemoryStorage())
        #: several workers: one limit across them all, kept in Redis through
        #: limits' asyncio storage on redis-py's asyncio client (the event loop
        #: never waits on Redis); ``None`` with one worker
        self.shared: AsyncMovingWindowRateLimiter | None = None
        if limits.redis_url:
            from ..runtime.broker import blocking_pool

            # A blocking pool: redis-py's own allows 100 connections and then raises
            # MaxConnectionsError (the attacker's find: 150 requests at once to one
            # worker got 33 HTTP 500s, 160 hellos 60 sockets dropped without a close).
            pool = blocking_pool(limits.redis_url)
            self.shared = AsyncMovingWindowRateLimiter(
                AsyncRedisStorage("async+" + limits.redis_url, implementation="redispy",
                                  connection_pool=pool),  # type: ignore[arg-type]  # limits types its options as scalars; redis-py takes the pool
            )
        self.items: dict[str, RateLimitItem] = {
            name: parse(getattr(limits, name))
            for name in ("create_rate", "join_rate", "miss_rate", "lookup_rate", "message_rate",
                         "chat_rate_seat", "chat_rate_address", "signin_rate_address", "signin_rate_name",
                         "signup_rate_address")
        }
        self._open_tables = open_tables or (lambda: {})
        self._creating: Counter[str] = Counter()  #: tables being created, by address
        self.sockets_of_address: Counter[str] = Counter()
        self.sockets_of_table: Counter[str] = Counter()
        self.sockets_of_seat: Counter[str] = Counter()
        #: several workers: the other workers' sockets per address and visitors
        #: per table, as of the last heartbeat (:meth:`share`); a cap counts them too
        self.elsewhere_address: dict[str, int] = {}
        self.elsewhere_table: dict[str, int] = {}
        self.elsewhere_seat: dict[str, int] = {}
        #: the other workers' open tables per creating address, and in all
        #: under :data:`ALL_TABLES` (as of the last heartbeat)
        self.elsewhere_tables: dict[str, int] = {}
        #: several workers: the socket caps (per address, visitors per table)
        #: are claimed in Redis in one step across the workers (:meth:`open_socket`)
        self.counts: SharedCounts | None = None
        self._releases: set[asyncio.Task[None]] = set()

    # -- rates -------------------------------------------------------------------

    async def _hit(self, item: RateLimitItem, *key: str) -> bool:
        if self.shared is not None:
            try:
                return bool(await self.shared.hit(item, *key))
            except Exception as e:  # redis-py's errors (a full pool, Redis gone): one sentence, not a 500
                raise _redis_failed(e) from None
        return bool(self.limiter.hit(item, *key))

    async def _test(self, item: RateLimitItem, *key: str) -> bool:
        if self.shared is not None:
            try:
                return bool(await self.shared.test(item, *key))
            except Exception as e:  # as in _hit
                raise _redis_failed(e) from None
        return bool(self.limiter.test(item, *key))

    async def hit(self, rate: str, *key: str, what: str = "requests") -> None:
        """Count one event against ``rate`` (a rate field of :class:`Settings`) for ``key``.

        :raises RateLimited: when over the rate (not counted then).
        """
        item = self.items[rate]
        if not await self._hit(item, rate, *key):
            raise RateLimited(f"Too many {what}: at most {_per(item)}; try again later.")

    async def check(self, rate: str, *key: str, what: str = "requests") -> None:
        """Whether one more event fits ``rate`` for ``key``, without counting it
        (count it with :meth:`hit` once it happened).

        :raises RateLimited: when it does not fit.
        """
        item = self.items[rate]
        if not await self._test(item, rate, *key):
            raise RateLimited(f"Too many {what}: at most {_per(item)}; try again later.")

    async def allows(self, rate: str, *key: str) -> bool:
        """Like :meth:`hit`, as a yes/no."""
        return await self._hit(self.items[rate], rate, *key)

    async def fits(self, rate: str, *key: str) -> bool:
        """Like :meth:`check`, as a yes/no."""
        return await self._test(self.items[rate], rate, *key)

    def message_limiter(self) -> "ConnLimiter":
        """A per-connection message limiter (:attr:`Settings.message_rate`)."""
        return ConnLimiter(self)

    # -- open tables -------------------------------------------------------------

    def check_new_table(self, address: str) -> None:
        """Before creating a table for ``address``: counts the tables open now
        and those being created (:meth:`new_table`).

        :raises TooManyTables: over the address's cap. :raises ServerBusy: over the total.
        """
        live = self._open_tables()
        mine = sum(1 for creator in live.values() if creator == address)
        elsewhere = self.elsewhere_tables
        have = mine + self._creating[address] + elsewhere.get(address, 0)
        if have >= self.limits.open_tables_per_address:
            raise _too_many_tables(have, self.limits.open_tables_per_address)
        if len(live) + sum(self._creating.values()) + elsewhere.get(ALL_TABLES, 0) >= self.limits.open_tables_total:
            raise _tables_full()

    @asynccontextmanager
    async def new_table(self, address: str) -> AsyncIterator["TableSlot"]:
        """Check the open-table caps for ``address`` and hold a place under
        them while its table is created (issue 16, fault 5: checked before
        the write and counted after it, 16 parallel creates made 2,014 tables
        against a cap of 2,000). On this worker the check and the hold are one
        step (no ``await`` between them), so parallel creates never pass a cap;
        with several workers the place is then claimed in Redis in one step
        across them (:attr:`counts`), as a socket's is (before, the workers'
        tables were shared at each heartbeat only, and creates on several
        workers within one heartbeat passed the caps). The place is given back
        when the block ends, counted as the table's if :meth:`TableSlot.created`
        was called.

        :raises TooManyTables: :raises ServerBusy: as :meth:`check_new_table`.
        :raises ServerUnavailable: several workers, and Redis failed.
        """
        self.check_new_table(address)
        self._creating[address] += 1
        slot = TableSlot()
        claimed: list[str] = []
        try:
            if self.counts is not None:
                await self._claim_table(address, claimed)
            yield slot
        finally:
            self._creating[address] -= 1
            if self._creating[address] <= 0:
                del self._creating[address]
            if slot.code is None:  # a table made keeps its claims: the next heartbeat counts it whole
                for key in claimed:
                    self._give_claim("open_tables", key)

    async def _claim_table(self, address: str, claimed: list[str]) -> None:
        """Claim the new table's places in Redis: under the address's cap, then
        under the total; each taken is added to ``claimed`` (given back by the caller)."""
        assert self.counts is not None
        per, total = self.limits.open_tables_per_address, self.limits.open_tables_total
        for key, cap in ((address, per), (ALL_TABLES, total)):
            try:
                taken = await self.counts.claim_count("open_tables", key, cap)
            except Exception as e:  # noqa: BLE001 - any failure of Redis
                raise _redis_failed(e) from e
            if not taken:
                raise _tables_full() if key == ALL_TABLES else _too_many_tables(per, per)
            claimed.append(key)

    # -- sockets -----------------------------------------------------------------

    async def open_socket(self, address: str, table: str) -> None:
        """Count one new websocket from ``address`` (at ``table``: counted there
        only once it says ``hello`` as a visitor, see :meth:`watch`). With
        several workers the place is claimed in Redis in one step across them
        (:attr:`counts`), so a burst spread over the workers never passes the cap.

        :raises TooManySockets: over the address's cap.
        :raises ServerUnavailable: several workers, and Redis failed.
        """
        cap = self.limits.sockets_per_address
        await self._take("sockets", address, cap, self.sockets_of_address, self.elsewhere_address,
                         f"At most {cap} connections from one address.")

    def close_socket(self, address: str, table: str) -> None:
        self._give("sockets", address, self.sockets_of_address)

    async def watch(self, table: str) -> None:
        """Count one visitor's websocket at ``table`` (issue 16, fault 3: the
        table's cap counted visitors and seat holders together, before the
        ``hello`` was read, so visitors filled a table and its players could
        not come back). Seat holders are never counted here: each seat has its
        own room (:meth:`claim_seat`). Across the workers as :meth:`open_socket`.

        :raises TooManySockets: the table has :attr:`Settings.visitors_per_table` visitors.
        :raises ServerUnavailable: several workers, and Redis failed.
        """
        cap = self.limits.visitors_per_table
        await self._take("visitors", table, cap, self.sockets_of_table, self.elsewhere_table,
                         f"This table has {cap} visitors watching already: try again later.")

    def unwatch(self, table: str) -> None:
        self._give("visitors", table, self.sockets_of_table)

    async def _take(self, kind: str, key: str, cap: int, here: Counter[str], elsewhere: dict[str, int],
                    refusal: str) -> None:
        """One place of ``key`` under ``cap``: this worker's count, the others'
        as of the last heartbeat, then (several workers) the claim in Redis.
        The place is held here while the claim is out, so parallel opens on
        this worker count it."""
        if here[key] + elsewhere.get(key, 0) >= cap:
            raise TooManySockets(refusal)
        here[key] += 1
        if self.counts is None:
            return
        try:
            taken = await self.counts.claim_count(kind, key, cap)
        except Exception as e:  # noqa: BLE001 - any failure of Redis
            self._uncount(here, key)
            raise _redis_failed(e) from e
        if not taken:
            self._uncount(here, key)
            raise TooManySockets(refusal)

    def _give(self, kind: str, key: str, here: Counter[str]) -> None:
        self._uncount(here, key)
        if self.counts is not None:
            self._give_claim(kind, key)

    def _give_claim(self, kind: str, key: str) -> None:
        """Give one claimed place back in Redis, in the background."""
        task = asyncio.get_running_loop().create_task(self._release(kind, key))
        self._releases.add(task)
        task.add_done_callback(self._releases.discard)

    async def _release(self, kind: str, key: str) -> None:
        assert self.counts is not None
        try:
            await self.counts.release_count(kind, key)
        except Exception:  # noqa: BLE001 - the next heartbeat writes this worker's counts whole
            log.debug("a shared count could not be given back", exc_info=True)

    @staticmethod
    def _uncount(here: Counter[str], key: str) -> None:
        here[key] -= 1
        if here[key] <= 0:
            del here[key]

    async def claim_seat(self, token_hash: str) -> None:
        """Count one connection holding seat token ``token_hash`` (its hash, or
        ``account:ID``), across the workers as :meth:`open_socket`: the
        stop-27 attacker had 4 sockets of one seat token welcomed on each of 2
        workers against the cap of 4, which was counted per worker.

        :raises TooManySockets: over :attr:`Settings.sockets_per_seat`.
        :raises ServerUnavailable: several workers, and Redis failed.
        """
        cap = self.limits.sockets_per_seat
        await self._take("seats", token_hash, cap, self.sockets_of_seat, self.elsewhere_seat,
                         f"This seat is open in {cap} windows already: close one.")

    def release_seat(self, token_hash: str) -> None:
        self._give("seats", token_hash, self.sockets_of_seat)

    async def share(self, share_counts: Callable[[str, dict[str, int]], Awaitable[dict[str, int]]]) -> None:
        """Several workers (issue 16 benchmarks: with 2 workers one address held
        97-128 visitor sockets on one table, past its cap of 100): publish this
        worker's sockets per address, visitors per table, sockets per seat and open tables (per
        creating address and in all), and take the other workers' sums, through ``share_counts`` (the cluster's, over Redis), at
        each heartbeat. The socket caps are also claimed in one step at each
        open (:meth:`open_socket`, :meth:`watch`), and a new table's places
        at its creation (:meth:`new_table`); the heartbeat's rewrite of this
        worker's counts keeps the places of the tables being created."""
        self.elsewhere_address = await share_counts("sockets", {k: v for k, v in self.sockets_of_address.items() if v > 0})
        self.elsewhere_table = await share_counts("visitors", {k: v for k, v in self.sockets_of_table.items() if v > 0})
        self.elsewhere_seat = await share_counts("seats", {k: v for k, v in self.sockets_of_seat.items() if v > 0})
        # The open-table caps too (with 2 workers an address opened 8 tables on
        # each against its cap of 8, and the total cap was one per worker):
        # this worker's open tables (those it runs: ``open_tables``) by the
        # address that created them here, and their number under ALL_TABLES.
        live = self._open_tables()
        tables = Counter(creator for creator in live.values() if creator is not None)
        tables.update(self._creating)  # their places are claimed: the rewrite keeps them
        if live or self._creating:
            tables[ALL_TABLES] = len(live) + sum(self._creating.values())
        self.elsewhere_tables = await share_counts("open_tables", tables)

    def stats(self) -> dict[str, Any]:
        """Live counts (for tests and benchmarks)."""
        return {
            "sockets": sum(self.sockets_of_address.values()),
            "addresses": len(self.sockets_of_address),
            "tables_tracked": sum(1 for creator in self._open_tables().values() if creator is not None),
        }


class TableSlot:
    """A place held under the open-table caps while one table is created
    (:meth:`Guard.new_table`); :meth:`created` makes it the table's."""

    __slots__ = ("code",)

    def __init__(self) -> None:
        self.code: str | None = None

    def created(self, code: str) -> None:
        self.code = code


class ConnLimiter:
    """The message rate of one websocket connection, counted by the app's
    :class:`Guard` (the :mod:`limits` library, in this process's memory:
    :attr:`Guard.limiter`) under a key of its own."""

    __slots__ = ("guard", "key")

    def __init__(self, guard: Guard) -> None:
        self.guard = guard
        self.key = uuid.uuid4().hex

    def allow(self) -> bool:
        """Whether one more message is allowed now (counted)."""
        g = self.guard
        return bool(g.limiter.hit(g.items["message_rate"], "message_rate", self.key))

    def refuse(self) -> bool:
        """Count one message refused for the rate: ``False`` once the refusals
        reach the rate too (the connection keeps sending at twice its rate and
        is closed; a reply per refused message was an amplifier)."""
        g = self.guard
        return bool(g.limiter.hit(g.items["message_rate"], "message_rate", self.key, "refused"))

"""Many workers, one game: a worker's part in a cluster of workers sharing
PostgreSQL (the store of record, and who owns which table: :mod:`.ownership`)
and Redis (events, forwarded commands and presence: :mod:`.broker`).

* A table is run by its owner: the worker holding its lease. It decides every
  command (its change path, :meth:`TableService.run`), stores the events with
  its fence checked in the same transaction, then publishes them.
* Any other worker with sockets at the table keeps a replica
  (:mod:`.replica`) and forwards its sockets' commands to the owner
  (:meth:`Cluster.route`); the reply (the events, or the refusal's sentence)
  comes back to the client that sent it.
* The heartbeat (every ``lease seconds / 3``) renews this worker's leases
  (taking back at once one that lapsed with no successor: a worker starved of
  CPU), writes its sockets' seats to the presence hash, checks its replicas
  against the store of record (a batch lost on the way, or never published
  because Redis was away, is read within a beat: a replica never waits for a
  next batch that may never come, issue 36 fault 2), and takes over any
  unfinished table whose lease expired (its owner died), rebuilding it
  through the service's restart path: timers and stand-in bots resume. A
  takeover therefore comes at most ``lease seconds + lease seconds / 3``
  after the owner's last renewal.
* **Presence is one truth for the cluster:** every worker writes the seats
  its sockets hold (owned table or replica) when they change and at each
  beat; only the owner runs a seat's grace, and gives the seat up only when
  no live worker holds it (:meth:`Cluster.held_elsewhere`). After Redis comes
  back empty (its server id changes) presence is not trusted until every
  worker has written it again (two beats).

The cluster is the service's ownership port (:mod:`.owners`): given to the
service at construction and started with the service as its host; neither
module imports the other.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from sqlalchemy import Engine

from ...engine import LiarsDiceError
from ..core.commands import Command, Create, Move, Stale, decide
from ..core.errors import ServerBusy
from ..core.errors import LeaseLost
from ..core.tables import Event, Table, TableStatus, rebuild
from .broker import Broker, NoReply
from .clock import Clock, SystemClock
from .closing import within
from .owners import Host
from .ownership import LEASE_SECONDS, Leases
from .replica import decode as decode_events, tell_sockets
from .room import Room
from .store import Op
from .wire import Refused, decode, encode, refusal

log = logging.getLogger(__name__)

#: How many times a forwarded command waits :data:`~.broker.REPLY_SECONDS` for
#: the owner's reply while the owner keeps its lease.
FORWARD_WAITS = 3

#: The Redis hash of the lobby's tables: table id -> JSON ``[created_at, summary]``.
LOBBY = "liars:lobby"


def worker_id(route: str | None = None) -> str:
    """A worker id unique across machines and restarts: ``host-pid-random``,
    after ``route~`` when the worker has a route (:attr:`Settings.route`), so
    that a table's lease names the route of its owner (:func:`route_of`).
    At most 60 characters (the lease's owner column holds 64)."""
    base = f"{socket.gethostname()[:32]}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    return f"{route}~{base}" if route else base


def route_of(worker: str) -> str | None:
    """The route in worker id ``worker`` (:func:`worker_id`), or ``None``."""
    route, sep, _ = worker.partition("~")
    return route if sep else None


#: Seconds a replica keeps a table's owner for :meth:`Cluster.owner_route`,
#: and the most tables it keeps so (then it forgets them all).
OWNER_ROUTE_SECONDS = 1.0
OWNERS_KEPT = 10_000


def owner_route_for(me: str, owner: str | None) -> str | None:
    """The route to tell a socket on worker ``me`` for a table whose lease
    names ``owner`` (``None``: nobody holds it). ``None`` also when the owner
    has this worker's route but is not this worker: a dead predecessor on
    the same port, restarted by the supervisor, whose lease has not yet
    expired (the stop-34 attacker: the restarted w0 said "owner w0" for 3.5 s
    while another worker was about to take the table, and a page believed
    it was on the owner for the rest of the game)."""
    if owner is None:
        return None
    route = route_of(owner)
    if owner != me and route is not None and route == route_of(me):
        return None
    return route


class Cluster:
    """Joins one worker's table service to the others: the service's
    ownership port (:class:`~.owners.Owners`) for many workers.

    :param leases: this worker's leases (its id is the worker id).
    :param broker: this worker's connection to Redis (same worker id).
    :param clock: whose time the heartbeat and the caches are in.
    """

    def __init__(self, leases: Leases, broker: Broker, clock: Clock | None = None) -> None:
        self._host: Host | None = None
        self.clock: Clock = clock or SystemClock()
        self.leases = leases
        self.broker = broker
        self.worker = leases.worker
        self.beat = leases.seconds / 3
        self._outbox: asyncio.Queue[tuple[Room, int, Sequence[Event]]] = asyncio.Queue()
        self._lobby: list[tuple[str, dict[str, Any]]] = []  # (created_at, summary) of every worker's lobby tables
        self._tasks: list[asyncio.Task[None]] = []
        self._firsts: dict[asyncio.Task[Any], int] = {}
        #: the Redis server's run id as of the last beat, and since when presence read from it
        #: is trusted (monotonic s): after a restart every worker must first write its own again
        self._redis_id: str | None = None
        self._trusted_from = 0.0
        self._dirty: set[Room] = set()  #: rooms whose seats changed, presence not written yet
        self._writing: asyncio.Task[None] | None = None
        self._closed = False
        self.resyncs = 0  #: replicas found behind the store at a beat and read again (for tests)
        self.last_beat = 0.0  #: monotonic time of the last heartbeat that went through (readiness)
        self.takeovers = 0  #: tables taken over from a dead worker (for tests)
        self._owners: dict[str, tuple[float, str | None]] = {}  #: table id -> (read at, lease owner), :meth:`owner_route`
        #: coroutines run at every heartbeat (the edge shares its socket counts so, :meth:`share_counts`)
        self.beat_hooks: list[Callable[[], Awaitable[None]]] = []

    @property
    def host(self) -> Host:
        assert self._host is not None, "Cluster.start was never called"
        return self._host

    # -- life cycle ------------------------------------------------------------------

    async def start(self, host: Host) -> None:
        """Connect to Redis, take the tables nobody runs, start the heartbeat;
        ``host`` is the service this port serves."""
        self._host = host
        self._trusted_from = self.clock.monotonic() + 2 * self.beat
        await self.broker.start(self._on_events, self._on_command)
        await self.broker.alive(self.leases.seconds)
        self._tasks.append(asyncio.create_task(self._publisher()))
        await self._take_orphans()
        self._tasks.append(asyncio.create_task(self._heartbeat()))

    async def close(self) -> None:
        """Stop; give up this worker's leases so that others take over at once."""
        self._closed = True
        if self._writing is not None:
            self._tasks.append(self._writing)
        for t in self._tasks:
            t.cancel()
        # each step bounded (.closing): a stuck one is logged and left; leases then expire
        await within("the cluster's tasks", asyncio.gather(*self._tasks, return_exceptions=True))
        await within("giving back the leases", asyncio.to_thread(self._release_all))
        await within("the broker", self.broker.close(), steps=3)

    def _release_all(self) -> None:
        for table_id in list(self.leases.held):
            try:
                self.leases.release(table_id)
            except Exception:  # noqa: BLE001 - the lease then simply expires
                log.warning("could not release table %s", table_id, exc_info=True)

    # -- the service's hooks -------------------------------------------------------------

    def owns(self, room: Room) -> bool:
        return room.table.id in self.leases.held

    async def owner_route(self, room: Room) -> str | None:
        """The route of the worker that runs ``room`` (:func:`owner_route_for`
        of its lease's owner), or ``None``. The lease is read at most once per
        :data:`OWNER_ROUTE_SECONDS` per table: each visitor's hello on a
        replica read it (the stop-34 attacker: 2.2 database transactions per
        hello, up to ``lookup_rate`` per address)."""
        if self.owns(room):
            return route_of(self.worker)
        table_id = room.table.id
        now = self.clock.monotonic()
        known = self._owners.get(table_id)
        if known is None or now - known[0] > OWNER_ROUTE_SECONDS:
            owner = await asyncio.to_thread(self.leases.owner_of, table_id)
            if len(self._owners) >= OWNERS_KEPT:
                self._owners.clear()
            known = self._owners[table_id] = (now, owner)
        return owner_route_for(self.worker, known[1])

    async def route(self, room: Room, command: Command) -> list[Event] | None:
        """``None`` if this worker runs ``room`` (taking a new or unowned table's
        lease first), else the events of ``command`` as run by the owner.

        :raises Refused: the owner refused it (its code and sentence).
        :raises ServerBusy: the owner did not answer in time (it died: the
            table is taken over within the lease's length; try again).
        """
        table_id = room.table.id
        if table_id in self.leases.held:
            return None
        if isinstance(command, Create):
            if await asyncio.to_thread(self.leases.acquire, command.payload["id"]) is None:  # pragma: no cover - a fresh id
                raise ServerBusy("The new table could not be registered; try again.")
            return None
        owner = await asyncio.to_thread(self.leases.owner_of, table_id)
        if owner is None:  # nobody runs it: this worker does, from the stored events
            if await self._take(table_id):
                return None
            owner = await asyncio.to_thread(self.leases.owner_of, table_id)
        if owner is None or owner == self.worker:
            raise ServerBusy("This table is changing workers; try again in a few seconds.")
        before = room.table  # the replica as the command left: what the store is checked against
        try:
            key = await self.broker.send(owner, {"table_id": table_id, "code": room.code, "command": encode(command)})
            reply = await self._await_reply(table_id, owner, key)
        except NoReply:
            reply = None
        if reply is None:  # the owner died or the table changed hands: the store says what happened
            truth = await self._stored_truth(room, before, command)
            if truth is None:
                return None  # this worker took the table over and runs the command itself
            reply = truth
        if int(reply.get("seq", -1)) > room.table.seq:  # a refusal from an owner ahead of this replica: read the store
            await self.host.catch_up(room, int(reply["seq"]) + 1, [])
        if "error" in reply:
            err = reply["error"]
            raise Refused(err["code"], err["message"], int(err.get("status", 400)))
        if reply.get("stale"):
            raise Stale()
        events = decode_events(reply["events"])
        if events:
            await self.host.catch_up(room, int(reply["first"]), events)
        return events

    async def _await_reply(self, table_id: str, owner: str, key: str) -> dict[str, Any] | None:
        """The owner's reply to a forwarded command; waits again (up to
        :data:`FORWARD_WAITS` times :data:`~.broker.REPLY_SECONDS`) while
        ``owner`` still holds the table's lease (it is slow, not dead: its reply
        will come). ``None`` once the lease is gone or changed hands.

        :raises NoReply: Redis failed."""
        for _ in range(FORWARD_WAITS):
            reply = await self.broker.reply(key)
            if reply is not None:
                return reply
            if await asyncio.to_thread(self.leases.owner_of, table_id) != owner:
                return None
        return None

    async def _stored_truth(self, room: Room, before: Table, command: Command) -> dict[str, Any] | None:
        """A forwarded command got no reply: answer by what the store holds,
        not "busy" (its owner may have applied it and died before replying).

        If nobody holds the lease, this worker takes the table first (the
        acquire waits for a commit under way, :mod:`.ownership`), so the store is
        final; if the command is not in it, ``None``: run it here. Otherwise the
        reply is ``{"first", "events"}`` made from the stored events when the
        command's first event is among those stored after ``before``.

        :raises ServerBusy: not stored, and another worker runs the table now
            (or the store cannot be read): the client may try again.
        """
        table_id = room.table.id
        took = False
        try:
            if await asyncio.to_thread(self.leases.owner_of, table_id) is None:
                took = await self._take(table_id)
            stored = await asyncio.to_thread(self.host.store.events, table_id)
        except Exception:  # noqa: BLE001 - the store cannot say: a plain "try again"
            log.warning("could not read table %s after a forward with no reply", table_id, exc_info=True)
            stored = None
        found = None if stored is None else self._applied(before, command, stored)
        if found is None:
            if took:
                return None
            raise ServerBusy("This table's worker did not answer; try again in a few seconds.")
        seq, event = found
        if table_id not in self.leases.held:
            await self.host.catch_up(room, seq, [event])
        return {"first": seq, "events": [[event.kind.value, event.payload]]}

    def _applied(self, before: Table, command: Command,
                 stored: list[tuple[int, str, dict[str, Any]]]) -> tuple[int, Event] | None:
        """Where ``command``'s first event is among the ``stored`` rows after
        ``before``, as ``(seq, event)``; ``None`` if it is not there (or
        ``before`` refuses it)."""
        try:
            expected = decide(before, command, self.host.dice)
        except (LiarsDiceError, Stale):
            return None
        if not expected:
            return None
        kind, payload = expected[0].kind, json.loads(json.dumps(expected[0].payload))  # as stored (lists, not tuples)
        for i, (seq, k, p) in enumerate(stored):
            if seq > before.seq and k == kind.value and p == payload and self._same_position(before, command, stored[:i]):
                return seq, Event(kind, p)
        return None

    @staticmethod
    def _same_position(before: Table, command: Command, prior: list[tuple[int, str, dict[str, Any]]]) -> bool:
        """Whether a stored move found for ``command`` was made from the position
        the command was sent from (``before``): the same round, the same
        standing bid. Two moves of one seat with equal payloads (a challenge in
        round 2 and one in round 4) are otherwise one: the harness's seed 267
        saw a lagging replica's challenge, never applied, acknowledged as the
        page's earlier one. Other commands match by their event alone."""
        if not isinstance(command, Move):
            return True
        try:
            at = rebuild(prior).state
        except Exception:  # noqa: BLE001 - no position to compare: not this command
            return False
        was = before.state
        if at is None or was is None:
            return False
        return len(at.results) == len(was.results) and at.current_bid == was.current_bid

    def fence(self, table_id: str) -> Op:
        return self.leases.fence_op(table_id)

    async def regain(self, table_id: str) -> bool:
        """This worker's lease of ``table_id`` lapsed (a write was refused, or
        the heartbeat's renewal missed it): take it again if no other worker
        did. Fenced as always: a lease that changed hands in between comes
        back with the next fence, and the caller re-reads the store first.
        Whether this worker holds it now (issue 36 fault 9: a lone worker
        starved of CPU refused its own players' moves with ``server/moved``)."""
        try:
            fence = await asyncio.to_thread(self.leases.acquire, table_id)
        except Exception:  # noqa: BLE001 - the database is away: not regained
            log.warning("could not take table %s back", table_id, exc_info=True)
            return False
        if fence is None:
            return False
        await self.broker.unsubscribe(table_id)
        log.info("worker %s took table %s back after its lease lapsed", self.worker, table_id)
        return True
    def committed(self, room: Room, first: int, events: Sequence[Event]) -> None:
        """After a commit: publish the batch (in order, by one task)."""
        task = asyncio.current_task()
        if task is not None and task in self._firsts:  # a forwarded command: its reply says where it starts
            self._firsts[task] = first
        self._outbox.put_nowait((room, first, events))

    async def loaded(self, room: Room) -> None:
        """A table just read from the database by this worker: run it if nobody
        does (it is live), else keep it as a replica.

        :raises StoreFailed: the store cannot be read.
        """
        t = room.table
        if not t.is_live:
            return
        if await self._take(t.id):
            return
        await self.broker.subscribe(t.id)
        # what was published before the subscription: the last number first
        # (an index look-up); catch_up reads the events only when behind
        store = self.host.store
        last = await self.host.stored(store.read(store.last_seq, t.id))  # as every load reads: StoreFailed
        if last > room.table.seq:
            await self.host.catch_up(room, last + 1, [])

    #: Seconds between two re-reads of one replica for tokens it does not know
    #: (a bad token from a client costs a database read at most this often).
    REFRESH_SECONDS = 1.0

    async def refresh(self, room: Room) -> bool:
        """A replica behind the store of record is brought up to it; whether
        it was read (only for an open table, never for one this worker runs).
        A hello whose token a join on the owner gave out a moment ago may come
        here before the join's published event: 1 ``auth/bad_token`` in a
        2-worker run of 5,883 moves behind nginx.

        Reads are at most one per :data:`REFRESH_SECONDS` per table: a hello
        that comes sooner after the last read waits for the next one (shared
        by every hello waiting then), so it waits at most that long. Before,
        it was refused: the second of two joins within a second, each seen
        by the replica before its event, got ``auth/bad_token`` (1 in a
        2-worker attack run of 5,984 moves, 2026-12-05).

        :raises StoreFailed: the store cannot be read.
        """
        t = room.table
        if t.status is not TableStatus.OPEN or self.owns(room):
            return False  # seats are taken only while a table is open: no join can be on its way
        pending = room.refreshing
        if pending is None:  # no read waiting to start: schedule the next (a read under way may predate this join)
            pending = room.refreshing = asyncio.ensure_future(self._read_again(room))
            pending.add_done_callback(lambda f: f.cancelled() or f.exception())  # retrieved if no hello waits any more
        await asyncio.shield(pending)
        return True

    async def _read_again(self, room: Room) -> None:
        """:meth:`refresh`'s one read, at the earliest :data:`REFRESH_SECONDS` after the last."""
        try:
            await self.clock.sleep(max(0.0, room.refreshed + self.REFRESH_SECONDS - self.clock.monotonic()))
        finally:
            room.refreshing = None  # hellos from now on wait for the next read
        room.refreshed = self.clock.monotonic()
        store = self.host.store
        # the last number first (one index look-up): the events only when behind
        # (each bad token read every event of its table: 12,340 rows/s from 700 hellos/s)
        last = await self.host.stored(store.read(store.last_seq, room.table.id))
        if last > room.table.seq:
            await self.host.catch_up(room, last + 1, [])

    async def dropped(self, room: Room) -> None:
        """A replica left this worker's memory (its last socket here left):
        stop receiving its events and say no seat is held here."""
        table_id = room.table.id
        await self.broker.unsubscribe(table_id)
        await self.broker.set_presence(table_id, set())

    async def held_elsewhere(self, room: Room, seat: int) -> bool | None:
        """A socket on another live worker holds ``seat`` now (read from Redis
        at the moment of asking, never a cache: the replica's grace of issue
        36 fault 1 read a cache kept only for owned tables). ``None`` when it
        cannot be known: Redis fails, or came back within two beats (every
        worker writes its own presence again at its next beat)."""
        if self.clock.monotonic() < self._trusted_from:
            return None
        try:
            # Redis restarted since this worker's last beat: its presence hash is
            # empty until every worker writes again (the harness's seed 6: a
            # grace that fell between the restart and the owner's beat)
            if await self.broker.server_id() != self._redis_id:
                self._trusted_from = self.clock.monotonic() + 2 * self.beat
                return None
            got = await self.broker.presence(room.table.id)
        except Exception:  # noqa: BLE001 - Redis is away: unknown, never "abandoned"
            return None
        return any(seat in seats for w, seats in got.items() if w != self.worker)

    def seats_changed(self, room: Room) -> None:
        """This worker's sockets at ``room`` changed seats: write its presence
        soon (one task writes every changed table in turn), not only at the
        next beat, so the owner's grace sees a socket as soon as it is here."""
        if self._closed:
            return  # shutting down: the presence hash expires with this worker's alive key
        self._dirty.add(room)
        if self._writing is None or self._writing.done():
            self._writing = asyncio.ensure_future(self._write_presence())

    async def _write_presence(self) -> None:
        while self._dirty:
            room = self._dirty.pop()
            t = room.table
            try:
                await self.broker.set_presence(t.id, room.connected_seats() if t.is_live else set())
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the next beat writes it whole
                log.warning("presence of table %s not written; the next beat writes it", t.code)

    # -- inside ------------------------------------------------------------------------

    async def _take(self, table_id: str) -> bool:
        """Take ``table_id`` if its lease is free; rebuild and run it here."""
        if await asyncio.to_thread(self.leases.acquire, table_id) is None:
            return False
        await self.broker.unsubscribe(table_id)
        try:
            room = await self.host.resume(table_id)
        except Exception:
            await asyncio.to_thread(self.leases.release, table_id)
            raise
        self.takeovers += 1
        # Tell the replicas where the table stands: the dead owner may have
        # stored events it never published, and with nothing new to publish
        # (a person to move) the other workers' replicas stayed behind for good,
        # their sockets shown a turn that had passed (the failover test's stall).
        # An empty batch from the next seq makes a replica that is behind read
        # the store (.replica).
        self._outbox.put_nowait((room, room.table.seq + 1, []))
        self.host.announce(room)  # this worker's sockets had a replica: the rebuilt table, from the store
        log.info("worker %s runs table %s", self.worker, room.code)
        return True

    async def _take_orphans(self) -> None:
        for table_id in await asyncio.to_thread(self.leases.orphans):
            try:
                await self._take(table_id)
            except Exception:  # noqa: BLE001 - one damaged table must not stop the others
                log.exception("could not take over table %s", table_id)

    async def _heartbeat(self) -> None:
        while True:
            await self.clock.sleep(self.beat)
            await self.beat_once()

    async def beat_once(self) -> None:
        """One heartbeat (see the module's text); a failure is logged and the
        next beat tries again."""
        try:
            lost = await asyncio.to_thread(self.leases.renew)
            for table_id in lost:
                if not await self.regain(table_id):  # taken by another worker: follow it
                    self._lost(table_id)
            await self.broker.alive(self.leases.seconds)  # gone with this worker within a lease
            await self._check_redis()
            await self._share_presence()
            for hook in self.beat_hooks:
                await hook()
            await self._read_lobby()
            await self._take_orphans()
            await self.resync()
            self.last_beat = self.clock.monotonic()
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the database or Redis is away: next beat
            self._trusted_from = self.clock.monotonic() + 2 * self.beat
            log.warning("heartbeat failed", exc_info=True)

    async def _check_redis(self) -> None:
        """Redis' server id: a new one is a Redis restarted (empty, for all this
        worker knows): presence is trusted again two beats on, and this
        worker's lobby entries are written again at once."""
        rid = await self.broker.server_id()
        if rid == self._redis_id:
            return
        if self._redis_id is not None:
            log.warning("redis restarted (server id %s, was %s): presence and the lobby are written again", rid, self._redis_id)
            self._trusted_from = self.clock.monotonic() + 2 * self.beat
            for room in list(self.host.rooms.values()):
                if room.table.id in self.leases.held:
                    await self._list(room)
        self._redis_id = rid

    async def resync(self) -> None:
        """Every replica this worker keeps is checked against the store of
        record (one query for all): one behind is read again and its sockets
        told. A batch published while this worker's subscription was down, or
        never published (Redis was away at the owner's commit), is so seen
        within a beat (issue 36 fault 2: a table whose next mover was a person
        on a replica stopped for good after Redis restarted empty)."""
        replicas = [r for r in list(self.host.rooms.values())
                    if r.table.is_live and r.table.id not in self.leases.held]
        if not replicas:
            return
        store = self.host.store
        last = await self.host.stored(store.read(store.last_seqs, [r.table.id for r in replicas]))
        for room in replicas:
            if last.get(room.table.id, 0) > room.table.seq:
                self.resyncs += 1
                await self.host.catch_up(room, last[room.table.id] + 1, [])

    async def claim_count(self, kind: str, key: str, cap: int) -> bool:
        """One place under a cap shared by the workers (:meth:`.broker.Broker.claim_count`)."""
        return await self.broker.claim_count(kind, key, cap, self._counts_seconds(kind))

    async def release_count(self, kind: str, key: str) -> None:
        await self.broker.release_count(kind, key)

    async def share_counts(self, kind: str, mine: dict[str, int]) -> dict[str, int]:
        """This worker's counts of ``kind`` out, every other live worker's sum
        back (:meth:`.broker.Broker.share_counts`); they last three beats, and
        the open tables a lease and three beats, dead worker or not: its tables
        stay live until another worker has taken them over (a lease) and counted
        them at its next beat."""
        return await self.broker.share_counts(kind, mine, self._counts_seconds(kind), keep_dead=kind == "open_tables")

    def _counts_seconds(self, kind: str) -> float:
        return self.leases.seconds + 3 * self.beat if kind == "open_tables" else 3 * self.beat

    def _lost(self, table_id: str) -> None:
        """Another worker took ``table_id``: stop its timers; keep it as a replica."""
        for room in list(self.host.rooms.values()):
            if room.table.id == table_id:
                self.host.stop_timers(room)
                asyncio.create_task(self.broker.subscribe(table_id))
                log.warning("worker %s lost table %s", self.worker, room.code)

    async def _share_presence(self) -> None:
        """The seats this worker's sockets hold at each live table, owned or
        not (a lease can change hands while the sockets stay)."""
        for room in list(self.host.rooms.values()):
            t = room.table
            if t.is_live:
                await self.broker.set_presence(t.id, room.connected_seats())

    async def _publisher(self) -> None:
        while True:
            room, first, events = await self._outbox.get()
            table_id = room.table.id
            try:
                await self.broker.publish(table_id, first, events)
                await self._list(room)
            except Exception:  # noqa: BLE001 - replicas see the gap and read the store
                log.warning("publish failed for table %s", table_id, exc_info=True)

    async def _list(self, room: Room) -> None:
        """The owner keeps its table's lobby entry in Redis (``liars:lobby``)."""
        t = room.table
        if t.status is TableStatus.OPEN and not t.private and t.empty_seats():
            await self.broker.redis.hset(LOBBY, t.id, json.dumps([t.created_at.isoformat(), room.summary()]))
        else:
            await self.broker.redis.hdel(LOBBY, t.id)

    def lobby(self, here: list[dict[str, Any]], most: int) -> list[dict[str, Any]]:
        """The lobby of every worker (as of the last heartbeat), this worker's
        own tables as they are now, newest first, at most ``most``."""
        entries = {e["code"]: (at, e) for at, e in self._lobby}
        for e in here:
            room = self.host.rooms.get(e["code"])
            entries[e["code"]] = (room.table.created_at.isoformat() if room is not None else "", e)
        return [e for _, e in sorted(entries.values(), key=lambda x: x[0], reverse=True)][:most]

    async def _read_lobby(self) -> None:
        raw = await self.broker.redis.hgetall(LOBBY)
        got = []
        for v in raw.values():
            at, entry = json.loads(v)
            got.append((str(at), dict(entry)))
        self._lobby = got

    async def _on_events(self, table_id: str, first: int, events: list[tuple[str, dict[str, Any]]]) -> None:
        if table_id in self.leases.held:
            return
        for room in list(self.host.rooms.values()):
            if room.table.id == table_id:
                await self.host.catch_up(room, first, decode_events(events))

    async def _on_command(self, request: dict[str, Any]) -> dict[str, Any]:
        """A command forwarded by another worker: run it if this worker owns the table."""
        table_id = request["table_id"]
        if table_id not in self.leases.held:
            return {"error": refusal(LeaseLost("This table is run by another worker now; try again."))}
        room = await self.host.get_room(request["code"])
        task = asyncio.current_task()
        if task is not None:
            self._firsts[task] = 0  # committed() fills in the first seq of this command's events
        try:
            events = await self.host.run(room, decode(request["command"]))
        except Stale:
            return {"stale": True, "seq": room.table.seq}
        except LiarsDiceError as e:
            return {"error": refusal(e), "seq": room.table.seq}
        finally:
            first = self._firsts.pop(task, 0) if task is not None else 0
        return {"first": first, "events": [[e.kind.value, e.payload] for e in events]}


def make_cluster(engine: Engine, redis_url: str, lease_seconds: float = LEASE_SECONDS,
                 route: str | None = None, clock: Clock | None = None) -> Cluster:
    """The ownership port of a worker among those sharing ``engine``'s
    PostgreSQL database and ``redis_url`` (not started: give it to the
    service, then :meth:`Cluster.start` it with the service as its host);
    ``route`` is the name the front reaches this worker by (:attr:`Settings.route`).

    :raises ValueError: the database is not PostgreSQL's.
    """
    me = worker_id(route)
    return Cluster(Leases(engine, me, lease_seconds), Broker(redis_url, me), clock)


__all__ = ["Cluster", "make_cluster", "owner_route_for", "route_of", "tell_sockets", "worker_id"]

"""What must reach other workers, through Redis (redis-py's asyncio API).

Three kinds of traffic, each on Redis' own parts (no queue or pub/sub of our
own):

* **Events.** The owner of a table publishes each committed batch of events
  on the table's channel ``liars:table:{table_id}``, after the commit (never
  before: store before announce holds across workers). A message is JSON
  ``{"first": seq, "events": [[kind, payload], ...]}``. Pub/sub may drop a
  message (a worker's connection to Redis broke); the receiver sees the gap
  in ``seq`` and reads the table again from the database (:mod:`.replica`).
* **Commands.** A worker that holds sockets of a table it does not own pushes
  the command onto the owner's list ``liars:cmd:{worker}`` (``RPUSH``) with a
  request id; the owner pops it (``BLPOP``), runs it through its change path,
  and pushes the reply onto ``liars:reply:{request id}``, which the sender
  pops with a deadline. The reply is ``{"first", "events"}`` or
  ``{"error": {"code", "message", "status"}}``.
* **Presence.** Each worker keeps the seats its sockets hold at a table in the
  hash ``liars:presence:{table_id}`` (field: the worker id, value: JSON list
  of seats, refreshed with the heartbeat), so the owner gives a seat to a
  bot only when no worker has its person connected.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import redis.asyncio as aioredis

from ..core.tables import Event
from .closing import within

log = logging.getLogger(__name__)

#: Seconds a forwarded command waits for the owner's reply (one wait; the
#: sender waits again while the owner still holds its lease, :mod:`.cluster`).
REPLY_SECONDS = 5.0
#: Seconds a read from Redis may take before the connection counts as broken.
#: Above :data:`REPLY_SECONDS`: redis-py's default (5 s) equalled the BLPOP of a
#: reply, so a reply due at the deadline raised ``redis.TimeoutError`` in the
#: middle of a move instead of "no reply", and the session dropped the socket.
SOCKET_SECONDS = 3 * REPLY_SECONDS
#: Seconds a connection to Redis may take to open, or to close (redis-py
#: bounds its ``disconnect`` by this; without it a close could wait forever).
CONNECT_SECONDS = 5.0
#: Seconds an owner's reply is kept for a sender that waits again.
REPLY_KEEP = 30
#: Redis connections one worker's broker holds at most. Each forwarded
#: command waiting for its reply holds one (its BLPOP), and redis-py 8's pool
#: allows 100 and then raises ``MaxConnectionsError``: with 2 workers at 200+
#: tables (server_scale.py) 358 publishes failed so, and every replica behind
#: them had to re-read its table. The pool now waits for a free connection
#: (at most :data:`SOCKET_SECONDS`) past this many.
POOL_MAX = 1024

#: Claim one place under a cap shared by the workers, in one step in Redis (a
#: script runs atomically): KEYS are this worker's counts hash, then the other
#: live workers'; ARGV the field (an address, a table), the cap and the hash's
#: lifetime (ms). Counts the field over every hash; under the cap, adds one to
#: this worker's and answers 1, else 0.
_CLAIM = """
local total = 0
for _, k in ipairs(KEYS) do
  local v = redis.call('HGET', k, ARGV[1])
  if v then total = total + tonumber(v) end
end
if total >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""
#: Give a claimed place back: one less in this worker's hash (KEYS[1]), the
#: field gone at zero.
_RELEASE = """
local v = redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if v <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return v
"""

EventsHandler = Callable[[str, int, list[tuple[str, dict[str, Any]]]], Awaitable[None]]
CommandHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def channel(table_id: str) -> str:
    return f"liars:table:{table_id}"


def inbox(worker: str) -> str:
    return f"liars:cmd:{worker}"


def blocking_pool(url: str, **options: Any) -> aioredis.BlockingConnectionPool:
    """A redis-py asyncio pool of up to :data:`POOL_MAX` connections that waits
    (at most :data:`SOCKET_SECONDS`) for a free one instead of raising
    ``MaxConnectionsError``; ``options`` go to the connections (opened and
    closed within :data:`CONNECT_SECONDS` unless they say otherwise). The broker's
    and the shared rate limits' pool (:mod:`..edge.limits`)."""
    options.setdefault("socket_connect_timeout", CONNECT_SECONDS)
    return aioredis.BlockingConnectionPool.from_url(url, max_connections=POOL_MAX, timeout=SOCKET_SECONDS, **options)


def alive_key(worker: str) -> str:
    """The key that says worker ``worker`` is alive (:meth:`Broker.alive`)."""
    return f"liars:alive:{worker}"


def counts_key(kind: str, worker: str) -> str:
    """The hash of worker ``worker``'s counts of ``kind`` (:meth:`Broker.share_counts`, :meth:`Broker.claim_count`)."""
    return f"liars:counts:{kind}:{worker}"


class NoReply(Exception):
    """The owner did not answer a forwarded command within :data:`REPLY_SECONDS`."""


class Broker:
    """One worker's connection to Redis.

    :param url: ``redis://HOST:PORT/DB``.
    :param worker: this worker's id (its command list is :func:`inbox` of it).
    """

    def __init__(self, url: str, worker: str) -> None:
        self.url = url
        self.worker = worker
        pool = blocking_pool(url, decode_responses=True, socket_timeout=SOCKET_SECONDS)
        self.redis: aioredis.Redis = aioredis.Redis.from_pool(pool)  # closing the client closes its pool
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        self._tasks: list[asyncio.Task[None]] = []
        self._answering: set[asyncio.Task[None]] = set()  #: forwarded commands being run
        self._on_events: EventsHandler | None = None
        #: the other live workers that share counts, by kind, as of this worker's last heartbeat
        self._peers: dict[str, list[str]] = {}
        self._claim = self.redis.register_script(_CLAIM)
        self._release = self.redis.register_script(_RELEASE)
        self.published = 0  #: event batches published (for the benchmarks)
        self.bytes_out = 0  #: bytes of them

    async def start(self, on_events: EventsHandler, on_command: CommandHandler) -> None:
        """Start reading: event batches of subscribed tables go to ``on_events``
        ``(table_id, first seq, [(kind, payload)])``, commands for this worker
        to ``on_command`` (its reply dict is sent back)."""
        await self.redis.ping()
        self._on_events = on_events
        self._tasks.append(asyncio.create_task(self._commands(on_command)))

    async def close(self) -> None:
        """Stop reading and answering; close the connections. Each step is
        bounded (:func:`.closing.within`), so a stuck one cannot hang the exit."""
        tasks = [*self._tasks, *self._answering]
        for t in tasks:
            t.cancel()
        await within("the broker's readers", asyncio.gather(*tasks, return_exceptions=True))
        self._tasks.clear()
        await within("redis pub/sub", self._pubsub.aclose())  # type: ignore[no-untyped-call, unused-ignore]  # redis-py before 8.2 leaves PubSub.aclose untyped
        await within("redis", self.redis.aclose())

    # -- events ---------------------------------------------------------------------

    async def publish(self, table_id: str, first: int, events: Sequence[Event]) -> None:
        """Publish a committed batch (call after the commit)."""
        text = json.dumps({"first": first, "events": [[e.kind.value, e.payload] for e in events]})
        self.published += 1
        self.bytes_out += len(text)
        await self.redis.publish(channel(table_id), text)

    async def subscribe(self, table_id: str) -> None:
        """Receive ``table_id``'s event batches (idempotent)."""
        if channel(table_id) in self._pubsub.channels:
            return
        await self._pubsub.subscribe(**{channel(table_id): self._deliver})
        if not any(t.get_name() == "liars-pubsub" for t in self._tasks if not t.done()):
            task = asyncio.create_task(self._listen(), name="liars-pubsub")
            self._tasks.append(task)

    async def unsubscribe(self, table_id: str) -> None:
        if channel(table_id) in self._pubsub.channels:
            await self._pubsub.unsubscribe(channel(table_id))

    async def _deliver(self, message: dict[str, Any]) -> None:
        table_id = str(message["channel"]).split(":", 2)[2]
        data = json.loads(message["data"])
        assert self._on_events is not None
        try:
            await self._on_events(table_id, int(data["first"]), [(k, p) for k, p in data["events"]])
        except Exception:  # noqa: BLE001 - one table's failure must not stop the others
            log.exception("replica update failed for table %s", table_id)

    async def _listen(self) -> None:
        while True:
            try:
                await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - Redis went away: retry; gaps are read again from the database
                log.warning("redis pub/sub read failed; retrying", exc_info=True)
                await asyncio.sleep(0.5)

    # -- commands -----------------------------------------------------------------------

    async def forward(self, owner: str, request: dict[str, Any], timeout: float = REPLY_SECONDS) -> dict[str, Any]:
        """Send ``request`` to worker ``owner`` and wait for its reply.

        :raises NoReply: no reply within ``timeout`` seconds (the owner died:
            the table is taken over within the lease's length), or Redis failed."""
        got = await self.reply(await self.send(owner, request), timeout)
        if got is None:
            raise NoReply("The table's worker did not answer.")
        return got

    async def send(self, owner: str, request: dict[str, Any]) -> str:
        """Push ``request`` onto worker ``owner``'s list; returns the key its
        reply will be pushed to (kept :data:`REPLY_KEEP` seconds).

        :raises NoReply: Redis failed (nothing was sent)."""
        reply_key = f"liars:reply:{uuid.uuid4().hex}"
        try:
            await self.redis.rpush(inbox(owner), json.dumps({**request, "reply": reply_key}))
            await self.redis.expire(inbox(owner), 60)
        except aioredis.RedisError as e:
            raise NoReply(f"Redis failed: {type(e).__name__}.") from e
        return reply_key

    async def reply(self, reply_key: str, timeout: float = REPLY_SECONDS) -> dict[str, Any] | None:
        """The reply pushed to ``reply_key``, waiting at most ``timeout``
        seconds; ``None`` if none came in that time (call again to wait more).

        :raises NoReply: Redis failed (whether the command ran is unknown)."""
        try:
            got = await self.redis.blpop([reply_key], timeout=timeout)
        except aioredis.RedisError as e:
            raise NoReply(f"Redis failed: {type(e).__name__}.") from e
        return None if got is None else dict(json.loads(got[1]))

    async def _commands(self, on_command: CommandHandler) -> None:
        conn: aioredis.Redis = aioredis.from_url(self.url, decode_responses=True, socket_connect_timeout=CONNECT_SECONDS)  # BLPOP holds its connection
        try:
            while True:
                try:
                    got = await conn.blpop([inbox(self.worker)], timeout=1)
                except asyncio.CancelledError:
                    raise
                except Exception:  # noqa: BLE001
                    log.warning("redis command read failed; retrying", exc_info=True)
                    await asyncio.sleep(0.5)
                    continue
                if got is None:
                    continue
                request = json.loads(got[1])
                task = asyncio.create_task(self._answer(on_command, request))
                self._answering.add(task)  # held until done (the loop keeps only a weak reference)
                task.add_done_callback(self._answering.discard)
        finally:
            await conn.aclose()

    async def _answer(self, on_command: CommandHandler, request: dict[str, Any]) -> None:
        try:
            reply = await on_command(request)
        except Exception as e:  # noqa: BLE001 - the sender gets a sentence
            log.exception("forwarded command failed")
            reply = {"error": {"code": "server/error", "message": f"The table's worker failed: {type(e).__name__}.", "status": 500}}
        key = request["reply"]
        try:
            await self.redis.rpush(key, json.dumps(reply))
            await self.redis.expire(key, REPLY_KEEP)
        except aioredis.RedisError:  # the sender gets no reply and answers by the stored truth (.cluster)
            log.warning("could not send the reply of a forwarded command", exc_info=True)

    # -- presence -------------------------------------------------------------------------

    async def set_presence(self, table_id: str, seats: set[int]) -> None:
        key = f"liars:presence:{table_id}"
        if seats:
            await self.redis.hset(key, self.worker, json.dumps(sorted(seats)))
            await self.redis.expire(key, 120)
        else:
            await self.redis.hdel(key, self.worker)

    async def share_counts(self, kind: str, mine: dict[str, int], seconds: float,
                           keep_dead: bool = False) -> dict[str, int]:
        """Publish this worker's counts of ``kind`` (sockets per address, visitors
        per table...) and return the sum of every other live worker's.

        Each worker's counts are one hash, ``liars:counts:{kind}:{worker}``,
        replaced whole at each heartbeat and expiring after ``seconds`` (a dead
        worker's counts go with it); the workers that share are the members of
        ``liars:counters:{kind}``, and one whose :meth:`alive` key has expired
        is left out, unless ``keep_dead``: then a dead worker's counts still
        count until its hash expires (the open tables: a dead worker's tables
        are live until another worker takes them over and counts them; stop
        33's attacker doubled an address's cap of 8 in the second between the
        dead worker's counts leaving and the takeover's first heartbeat).
        Shape: ``{key: count}`` for the keys with a count > 0.
        """
        members = f"liars:counters:{kind}"
        own = counts_key(kind, self.worker)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(own)
            if mine:
                pipe.hset(own, mapping={k: str(v) for k, v in mine.items()})
                pipe.pexpire(own, max(1, int(seconds * 1000)))
            pipe.sadd(members, self.worker)
            await pipe.execute()
        others = [str(w) for w in await self.redis.smembers(members) if str(w) != self.worker]
        if not others:
            self._peers[kind] = []
            return {}
        flags = await self.redis.mget([alive_key(w) for w in others])
        if keep_dead:  # dead, but its counts still held: counted until they expire
            held = [await self.redis.exists(counts_key(kind, w)) if f is None else 1 for w, f in zip(others, flags)]
            flags = [f if f is not None else (b"1" if h else None) for f, h in zip(flags, held)]
        dead = [w for w, f in zip(others, flags) if f is None]
        if dead:
            await self.redis.srem(members, *dead)
        self._peers[kind] = [w for w, f in zip(others, flags) if f is not None]
        total: dict[str, int] = {}
        for w, f in zip(others, flags):
            if f is None:
                continue
            for k, v in (await self.redis.hgetall(counts_key(kind, w))).items():
                key = k.decode() if isinstance(k, bytes) else str(k)
                total[key] = total.get(key, 0) + int(v)
        return total

    async def claim_count(self, kind: str, key: str, cap: int, seconds: float) -> bool:
        """Take one place under ``cap`` for ``key`` (an address, a table) in the
        counts of ``kind`` that every worker shares (:meth:`share_counts`), in
        one step in Redis: this worker's hash and the other live workers'
        (those of the last heartbeat) are summed and, under the cap, this
        worker's gets one more. So a burst spread over the workers never
        passes a cap (issue 16's attacker: 128 sockets of one address against
        a cap of 64, a cap per worker within one heartbeat). A worker that
        joined since the last heartbeat is counted from the next.

        :returns: whether the place was taken.
        :raises redis.RedisError: Redis failed (the caller refuses: ``server/unavailable``).
        """
        keys = [counts_key(kind, w) for w in (self.worker, *self._peers.get(kind, ()))]
        return bool(await self._claim(keys=keys, args=[key, cap, max(1, int(seconds * 1000))]))

    async def release_count(self, kind: str, key: str) -> None:
        """Give back one place of ``key`` taken by :meth:`claim_count`.
        :raises redis.RedisError: Redis failed (the next heartbeat writes this worker's counts whole)."""
        await self._release(keys=[counts_key(kind, self.worker)], args=[key])

    async def alive(self, seconds: float) -> None:
        """Say this worker is alive for the next ``seconds`` (the heartbeat
        renews it): key ``liars:alive:{worker}``, expiring in Redis' clock."""
        await self.redis.set(alive_key(self.worker), "1", px=max(1, int(seconds * 1000)))

    async def server_id(self) -> str:
        """The Redis server's run id: a new one means Redis restarted (and,
        without persistence, came back empty)."""
        info = await self.redis.info("server")
        return str(info.get("run_id", ""))

    async def presence(self, table_id: str) -> dict[str, set[int]]:
        """The seats each live worker's sockets hold at ``table_id``. A worker
        whose :meth:`alive` key has expired (it died) is left out and its field
        deleted: before, a dead worker's seats counted for 120 s (the hash's
        expiry), so a person whose socket died with it kept the seat from the
        stand-in bot for two minutes."""
        key = f"liars:presence:{table_id}"
        raw = await self.redis.hgetall(key)
        if not raw:
            return {}
        workers = [str(w) for w in raw]
        flags = await self.redis.mget([alive_key(w) for w in workers])
        dead = [w for w, f in zip(workers, flags) if f is None]
        if dead:
            await self.redis.hdel(key, *dead)
        return {str(w): set(json.loads(raw[w])) for w, f in zip(workers, flags) if f is not None}

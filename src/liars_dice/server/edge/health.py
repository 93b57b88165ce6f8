"""``GET /healthz`` (liveness) and ``GET /readyz`` (readiness) of one worker.

``/healthz``: whether this worker can serve games, its database included
(issue 16, fault 9: it said ok while every write failed). A single client
cannot turn it red: a value the database refuses for the request's own sake is
that request's refusal (``request/unstorable``), not a failure of the store
(issue 36, fault 4: one rules file every 10 s kept every worker out of a load
balancer).

The answer is ``{"ok": bool, "database": "ok" | "failing" | "unreachable"}``,
with status 200 when ok and 503 otherwise:

* ``unreachable``: a ``SELECT 1`` did not answer within :data:`PROBE_SECONDS`;
* ``failing``: the store's last use failed (a write or a read of a game)
  within :data:`FAILING_SECONDS`, with no success since (a read can succeed
  while writes fail, as under SQLite's write lock or a full disk);
* otherwise ``ok``.

It is cheap, so that polling it pins nothing: one probe at a time, its
answer kept for :data:`CACHE_SECONDS`; every caller meanwhile shares it.

``/readyz`` (:class:`Readiness`, issue 36: "a readiness probe apart from
liveness") says whether a load balancer should send this worker new
requests: ``{"ready": bool, "database": "ok" | ..., "redis": "ok" |
"unreachable" | "none", "heartbeat": "ok" | "late" | "none"}``, 200 when ready,
else 503. ``database`` as ``/healthz``'s; ``redis`` a ``PING`` answered within
:data:`PROBE_SECONDS` (``none``: one worker, no Redis); ``heartbeat`` whether
this worker's last heartbeat that renewed its leases is younger than a lease
(``late``: its leases may have lapsed, its tables may be another's).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Awaitable, Callable

from sqlalchemy import Engine, text

from ..runtime import metrics
from ..runtime.service import TableService

#: Seconds a probe's answer is served again.
CACHE_SECONDS = 1.0
#: Seconds the database has to answer ``SELECT 1``.
PROBE_SECONDS = 2.0
#: Seconds a failure of the store keeps the answer ``failing`` (if nothing succeeded since).
FAILING_SECONDS = 10.0


class Health:
    """The health of one worker: its ``service`` and its database ``engine``."""

    def __init__(self, service: TableService, engine: Engine) -> None:
        self.service = service
        self.engine = engine
        self._at = float("-inf")
        self._reachable = True
        self._probe: asyncio.Task[bool] | None = None

    def _select_one(self) -> bool:
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return True

    async def _reach(self) -> bool:
        try:
            return await asyncio.wait_for(asyncio.to_thread(self._select_one), PROBE_SECONDS)
        except Exception:  # noqa: BLE001 - any failure means unreachable
            return False

    async def check(self) -> tuple[int, dict[str, Any]]:
        """``(HTTP status, body)`` of ``/healthz`` now."""
        now = time.monotonic()
        if now - self._at > CACHE_SECONDS:
            if self._probe is None or self._probe.done():
                self._probe = asyncio.ensure_future(self._reach())
            self._reachable = await asyncio.shield(self._probe)
            self._at = time.monotonic()
        svc = self.service
        failing = svc.store_failed > svc.store_ok and now - svc.store_failed < FAILING_SECONDS
        state = "unreachable" if not self._reachable else "failing" if failing else "ok"
        return (200 if state == "ok" else 503), {"ok": state == "ok", "database": state}


class Readiness:
    """The readiness of one worker: its :class:`Health` (the database), its
    Redis ``ping`` (``None``: one worker) and its lease heartbeat.

    :param lease_seconds: how old the last heartbeat may be (the lease's
        length: past it, this worker's leases may have lapsed).
    """

    def __init__(self, health: Health, ping: Callable[[], Awaitable[Any]] | None = None,
                 lease_seconds: float | None = None) -> None:
        self.health = health
        self.ping = ping
        self.lease_seconds = lease_seconds
        #: monotonic time of the last heartbeat that renewed the leases (:meth:`beaten`)
        self.beat_at = time.monotonic()

    async def beaten(self) -> None:
        """Record a heartbeat that renewed this worker's leases (a cluster beat hook)."""
        self.beat_at = time.monotonic()

    async def _redis(self) -> str:
        if self.ping is None:
            return "none"
        try:
            await asyncio.wait_for(self.ping(), PROBE_SECONDS)
        except Exception:  # noqa: BLE001 - any failure means unreachable
            metrics.REDIS_ERRORS.inc()
            return "unreachable"
        return "ok"

    async def check(self) -> tuple[int, dict[str, Any]]:
        """``(HTTP status, body)`` of ``/readyz`` now."""
        _, live = await self.health.check()
        redis = await self._redis()
        if self.lease_seconds is None:
            beat = "none"
        else:
            beat = "ok" if time.monotonic() - self.beat_at < self.lease_seconds else "late"
        ready = live["ok"] and redis in ("ok", "none") and beat in ("ok", "none")
        return (200 if ready else 503), {"ready": ready, "database": live["database"], "redis": redis, "heartbeat": beat}

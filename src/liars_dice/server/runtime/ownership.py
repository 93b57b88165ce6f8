"""One owner per table, held in PostgreSQL: a lease row with a fencing number.

When several workers share one database (``liars-dice serve --workers N``),
each table's commands are decided and stored by one worker, its owner. The
``table_leases`` row of a table says who: ``owner`` (a worker id), ``fence``
(a number that grows by one at every change of owner) and ``expires_at``.

* The owner renews its leases every :attr:`Leases.seconds` / 3 (the
  heartbeat, :meth:`Leases.renew`); a lease not renewed for
  :attr:`Leases.seconds` seconds expires, and any worker may then take it
  (:meth:`Leases.acquire`), with the next fence.
* Every event insert runs in the same transaction as a fence check
  (:func:`check_fence`, run by the store for the op of :meth:`Leases.fence_op`):
  the lease row must still name this worker, with this fence, unexpired.
  The check locks the row (``FOR SHARE``), so a takeover waits for a commit
  under way, and a commit after a takeover is refused: a worker that has lost
  a table can never store an event for it (:class:`LeaseLost`).

Times are the database's (``clock_timestamp()``), never a worker's clock, so
workers on several machines need no synchronised clocks. PostgreSQL only.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, Engine, and_, case, func, or_, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.dialects.postgresql import insert as pg_insert

from ..core.errors import LeaseLost
from .db import leases_t, tables_t
from .store import Op

log = logging.getLogger(__name__)

#: Seconds a lease lasts without a renewal: the bound on a takeover after a
#: worker's death (docs/scaling.md).
LEASE_SECONDS = 6.0


class Leases:
    """The leases one worker holds (a worker id and the fence of each table).

    :param engine: a migrated PostgreSQL engine.
    :param worker: this worker's id (at most 64 characters; unique among the
        workers sharing the database).
    :param seconds: a lease's length in seconds (:data:`LEASE_SECONDS`).
    :raises ValueError: the engine is not PostgreSQL's.

    The methods touch the database: call them from a worker thread
    (``asyncio.to_thread``).
    """

    def __init__(self, engine: Engine, worker: str, seconds: float = LEASE_SECONDS) -> None:
        if engine.dialect.name != "postgresql":
            raise ValueError("Table leases need PostgreSQL (--db postgresql://...).")
        self.engine = engine
        self.worker = worker
        self.seconds = seconds
        self.held: dict[str, int] = {}  #: table id -> fence, for the leases this worker holds

    def _until(self) -> Any:
        return func.clock_timestamp() + timedelta(seconds=self.seconds)

    def acquire(self, table_id: str) -> int | None:
        """Take ``table_id``'s lease if nobody holds it, it has expired, or this
        worker holds it already; returns the fence, or ``None`` if another
        worker holds it. A new owner gets the previous fence plus one."""
        ins = pg_insert(leases_t).values(table_id=table_id, owner=self.worker, fence=1, expires_at=self._until())
        t = leases_t
        stmt = ins.on_conflict_do_update(
            index_elements=[t.c.table_id],
            set_={
                "owner": ins.excluded.owner,
                "fence": case((t.c.owner == ins.excluded.owner, t.c.fence), else_=t.c.fence + 1),
                "expires_at": ins.excluded.expires_at,
            },
            where=or_(t.c.expires_at < func.clock_timestamp(), t.c.owner == ins.excluded.owner),
        ).returning(t.c.fence)
        with self.engine.begin() as conn:
            fence = conn.execute(stmt).scalar_one_or_none()
        if fence is None:
            self.held.pop(table_id, None)
            return None
        self.held[table_id] = int(fence)
        return int(fence)

    def renew(self) -> set[str]:
        """Extend every held lease (the heartbeat); returns the table ids whose
        lease was lost (expired and taken, or gone): they are no longer held."""
        if not self.held:
            return set()
        held = sorted(self.held.items())
        for attempt in range(3):
            try:
                kept = self._renew(held)
                break
            except DBAPIError as e:
                # A deadlock (or serialization) victim: try again at once rather
                # than let every lease of this worker age by a whole beat.
                if attempt == 2 or not _is_lock_conflict(e):
                    raise
                log.info("lease renewal was a lock conflict's victim; renewing again")
        lost = {table_id for table_id, _ in held} - kept
        for table_id in lost:
            self.held.pop(table_id, None)
        return lost

    def _renew(self, held: list[tuple[str, int]]) -> set[str]:
        """One renewal transaction over ``held`` (table id, fence), in table id
        order: the lease rows are locked in the same order as a store write's
        fence checks lock them (:func:`.store._execute`), so the heartbeat and
        a batch of writes never wait on each other in a cycle (they deadlocked:
        PostgreSQL aborted the heartbeat, and every lease of the worker aged
        together until they all expired at once)."""
        t = leases_t
        kept: set[str] = set()
        with self.engine.begin() as conn:
            for table_id, fence in held:
                r = conn.execute(
                    update(t).where(
                        t.c.table_id == table_id, t.c.owner == self.worker, t.c.fence == fence,
                        t.c.expires_at > func.clock_timestamp(),
                    ).values(expires_at=self._until())
                )
                if r.rowcount:
                    kept.add(table_id)
        return kept

    def release(self, table_id: str) -> None:
        """Give up ``table_id``'s lease at once (a finished table, a clean
        shutdown): another worker may take it without waiting for the expiry."""
        fence = self.held.pop(table_id, None)
        if fence is None:
            return
        t = leases_t
        with self.engine.begin() as conn:
            conn.execute(
                update(t).where(t.c.table_id == table_id, t.c.owner == self.worker, t.c.fence == fence)
                .values(expires_at=func.clock_timestamp())
            )

    def orphans(self) -> list[str]:
        """Unfinished tables (open or playing) with no lease or an expired one:
        the tables a live worker should take over."""
        t = leases_t
        q = (
            select(tables_t.c.id)
            .outerjoin(t, t.c.table_id == tables_t.c.id)
            .where(tables_t.c.status.in_(("open", "playing")))
            .where(or_(t.c.table_id.is_(None), t.c.expires_at < func.clock_timestamp()))
        )
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(q)]

    def owner_of(self, table_id: str) -> str | None:
        """The worker holding ``table_id``'s unexpired lease, or ``None``."""
        t = leases_t
        with self.engine.connect() as conn:
            return conn.execute(
                select(t.c.owner).where(and_(t.c.table_id == table_id, t.c.expires_at > func.clock_timestamp()))
            ).scalar_one_or_none()

    def fence_op(self, table_id: str) -> Op:
        """The op that makes a write's transaction check this worker's lease of
        ``table_id`` (see :func:`check_fence`).

        :raises LeaseLost: this worker does not hold the lease."""
        fence = self.held.get(table_id)
        if fence is None:
            raise LeaseLost("This table is run by another worker now; reconnect to go on.")
        return Op("fence", {"table_id": table_id, "owner": self.worker, "fence": fence}, table_id, check_fence)


def _is_lock_conflict(e: DBAPIError) -> bool:
    """Whether PostgreSQL aborted a transaction as a deadlock's or a
    serialization conflict's victim (SQLSTATE 40P01, 40001)."""
    code = getattr(e.orig, "sqlstate", None) or getattr(e.orig, "pgcode", None)
    return code in ("40P01", "40001")


def check_fence(conn: Connection, row: dict[str, Any]) -> None:
    """Inside a write's transaction: ``row``'s worker still holds the lease
    with ``row``'s fence, unexpired; the row is locked until the commit.

    :raises LeaseLost: it does not (the transaction must roll back)."""
    t = leases_t
    held = conn.execute(
        select(t.c.fence).where(
            t.c.table_id == row["table_id"], t.c.owner == row["owner"], t.c.fence == row["fence"],
            t.c.expires_at > func.clock_timestamp(),
        ).with_for_update(read=True)
    ).first()
    if held is None:
        raise LeaseLost("This table is run by another worker now; reconnect to go on.")

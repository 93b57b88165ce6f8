"""One owner per table (issue 16, "Many workers, one game"): the lease row and
its fencing number in PostgreSQL. A worker whose lease was taken over cannot
store an event: the fence check runs in the write's own transaction.

Runs when ``LIARS_DICE_TEST_POSTGRES_URL`` is set (``.ci/run`` starts a cluster).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator

import pytest
from helpers import run_in_thread
from sqlalchemy import Engine, func, select

from liars_dice.server.runtime.db import events_t, make_engine, migrate
from liars_dice.server.runtime.ownership import LeaseLost, Leases
from liars_dice.server.runtime.store import Store, utcnow

from .conftest import POSTGRES_URL, reset_postgres

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not POSTGRES_URL, reason="LIARS_DICE_TEST_POSTGRES_URL is not set"),
]


@pytest.fixture
def engine() -> Iterator[Engine]:
    assert POSTGRES_URL is not None
    reset_postgres(POSTGRES_URL)
    e = make_engine(POSTGRES_URL)
    migrate(e)
    yield e
    e.dispose()


def _table_ops(table_id: str) -> list:  # type: ignore[type-arg]
    return [Store.op_insert_table({
        "id": table_id, "code": table_id[:6].upper(), "created_at": utcnow(), "status": "open", "private": False,
        "preset": "classic", "n_seats": 2, "turn_timer": None,
    })]


def _stored(engine: Engine, table_id: str) -> list[int]:
    with engine.connect() as conn:
        return [r[0] for r in conn.execute(select(events_t.c.seq).where(events_t.c.table_id == table_id).order_by(events_t.c.seq))]


def test_stale_owner_cannot_store_an_event(engine: Engine) -> None:
    """Worker a owns the table; its lease expires, b takes it (fence 2); a's
    next write, with fence 1, is refused and stores nothing; b's is stored."""
    tid = uuid.uuid4().hex
    a, b = Leases(engine, "a", seconds=0.5), Leases(engine, "b", seconds=5.0)
    store_a, store_b = Store(engine), Store(engine)

    async def go() -> None:
        assert a.acquire(tid) == 1
        assert b.acquire(tid) is None, "a live lease is not taken"
        await store_a.write([a.fence_op(tid), *_table_ops(tid), Store.op_event(tid, 1, "created", {})])
        time.sleep(0.7)  # a's heartbeat stopped (a paused, or cut off)
        assert b.acquire(tid) == 2
        with pytest.raises(LeaseLost):
            await store_a.write([a.fence_op(tid), Store.op_event(tid, 2, "chat", {"by": "a"})])
        await store_b.write([b.fence_op(tid), Store.op_event(tid, 2, "chat", {"by": "b"})])
        assert a.renew() == {tid} and tid not in a.held, "a learns at its next heartbeat that it lost the table"
        with pytest.raises(LeaseLost):
            a.fence_op(tid)

    try:
        run_in_thread(go())
    finally:
        store_a.close()
        store_b.close()
    assert _stored(engine, tid) == [1, 2]
    with engine.connect() as conn:
        by = conn.execute(select(events_t.c.payload).where(events_t.c.table_id == tid, events_t.c.seq == 2)).scalar_one()
    assert by == {"by": "b"}


def test_a_refused_write_does_not_sink_the_others_in_its_batch(engine: Engine) -> None:
    """Group commit: one stale write in a batch of writes for other tables is
    refused alone (the store retries the batch one by one)."""
    t1, t2 = uuid.uuid4().hex, uuid.uuid4().hex
    a, b = Leases(engine, "a", seconds=30.0), Leases(engine, "b", seconds=30.0)
    store = Store(engine)

    async def go() -> list[BaseException | None]:
        assert a.acquire(t1) == 1 and b.acquire(t2) == 1
        a.held[t2] = 1  # a believes it holds t2 too (a stale belief)
        writes = [
            store.write([a.fence_op(t1), *_table_ops(t1), Store.op_event(t1, 1, "created", {})]),
            store.write([a.fence_op(t2), *_table_ops(t2), Store.op_event(t2, 1, "created", {})]),
        ]
        return await asyncio.gather(*writes, return_exceptions=True)

    try:
        results = run_in_thread(go())
    finally:
        store.close()
    assert results[0] is None and isinstance(results[1], LeaseLost)
    assert _stored(engine, t1) == [1] and _stored(engine, t2) == []


def test_renew_keeps_and_release_frees(engine: Engine) -> None:
    tid = uuid.uuid4().hex
    a, b = Leases(engine, "a", seconds=1.0), Leases(engine, "b", seconds=1.0)
    assert a.acquire(tid) == 1
    for _ in range(3):
        time.sleep(0.4)
        assert a.renew() == set()
    assert b.acquire(tid) is None and a.owner_of(tid) == "a"
    assert a.acquire(tid) == 1, "the owner taking its own lease again keeps the fence"
    a.release(tid)
    assert b.acquire(tid) == 2 and b.owner_of(tid) == "b"
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(events_t)).scalar_one() == 0


def test_the_heartbeat_survives_a_lock_cycle_with_a_write(engine: Engine) -> None:
    """Issue 16 benchmarks (the attack on one worker lost 287 tables at once): the
    heartbeat's renewal and a batch of writes locked lease rows in different
    orders; PostgreSQL aborted the heartbeat as the deadlock's victim, and every
    lease of the worker aged together until all expired. Now both lock in table
    id order, and a renewal that is a lock conflict's victim is tried again.

    Here a second connection makes the cycle on purpose: it locks the second
    lease row, the renewal locks the first and waits for the second, then the
    connection asks for the first. Whichever PostgreSQL aborts, the renewal
    keeps both leases."""
    import threading

    from sqlalchemy import text

    first, second = sorted(uuid.uuid4().hex for _ in range(2))
    w = Leases(engine, "w", seconds=30.0)
    assert w.acquire(first) == 1 and w.acquire(second) == 1
    other = engine.connect()
    tx = other.begin()
    other.execute(text("SELECT 1 FROM table_leases WHERE table_id = :t FOR UPDATE"), {"t": second})
    out: dict[str, object] = {}

    def renew() -> None:
        try:
            out["lost"] = w.renew()
        except Exception as e:  # noqa: BLE001 - the test reports it
            out["error"] = e

    beat = threading.Thread(target=renew)
    beat.start()
    time.sleep(0.5)  # the renewal now holds the first row and waits for the second: it
    # has waited longest, so PostgreSQL's deadlock check (after deadlock_timeout, 1 s) aborts it
    try:
        other.execute(text("SELECT 1 FROM table_leases WHERE table_id = :t FOR UPDATE"), {"t": first})
    except Exception:  # noqa: BLE001 - this side was the victim: fine too
        pass
    finally:
        tx.rollback()
        other.close()
    beat.join(timeout=30)
    assert "error" not in out, out
    assert out["lost"] == set() and set(w.held) == {first, second}

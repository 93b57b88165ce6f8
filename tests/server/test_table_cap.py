"""The open-table caps hold under parallel creates (issue 16, fault 5).

The total cap was checked before the write and counted after it: "16 parallel
creates made 2,014 tables against a cap of 2,000". These send creates in
parallel, from several loopback addresses, to a real uvicorn server.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from live import live_server

from liars_dice.server import Settings

from .conftest import POSTGRES_URL, REDIS_URL, reset_postgres, reset_redis

BODY = {"nickname": "ann", "seats": 2}


def _create(url: str, source: str) -> int:
    with httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address=source), timeout=20) as c:
        return c.post("/api/tables", json=BODY).status_code


def _parallel(url: str, sources: list[str]) -> list[int]:
    with ThreadPoolExecutor(len(sources)) as pool:
        return list(pool.map(lambda s: _create(url, s), sources))


def test_parallel_creates_never_pass_the_total_cap(tmp_path: Path) -> None:
    s = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", open_tables_total=4, create_rate="1000/minute")
    with live_server(s) as url:
        statuses = _parallel(url, [f"127.0.0.{i}" for i in range(2, 18)])
        assert sorted(statuses) == [201] * 4 + [503] * 12, statuses
        assert len(httpx.get(f"{url}/api/tables").json()["tables"]) == 4
        assert _create(url, "127.0.0.30") == 503  # and it stays held


def test_parallel_creates_from_one_address_never_pass_its_cap(tmp_path: Path) -> None:
    s = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", open_tables_per_address=2, create_rate="1000/minute")
    with live_server(s) as url:
        statuses = _parallel(url, ["127.0.0.2"] * 10)
        assert sorted(statuses) == [201] * 2 + [429] * 8, statuses
        assert _create(url, "127.0.0.3") == 201  # another address has its own


def test_a_refused_create_gives_its_place_back(tmp_path: Path) -> None:
    s = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", open_tables_total=1, create_rate="1000/minute")
    with live_server(s) as url, httpx.Client(base_url=url) as c:
        assert c.post("/api/tables", json={**BODY, "seats": 99}).status_code == 400  # a bad table
        assert c.post("/api/tables", json=BODY).status_code == 201


def _two_workers_sharing(settings: Settings) -> None:
    """Wait until each of two workers counts the other (both in Redis'
    ``liars:counters:open_tables``, then one more heartbeat)."""
    import redis

    from liars_dice.server.runtime.ownership import LEASE_SECONDS

    assert settings.redis_url is not None
    r = redis.Redis.from_url(settings.redis_url)
    try:
        deadline = time.monotonic() + 20
        while r.scard("liars:counters:open_tables") < 2:
            assert time.monotonic() < deadline, "the two workers never shared their counts"
            time.sleep(0.05)
    finally:
        r.close()
    time.sleep(LEASE_SECONDS / 3 + 0.5)


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.skipif(not (POSTGRES_URL and REDIS_URL), reason="LIARS_DICE_TEST_POSTGRES_URL or LIARS_DICE_TEST_REDIS_URL is not set")
@pytest.mark.parametrize("cap", ["total", "per_address"])
def test_parallel_creates_on_two_workers_never_pass_a_cap(cap: str) -> None:
    """Issue 16, fault 5, across workers: each worker counted the others'
    open tables as of the last heartbeat only, so creates sent to two workers
    at once made a cap's worth on each (8 of 8 parallel creates against a
    total of 4, split over 2 workers, were made). A new table's places are now
    claimed in Redis in one step across the workers."""
    assert POSTGRES_URL is not None and REDIS_URL is not None
    reset_postgres(POSTGRES_URL)
    reset_redis(REDIS_URL)
    s = Settings(db_url=POSTGRES_URL, redis_url=REDIS_URL, create_rate="1000/minute", trusted_proxies=(),
                 **({"open_tables_total": 4} if cap == "total" else {"open_tables_per_address": 2}))
    with live_server(s) as a, live_server(s) as b:
        _two_workers_sharing(s)
        if cap == "total":
            sources = [f"127.0.1.{i}" for i in range(2, 18)]
            calls = [(a if i % 2 else b, src) for i, src in enumerate(sources)]
            want, refused = 4, 503
        else:
            calls = [(a if i % 2 else b, "127.0.1.40") for i in range(10)]
            want, refused = 2, 429
        with ThreadPoolExecutor(len(calls)) as pool:
            statuses = list(pool.map(lambda c: _create(*c), calls))
        assert sorted(statuses) == [201] * want + [refused] * (len(calls) - want), statuses
        # and held on both workers, after the heartbeats too
        time.sleep(2.5)
        src = "127.0.1.99" if cap == "total" else "127.0.1.40"
        assert _create(a, src) == refused and _create(b, src) == refused


def test_a_started_table_still_counts_under_its_addresss_cap(tmp_path: Path) -> None:
    """Stop 31's attacker: a table left the cap's count when it started, so one
    address ran 20 tables of 6 strong bots (under 9 faces x 10 dice, 250-500 ms
    a decision) with the cap at 8, by starting each and making the next. A
    table counts until it is finished or closed (``open_tables_per_address``)."""
    from starlette.testclient import TestClient

    from liars_dice.server import create_app

    from .helpers import Player, close_all, create

    s = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", open_tables_per_address=2, create_rate="1000/minute",
                 bot_delay=30.0)
    with TestClient(create_app(s)) as app:
        try:
            for _ in range(2):
                t = create(app, seats=2)
                host = Player(app, t["code"], t["token"])
                host.send({"type": "add_bot", "bot": "random", "id": 1})
                host.send({"type": "start", "id": 2})
                assert host.wait(lambda m: m.get("id") == 2)["type"] == "ack"
                assert app.get(f"/api/tables/{t['code']}").json()["status"] == "playing"
            r = app.post("/api/tables", json={"nickname": "ann", "preset": "classic", "seats": 2})
            assert r.status_code == 429, r.text
            body = r.json()["error"]
            assert body["code"] == "table/too_many"
            assert body["message"] == "You already have 2 tables open or in play (the most is 2): finish one first."
        finally:
            close_all()


def test_a_restart_keeps_each_live_table_under_its_addresss_cap(tmp_path: Path) -> None:
    """Stop 32's note: the address that made a table lived in the worker's
    memory only, so after a restart (or a takeover by another worker, which
    rebuilds a table through the same ``TableService.resume``) every live table
    counted under no address, and one address could make its cap of tables
    again. The address is kept with the table while it is live
    (``tables.creator``, migration 0005) and cleared when it ends."""
    import sqlalchemy as sa

    db = tmp_path / "t.db"
    s = Settings(db_url=f"sqlite:///{db}", open_tables_per_address=2, create_rate="1000/minute")
    with live_server(s) as url:
        assert [_create(url, "127.0.0.2") for _ in range(2)] == [201, 201]
        assert _create(url, "127.0.0.2") == 429
    with live_server(s) as url:  # a new process on the same store
        assert _create(url, "127.0.0.2") == 429
        assert _create(url, "127.0.0.3") == 201
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:
        rows = conn.execute(sa.text("select creator from tables where status = 'open'")).scalars().all()
    engine.dispose()
    assert sorted(rows) == ["127.0.0.2", "127.0.0.2", "127.0.0.3"]


def test_a_tables_address_is_cleared_when_it_ends(tmp_path: Path) -> None:
    """The store keeps a creator's address only while the table is live
    (migration 0005): a closed table's row, and the row written by any
    ``finished`` event, hold none; "play again" writes it back."""
    import sqlalchemy as sa
    from starlette.testclient import TestClient

    from liars_dice.server import create_app
    from liars_dice.server.core.tables import Event, EventKind
    from liars_dice.server.runtime.service import _ops

    from .helpers import Player, close_all, create

    db = tmp_path / "t.db"
    with TestClient(create_app(Settings(db_url=f"sqlite:///{db}"))) as app:
        try:
            t = create(app, seats=2)
            engine = sa.create_engine(f"sqlite:///{db}")
            q = sa.text("select status, creator from tables")
            with engine.connect() as conn:
                assert conn.execute(q).one() == ("open", "testclient")
            host = Player(app, t["code"], t["token"])
            host.send({"type": "leave", "id": 1})
            deadline = time.monotonic() + 10
            while app.get(f"/api/tables/{t['code']}").json()["status"] != "closed":
                assert time.monotonic() < deadline
                time.sleep(0.05)
            with engine.connect() as conn:
                assert conn.execute(q).one() == ("closed", None)
            engine.dispose()
        finally:
            close_all()
    finished = _ops("t1", 9, [Event(EventKind.FINISHED, {"winner": "ann"})], None, "127.0.0.9")
    assert [op.row["creator"] for op in finished if op.kind == "update"] == [None]
    again = _ops("t1", 10, [Event(EventKind.NEW_GAME, {"players": ["ann", "bob"]})], None, "127.0.0.9")
    assert [op.row["creator"] for op in again if op.kind == "update"] == ["127.0.0.9"]

"""Fault injection on PostgreSQL (issue 16, faults 7, 8, 10, and its "done
when"): the database stopped for 10 s, and crashed (``pg_ctl stop -m
immediate``), in the middle of 12 games played by bots on a real
``liars-dice serve``. Afterwards every game goes on to its end by itself,
every move a spectator was shown is in the store, and the server restarts
cleanly. And one slow query (a lock held on ``seats``) no longer stops the
bots.

Each test runs on a cluster of its own (:mod:`pg_cluster`: ``initdb`` and
``pg_ctl`` as the ``postgres`` user, a free port), so stopping it touches no
other test. Needs root and PostgreSQL's binaries (``.ci/run`` has both).
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import run_in_thread
from sqlalchemy import Engine, select, text
from websockets.sync.client import connect

from . import pg_cluster
from liars_dice.records import replay
from liars_dice.server import Settings
from liars_dice.server.core.messages import CreateTable
from liars_dice.server.core.tables import Departure
from liars_dice.server.runtime.db import events_t, make_engine, migrate, tables_t
from liars_dice.server.runtime.service import TableService
from liars_dice.server.runtime.store import Store

from .test_restart import start_server

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.skipif(not pg_cluster.available(), reason="needs root and PostgreSQL's initdb/pg_ctl"),
]

GAMES = 12


@pytest.fixture
def cluster() -> Iterator[pg_cluster.Cluster]:
    c = pg_cluster.Cluster()
    try:
        yield c
    finally:
        c.remove()


def test_event_writes_commit_synchronously(cluster: pg_cluster.Cluster) -> None:
    """Issue 16 fault 8: the connection ran with ``synchronous_commit=off``,
    so a database crash lost moves the players had been shown. It is on,
    whatever the database's own default says."""
    admin = make_engine(cluster.url)
    with admin.begin() as c:
        c.execute(text("ALTER DATABASE liars_faults SET synchronous_commit = off"))
    admin.dispose()
    for durable in (False, True):
        engine = make_engine(cluster.url, durable=durable)
        with engine.connect() as c:
            assert c.execute(text("SHOW synchronous_commit")).scalar_one() == "on"
        engine.dispose()


class Spectator(threading.Thread):
    """Watches one table over a real websocket; keeps every move it was shown
    as ``(move number, event)``, until the game is over."""

    def __init__(self, base: str, code: str) -> None:
        super().__init__(daemon=True)
        self.url = base.replace("http://", "ws://") + f"ws/tables/{code}"
        self.shown: list[tuple[int, dict[str, Any]]] = []
        self.over = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with connect(self.url, open_timeout=20) as ws:
                ws.send(json.dumps({"type": "hello", "token": None}))
                while True:
                    m = json.loads(ws.recv(timeout=120))
                    if m["type"] != "state":
                        continue
                    ev = m["event"]
                    if ev.get("kind") in ("bid", "challenge", "calza"):
                        self.shown.append((m["view"]["move_number"], ev))
                    if m["view"]["phase"] == "over":
                        self.over.set()
                        return
        except BaseException as e:  # noqa: BLE001 - reported by the test
            self.error = e
            self.over.set()


def bots_only_table(http: httpx.Client, base: str) -> str:
    """A table of 3 bots (the host leaves at once; a stand-in plays for them)."""
    t = http.post("/api/tables", json={"nickname": "ann", "seats": 3, "options": {"dice_per_player": 4}}).json()
    code = t["code"]
    with connect(base.replace("http://", "ws://") + f"ws/tables/{code}", open_timeout=20) as ws:
        ws.send(json.dumps({"type": "hello", "token": t["token"]}))
        for i, msg in enumerate(({"type": "add_bot", "bot": "random"}, {"type": "add_bot", "bot": "random"},
                                 {"type": "start"}, {"type": "leave"})):
            ws.send(json.dumps({**msg, "id": str(i)}))
            while True:
                m = json.loads(ws.recv(timeout=20))
                if m.get("id") == str(i):
                    assert m["type"] == "ack", m
                    break
    return code


def stored_moves(engine: Engine, code: str) -> list[dict[str, Any]]:
    with engine.connect() as c:
        tid = c.execute(select(tables_t.c.id).where(tables_t.c.code == code)).scalar_one()
        rows = c.execute(select(events_t.c.seq, events_t.c.kind, events_t.c.payload)
                         .where(events_t.c.table_id == tid).order_by(events_t.c.seq)).all()
    seqs = [r[0] for r in rows]
    assert seqs == list(range(1, len(seqs) + 1)), f"table {code}: a gap in its events"
    return [r[2] for r in rows if r[1] == "move"]


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)


def drain(proc: subprocess.Popen[str]) -> list[str]:
    """The server's output lines from now on (read on a thread, so a full pipe never stops it)."""
    lines: list[str] = []
    assert proc.stdout is not None
    out = proc.stdout
    threading.Thread(target=lambda: lines.extend(iter(out.readline, "")), daemon=True).start()
    return lines


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_games_go_on_after_postgres_stops(cluster: pg_cluster.Cluster, tmp_path: Path, mode: str) -> None:
    """Issue 16 faults 7 and 8: PostgreSQL stopped for 10 s (``fast``) or
    crashed (``immediate``) in the middle of 12 games. Before, 11 of 12
    games never moved again, a crash lost announced moves, and the server
    numbered past the gap."""
    cli = str(Path(__import__("sys").executable).parent / "liars-dice")
    proc, base = start_server(cli, cluster.url, tmp_path, bot_delay=0.15, extra=("--limit", "open_tables_per_address=100"))
    log = drain(proc)
    engine = make_engine(cluster.url)
    try:
        http = httpx.Client(base_url=base, timeout=30)
        codes = [bots_only_table(http, base) for _ in range(GAMES)]
        watchers = {code: Spectator(base, code) for code in codes}
        for w in watchers.values():
            w.start()
        time.sleep(2.0)
        assert not any(w.over.is_set() for w in watchers.values()), "a game ended before the outage"
        cluster.stop(mode)
        time.sleep(10.0)
        cluster.start()
        for code, w in watchers.items():
            assert w.over.wait(180), f"table {code} did not go on to its end by itself"
            assert w.error is None, w.error
        engine.dispose()
        for code, w in watchers.items():
            moves = stored_moves(engine, code)
            for mn, ev in w.shown:  # every move shown is stored, as shown
                assert mn <= len(moves), f"table {code}: move {mn} was shown, and is not stored"
                p = moves[mn - 1]
                assert (ev["kind"] == "bid") == (p["bid"] is not None), (code, mn, ev, p)
                if p["bid"] is not None:
                    assert ev["bid"] == p["bid"], (code, mn, ev, p)
    finally:
        stop_server(proc)
    assert sum("the store failed" in line for line in log) == 1, "".join(log)[-3000:]  # logged once per outage
    proc, base = start_server(cli, cluster.url, tmp_path, bot_delay=0.15, extra=("--limit", "open_tables_per_address=100"))  # restarts cleanly
    drain(proc)
    try:
        for code in codes:
            rec = httpx.get(base + f"api/tables/{code}/record", timeout=30)
            assert rec.status_code == 200, rec.text
            assert replay(rec.json()).ok
    finally:
        stop_server(proc)
        engine.dispose()


def test_slow_reads_do_not_stop_the_bots(cluster: pg_cluster.Cluster) -> None:
    """Issue 16 fault 10: with a lock held on ``seats`` and 12 concurrent
    player listings, bot moves fell from 52.7/s to 0.5/s: the reads and the
    bots' decisions shared asyncio's default thread pool."""
    from .test_store_faults import bots_only

    engine = make_engine(cluster.url)
    migrate(engine)
    store = Store(engine)
    svc = TableService(Settings(db_url=cluster.url, grace=600.0, bot_delay=0.01, timeout_bot="random"), store)
    locker = make_engine(cluster.url)

    async def go() -> None:
        rooms = [await bots_only(svc, seats=4, dice=5) for _ in range(4)]
        moves = lambda: sum(r.table.move_number for r in rooms)  # noqa: E731
        await asyncio.sleep(0.5)
        locked, release = threading.Event(), threading.Event()

        def hold() -> None:  # its own thread: never one of the pools under test
            with locker.connect() as conn:
                conn.execute(text("LOCK TABLE seats IN ACCESS EXCLUSIVE MODE"))
                locked.set()
                release.wait(30)
                conn.rollback()

        holder = threading.Thread(target=hold, daemon=True)
        holder.start()
        assert locked.wait(10)
        readers = [asyncio.ensure_future(svc.queries.games_of_name(f"p{i}")) for i in range(12)]
        await asyncio.sleep(0.3)
        before = moves()
        await asyncio.sleep(2.0)
        during = moves() - before
        release.set()
        await asyncio.gather(*readers)
        assert during >= 20, f"only {during} bot moves in 2 s while 12 reads waited on a lock"
        await svc.shutdown()

    try:
        run_in_thread(go())
    finally:
        store.close()
        engine.dispose()
        locker.dispose()

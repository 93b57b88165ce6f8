"""Database errors give players a clear message (issue 16, fault 9).

"A move or chat whose write fails drops the socket with close code 1008 and no
``error`` message, so the page reconnects in a loop (304 times in 6 s).
``POST /api/tables`` answers ``500 text/plain``. ``/healthz`` says ok
throughout." Here the real database refuses the writes: the test adds a
trigger to the server's SQLite file that aborts every event insert (as a full
disk or a lost connection would fail it), against a real uvicorn server.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import run_in_thread
from live import live_server
from sockets import close_code, hello, until, ws_from

from liars_dice.server import Settings
from liars_dice.server.edge.health import Health
from liars_dice.server.runtime.db import make_engine

FAIL = "CREATE TRIGGER refuse_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    db = tmp_path / "t.db"
    with live_server(Settings(db_url=f"sqlite:///{db}", grace=600.0, bot_delay=0.0)) as url:
        yield url, db


def _sql(db: Path, statement: str) -> None:
    with sqlite3.connect(db, timeout=10) as conn:
        conn.execute(statement)


def test_a_failed_write_is_an_error_message_and_the_socket_stays_open(served: tuple[str, Path]) -> None:
    url, db = served
    http = httpx.Client(base_url=url, timeout=10)
    t = http.post("/api/tables", json={"nickname": "ann", "seats": 2}).json()
    bob = http.post(f"/api/tables/{t['code']}/join", json={"nickname": "bob"}).json()
    ann_ws, bob_ws = ws_from(url, t["code"], "127.0.0.2"), ws_from(url, t["code"], "127.0.0.3")
    try:
        assert hello(ann_ws, t["token"])["type"] == "welcome" and hello(bob_ws, bob["token"])["type"] == "welcome"
        ann_ws.send('{"type": "start", "id": 2}')
        state = until(ann_ws, lambda m: m["type"] == "state" and m["view"].get("to_move"))
        mover = ann_ws if state["view"]["to_move"] == "ann" else bob_ws
        mine = until(mover, lambda m: m["type"] == "state") if mover is bob_ws else state
        raise_ = mine["view"]["legal"]["raises"][0]
        assert http.get("/healthz").json() == {"ok": True, "database": "ok"}

        _sql(db, FAIL)
        ann_ws.send('{"type": "chat", "text": "hello", "id": 10}')
        err = until(ann_ws, lambda m: m.get("id") == 10)
        assert err["type"] == "error" and err["code"] == "server/unavailable" and err["message"].endswith("."), err
        bid = {"type": "bid", "quantity": raise_["quantity"], "face": raise_["face"], "id": 11}
        mover.send(json.dumps(bid))
        err = until(mover, lambda m: m.get("id") == 11)
        assert err["type"] == "error" and err["code"] == "server/unavailable", err
        mover.send('{"type": "ping", "id": 12}')
        assert until(mover, lambda m: m.get("id") == 12)["type"] == "pong"  # still open, no close loop
        r = http.post("/api/tables", json={"nickname": "cat", "seats": 2})
        assert r.status_code == 503 and r.headers["content-type"] == "application/json", (r.status_code, r.text)
        assert r.json()["error"]["code"] == "server/unavailable"
        health = http.get("/healthz")
        assert health.status_code == 503 and health.json() == {"ok": False, "database": "failing"}

        _sql(db, "DROP TRIGGER refuse_events")
        mover.send(json.dumps({**bid, "id": 13}))
        assert until(mover, lambda m: m.get("id") == 13)["type"] == "ack"  # the same move, now stored
        assert http.get("/healthz").json() == {"ok": True, "database": "ok"}
    finally:
        ann_ws.close()
        bob_ws.close()


def test_healthz_says_503_when_the_database_cannot_be_reached() -> None:
    # A real engine to a port where no PostgreSQL listens (connection refused).
    engine = make_engine("postgresql://nobody:x@127.0.0.1:9/none")
    service: Any = types.SimpleNamespace(store_failed=0.0, store_ok=0.0)
    try:
        status, body = run_in_thread(Health(service, engine).check())
    finally:
        engine.dispose()
    assert (status, body) == (503, {"ok": False, "database": "unreachable"})


def test_a_return_that_cannot_be_stored_closes_1011_so_the_page_says_hello_again(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with live_server(Settings(db_url=f"sqlite:///{db}", grace=0.5, bot_delay=3600.0)) as url:
        http = httpx.Client(base_url=url, timeout=10)
        t = http.post("/api/tables", json={"nickname": "ann", "seats": 2}).json()
        bob = http.post(f"/api/tables/{t['code']}/join", json={"nickname": "bob"}).json()
        ann = ws_from(url, t["code"], "127.0.0.2")
        try:
            assert hello(ann, t["token"])["type"] == "welcome"
            ann.send('{"type": "start", "id": 2}')
            # bob never connects: after the grace a bot plays his seat, and he may come back.
            until(ann, lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "bot")
            _sql(db, FAIL)
            back = ws_from(url, t["code"], "127.0.0.3")
            err = hello(back, bob["token"])
            assert err["type"] == "error" and err["code"] == "server/unavailable", err
            assert close_code(back) == 1011
            _sql(db, "DROP TRIGGER refuse_events")
            again = ws_from(url, t["code"], "127.0.0.3")
            welcome = hello(again, bob["token"])
            assert welcome["type"] == "welcome" and welcome["seat"] == 1, welcome
            again.close()
        finally:
            ann.close()


def test_an_outage_under_load_logs_a_line_per_few_seconds_not_per_request(
        served: tuple[str, Path], caplog: pytest.LogCaptureFixture) -> None:
    """Every request fails while the database does; one log line each would let
    one client fill the server's disk ("every resource a limit"). The first
    failure is logged at once, the rest at most once per
    ``TableService.STORE_LOG_SECONDS`` with their count."""
    import logging

    url, db = served
    http = httpx.Client(base_url=url, timeout=10)
    _sql(db, FAIL)
    with caplog.at_level(logging.WARNING, logger="liars_dice"):
        for _ in range(15):  # (the create rate allows 20 a minute)
            r = http.post("/api/tables", json={"nickname": "ann", "seats": 2})
            assert r.status_code == 503 and r.json()["error"]["code"] == "server/unavailable", r.text
    lines = [r.getMessage() for r in caplog.records if "database failure" in r.getMessage()]
    assert len(lines) == 1, lines
    assert "disk I/O error" in lines[0]

"""Many workers, one game, in real Chromium (issue 16): ``liars-dice serve
--workers 2`` on PostgreSQL and Redis, ann's page on worker 0 and bob's on
worker 1 (each page's own origin, so its websocket stays on its worker). They
play a whole game together through the pages; then a second game, in which the
worker that owns the table is SIGKILLed mid-round: the page whose socket died
reconnects by itself (to the worker the supervisor starts again on its port),
another worker takes the table over, and both pages play to the end. Each
record replays (nothing applied twice) and its events are numbered without a
gap (nothing stored lost).

Runs when ``LIARS_DICE_TEST_POSTGRES_URL`` and ``LIARS_DICE_TEST_REDIS_URL``
are set (``.ci/run`` starts both) and chromium is installed.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from _cluster import nginx_front, serve_workers  # benchmarks/_cluster.py (tests/conftest.py puts benchmarks/ on the path)
from e2e_ui import add_bots_and_start, call, create_table, join_by_code, play_until_over, try_click

POSTGRES_URL = os.environ.get("LIARS_DICE_TEST_POSTGRES_URL")
REDIS_URL = os.environ.get("LIARS_DICE_TEST_REDIS_URL")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.timeout(420),
    pytest.mark.skipif(not (POSTGRES_URL and REDIS_URL), reason="LIARS_DICE_TEST_POSTGRES_URL or LIARS_DICE_TEST_REDIS_URL is not set"),
]


def _reset() -> None:
    """Empty the shared test database and Redis (as tests/server/conftest.py does)."""
    import redis

    from liars_dice.server.runtime.db import make_engine

    assert POSTGRES_URL is not None and REDIS_URL is not None
    engine = make_engine(POSTGRES_URL)
    with engine.begin() as conn:
        names = [r[0] for r in conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"))]
        if names:
            conn.execute(text("DROP TABLE IF EXISTS " + ", ".join(f'"{n}"' for n in names) + " CASCADE"))
    engine.dispose()
    r = redis.Redis.from_url(REDIS_URL)
    r.flushdb()
    r.close()


@contextmanager
def two_workers(tmp_path: Path, extra: tuple[str, ...] = ()) -> Iterator[list[str]]:
    """``liars-dice serve --workers 2`` (and ``extra`` options) on fresh
    PostgreSQL and Redis; yields both workers' URLs."""
    assert POSTGRES_URL is not None and REDIS_URL is not None
    _reset()
    options = ["--bot-delay", "0.05", "--reveal-seconds", "0",
               "--limit", "create_rate=600/minute", "--limit", "open_tables_per_address=100", *extra]
    with serve_workers(2, POSTGRES_URL, REDIS_URL, options, tmp_path / "serve.txt", seconds=60) as w:
        yield w.urls


def _owner_pid(table_code: str) -> int:
    """The pid of the worker holding the lease of table ``table_code`` (a worker id is host-pid-random)."""
    from liars_dice.server.core.config import normalize_db_url

    assert POSTGRES_URL is not None
    engine = create_engine(normalize_db_url(POSTGRES_URL))
    with engine.connect() as conn:
        owner = conn.execute(text(
            "SELECT l.owner FROM table_leases l JOIN tables t ON t.id = l.table_id WHERE t.code = :c"
        ), {"c": table_code}).scalar_one()
    engine.dispose()
    return int(str(owner).split("-")[-2])


def _seqs_without_gap(table_code: str) -> None:
    from liars_dice.server.core.config import normalize_db_url

    assert POSTGRES_URL is not None
    engine = create_engine(normalize_db_url(POSTGRES_URL))
    with engine.connect() as conn:
        seqs = [r[0] for r in conn.execute(text(
            "SELECT e.seq FROM events e JOIN tables t ON t.id = e.table_id WHERE t.code = :c ORDER BY e.seq"
        ), {"c": table_code})]
    engine.dispose()
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"table {table_code}: the events have a gap: {seqs}"


def _replays(base: str, table_code: str) -> dict[str, Any]:
    from liars_dice.records import replay

    rec = httpx.get(f"{base}/api/tables/{table_code}/record", timeout=10).json()
    assert replay(rec).ok, "nothing applied twice: the record replays"
    return rec


def _new_game(ann: Any, bob: Any, urls: list[str]) -> str:
    """ann creates a 3-seat classic table on worker 0, bob joins on worker 1, a bot, start."""
    code = create_table(ann, urls[0], "ann", preset="classic", seats=3, dice=2)
    join_by_code(bob, urls[1], "bob", code)
    ann.wait_for_selector('.seat[data-seat="1"]:not(.seat-empty)')
    add_bots_and_start(ann, "random")
    bob.wait_for_selector("#turn")
    return code


def _moves(table_code: str) -> int:
    """The moves stored for table ``table_code`` (a game under way has no record yet)."""
    from liars_dice.server.core.config import normalize_db_url

    assert POSTGRES_URL is not None
    engine = create_engine(normalize_db_url(POSTGRES_URL))
    with engine.connect() as conn:
        n = conn.execute(text(
            "SELECT count(*) FROM events e JOIN tables t ON t.id = e.table_id WHERE t.code = :c AND e.kind = 'move'"
        ), {"c": table_code}).scalar_one()
    engine.dispose()
    return int(n)


def test_two_browsers_on_two_workers_a_whole_game_then_the_owner_killed(new_page: Any, tmp_path: Path) -> None:
    with two_workers(tmp_path) as urls:
        ann, bob = new_page(), new_page()
        # A whole game, a page on each worker: bob's moves are forwarded to the owner.
        first = _new_game(ann, bob, urls)
        play_until_over([ann, bob], limit_s=150)
        rec = _replays(urls[1], first)
        assert rec == _replays(urls[0], first), "both workers give the same record"
        _seqs_without_gap(first)

        # A second game; its owner is SIGKILLed mid-round.
        second = _new_game(ann, bob, urls)
        deadline = time.monotonic() + 60
        while _moves(second) < 3:
            assert time.monotonic() < deadline, "the second game did not get going"
            for p in (ann, bob):
                if p.is_visible("#reveal-close"):
                    try_click(p, "#reveal-close")
                if p.is_visible("#bid-btn:not([disabled])"):
                    try_click(p, "#bid-btn")
                elif p.is_visible("#challenge-btn:not([disabled])"):  # a bot bid the most there is
                    call(p)
            ann.wait_for_timeout(100)
        pid = _owner_pid(second)
        victim = ann if _port_of_pid(pid, urls) == 0 else bob
        os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        # The page whose socket died says so, then reconnects by itself.
        victim.wait_for_selector(".conn:not(.conn-open)", timeout=15_000)
        victim.wait_for_selector(".conn-open", timeout=60_000)  # back on a live worker
        stats = play_until_over([ann, bob], limit_s=240)
        assert stats["moves"] >= 1, "the people moved after the kill"
        alive = urls[1] if victim is ann else urls[0]
        _replays(alive, second)
        _seqs_without_gap(second)
        assert _moves(second) > 3
        print(f"second game finished {time.monotonic() - killed:.1f} s after the SIGKILL")


def _port_of_pid(pid: int, urls: list[str]) -> int:
    """Which worker (0 or 1) process ``pid`` was: its command line names its port."""
    cmd = Path(f"/proc/{pid}/cmdline")
    if cmd.exists():
        args = cmd.read_bytes().split(b"\0")
        at = [i for i, a in enumerate(args) if a == b"--port"]  # the supervisor's own is last
        port = args[at[-1] + 1].decode() if at else ""
        for i, u in enumerate(urls):
            if u.endswith(":" + port):
                return i
    raise AssertionError(f"worker {pid} is not one of {urls}")


def _seat_sockets() -> dict[str, int]:
    """Seat-holding sockets by worker route, as each worker shares its counts
    at its heartbeat (Redis' ``liars:counts:seats:{worker id}``, worker id
    ``route~host-pid-random``)."""
    import redis

    assert REDIS_URL is not None
    r = redis.Redis.from_url(REDIS_URL)
    try:
        out: dict[str, int] = {}
        for key in r.scan_iter("liars:counts:seats:*"):
            route = key.decode().split(":", 3)[3].partition("~")[0]
            out[route] = out.get(route, 0) + sum(int(v) for v in r.hvals(key))
        return out
    finally:
        r.close()


@pytest.mark.skipif(shutil.which("nginx") is None and not os.path.exists("/usr/sbin/nginx"), reason="nginx is not installed")
def test_a_page_behind_nginx_moves_its_socket_to_the_tables_owner(new_page: Any, tmp_path: Path) -> None:
    """The page's own reconnect (static/js/api.js): the table is run by w0, and
    the front sends every socket without a route to w1 only; bob's page is
    welcomed there, told the owner is w0, and reconnects with ?owner=w0."""
    with two_workers(tmp_path, ("--route", "w", "--trusted-proxy", "127.0.0.2")) as urls:
        ports = [int(u.rsplit(":", 1)[1]) for u in urls]
        with nginx_front([ports[1]], routes=ports) as (front, _):
            ann, bob = new_page(), new_page()
            code = create_table(ann, urls[0], "ann", preset="classic", seats=3, dice=2)  # on w0: w0 runs it
            join_by_code(bob, front.rstrip("/"), "bob", code)
            ann.wait_for_selector('.seat[data-seat="1"]:not(.seat-empty)')
            deadline = time.monotonic() + 15
            while _seat_sockets().get("w0", 0) != 2 or _seat_sockets().get("w1", 0) != 0:
                assert time.monotonic() < deadline, f"seat sockets by worker: {_seat_sockets()}, not both on the owner w0"
                time.sleep(0.2)
            add_bots_and_start(ann, "random")
            bob.wait_for_selector("#turn")
            play_until_over([ann, bob], limit_s=150)
            assert _seat_sockets().get("w1", 0) == 0, "the sockets stayed on the owner"

"""How long a table stands still when its owner dies (issue 16, "A worker's death").

Starts ``liars-dice serve --workers 2`` on the PostgreSQL and Redis given,
creates a 4-seat ``classic`` table whose person leaves at once (a stand-in bot
plays her seat: four bots, no client needed), and after a few stored moves
SIGKILLs the worker holding the table's lease. The failover time is from the
SIGKILL to the next event stored under the new owner's lease (a new fence),
read from the database every 20 ms. Prints each run, the median, and the
median's ratio to the documented bound (``ownership.LEASE_SECONDS`` plus one
heartbeat, docs/scaling.md) and to the bot delay (the part of the figure that
is the bots' own pause, not the takeover).

    .venv/bin/python benchmarks/failover_time.py --runs 5 \\
        --db postgresql://liars:liars@127.0.0.1:5432/liars_dice_test --redis redis://127.0.0.1:6390/0

Defaults: ``LIARS_DICE_TEST_POSTGRES_URL`` and ``LIARS_DICE_TEST_REDIS_URL``.
The tables it creates are left in the database, finished (each run waits for
its game's end).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text

from _cluster import serve_workers
from liars_dice.server.core.config import normalize_db_url
from liars_dice.server.runtime.ownership import LEASE_SECONDS


def one_run(db: str, redis_url: str, bot_delay: float, log: Path) -> float:
    """One failover: returns seconds from the SIGKILL to the new owner's first stored event."""
    options = ["--bot-delay", str(bot_delay), "--reveal-seconds", "0", "--log-level", "error"]
    engine = create_engine(normalize_db_url(db))
    stack = ExitStack()
    try:
        try:
            urls = stack.enter_context(serve_workers(2, db, redis_url, options, log, seconds=60)).urls
        except RuntimeError:
            raise SystemExit(f"the workers did not start; see {log}") from None
        t = httpx.post(urls[0] + "/api/tables", json={"nickname": "ann", "preset": "classic", "seats": 4}, timeout=10).json()
        from websockets.sync.client import connect

        with connect(urls[0].replace("http://", "ws://") + f"/ws/tables/{t['code']}") as ws:
            ws.send(json.dumps({"type": "hello", "token": t["token"]}))
            for i, m in enumerate([{"type": "add_bot", "bot": "probabilistic"}] * 3 + [{"type": "start"}, {"type": "leave"}]):
                ws.send(json.dumps({**m, "id": i}))
                while True:
                    got = json.loads(ws.recv(timeout=10))
                    if got.get("id") == i:
                        if got["type"] != "ack":
                            raise SystemExit(f"the table could not be set up: {got}")
                        break

        with engine.connect() as conn:
            tid = str(conn.execute(text("SELECT id FROM tables WHERE code = :c"), {"c": t["code"]}).scalar_one())

        def seen() -> tuple[int, str, int]:
            with engine.connect() as conn:
                row = conn.execute(text(
                    "SELECT (SELECT max(seq) FROM events WHERE table_id = :t), l.owner, l.fence "
                    "FROM table_leases l WHERE l.table_id = :t"), {"t": tid}).one()
            return int(row[0]), str(row[1]), int(row[2])

        while seen()[0] < 12:  # a few moves into the game
            time.sleep(0.02)
        seq, owner, fence = seen()
        os.kill(int(owner.split("-")[-2]), signal.SIGKILL)
        killed = time.monotonic()
        while True:
            s, o, f = seen()
            if f > fence and s > seq:
                took = time.monotonic() - killed
                break
            if time.monotonic() - killed > 60:
                raise SystemExit(f"no takeover within 60 s; see {log}")
            time.sleep(0.02)
        while True:  # let the game end, so that no later run takes it over
            with engine.connect() as conn:
                st = conn.execute(text("SELECT status FROM tables WHERE code = :c"), {"c": t["code"]}).scalar_one()
            if st != "playing":
                break
            time.sleep(0.2)
        return took
    finally:
        engine.dispose()
        stack.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--db", default=os.environ.get("LIARS_DICE_TEST_POSTGRES_URL"))
    ap.add_argument("--redis", default=os.environ.get("LIARS_DICE_TEST_REDIS_URL"))
    ap.add_argument("--bot-delay", type=float, default=0.2, help="seconds each bot waits before its move")
    a = ap.parse_args()
    if not a.db or not a.redis:
        raise SystemExit("Give --db postgresql://... and --redis redis://... (or set LIARS_DICE_TEST_POSTGRES_URL and LIARS_DICE_TEST_REDIS_URL).")
    log = Path(tempfile.mkdtemp(prefix="failover-")) / "serve.txt"
    times = []
    for i in range(a.runs):
        took = one_run(a.db, a.redis, a.bot_delay, log)
        times.append(took)
        print(f"run {i + 1}: {took:.2f} s from the SIGKILL to the new owner's first stored event", flush=True)
    med = statistics.median(times)
    bound = LEASE_SECONDS + LEASE_SECONDS / 3
    print(f"median {med:.2f} s over {len(times)} runs (min {min(times):.2f}, max {max(times):.2f})")
    print(f"ratio to the documented bound ({bound:.0f} s: lease {LEASE_SECONDS:.0f} s + one heartbeat): {med / bound:.2f}")
    print(f"ratio to the lease alone ({LEASE_SECONDS:.0f} s): {med / LEASE_SECONDS:.2f}; bot delay in it: {a.bot_delay:.2f} s")


if __name__ == "__main__":
    main()

"""Scale-out benchmark for ``liars-dice serve --workers N`` (issue 16): how many
moves per second N workers carry while the honest p99 stays under 100 ms.

For each N of ``--workers`` (default 1 and 2), a fresh PostgreSQL database (made
with the role of ``--db``, which needs ``CREATEDB``), a ``redis-server`` of the
run's own (or ``--redis``), and ``liars-dice serve --workers N`` on it. Honest
tables are then played at the normal pace by ``server_load.py``'s players
(imported: the same clients, think time uniform in [0, 2 * ``--think``] s,
each table from an ``X-Forwarded-For`` address of its own, the server trusting
loopback): a table is created on worker ``i % N`` and player ``k``'s socket goes
to worker ``(i + k) % N``, as a front spreading connections would, so most
tables have sockets on a worker that does not own them (forwarded commands,
relayed events).

The offered rate is stepped up: ``--start`` tables, then ``--step`` more at
each step, up to ``--max-tables``; after each step's new tables have started and
``--settle`` s, one ``--window`` s window measures the move round trip (send to
the state message that holds the move, client clock), moves per second, the
workers' CPU (sum of the worker processes' user + system time, ``/proc``) per
move, and per move the database's committed transactions and inserted rows
(``pg_stat_database`` of the run's database), Redis's processed commands and
input bytes (``INFO stats``) and the bytes the clients received. The stepping
stops after a window whose p99 is over ``--stop-ms`` (3 s), or whose moves
per second fell below 80% of the pace the first step's tables kept (the
server no longer keeps up).

A count given twice (``--workers 1,2,1,2``) runs again, in turns, and the
summary gives the medians. Reported per N: the most moves/s of a window with p99 under the target (and
the CPU and counts per move there), the most moves/s of any window (the
saturation, what a loaded machine still tells); then the 1 -> 2 (and 1 -> 4)
ratios of both.
The machine's load average is printed next to every window.

Usage::

    .venv/bin/python benchmarks/server_scale.py                       # 1 and 2 workers, about 8-10 minutes
    .venv/bin/python benchmarks/server_scale.py --workers 1,2,4
    .venv/bin/python benchmarks/server_scale.py --workers 1,2,1,2       # in turns, medians of 2 each
    .venv/bin/python benchmarks/server_scale.py --quick               # shorter windows and bigger steps, ~4 minutes
    .venv/bin/python benchmarks/server_scale.py --workers 1 --start 2 --step 2 --max-tables 4 --window 3 --settle 1

Ends with one ``RESULT {json}`` line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

import _cluster
from server_load import Stats, cpu_total, table_worker


def quantile(xs: list[float], q: int) -> float:
    """The ``q``-th percentile of ``xs`` in ms (NaN below 20 samples)."""
    if len(xs) < 20:
        return float("nan")
    return statistics.quantiles(sorted(xs), n=100)[q - 1] * 1000


async def run_steps(args: argparse.Namespace, cl: _cluster.Cluster, counters: _cluster.Counters) -> list[dict[str, Any]]:
    """Step the tables up on cluster ``cl``; one row per window."""
    stats = Stats()
    stop = asyncio.Event()
    n = len(cl.urls)
    clients = [httpx.AsyncClient(base_url=u, timeout=60, limits=httpx.Limits(max_connections=50)) for u in cl.urls]
    tasks: list[asyncio.Task[None]] = []
    rows: list[dict[str, Any]] = []
    codes: list[str] = []
    try:
        tables = 0
        target = args.start
        per_table = 0.0
        while target <= args.max_tables:
            batch = argparse.Namespace(tables=target - tables, preset=args.preset, seats=args.seats, think=args.think,
                                       route=False, nginx=False)
            ready, counter = asyncio.Event(), [0]
            t0 = time.perf_counter()
            for i in range(tables, target):
                tasks.append(asyncio.create_task(table_worker(i, cl.urls[i % n], clients[i % n], batch, stats, stop,
                                                              ready, counter, codes, cl.urls)))
                if i % 10 == 9:
                    await asyncio.sleep(0.05)
            try:
                await asyncio.wait_for(ready.wait(), args.setup_timeout)
            except asyncio.TimeoutError:
                print(f"  only {counter[0]} of {batch.tables} new tables started within {args.setup_timeout:.0f} s")
            setup = time.perf_counter() - t0
            tables = target
            await asyncio.sleep(args.settle)
            phase = f"{tables}"
            pids = cl.worker_pids()
            cpu0, c0, m0, b0 = cpu_total(pids), counters.snap(), stats.moves, stats.bytes_in
            ru0 = resource.getrusage(resource.RUSAGE_SELF)
            w0 = time.perf_counter()
            stats.phase, stats.measuring = phase, True
            await asyncio.sleep(args.window)
            stats.measuring = False
            w1 = time.perf_counter()
            ru1 = resource.getrusage(resource.RUSAGE_SELF)
            cpu1, c1, m1, b1 = cpu_total(pids), counters.snap(), stats.moves, stats.bytes_in
            moves = max(1, m1 - m0)
            xs = stats.by_phase.get(phase, [])
            per = {k: v / moves for k, v in _cluster.diff(c0, c1).items()}
            row = {
                "workers": n, "tables": tables, "moves_per_s": (m1 - m0) / (w1 - w0),
                "p50_ms": quantile(xs, 50), "p99_ms": quantile(xs, 99),
                "cpu_ms_per_move": (cpu1 - cpu0) / moves * 1000,
                "server_cpu_pct": (cpu1 - cpu0) / (w1 - w0) * 100,
                "client_cpu_pct": (ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime) / (w1 - w0) * 100,
                "bytes_to_clients_per_move": (b1 - b0) / moves,
                **{f"{k}_per_move": v for k, v in per.items()},
                "load": os.getloadavg()[0], "setup_s": setup,
                "setup_errors": sum(stats.setup_errors.values()), "errors": stats.errors,
            }
            rows.append(row)
            print(f"  N={n} tables={tables:4d}: {row['moves_per_s']:6.1f} moves/s  p50 {row['p50_ms']:6.1f} ms  "
                  f"p99 {row['p99_ms']:7.1f} ms  CPU {row['cpu_ms_per_move']:5.2f} ms/move "
                  f"(workers {row['server_cpu_pct']:.0f}%, clients {row['client_cpu_pct']:.0f}% of a core)  "
                  f"commits {per['pg_commits']:.2f} rows {per['pg_inserts']:.2f} redis {per['redis_commands']:.1f} "
                  f"cmds {per['redis_bytes_in']:.0f} B  to clients {row['bytes_to_clients_per_move']:.0f} B  "
                  f"load {row['load']:.1f}  (set-up {setup:.1f} s)", flush=True)
            per_table = per_table or row["moves_per_s"] / tables  # the pace of one table when the server keeps up
            behind = row["moves_per_s"] < 0.8 * per_table * tables
            if behind or not row["p99_ms"] < args.stop_ms:
                print(f"  stop: {'the moves fell behind the offered pace' if behind else f'p99 over {args.stop_ms:.0f} ms'}")
                break
            target += args.step
        if stats.setup_errors:
            print(f"  failed set-ups (retried): {dict(stats.setup_errors)}")
        if stats.error_codes:
            print(f"  errors: {dict(stats.error_codes)}")
    finally:
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for c in clients:
            await c.aclose()
    return rows


async def one(args: argparse.Namespace, n: int) -> list[dict[str, Any]]:
    """Every window of ``n`` workers on a fresh database and broker."""
    import contextlib

    with contextlib.ExitStack() as stack:
        db = stack.enter_context(_cluster.fresh_database(args.db))
        redis_url = args.redis or stack.enter_context(_cluster.private_redis())
        if args.redis:
            import redis

            redis.Redis.from_url(redis_url).flushdb()
        log = Path(tempfile.mkdtemp(prefix="ld-scale-")) / "workers.txt"
        extra = ["--log-level", "error", "--trusted-proxy", "127.0.0.1", "--reveal-seconds", "0"]
        cl = stack.enter_context(_cluster.cluster(n, db, redis_url, extra, log))
        counters = _cluster.Counters(db, redis_url)
        stack.callback(counters.close)
        await asyncio.sleep(1.0)
        rows = await run_steps(args, cl, counters)
        text = log.read_text()
        if "Traceback" in text:
            print(f"  workers' log has {text.count('Traceback')} traceback(s), the first: "
                  f"{text[text.index('Traceback'):][-1200:]}")
        return rows


def best(rows: list[dict[str, Any]], target: float) -> dict[str, Any] | None:
    """The window with the most moves/s among those whose p99 is under ``target``."""
    ok = [r for r in rows if r["p99_ms"] < target]
    return max(ok, key=lambda r: r["moves_per_s"]) if ok else None


def summary_line(n: int, r: dict[str, Any] | None, label: str) -> str:
    """One row of the summary table."""
    if r is None:
        return f"{n:>7} | {'none under target':>22} | {'':>6} | {'':>7} | {'':>11} |{'':>60}({label})"
    return (f"{n:>7} | {r['moves_per_s']:22.1f} | {r['tables']:6d} | {r['p99_ms']:7.1f} | {r['cpu_ms_per_move']:11.2f} | "
            f"{r['pg_commits_per_move']:12.2f} | {r['pg_inserts_per_move']:9.2f} | {r['redis_commands_per_move']:15.1f} | "
            f"{r['bytes_to_clients_per_move']:17.0f} | {r['load']:.1f}  ({label})")


async def main(args: argparse.Namespace) -> None:
    ns = [int(x) for x in args.workers.split(",")]
    print(f"server_scale: workers {ns}, {args.seats} seats, think {args.think} s, tables {args.start} + {args.step} "
          f"per step up to {args.max_tables}, window {args.window} s, target p99 < {args.target_ms:.0f} ms; "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", flush=True)
    runs: list[tuple[int, list[dict[str, Any]]]] = []
    for n in ns:  # a count given twice (1,2,1,2) runs twice, in turns: a drifting load weighs on both
        runs.append((n, await one(args, n)))
    print(f"\n{'workers':>7} | {'moves/s at p99<' + str(int(args.target_ms)) + ' ms':>22} | {'tables':>6} | {'p99 ms':>7} | "
          f"{'CPU ms/move':>11} | {'commits/move':>12} | {'rows/move':>9} | {'Redis cmds/move':>15} | "
          f"{'B to clients/move':>17} | load")
    tops: dict[int, list[dict[str, Any]]] = {}
    peaks: dict[int, list[dict[str, Any]]] = {}
    for n, rows in runs:
        b = best(rows, args.target_ms)
        p = max(rows, key=lambda r: r["moves_per_s"])
        if b is not None:
            tops.setdefault(n, []).append(b)
        peaks.setdefault(n, []).append(p)
        print(summary_line(n, b, "p99 < target"))
        print(summary_line(n, p, "most moves"))

    def med(rows: list[dict[str, Any]], key: str) -> float:
        return statistics.median(r[key] for r in rows) if rows else float("nan")

    ratios: dict[int, dict[str, float]] = {}
    for n in sorted(peaks):
        tail = f" (medians of {len(peaks[n])} runs)" if len(peaks[n]) > 1 else ""
        print(f"{n} workers: most moves/s {med(peaks[n], 'moves_per_s'):.1f} at {med(peaks[n], 'cpu_ms_per_move'):.2f} "
              f"ms CPU/move; at p99 < {args.target_ms:.0f} ms: {med(tops.get(n, []), 'moves_per_s'):.1f} moves/s "
              f"({len(tops.get(n, []))} of {len(peaks[n])} runs had a window under it){tail}")
        if n == 1 or 1 not in peaks:
            continue
        ratios[n] = {"most_moves_per_s": med(peaks[n], "moves_per_s") / med(peaks[1], "moves_per_s"),
                     "cpu_ms_per_move_at_most": med(peaks[n], "cpu_ms_per_move") / med(peaks[1], "cpu_ms_per_move")}
        if tops.get(1) and tops.get(n):
            ratios[n]["moves_per_s_under_target"] = med(tops[n], "moves_per_s") / med(tops[1], "moves_per_s")
            ratios[n]["cpu_ms_per_move_under_target"] = med(tops[n], "cpu_ms_per_move") / med(tops[1], "cpu_ms_per_move")
        print(f"1 -> {n} workers: " + ", ".join(f"{k} x{v:.2f}" for k, v in ratios[n].items()))
    print("RESULT " + json.dumps({"runs": [{"workers": n, "windows": rows} for n, rows in runs],
                                  "best": {str(k): v for k, v in tops.items()},
                                  "most": {str(k): v for k, v in peaks.items()},
                                  "ratios": {str(k): v for k, v in ratios.items()}}))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    ap.add_argument("--db", default=os.environ.get("LIARS_DICE_TEST_POSTGRES_URL"),
                    help="PostgreSQL URL whose role may create databases (default $LIARS_DICE_TEST_POSTGRES_URL)")
    ap.add_argument("--redis", default=None, help="a Redis to use (flushed first) instead of a redis-server of the run's own")
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--think", type=float, default=1.0, help="mean think time per move, seconds (the normal pace)")
    ap.add_argument("--start", type=int, default=20, help="tables in the first step")
    ap.add_argument("--step", type=int, default=20, help="tables added at each step")
    ap.add_argument("--max-tables", type=int, default=400)
    ap.add_argument("--window", type=float, default=12.0, help="measured seconds per step")
    ap.add_argument("--settle", type=float, default=3.0, help="seconds after a step's tables started, before its window")
    ap.add_argument("--setup-timeout", type=float, default=120.0)
    ap.add_argument("--target-ms", type=float, default=100.0, help="the honest p99 to stay under")
    ap.add_argument("--stop-ms", type=float, default=3000.0, help="stop stepping after a window with a p99 over this")
    ap.add_argument("--quick", action="store_true", help="--window 8 --step 40 (about half the time)")
    parsed = ap.parse_args()
    if parsed.quick:
        parsed.window, parsed.step = 8.0, 40
    if not (parsed.db or "").startswith(("postgresql://", "postgres://")):
        sys.exit("server_scale.py needs --db postgresql://... (or LIARS_DICE_TEST_POSTGRES_URL): the workers share PostgreSQL.")
    random.seed(1)
    try:
        import uvloop

        uvloop.run(main(parsed))
    except ImportError:
        asyncio.run(main(parsed))

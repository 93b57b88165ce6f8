"""Many websockets on one table (issue 7, fault 5): connect time, and how
``/healthz`` answers meanwhile.

Starts the real ``liars-dice serve`` as a separate process on loopback (its own
SQLite file), creates one table, then opens ``--sockets`` websocket spectators
on it, ``--parallel`` at a time; each sends ``hello`` and counts as connected
at its ``welcome``, then keeps reading until the end. A separate process polls
``GET /healthz`` every ``--poll-ms`` milliseconds from the first connect until
every socket is connected (and ``--hold`` seconds more).

Reports: the time to connect every socket and the server's CPU time over it; ``/healthz`` latency p50, p99 and
max during it (ms); ``presence`` messages the first socket received; the
server's RSS. With ``--peer-src DIR`` the same run is repeated with the server
imported from ``DIR`` (for example a checkout of main before issue 7) and the
ratios are printed.

Usage::

    .venv/bin/python benchmarks/many_sockets.py --sockets 2000
    .venv/bin/python benchmarks/many_sockets.py --sockets 2000 --peer-src /tmp/main/src
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import re
import subprocess
import sys
import tempfile
import time
from typing import Any

import httpx
from _common import cpu_seconds, rss_kib
from websockets.asyncio.client import connect


def poll_healthz(base: str, period: float, stop: Any, out: Any) -> None:
    """In its own process: GET /healthz every ``period`` s until ``stop`` is set."""
    lat: list[float] = []
    with httpx.Client(base_url=base, timeout=30) as c:
        while not stop.is_set():
            t0 = time.perf_counter()
            c.get("/healthz")
            lat.append(time.perf_counter() - t0)
            time.sleep(period)
    out.put(lat)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


async def spectator(url: str, connected: list[float], first: dict[str, int], idx: int, done: asyncio.Event,
                    gate: asyncio.Semaphore) -> None:
    async with gate:
        ws = await connect(url, open_timeout=120, ping_interval=None, max_size=2**20)
        await ws.send(json.dumps({"type": "hello", "token": None}))
        while True:
            m = json.loads(await ws.recv())
            if m["type"] == "welcome":
                connected.append(time.perf_counter())
                break
    try:
        while not done.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.5)
            except asyncio.TimeoutError:
                continue
            if idx == 0 and json.loads(raw)["type"] == "presence":
                first["presence"] += 1
    except Exception:  # noqa: BLE001 - the server closed us: counted by the caller
        first["closed"] += 1
    finally:
        await ws.close()


async def run(args: argparse.Namespace, src: str | None) -> dict[str, float]:
    tmp = tempfile.mkdtemp(prefix="many-sockets-")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # This tree caps sockets per address and per table (issue 7, srv-guard): lift the
    # caps so the run measures what a table of --sockets clients costs (the peer has none).
    n = args.sockets + 100
    caps = [] if src else ["--limit", f"sockets_per_address={n}", "--limit", f"visitors_per_table={n}",
                           "--limit", f"lookup_rate={n}/second"]
    if src:
        env["PYTHONPATH"] = src
    proc = subprocess.Popen(
        [sys.executable, "-c", "from liars_dice.cli import main; main()", "serve", "--port", "0",
         "--db", f"sqlite:///{tmp}/db.sqlite", "--log-level", "error", "--reveal-seconds", "0", *caps],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    try:
        assert proc.stdout is not None
        base = None
        for _ in range(50):
            line = await asyncio.to_thread(proc.stdout.readline)
            m = re.search(r"open (http://\S+/)", line)
            if m:
                base = m.group(1)
                break
        assert base, "the server did not print its URL"
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            t = (await http.post("/api/tables", json={"nickname": "host", "seats": 4})).json()
        url = base.replace("http://", "ws://") + f"ws/tables/{t['code']}"
        rss0 = rss_kib(proc.pid)
        stop, out = mp.Event(), mp.Queue()
        poller = mp.Process(target=poll_healthz, args=(base, args.poll_ms / 1000, stop, out))
        poller.start()
        await asyncio.sleep(0.5)
        connected: list[float] = []
        first = {"presence": 0, "closed": 0}
        done = asyncio.Event()
        gate = asyncio.Semaphore(args.parallel)
        t0 = time.perf_counter()
        cpu0 = cpu_seconds(proc.pid)
        tasks = [asyncio.create_task(spectator(url, connected, first, i, done, gate)) for i in range(args.sockets)]
        while len(connected) < args.sockets and not all(x.done() for x in tasks):
            await asyncio.sleep(0.05)
        connect_s = (max(connected) if connected else time.perf_counter()) - t0
        cpu_s = cpu_seconds(proc.pid) - cpu0
        await asyncio.sleep(args.hold)
        rss1 = rss_kib(proc.pid)
        stop.set()
        lat = out.get(timeout=60)
        poller.join()
        done.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        return {
            "sockets": len(connected), "connect_s": connect_s,
            "healthz_p50_ms": 1000 * pct(lat, 0.5), "healthz_p99_ms": 1000 * pct(lat, 0.99),
            "healthz_max_ms": 1000 * max(lat), "healthz_n": len(lat),
            "presence_first": first["presence"], "cpu_s": cpu_s, "closed": first["closed"], "rss_mib": (rss1 - rss0) / 1024,
        }
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def show(name: str, r: dict[str, float]) -> None:
    print(f"{name}: {r['sockets']} sockets connected in {r['connect_s']:.2f} s (server CPU {r['cpu_s']:.2f} s); /healthz during (n={r['healthz_n']}): "
          f"p50 {r['healthz_p50_ms']:.1f} ms, p99 {r['healthz_p99_ms']:.1f} ms, max {r['healthz_max_ms']:.1f} ms; "
          f"presence messages to the first socket: {r['presence_first']}; closed by the server: {r['closed']}; "
          f"server RSS +{r['rss_mib']:.1f} MiB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sockets", type=int, default=2000)
    ap.add_argument("--parallel", type=int, default=100, help="connects in flight at once")
    ap.add_argument("--poll-ms", type=float, default=20.0)
    ap.add_argument("--hold", type=float, default=2.0, help="seconds to keep every socket open after the last connect")
    ap.add_argument("--peer-src", help="a src/ folder holding the peer server (e.g. main before issue 7)")
    args = ap.parse_args()
    ours = asyncio.run(run(args, None))
    show("this tree", ours)
    if args.peer_src:
        peer = asyncio.run(run(args, args.peer_src))
        show(f"peer {args.peer_src}", peer)
        print(f"ratios peer/this: connect {peer['connect_s'] / ours['connect_s']:.1f}x, "
              f"server CPU {peer['cpu_s'] / ours['cpu_s']:.1f}x, "
              f"/healthz p99 {peer['healthz_p99_ms'] / ours['healthz_p99_ms']:.1f}x, "
              f"presence messages {peer['presence_first'] / max(1, ours['presence_first']):.0f}x")


if __name__ == "__main__":
    main()

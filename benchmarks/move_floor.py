"""The libraries' own CPU per move: the floor under ``liars-dice serve``.

A move of the real server is one websocket frame in, five out (the mover's
``ack`` and one ``state`` per seat of a 4-seat table), and one event committed
by the store's writer thread. This script serves exactly that with no game at
all: a bare FastAPI websocket route on uvicorn with the server's settings
(asyncio's loop, websockets' sans-I/O protocol, no per-message compression).
Each move frame is parsed, acknowledged, and answered with a fixed state text
of the real one's size to each seat; with ``store`` also one event is
committed through :class:`liars_dice.server.runtime.store.Store` on a fresh
SQLite file, as the server does. No views, no rules, no limits, no fairness.

It then runs ``benchmarks/server_load.py`` with the same tables, seats, think
time and duration (the same clients' shape) and prints the real server's CPU
per move against each floor as a ratio, all in one run: the part of a move's
CPU that is the project's own code is the difference.

Usage::

    .venv/bin/python benchmarks/move_floor.py                       # 200 tables x 4 seats, 30 s each
    .venv/bin/python benchmarks/move_floor.py --tables 100 --duration 20 --runs 2

Prints one line per run and variant, then the medians and the ratios, and
a last ``RESULT {json}`` line: each variant's CPU ms per move, per run and median.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import cpu_seconds
# at module level: FastAPI resolves the route's string annotations (this
# module's ``from __future__ import annotations``) in the module's globals
from fastapi import FastAPI, WebSocket, WebSocketDisconnect

#: Bytes of one seat's state message of a move in the real server
#: (``benchmarks/state_messages.py``: 7,342 bytes for the 4 seats).
STATE_BYTES = 1835
VARIANTS = ("websockets", "websockets+store")


def serve(port_file: Path, store: bool) -> None:
    """The floor server: run until SIGTERM; its SQLite file (``store``) is in
    ``port_file``'s folder, and it prints ``READY PORT`` once it accepts
    connections (:func:`ready_port`)."""
    import socket

    import uvicorn

    app = FastAPI()
    tables: dict[str, list[WebSocket]] = {}
    bare = len(json.dumps({"type": "state", "pad": "", "turn": 0}))
    state = json.dumps({"type": "state", "pad": "x" * (STATE_BYTES - bare), "turn": 0})
    db: dict[str, Any] = {}

    if store:
        from liars_dice.server.runtime.db import make_engine, migrate
        from liars_dice.server.runtime.store import Store

        engine = make_engine(f"sqlite:///{port_file.parent / 'floor.db'}")
        migrate(engine)
        db["store"] = Store(engine)
        db["seq"] = {}

    async def commit(table: str, seat: int, n: int) -> None:
        s: Any = db["store"]
        if table not in db["seq"]:
            from datetime import datetime, timezone

            await s.write([s.op_insert_table({
                "id": table, "code": table[:6].upper(), "created_at": datetime.now(timezone.utc), "status": "playing",
                "private": False, "preset": "classic", "n_seats": 4, "turn_timer": 30, "rated": False,
            })])
            db["seq"][table] = 0
        db["seq"][table] += 1
        await s.write([s.op_event(table, db["seq"][table], "move",
                                  {"seat": seat, "action": {"kind": "bid", "quantity": 3 + n % 5, "face": 2 + n % 5}})])

    @app.websocket("/ws/{table}/{seat}")
    async def ws(sock: WebSocket, table: str, seat: int) -> None:
        await sock.accept()
        members = tables.setdefault(table, [])
        members.append(sock)
        try:
            while True:
                m = json.loads(await sock.receive_text())
                if store:
                    await commit(table, seat, m["id"])
                await sock.send_text(json.dumps({"type": "ack", "id": m["id"]}))
                turn = state.replace('"turn": 0', f'"turn": {(seat + 1) % 4}')
                for other in members:
                    await other.send_text(turn)
        except WebSocketDisconnect:
            members.remove(sock)

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, loop="asyncio",
                            ws="websockets-sansio", ws_per_message_deflate=False, log_level="error", access_log=False)

    class _Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:  # accepting: the parent may connect now (ready_port)
                print(f"{READY} {port}", flush=True)

    # uvicorn re-raises the SIGTERM after its shutdown, so nothing runs after
    # this: the parent removes port_file's folder, the database with it
    _Server(config).run(sockets=[s])


#: The floor server's first line on stdout once it accepts connections: ``READY PORT``.
READY = "READY"


def ready_port(proc: subprocess.Popen[str], bound: float = 300.0) -> int:
    """The port of the floor server ``proc`` (started with ``stdout=PIPE,
    text=True``), once it says it accepts connections: waits for its
    ``READY PORT`` line, not for a time (a loaded machine took more than the
    old fixed 10 s to start it, issue 36). ``bound`` (seconds) is only a last
    resort against a server that hangs without a word.

    :raises RuntimeError: the server exited first (with its exit code), or
        said nothing within ``bound``.
    """
    import selectors

    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        end = time.monotonic() + bound
        while True:
            if not sel.select(timeout=max(0.0, end - time.monotonic())):
                raise RuntimeError(f"the floor server said nothing in {bound:.0f} s")
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the floor server exited before it was ready (exit code {proc.wait()})")
            if line.startswith(READY + " "):
                return int(line.split()[1])


async def drive(port: int, pid: int, tables: int, seats: int, think: float, duration: float,
                warmup: float) -> dict[str, float]:
    """Play ``tables`` x ``seats`` against the floor server: each seat moves
    ``think`` seconds (exponential mean) after a state names its turn. Returns
    moves per second and the server's CPU ms per move over ``duration``."""
    from websockets.asyncio.client import connect

    counts = {"moves": 0}
    measuring = asyncio.Event()
    stop = asyncio.Event()

    async def seat_loop(code: str, k: int, rng: random.Random, ready: asyncio.Event) -> None:
        async with connect(f"ws://127.0.0.1:{port}/ws/{code}/{k}", max_size=None, ping_interval=None) as sock:
            ready.set()
            n = 0
            if k == 0:
                await asyncio.sleep(rng.random())
                await sock.send(json.dumps({"type": "move", "id": n}))
            async for raw in sock:
                if stop.is_set():
                    return
                m = json.loads(raw)
                if m["type"] == "state" and m["turn"] == k:
                    await asyncio.sleep(rng.expovariate(1 / think))
                    n += 1
                    await sock.send(json.dumps({"type": "move", "id": n}))
                    if measuring.is_set():
                        counts["moves"] += 1

    rng = random.Random(7)
    tasks = []
    for t in range(tables):
        code = f"t{t:04d}{os.urandom(6).hex()}"
        readies = [asyncio.Event() for _ in range(seats)]
        # the other seats first, so the opener's first state reaches all of them
        for k in range(1, seats):
            tasks.append(asyncio.create_task(seat_loop(code, k, random.Random(rng.random()), readies[k])))
        await asyncio.gather(*(e.wait() for e in readies[1:]))
        tasks.append(asyncio.create_task(seat_loop(code, 0, random.Random(rng.random()), readies[0])))
    await asyncio.sleep(warmup)
    c0, t0 = cpu_seconds(pid), time.monotonic()
    measuring.set()
    await asyncio.sleep(duration)
    measuring.clear()
    c1, t1 = cpu_seconds(pid), time.monotonic()
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    moves = counts["moves"]
    return {"moves_per_s": moves / (t1 - t0), "cpu_ms_per_move": (c1 - c0) * 1000 / max(moves, 1)}


def floor_run(variant: str, args: argparse.Namespace) -> dict[str, float]:
    """One run of the floor server in ``variant`` (a subprocess) under the clients."""
    port_file = Path(tempfile.mkdtemp(prefix="ld-floor-port-")) / "port"
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port_file),
                             *(["--store"] if variant.endswith("store") else [])], stdout=subprocess.PIPE, text=True)
    try:
        port = ready_port(proc)
        return asyncio.run(drive(port, proc.pid, args.tables, args.seats, args.think,
                                 args.duration, args.warmup))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        shutil.rmtree(port_file.parent, ignore_errors=True)


def server_run(args: argparse.Namespace) -> dict[str, float]:
    """One run of ``benchmarks/server_load.py`` with the same shape: the real server."""
    out = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("server_load.py")), "--tables", str(args.tables),
         "--seats", str(args.seats), "--think", str(args.think), "--duration", str(args.duration),
         "--warmup", str(args.warmup)],
        capture_output=True, text=True,
    ).stdout
    found = re.findall(r"^RESULT (.*)$", out, re.M)
    if not found:
        raise SystemExit(f"server_load.py gave no RESULT line:\n{out}")
    got = json.loads(found[-1])
    return {"moves_per_s": got["moves_per_s"], "cpu_ms_per_move": got["cpu_ms_per_move"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--think", type=float, default=1.0, help="mean think time per move, seconds")
    ap.add_argument("--duration", type=float, default=30.0, help="measured seconds of each run")
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument("--runs", type=int, default=2, help="runs of each variant and of the real server, taking turns")
    ap.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--store", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve, args.store)
        return
    if args.seats != 4:
        raise SystemExit("the floor server's turn order is written for 4 seats")
    got: dict[str, list[float]] = {v: [] for v in (*VARIANTS, "liars-dice serve")}
    for r in range(args.runs):
        for name in got:
            res = server_run(args) if name == "liars-dice serve" else floor_run(name, args)
            got[name].append(res["cpu_ms_per_move"])
            print(f"run {r + 1} {name:>18}: {res['moves_per_s']:6.1f} moves/s, "
                  f"server CPU {res['cpu_ms_per_move']:.3f} ms per move", flush=True)
    real = statistics.median(got["liars-dice serve"])
    print(f"medians of {args.runs} runs ({args.tables} tables x {args.seats} seats, think {args.think} s):")
    for name, values in got.items():
        m = statistics.median(values)
        # a tiny run can measure no CPU tick for a floor: no ratio then, not a ZeroDivisionError
        ratio = f"{real / m:.2f}x" if m > 0 else "n/a (no CPU measured)"
        print(f"  {name:>18}: {m:.3f} ms per move; liars-dice serve / this = {ratio}")
    print("RESULT " + json.dumps({name: {"cpu_ms_per_move": values, "median": statistics.median(values)}
                                  for name, values in got.items()}))


if __name__ == "__main__":
    main()

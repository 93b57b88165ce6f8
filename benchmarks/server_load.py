"""Load benchmark for ``liars-dice serve``: real websocket clients on loopback
play many concurrent tables.

Starts the real server as a separate process (its own database file), then
keeps ``--tables`` tables of ``--seats`` scripted players busy for
``--duration`` seconds: each player, on its turn, waits a think time drawn
uniformly from [0, 2 * --think] seconds, then bids (a random low legal raise)
or challenges. When a table's game ends, its players open a new table, so the
number of live tables stays at ``--tables``.

Reports (from the clients' clocks):

* moves per second over the measured window;
* move round trip: from sending a bid/challenge to receiving the state message
  that holds it (p50, p90, p99, max), in milliseconds;
* server memory per table: (server RSS with every table live - RSS after
  start-up) / tables, in KiB (includes each table's websocket connections);
* the server's CPU use (share of one core) over the window.

With ``--attack`` (issue 7: honest players under attack) the measured time
has three windows of ``--duration`` seconds each: before, during and after an
attacker process. The attacker, from one address, creates tables as fast as
it can, opens ``--attack-sockets`` websockets to an honest table, floods chat
from a table of its own and sends malformed frames (deep nesting, garbage,
binary, oversized). The report gives the honest round trip p50/p99 and the
server RSS in each window, and what the attacker got through. Issue 16's
faults 1-4 are in the attacker too: 1,100 held keep-alive connections
(``--attack-keepalive``, one ``/healthz`` each every 3 s), a forged
``X-Forwarded-For`` on every request (creations, code guesses, visitors),
visitors filling an honest table, and ``--attack-learn`` ``bots_learn`` tables
seated by the honest players' names with one rule changed each. The attacker
connects from 127.200.0.7, which the server does not trust as a proxy.

With ``--workers N`` (``--db postgresql://...``, a role that may create
databases): ``liars-dice serve --workers N`` on a fresh database and a Redis
of the run's own (or ``--redis``), the players' sockets spread over the
workers; with ``--nginx`` every client goes through Debian's nginx running
``deploy/nginx/liars-dice.conf`` as shipped, each honest table from a loopback
address of its own (nginx then passes it as ``X-Forwarded-For``). RSS and CPU
are then the workers' sums, and the report adds the database's transactions
and rows and Redis's commands and bytes per move (``benchmarks/_cluster.py``).

Each honest table's players come from an address of their own (an
``X-Forwarded-For`` header, which the server trusts from loopback (``--trusted-proxy 127.0.0.1``) as from a
reverse proxy), as real players would; the attacker from another one.

Usage::

    .venv/bin/python benchmarks/server_load.py --tables 200 --seats 4 --duration 60 --think 1.0
    .venv/bin/python benchmarks/server_load.py --tables 200 --seats 4 --duration 30 --think 1.0 --attack
    .venv/bin/python benchmarks/server_load.py --tables 100 --duration 20 --versus 97450a9 --pairs 2
    .venv/bin/python benchmarks/server_load.py --workers 2 --nginx --db $LIARS_DICE_TEST_POSTGRES_URL --attack --tables 60 --duration 30

``--versus REV`` runs the same benchmark on git revision ``REV``'s server and on
this tree's, taking turns, and prints each figure's medians and the ratio
baseline / this tree; every run also ends with one ``RESULT {json}`` line
(moves/s, p50 and p99 ms, server CPU ms per move, KiB per table, load).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from _common import cpu_seconds, git_src, rss_kib
from websockets.asyncio.client import connect


#: The address the attacker says it has (TEST-NET-2) before it forges a new one per request.
ATTACKER = "198.51.100.7"
#: The loopback address the attacker connects from: not the trusted proxy
#: (127.0.0.1), so its X-Forwarded-For must not be believed (fault 2).
ATTACKER_SOURCE = "127.200.0.7"


def forged(n: int) -> dict[str, str]:
    """A forged ``X-Forwarded-For``, a new address for every ``n`` (and every
    tenth one not an address at all, as the issue's ``not-an-ip-7``)."""
    if n % 10 == 0:
        return {"X-Forwarded-For": f"not-an-ip-{n}"}
    return {"X-Forwarded-For": f"203.0.{(n // 250) % 250}.{n % 250 + 1}"}


def honest_address(i: int) -> dict[str, str]:
    """The headers of honest table ``i``'s players: an address of their own."""
    return {"X-Forwarded-For": f"10.{i // 250}.{i % 250}.1"}


class Stats:
    def __init__(self) -> None:
        self.rerouted = 0  #: sockets that reconnected to their table's owner (--route)
        self.rtts: list[float] = []
        self.by_phase: dict[str, list[float]] = {}
        self.phase = ""
        self.moves = 0
        self.measuring = False
        self.games = 0
        self.errors = 0
        self.error_codes: Counter[str] = Counter()
        #: the attacker's counts (``--attack``)
        self.attacker: dict[str, Any] = {}
        #: tables whose set-up failed (a refusal or a timeout), by what went wrong
        self.setup_errors: Counter[str] = Counter()
        #: bytes of websocket frames the honest clients received and sent while measuring
        self.bytes_in = 0
        self.bytes_out = 0


def source_address(i: int) -> str:
    """The loopback address honest table ``i``'s players connect from when a
    front (nginx) sets the client address from the peer (``--nginx``)."""
    return f"127.{1 + i // 250}.{i % 250}.2"


def _local(local: str | None) -> dict[str, object]:
    """``connect()``'s keyword for a source address (passed on to ``create_connection``)."""
    return {"local_addr": (local, 0)} if local else {}


async def player(base: str, code: str, token: str, name: str, stats: Stats, rng: random.Random,
                 think: float, stop: asyncio.Event, ready: asyncio.Event | None = None,
                 headers: dict[str, str] | None = None, local: str | None = None, follow: bool = False) -> None:
    """One seat's player. ``follow`` (``--route`` behind ``--nginx``): a welcome
    on another worker than the table's owner is followed, once, by a
    reconnect with ``?owner=ROUTE``, as the page does (static/js/api.js)."""
    url = base.replace("http://", "ws://") + f"ws/tables/{code}"
    try:
        ws = await connect(url, max_size=2**20, open_timeout=60, ping_interval=None, additional_headers=headers,
                           **_local(local))  # type: ignore[arg-type]
        welcomed = False
        if follow:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            while (w := json.loads(await ws.recv()))["type"] != "welcome":
                pass
            welcomed = True
            if w.get("owner") and w.get("worker") != w["owner"]:
                await ws.close()
                stats.rerouted += 1
                ws = await connect(f"{url}?owner={w['owner']}", max_size=2**20, open_timeout=60, ping_interval=None,
                                   additional_headers=headers, **_local(local))  # type: ignore[arg-type]
                welcomed = False
    finally:
        if ready is not None:  # also when the connect failed: the worker then sees the error
            ready.set()
    async with ws:
        if not welcomed:
            await ws.send(json.dumps({"type": "hello", "token": token}))
        sent_at: float | None = None
        sent_mn = -1
        last_msg: str | None = None
        async for raw in ws:
            if stats.measuring:
                stats.bytes_in += len(raw)
            m = json.loads(raw)
            t = m["type"]
            if t == "error":
                stats.errors += 1
                stats.error_codes[m.get("code", "?")] += 1
                if last_msg is not None and sent_at is not None and m.get("code") in ("turn/reveal", "rate/limited"):
                    # Refused for now, not for good: the same move again shortly (as a person would);
                    # its round trip counts from the first try.
                    await asyncio.sleep(0.2)
                    await ws.send(last_msg)
                    continue
                sent_at = None
                continue
            if t != "state":
                continue
            v = m["view"]
            mn = v["move_number"]
            if sent_at is not None and mn > sent_mn:
                if stats.measuring:
                    stats.rtts.append(time.perf_counter() - sent_at)
                    stats.by_phase.setdefault(stats.phase, []).append(time.perf_counter() - sent_at)
                    stats.moves += 1
                sent_at = None
            if v["phase"] == "over" or stop.is_set():
                return
            if v["to_move"] != name or sent_at is not None:
                continue
            await asyncio.sleep(rng.uniform(0, 2 * think))
            legal = v["legal"]
            if legal["challenge"] and (rng.random() < 0.3 or not legal["raises"]):
                msg = {"type": "challenge"}
            else:
                raises = legal["raises"]
                pick = rng.choice(raises[: max(2, len(raises) // 10)])
                msg = {"type": "bid", "quantity": pick["quantity"], "face": pick["face"]}
            sent_mn = mn
            sent_at = time.perf_counter()
            out = last_msg = json.dumps(msg)
            if stats.measuring:
                stats.bytes_out += len(out)
            await ws.send(out)


async def table_worker(i: int, base: str, http: httpx.AsyncClient, args: argparse.Namespace, stats: Stats,
                       stop: asyncio.Event, first_ready: asyncio.Event, counter: list[int],
                       codes: list[str] | None = None, ws_bases: list[str] | None = None,
                       local: str | None = None) -> None:
    """Table ``i``'s players, one game after another until ``stop``.

    ``ws_bases``: the servers the players' websockets go to, player ``k`` to
    ``ws_bases[(i + k) % len]`` (several workers without a front; default ``[base]``).
    ``local``: the source address of every connection of this table (behind a
    front that takes the client address from the peer): the table then gets an
    HTTP client of its own bound to it."""
    rng = random.Random(i)
    first = True
    headers = honest_address(i)
    own = None
    if local is not None:
        own = httpx.AsyncClient(base_url=base, timeout=60, transport=httpx.AsyncHTTPTransport(local_address=local))
        http = own
    try:
        while not stop.is_set():
            try:
                first = await one_table(i, base, http, args, stats, stop, first_ready, counter, codes, rng, first,
                                        headers, ws_bases or [base], local)
            except Exception as e:  # noqa: BLE001 - a refusal or a timeout: counted and shown, then a new table
                stats.setup_errors[f"{type(e).__name__}: {str(e)[:120]}"] += 1
                await asyncio.sleep(1.0)
    finally:
        if own is not None:
            await own.aclose()


async def one_table(i: int, base: str, http: httpx.AsyncClient, args: argparse.Namespace, stats: Stats,
                    stop: asyncio.Event, first_ready: asyncio.Event, counter: list[int],
                    codes: list[str] | None, rng: random.Random, first: bool, headers: dict[str, str],
                    ws_bases: list[str] | None = None, local: str | None = None) -> bool:
    """One game of table worker ``i``, from its creation to its end. Returns ``first`` for the next."""
    r = await http.post("/api/tables", json={"nickname": "p0", "preset": args.preset, "seats": args.seats},
                        headers=headers)
    t = r.json()
    if r.status_code != 201:
        raise RuntimeError(f"create {r.status_code} {t.get('error', {}).get('code')}")
    code = t["code"]
    if codes is not None:
        codes.append(code)
    tokens = [t["token"]]
    for k in range(1, args.seats):
        j = await http.post(f"/api/tables/{code}/join", json={"nickname": f"p{k}"}, headers=headers)
        if j.status_code != 200:
            raise RuntimeError(f"join {j.status_code} {j.json().get('error', {}).get('code')}")
        tokens.append(j.json()["token"])
    readies = [asyncio.Event() for _ in tokens]
    bases = ws_bases or [base]
    tasks = [
        asyncio.create_task(player(bases[(i + k) % len(bases)], code, tok, f"p{k}", stats, random.Random(rng.random()),
                                   args.think, stop, readies[k], headers, local,
                                   follow=bool(args.route and args.nginx)))
        for k, tok in enumerate(tokens)
    ]
    try:
        await asyncio.gather(*(e.wait() for e in readies))
        # The host starts over its own websocket.
        async with connect(bases[i % len(bases)].replace("http://", "ws://") + f"ws/tables/{code}", open_timeout=60,
                           additional_headers=headers, **_local(local)) as ws:  # type: ignore[arg-type]
            await ws.send(json.dumps({"type": "hello", "token": tokens[0]}))
            await ws.send(json.dumps({"type": "start", "id": 1}))
            async for raw in ws:
                m = json.loads(raw)
                if m.get("id") == 1:
                    if m["type"] == "error":
                        raise RuntimeError(f"start {m['code']}")
                    break
    except BaseException:
        for task in tasks:
            task.cancel()
        raise
    if first:
        counter[0] += 1
        if counter[0] == args.tables:
            first_ready.set()
        first = False
    await asyncio.gather(*tasks)
    stats.games += 1
    return first


def with_children(pids: list[int]) -> list[int]:
    """``pids`` and all their descendants (a worker's bot processes,
    ``--limit bot_processes=N``), from ``/proc/PID/task/*/children``."""
    out: list[int] = []
    todo = list(pids)
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*/children"):
            try:
                todo.extend(int(c) for c in task.read_text().split())
            except OSError:
                pass
    return out


def _summed(pids: list[int], read: Callable[[int], float]) -> float:
    """``read(pid)`` over ``pids`` and their children, summed (a process gone counts 0)."""
    total = 0.0
    for p in with_children(pids):
        try:
            total += read(p)
        except OSError:
            pass
    return total


def rss_total(pids: list[int]) -> int:
    """Resident memory of the server processes ``pids`` and their children together, KiB."""
    return int(_summed(pids, rss_kib))


def cpu_total(pids: list[int]) -> float:
    """CPU seconds of the server processes ``pids`` and their children together."""
    return _summed(pids, cpu_seconds)


async def main(args: argparse.Namespace) -> None:
    """One process on SQLite (or ``--db``) as before; with ``--workers N``
    (``N`` >= 1, PostgreSQL and Redis) a cluster, behind nginx with ``--nginx``."""
    if args.workers:
        await cluster_main(args)
        return
    tmp = Path(tempfile.mkdtemp(prefix="ld-load-"))
    db = args.db or f"sqlite:///{tmp / 'load.db'}"
    cli = str(Path(sys.executable).parent / "liars-dice")
    proc = subprocess.Popen(
        [cli, "serve", "--port", "0", "--db", db, *server_options(args)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        line = await asyncio.to_thread(proc.stdout.readline)
        base = re.search(r"open (http://\S+/)", line).group(1)  # type: ignore[union-attr]
        server_log: list[str] = []
        # Keep reading the server's output so a full pipe never blocks it.
        threading.Thread(target=lambda: server_log.extend(proc.stdout), daemon=True).start()  # type: ignore[arg-type]
        await measure(args, base, lambda: [proc.pid], db, server_log)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def server_options(args: argparse.Namespace) -> list[str]:
    """The ``liars-dice serve`` options of every run (besides port, database and broker):
    the players' own X-Forwarded-For believed from 127.0.0.1 (direct), or with
    ``--nginx`` the shipped front's from 127.0.0.2 only (its ``proxy_bind``), as
    deploy/systemd runs the workers."""
    proxy = "127.0.0.2" if args.nginx else "127.0.0.1"
    wanted = [("--log-level", "error"), ("--trusted-proxy", proxy), ("--reveal-seconds", "0"),
              *[("--limit", lim) for lim in args.limit], *([("--route", "w")] if args.route else [])]
    # A baseline from before an option (``--versus 97450a9`` has neither
    # --trusted-proxy nor --reveal-seconds) runs without it: its defaults are
    # what those options set here (loopback proxies believed, no reveal pause).
    known = _serve_options()
    return [a for name, value in wanted if name in known for a in (name, value)]


def _serve_options() -> set[str]:
    """The option names that this interpreter's ``liars-dice serve --help`` lists."""
    cli = str(Path(sys.executable).parent / "liars-dice")
    out = subprocess.run([cli, "serve", "--help"], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}).stdout
    return set(re.findall(r"--[a-z][a-z-]*", out))


async def cluster_main(args: argparse.Namespace) -> None:
    """``--workers N``: a fresh PostgreSQL database (from ``--db``), a Redis of
    its own (or ``--redis``), the cluster, and with ``--nginx`` the shipped front."""
    import contextlib

    import _cluster

    if not (args.db or "").startswith(("postgresql://", "postgres://")):
        sys.exit("--workers needs --db postgresql://... (a role that may create databases: each run gets a new one).")
    with contextlib.ExitStack() as stack:
        db = stack.enter_context(_cluster.fresh_database(args.db))
        redis_url = args.redis or stack.enter_context(_cluster.private_redis())
        log = Path(tempfile.mkdtemp(prefix="ld-load-")) / "workers.txt"
        cl = stack.enter_context(_cluster.cluster(args.workers, db, redis_url, server_options(args), log))
        counters = _cluster.Counters(db, redis_url)
        stack.callback(counters.close)
        if args.nginx:
            front, _ = stack.enter_context(_cluster.nginx_front([int(u.rstrip("/").rsplit(":", 1)[1]) for u in cl.urls]))
            await measure(args, front, cl.worker_pids, db, [], counters=counters, sources=True)
        else:
            await measure(args, cl.urls[0], cl.worker_pids, db, [], counters=counters, ws_bases=cl.urls)
        lines = log.read_text().splitlines()
        if lines:
            print(f"workers' log ({len(lines)} lines), last: {lines[-1][:300]}")


async def measure(args: argparse.Namespace, base: str, pids: Callable[[], list[int]], db: str, server_log: list[str],
                  counters: Any = None, ws_bases: list[str] | None = None, sources: bool = False) -> None:
    """Keep ``args.tables`` tables playing at ``base`` and print the report.
    ``pids()``: the server processes (their RSS and CPU are summed); ``counters``:
    a :class:`_cluster.Counters` (database and broker counts per move);
    ``ws_bases``: the workers the players' sockets are spread over; ``sources``:
    each table connects from an address of its own (behind nginx)."""
    await asyncio.sleep(1.0)
    rss0 = rss_total(pids())
    stats = Stats()
    stop = asyncio.Event()
    all_ready = asyncio.Event()
    counter = [0]
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        t_setup = time.perf_counter()
        workers = []
        codes: list[str] = []
        for i in range(args.tables):
            workers.append(asyncio.create_task(table_worker(i, base, http, args, stats, stop, all_ready, counter,
                                                            codes, ws_bases, source_address(i) if sources else None)))
            if i % 10 == 9:
                await asyncio.sleep(0.05)
        try:
            await asyncio.wait_for(all_ready.wait(), args.setup_timeout)
        except asyncio.TimeoutError:
            print(f"only {counter[0]} of {args.tables} tables started within {args.setup_timeout:.0f} s")
        setup = time.perf_counter() - t_setup
        await asyncio.sleep(args.warmup)
        rss1 = rss_total(pids())
        cpu0, w0 = cpu_total(pids()), time.perf_counter()
        c0 = counters.snap() if counters is not None else None
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        stats.measuring = True
        if args.attack:
            phases = await attack_windows(args, base, pids, stats, codes)
        else:
            await asyncio.sleep(args.duration)
        stats.measuring = False
        cpu1, w1 = cpu_total(pids()), time.perf_counter()
        c1 = counters.snap() if counters is not None else None
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
        rss2 = rss_total(pids())
        stop.set()
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    window = w1 - w0
    rtts = sorted(x * 1000 for x in stats.rtts)
    q = statistics.quantiles(rtts, n=100) if len(rtts) >= 100 else [float("nan")] * 99
    load = os.getloadavg()
    front = f" workers={args.workers}{' behind nginx' if args.nginx else ''}" if args.workers else ""
    print(f"tables={args.tables} seats={args.seats} preset={args.preset} think={args.think}s "
          f"duration={window:.1f}s db={'postgresql' if db.startswith('postgres') else 'sqlite'}{front}")
    print(f"setup of {args.tables} tables: {setup:.1f} s"
          + (f"; failed set-ups (retried): {dict(stats.setup_errors)}" if stats.setup_errors else ""))
    print(f"moves: {stats.moves} in {window:.1f} s = {stats.moves / window:.1f} moves/s; "
          f"games finished: {stats.games}; errors: {stats.errors}; sockets rerouted to the owner: {stats.rerouted}"
          + (f" {dict(stats.error_codes)}" if stats.error_codes else ""))
    print(f"move round trip ms: p50 {q[49]:.1f}  p90 {q[89]:.1f}  p99 {q[98]:.1f}  max {rtts[-1] if rtts else float('nan'):.1f}")
    print(f"server RSS: start {rss0 / 1024:.1f} MiB, live {max(rss1, rss2) / 1024:.1f} MiB, "
          f"per table {(max(rss1, rss2) - rss0) / args.tables:.0f} KiB")
    if args.attack:
        for name, (rss, info) in phases.items():
            xs = sorted(x * 1000 for x in stats.by_phase.get(name, []))
            qq = statistics.quantiles(xs, n=100) if len(xs) >= 100 else [float("nan")] * 99
            print(f"  {name:>6}: {len(xs)} honest moves, round trip p50 {qq[49]:.1f} ms, p99 {qq[98]:.1f} ms; "
                  f"server RSS {rss / 1024:.1f} MiB{info}")
        rb, ra = phases["before"][0], phases["after"][0]
        print(f"  memory after vs before: {(ra - rb) / rb * 100:+.1f}%")
    if server_log:
        print(f"server log ({len(server_log)} lines), last: {server_log[-1].rstrip()}")
        if any("Traceback" in ln for ln in server_log):  # show the first traceback whole
            first = next(i for i, ln in enumerate(server_log) if "Traceback" in ln)
            print("".join(server_log[max(0, first - 2): first + 40]).rstrip())
    moves = max(1, stats.moves)
    print(f"server CPU per move: {(cpu1 - cpu0) / moves * 1000:.2f} ms")
    result = {
        "moves_per_s": stats.moves / window, "p50_ms": q[49], "p99_ms": q[98],
        "cpu_ms_per_move": (cpu1 - cpu0) / moves * 1000,
        "kib_per_table": (max(rss1, rss2) - rss0) / args.tables, "load": load[0],
        "bytes_in_per_move": stats.bytes_in / moves, "bytes_out_per_move": stats.bytes_out / moves,
    }
    if c0 is not None and c1 is not None:
        import _cluster

        per = {k: v / moves for k, v in _cluster.diff(c0, c1).items()}
        result.update({f"{k}_per_move": v for k, v in per.items()})
        print(f"per move: {per['pg_commits']:.2f} database commits, {per['pg_inserts']:.2f} rows inserted, "
              f"{per['pg_updates']:.2f} updated; {per['redis_commands']:.2f} Redis commands, "
              f"{per['redis_bytes_in']:.0f} bytes into Redis; clients received {stats.bytes_in / moves:.0f} bytes")
    if args.attack:
        result["windows"] = {name: {"p99_ms": (statistics.quantiles(sorted(stats.by_phase[name]), n=100)[98] * 1000
                                               if len(stats.by_phase.get(name, [])) >= 100 else float("nan")),
                                    "rss_mib": rss / 1024}
                             for name, (rss, _) in phases.items()}
        result["attacker"] = stats.attacker
    print("RESULT " + json.dumps(result))
    print(f"server CPU: {(cpu1 - cpu0) / window * 100:.0f}% of one core; clients' CPU: "
          f"{(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime) / window * 100:.0f}%; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


async def attack_windows(args: argparse.Namespace, base: str, pids: Callable[[], list[int]], stats: Stats,
                         codes: list[str]) -> dict[str, tuple[int, str]]:
    """Three windows of ``args.duration`` s: before, during and after the attacker.
    Returns ``{window: (server RSS KiB at its end (max during the attack), note)}``."""
    out: dict[str, tuple[int, str]] = {}
    stats.phase = "before"
    await asyncio.sleep(args.duration)
    out["before"] = (rss_total(pids()), "")
    stats.phase = "during"
    attacker = None
    if not args.no_attacker:
        attacker = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--attacker-of", base, "--target", codes[0], "--duration", str(args.duration),
            "--attack-sockets", str(args.attack_sockets), "--attack-keepalive", str(args.attack_keepalive),
            "--attack-learn", str(args.attack_learn), stdout=asyncio.subprocess.PIPE,
        )
    peak = 0
    end = time.perf_counter() + args.duration
    while time.perf_counter() < end:
        await asyncio.sleep(1.0)
        peak = max(peak, rss_total(pids()))
    if attacker is not None:
        raw, _ = await attacker.communicate()
        report = raw.decode().strip().splitlines()[-1] if raw.strip() else "{}"
        try:
            stats.attacker = json.loads(report)
        except ValueError:
            stats.attacker = {"unreadable report": report[:200]}
    else:
        report = "none (control run)"
    out["during"] = (peak, f" (peak); attacker: {report}")
    stats.phase = "settle"
    await asyncio.sleep(args.settle)
    stats.phase = "after"
    await asyncio.sleep(args.duration)
    out["after"] = (rss_total(pids()), f" ({args.settle:.0f} s after the attack ended)")
    return out


async def attacker_main(args: argparse.Namespace) -> None:
    """The attacker process: one address, four attacks at once, for ``--duration`` s.
    Prints one JSON line of counts."""
    from collections import Counter

    from liars_dice.server.core.security import new_code  # imported before the clock starts

    base, code = args.attacker_of, args.target
    ws_base = base.replace("http://", "ws://")
    headers = {"X-Forwarded-For": ATTACKER}
    src = {"local_addr": (ATTACKER_SOURCE, 0)}
    end = time.monotonic() + args.duration
    counts: Counter[str] = Counter()
    own: list[dict] = []
    forge = iter(range(1, 10**9))

    def client() -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=base, headers=headers, timeout=10,
                                 transport=httpx.AsyncHTTPTransport(local_address=ATTACKER_SOURCE))

    async def creator() -> None:
        """Fault 2: tables as fast as it can, each under a new forged address."""
        n = 0
        async with client() as http:
            while time.monotonic() < end:
                n += 1
                try:
                    r = await http.post("/api/tables", json={"nickname": f"spam{n}", "seats": 2}, headers=forged(next(forge)))
                except httpx.HTTPError as e:
                    counts[f"create {type(e).__name__}"] += 1
                    await asyncio.sleep(0.1)
                    continue
                counts[f"create {r.status_code}"] += 1
                if r.status_code == 201:
                    own.append(r.json())

    async def guesser() -> None:
        """Fault 2: guessing table codes, a new forged address per guess."""
        async with client() as http:
            while time.monotonic() < end:
                try:
                    r = await http.get(f"/api/tables/{new_code()}", headers=forged(next(forge)))
                    counts[f"guess {r.status_code}"] += 1
                except httpx.HTTPError as e:
                    counts[f"guess {type(e).__name__}"] += 1
                    await asyncio.sleep(0.1)

    async def keepalive() -> None:
        """Fault 1: ``--attack-keepalive`` plain HTTP keep-alive connections, each
        sending one ``/healthz`` every 3 s to stay open."""
        host, port = base.split("//", 1)[1].rstrip("/").rsplit(":", 1)
        held = 0

        async def one(k: int) -> None:
            nonlocal held
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(host, int(port), local_addr=(ATTACKER_SOURCE, 0)), 10)
            except Exception:  # noqa: BLE001
                counts["keep-alive connect failed"] += 1
                return
            counted = False
            try:
                while time.monotonic() < end:
                    writer.write(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 203.1.0.{k % 250}\r\n\r\n"
                                 .encode())
                    await writer.drain()
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
                    length = re.search(rb"content-length: *(\d+)", head, re.I)
                    if length:
                        await reader.readexactly(int(length.group(1)))
                    counts[f"keep-alive {head.split(b' ', 2)[1].decode()}"] += 1
                    if not counted:
                        counted, held = True, held + 1
                        counts["keep-alive most held"] = max(counts["keep-alive most held"], held)
                    await asyncio.sleep(3.0)
            except Exception:  # noqa: BLE001 - closed by the server or the front
                counts["keep-alive closed"] += 1
            finally:
                if counted:
                    held -= 1
                writer.close()

        tasks = []
        for k in range(args.attack_keepalive):
            tasks.append(asyncio.create_task(one(k)))
            if k % 50 == 49:
                await asyncio.sleep(0.05)
        await asyncio.gather(*tasks, return_exceptions=True)

    async def learners() -> None:
        """Fault 4: ``bots_learn`` tables seated by the honest players' names
        (they have finished games to fit), one rule changed per table, three
        ``strong`` bots each, started."""
        variants = [{"dice_per_player": d, "palifico": p} for d in (3, 4, 6, 2) for p in (False, True)]
        async with client() as http:
            for k, options in enumerate(variants[: args.attack_learn]):
                if time.monotonic() > end:
                    break
                try:
                    r = await http.post("/api/tables", json={"nickname": f"p{k % 4}", "seats": 4, "options": options,
                                                             "bots_learn": True}, headers=forged(next(forge)))
                    counts[f"learn create {r.status_code}"] += 1
                    if r.status_code != 201:
                        continue
                    t = r.json()
                    async with connect(f"{ws_base}ws/tables/{t['code']}", additional_headers=headers, open_timeout=10,
                                       ping_interval=None, **src) as ws:  # type: ignore[arg-type]
                        await ws.send(json.dumps({"type": "hello", "token": t["token"]}))
                        for n, m in enumerate([{"type": "add_bot", "bot": "strong"}] * 3 + [{"type": "start"}]):
                            await ws.send(json.dumps({**m, "id": n + 1}))
                        got = 0
                        while got < 4:
                            m = json.loads(await asyncio.wait_for(ws.recv(), 10))
                            if m.get("id") in (1, 2, 3, 4):
                                got += 1
                                if m["type"] == "error":
                                    counts[f"learn {m['code']}"] += 1
                        counts["learn tables started"] += 1
                except Exception as e:  # noqa: BLE001
                    counts[f"learn {type(e).__name__}"] += 1

    async def sockets() -> None:
        """Fault 3: visitors filling an honest table, a new forged address per socket."""
        socks = []
        for _ in range(args.attack_sockets):
            if time.monotonic() > end:
                break
            try:
                ws = await connect(f"{ws_base}ws/tables/{code}", additional_headers=forged(next(forge)), open_timeout=10,
                                   ping_interval=None, max_queue=None, **src)  # type: ignore[arg-type]
                await ws.send(json.dumps({"type": "hello"}))
                reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
                counts["socket " + ("opened" if reply["type"] != "error" else reply["code"])] += 1
                socks.append(ws)
            except Exception:  # noqa: BLE001
                counts["socket failed"] += 1
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        for ws in socks:
            await ws.close()

    async def chat_flood() -> None:
        while not own and time.monotonic() < end:
            await asyncio.sleep(0.05)
        if not own:
            return
        t = own[0]
        i = 0
        while time.monotonic() < end:
            try:
                async with connect(f"{ws_base}ws/tables/{t['code']}", additional_headers=headers, ping_interval=None,
                                   max_queue=None, **src) as ws:  # type: ignore[arg-type]
                    await ws.send(json.dumps({"type": "hello", "token": t["token"]}))

                    async def reader() -> None:
                        async for raw in ws:
                            m = json.loads(raw)
                            if m["type"] == "ack":
                                counts["chat stored"] += 1
                            elif m["type"] == "error":
                                counts["chat " + m["code"]] += 1

                    task = asyncio.create_task(reader())
                    try:
                        while time.monotonic() < end:
                            i += 1
                            await ws.send(json.dumps({"type": "chat", "text": f"spam {i}", "id": i}))
                            counts["chat sent"] += 1
                            if i % 50 == 0:
                                await asyncio.sleep(0)
                    finally:
                        task.cancel()
                        await asyncio.gather(task, return_exceptions=True)
            except Exception:  # noqa: BLE001 - closed by the server (a stuck client): reconnect
                counts["chat socket closed"] += 1
                await asyncio.sleep(0.01)

    async def malformed() -> None:
        frames: list[str | bytes] = ["[" * 2000, "{not json", '{"type": "teleport"}', b"\x00\xff" * 100,
                                     "x" * 100_000, '{"type": "chat", "text": "\\ud800"}', '{"a":' * 500]
        i = 0
        while time.monotonic() < end:
            try:
                async with connect(f"{ws_base}ws/tables/{code}", additional_headers=headers, ping_interval=None,
                                   max_queue=None, max_size=None, **src) as ws:  # type: ignore[arg-type]
                    await ws.send(json.dumps({"type": "hello"}))
                    while time.monotonic() < end:
                        await ws.send(frames[i % len(frames)])
                        counts["malformed sent"] += 1
                        i += 1
                        if i % 20 == 0:
                            await asyncio.sleep(0.001)
            except Exception:  # noqa: BLE001 - closed by the server: reconnect
                counts["malformed socket closed"] += 1
                await asyncio.sleep(0.01)

    await asyncio.gather(creator(), guesser(), keepalive(), learners(), sockets(), chat_flood(), malformed(),
                         return_exceptions=True)
    print(json.dumps(dict(sorted(counts.items()))))


def versus(rev: str, pairs: int, argv: list[str]) -> None:
    """Run this benchmark ``pairs`` times on git revision ``rev``'s server and on
    this tree's, taking turns (a shared machine weighs on both alike), and print
    each figure's medians and their ratio."""
    base = git_src(rev)
    here = Path(__file__).resolve().parent.parent / "src"
    got: dict[str, list[dict[str, float]]] = {"baseline": [], "this tree": []}
    for _ in range(pairs):
        for name, src in (("baseline", base), ("this tree", here)):
            out = subprocess.run([sys.executable, __file__, *argv], capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": str(src)})
            lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
            print(f"-- {name}:\n{out.stdout.strip()}", flush=True)
            if lines:
                got[name].append(json.loads(lines[-1].removeprefix("RESULT ")))
    if not (got["baseline"] and got["this tree"]):
        print("no result to compare")
        return
    print(f"medians of {pairs} runs each, baseline {rev} / this tree:")
    for key in ("moves_per_s", "p50_ms", "p99_ms", "cpu_ms_per_move", "kib_per_table", "load"):
        b = statistics.median(r[key] for r in got["baseline"])
        m = statistics.median(r[key] for r in got["this tree"])
        print(f"  {key:>16}: baseline {b:9.2f}  this tree {m:9.2f}  ratio {b / m:5.2f}x")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--think", type=float, default=1.0, help="mean think time per move, seconds")
    ap.add_argument("--duration", type=float, default=60.0, help="measured seconds")
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument("--setup-timeout", type=float, default=300.0)
    ap.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    ap.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                    help="passed to `liars-dice serve --limit` (e.g. finished_ttl=5: finished tables leave memory sooner)")
    ap.add_argument("--attack", action="store_true", help="measure before, during and after an attacker process")
    ap.add_argument("--attack-sockets", type=int, default=2000, help="websockets the attacker opens")
    ap.add_argument("--attack-keepalive", type=int, default=1100,
                    help="plain HTTP keep-alive connections the attacker holds open (fault 1)")
    ap.add_argument("--attack-learn", type=int, default=5, help="bots_learn tables the attacker starts (fault 4)")
    ap.add_argument("--workers", type=int, default=0,
                    help="run `liars-dice serve --workers N` on a fresh database of --db postgresql://... and a Redis "
                         "of its own (or --redis); the players' sockets are spread over the workers")
    ap.add_argument("--redis", default=None, help="with --workers: this Redis instead of a redis-server of the run's own")
    ap.add_argument("--nginx", action="store_true",
                    help="with --workers: every client goes through nginx with deploy/nginx/liars-dice.conf, each "
                         "honest table from a loopback address of its own")
    ap.add_argument("--route", action="store_true",
                    help="with --workers: the workers get --route w, and behind --nginx each player reconnects to "
                         "its table's owner (?owner=) as the page does, so no move is forwarded")
    ap.add_argument("--no-attacker", action="store_true",
                    help="with --attack: the same three windows without the attacker (the control run)")
    ap.add_argument("--settle", type=float, default=10.0, help="seconds between the attack's end and the 'after' window")
    ap.add_argument("--attacker-of", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--target", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--versus", default=None, metavar="REV",
                    help="run the benchmark on git revision REV's server and on this tree's, taking turns, and print "
                         "the ratios (e.g. 97450a9: main before issue 16's 'cheaper moves')")
    ap.add_argument("--pairs", type=int, default=2, help="with --versus: runs of each")
    parsed = ap.parse_args()
    if parsed.versus:
        argv = sys.argv[1:]
        k = argv.index("--versus")
        del argv[k:k + 2]
        if "--pairs" in argv:
            k = argv.index("--pairs")
            del argv[k:k + 2]
        versus(parsed.versus, parsed.pairs, argv)
        sys.exit(0)
    entry = attacker_main(parsed) if parsed.attacker_of else main(parsed)
    try:  # the clients' loop: uvloop when installed (uvicorn[standard] brings it), as the server's
        import uvloop

        uvloop.run(entry)
    except ImportError:
        asyncio.run(entry)

"""Random, seeded, replayable fault schedules against ``liars-dice serve
--workers N`` (issue 36, "Test as the most trusted systems do": Jepsen's
random faults with invariants checked afterwards).

What runs is what an operator runs (:class:`Environment`):

* the real CLI, ``serve --workers N --route w`` as ``deploy/systemd`` starts
  it (``benchmarks/_cluster.serve_workers``), with a short ``--grace`` and a
  short turn timer allowed, since every timer here is another process's;
* a PostgreSQL cluster of its own (``tests/server/pg_cluster.py``), so that it
  may be stopped without touching the cluster the other tests share; a Redis
  of its own with no persistence, restarted empty with ``SHUTDOWN NOSAVE``;
* the shipped ``deploy/nginx/liars-dice.conf`` in front, only its ports
  replaced (``tests/server/test_nginx.nginx_conf``).

A person's page is played by :class:`Page`, which does what
``static/js/api.js``'s ``TableSocket`` does: ``hello`` on every (re)connect,
the reconnect to the owner with ``?owner=`` once per owner, back-off on a close
(``reconnectDelay``), no reconnect after a final close code.

A :class:`Schedule` is made from its seed alone (:func:`make_schedule`): the
game's settings, each page's thinking and the faults, timed or tied to a move.
:func:`run_schedules` plays schedules a few at a time on one environment and
checks the invariants of each (:func:`check`):

1. every acknowledged move is stored, once, where it was acknowledged;
2. no move number holds two moves, and the events have no gap (the stored
   events rebuild with the core's own ``rebuild``);
3. every game finishes (within :data:`FINISH_SECONDS` of the schedule's last fault);
4. a person with an open socket on any worker keeps their seat: a seat is
   given up (or given to a bot) only after the person's page had no open socket
   for a whole grace period (a socket on a paused worker counts as closed);
   never ``unseated`` or ``seat/replaced`` otherwise;
5. every open page converges to the store (its last view shows the store's
   move number and phase) within :data:`CONVERGE_SECONDS`.

A failing schedule is reported with its seed (and the seeds that ran beside
it); ``LIARS_DICE_SCHEDULE_SEED=S`` (or ``S1,S2,...``) replays it.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from _cluster import free_ports, serve_workers  # benchmarks/_cluster.py (tests/conftest.py puts benchmarks/ on the path)

#: The grace period the workers run with (``--grace``): short, so that a
#: replica's grace ends within a game.
GRACE = 3.0
#: The turn timer of the tables that have one (``--limit turn_timer_min`` lets it be this short).
TURN_TIMER = 2
#: ``ownership.LEASE_SECONDS``: a worker paused longer than this loses its tables.
LEASE = 6.0
#: Seconds a game has to finish after its schedule's last fault is over, as
#: long as it keeps moving: each stored event gives it :data:`STALL_SECONDS`
#: more, up to :data:`FINISH_MOST_SECONDS` (a long game of 3 dice each beside
#: other schedules' faults on a loaded machine is slow, not stuck; a stall is).
FINISH_SECONDS = 25.0
#: Seconds without a stored event after which a game that should be moving is stuck.
STALL_SECONDS = 12.0
#: The most seconds after the last fault a moving game may take to finish.
FINISH_MOST_SECONDS = 90.0
#: Seconds a game has to start once both pages are connected (and the schedule's wait is over).
START_SECONDS = 10.0
#: Seconds an open page has to show what the store holds once the game is over.
CONVERGE_SECONDS = 8.0
#: Slack (seconds) when a page's time without a socket is compared with the grace.
SLACK = 0.5
#: Close codes after which the page does not reconnect (api.js ``FINAL_CLOSE_CODES``).
FINAL_CLOSE_CODES = frozenset({1008, 1009, 4400, 4401, 4403, 4404})
#: The kinds of fault a schedule draws from (``mixed`` family).
FAULTS = ("kill_worker", "pause_worker", "restart_redis", "pause_redis", "stop_postgres", "move_socket",
          "reload", "grace_out", "turn_timer_out", "restart_worker")
#: The families of schedules, by ``seed % len(FAMILIES)``.
FAMILIES = ("replica_grace", "redis_restart_replica", "mixed", "mixed", "mixed")


def reconnect_delay(code: int, retry: int, draw: float) -> float | None:
    """Seconds before the page reconnects after close ``code`` at its
    ``retry``-th attempt in a row, or ``None`` for never (api.js
    ``reconnectDelay``: 0.5 s doubling up to 5 s, 10 s up to 60 s after
    4429, each drawn from its second half with ``draw`` in [0, 1))."""
    if code in FINAL_CLOSE_CODES:
        return None
    base, cap = (10.0, 60.0) if code == 4429 else (0.5, 5.0)
    return float(min(cap, base * 2 ** retry) * (0.5 + draw / 2))


# -- schedules ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    """One fault: ``kind`` (one of :data:`FAULTS`), started ``at`` seconds
    after the game's start, or just before ``page``'s move number
    ``at_move`` when that is set; held ``hold`` seconds; ``target``: a
    worker (``owner``, ``replica``, ``w0``...) or a page (0, 1), by kind."""

    kind: str
    at: float = 0.0  #: (with ``at_move``: not before)
    at_move: int | None = None
    page: int = 0
    hold: float = 0.0
    target: str = ""

    def __str__(self) -> str:
        when = (f"before page {self.page}'s first move from move {self.at_move} and {self.at:.1f} s" if self.at_move is not None
                else f"at {self.at:.1f} s")
        target = f" {self.target}" if self.target else ""
        page = f" page {self.page}" if self.kind in PAGE_FAULTS else ""
        return f"{self.kind}{target}{page} {when}, {self.hold:.1f} s"


#: Faults of one page (the others are the cluster's).
PAGE_FAULTS = frozenset({"move_socket", "reload", "grace_out", "turn_timer_out"})


@dataclass(frozen=True)
class Schedule:
    """What one seed plays: a table of 2 persons (``dice`` dice each, a turn
    timer or none), where each page's first socket lands (``first``:
    ``front`` for nginx's choice, ``owner`` or ``replica``), each page's
    thinking time range, and the faults."""

    seed: int
    family: str
    dice: int
    turn_timer: int | None
    first: tuple[str, str]
    think: tuple[float, float]
    challenge: float
    faults: tuple[Fault, ...]
    start_after: float = 0.0  #: seconds the host waits, both pages connected, before the start

    def describe(self) -> str:
        timer = f"turn timer {self.turn_timer} s" if self.turn_timer else "no turn timer"
        faults = "; ".join(str(f) for f in self.faults) or "no fault"
        return (f"seed {self.seed} ({self.family}): 2 persons, {self.dice} dice each, {timer}, first sockets "
                f"{self.first[0]}/{self.first[1]}, start after {self.start_after:.1f} s, thinking "
                f"{self.think[0]:.2f}-{self.think[1]:.2f} s; faults: {faults}")

    def last_fault_end(self) -> float:
        """Seconds from the start until the last timed fault is over (a fault
        tied to a move counts as starting at 0)."""
        return max((f.at + f.hold for f in self.faults), default=0.0)


def make_schedule(seed: int, family: str | None = None) -> Schedule:
    """The schedule of ``seed``: the same seed gives the same schedule
    (``random.Random(seed)``); ``family`` defaults to ``FAMILIES[seed % 5]``."""
    rng = random.Random(seed)
    family = family or FAMILIES[seed % len(FAMILIES)]
    if family == "replica_grace":
        # fault 1: the page's first socket lands on a replica, the welcome names the
        # owner, and the page reconnects there; the replica's grace then runs out
        # (the start waits past the grace or not: the seat is freed before the start, or given to a bot after it)
        return Schedule(seed, family, dice=3, turn_timer=None, first=("replica", rng.choice(("front", "owner"))),
                        think=(0.3, 0.6), challenge=0.2, faults=(), start_after=rng.choice((0.0, GRACE + 1.0)))
    if family == "redis_restart_replica":
        # fault 2: the next to move is a person on a replica when Redis restarts
        # empty under the owner's publish of the move before
        # (page 1 moves to the replica at the start, as if the front could not reach the
        # owner; Redis restarts past the grace the owner started then, so that the owner
        # has the replica's presence again)
        return Schedule(seed, family, dice=3, turn_timer=None, first=("owner", "owner"), think=(0.1, 0.3),
                        challenge=0.15, faults=(Fault("move_socket", at=0.0, page=1, target="replica"),
                                                Fault("restart_redis", at_move=rng.randrange(0, 3), at=GRACE + 2.5,
                                                      page=0, hold=round(rng.uniform(0.5, 2.0), 2))))
    timer = TURN_TIMER if rng.random() < 0.4 else None
    faults = []
    for _ in range(rng.randrange(1, 4)):
        kind = rng.choice(FAULTS)
        if kind == "turn_timer_out" and timer is None:
            kind = "reload"
        at = round(rng.uniform(0.2, 4.0), 2)
        page = rng.randrange(2)
        if kind in ("kill_worker", "restart_worker"):
            faults.append(Fault(kind, at=at, target=rng.choice(("owner", "replica")), hold=LEASE + 2.5))
        elif kind == "pause_worker":
            faults.append(Fault(kind, at=at, target=rng.choice(("owner", "replica")),
                                hold=round(rng.choice((1.5, LEASE + 2.0)), 2)))
        elif kind == "restart_redis":
            if rng.random() < 0.5:
                faults.append(Fault(kind, at_move=rng.randrange(1, 6), page=page, hold=round(rng.uniform(0.3, 2.0), 2)))
            else:
                faults.append(Fault(kind, at=at, hold=round(rng.uniform(0.3, 2.0), 2)))
        elif kind == "pause_redis":
            faults.append(Fault(kind, at=at, hold=round(rng.uniform(0.5, 3.0), 2)))
        elif kind == "stop_postgres":
            faults.append(Fault(kind, at=at, hold=round(rng.uniform(0.5, 2.5), 2)))
        elif kind == "move_socket":
            faults.append(Fault(kind, at=at, page=page, target=rng.choice(("replica", "owner"))))
        elif kind == "reload":
            faults.append(Fault(kind, at=at, page=page, target=rng.choice(("front", "replica"))))
        elif kind == "grace_out":
            faults.append(Fault(kind, at=at, page=page, hold=GRACE + 1.5))
        elif kind == "turn_timer_out":
            faults.append(Fault(kind, at_move=rng.randrange(0, 5), page=page))
    first = (rng.choice(("front", "owner", "replica")), rng.choice(("front", "owner", "replica")))
    return Schedule(seed, family, dice=rng.choice((1, 2)), turn_timer=timer, first=first,
                    think=(0.05, round(rng.uniform(0.15, 0.6), 2)), challenge=round(rng.uniform(0.15, 0.45), 2),
                    faults=tuple(faults))


# -- the environment ---------------------------------------------------------------------------


class Redis:
    """A ``redis-server`` of the harness's own on a loopback port, with no
    persistence: :meth:`restart_empty` shuts it down without saving and starts
    it again on the same port; :meth:`pause` stops the process (SIGSTOP)."""

    def __init__(self) -> None:
        self.port = free_ports(1)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        exe = "redis-server"
        self.proc = subprocess.Popen([exe, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
                                      "--appendonly", "no", "--maxclients", "2000"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not self._ping():
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)

    def _ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def shutdown_nosave(self) -> None:
        """``SHUTDOWN NOSAVE``: Redis is gone, and comes back empty at :meth:`start`."""
        assert self.proc is not None
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
                s.sendall(b"SHUTDOWN NOSAVE\r\n")
                s.recv(16)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, sig)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGCONT)
            except ProcessLookupError:
                pass
            self.proc.kill()
            self.proc.wait(timeout=10)


@dataclass
class Environment:
    """A running cluster: the front's URL, the workers' URLs (worker ``i``
    has route ``w{i}``), the supervisor, the database, Redis, and the
    workers' log. Made by :func:`environment`."""

    front: str
    workers: list[str]
    supervisor: subprocess.Popen[bytes]
    db_url: str
    redis: Redis
    log: Path
    pg: Any = None  #: a ``pg_cluster.Cluster`` when the harness has PostgreSQL of its own (else stops are skipped)
    engine: Any = None
    stopped: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  #: route -> paused (start, end)
    locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    def lock(self, name: str) -> asyncio.Lock:
        """One fault at a time on each worker, on Redis and on PostgreSQL."""
        return self.locks.setdefault(name, asyncio.Lock())

    def worker_pid(self, route: str) -> int | None:
        """The live pid of the worker with ``route`` (the supervisor's child
        started with ``--route ROUTE``), or ``None`` (between a death and
        its restart)."""
        sup = self.supervisor.pid
        try:
            children = Path(f"/proc/{sup}/task/{sup}/children").read_text().split()
        except OSError:
            return None
        for pid in children:
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"--route" in argv and argv[argv.index(b"--route") + 1].decode() == route:
                return int(pid)
        return None

    def routes(self) -> list[str]:
        return [f"w{i}" for i in range(len(self.workers))]

    def owner_of(self, code: str) -> str | None:
        """The route of the worker whose lease runs table ``code`` now (``None``: nobody's)."""
        from sqlalchemy import text

        with self.engine.connect() as conn:
            owner = conn.execute(text("SELECT l.owner FROM table_leases l JOIN tables t ON t.id = l.table_id "
                                      "WHERE t.code = :c AND l.expires_at > now()"), {"c": code}).scalar()
        return None if owner is None else str(owner).partition("~")[0]

    def stored(self, code: str) -> tuple[str, list[tuple[int, str, dict[str, Any], float]]]:
        """Table ``code``'s status and its stored events ``(seq, kind, payload, stored at: Unix s)``."""
        from sqlalchemy import text

        with self.engine.connect() as conn:
            row = conn.execute(text("SELECT id, status FROM tables WHERE code = :c"), {"c": code}).one()
            events = conn.execute(text("SELECT seq, kind, payload, created_at FROM events WHERE table_id = :t "
                                       "ORDER BY seq"), {"t": row[0]}).all()
        out = []
        for seq, kind, payload, at in events:
            out.append((int(seq), str(kind), payload if isinstance(payload, dict) else json.loads(payload),
                        at.timestamp() if isinstance(at, datetime) else float(at)))
        return str(row[1]), out


def _wait_front(front: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(front + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the front did not answer /healthz")
        time.sleep(0.1)


@contextmanager
def environment(tmp: Path, workers: int = 2, shared_db: str | None = None) -> Iterator[Environment]:
    """Start PostgreSQL (of its own when ``tests/server/pg_cluster`` can
    make one, else ``shared_db``, a database the caller has emptied), Redis,
    ``liars-dice serve --workers N --route w`` and the shipped nginx; stop
    every one of them at the end, on failure too.

    :raises RuntimeError: a part did not start (with its log's last lines).
    """
    from sqlalchemy import create_engine

    from liars_dice.server.core.config import normalize_db_url

    from . import pg_cluster
    from .test_nginx import NGINX, nginx_conf

    assert NGINX is not None, "nginx is not installed"
    with ExitStack() as stack:
        pg = None
        if pg_cluster.available():
            pg = pg_cluster.Cluster()
            stack.callback(pg.remove)
            db_url = pg.url
        else:
            assert shared_db is not None, "no PostgreSQL of the harness's own, and none given"
            db_url = shared_db
        redis = Redis()
        stack.callback(redis.stop)
        log = tmp / "workers.log"
        options = ["--grace", str(GRACE), "--bot-delay", "0.05", "--reveal-seconds", "0.3",
                   "--trusted-proxy", "127.0.0.2", "--route", "w",
                   "--limit", f"turn_timer_min={TURN_TIMER}", "--limit", "create_rate=100000/minute",
                   "--limit", "join_rate=100000/minute", "--limit", "lookup_rate=100000/minute",
                   "--limit", "open_tables_per_address=10000", "--limit", "finished_ttl=30"]
        w = stack.enter_context(serve_workers(workers, db_url, redis.url, options, log, seconds=120))
        ports = [int(u.rsplit(":", 1)[1]) for u in w.urls]
        listen = free_ports(1)
        front_dir = tmp / "nginx"
        front_dir.mkdir(exist_ok=True)
        # the shipped file names three workers: a third that is down when only two run
        conf = nginx_conf(front_dir, listen, (ports + [free_ports(1)] * 3)[:3])
        nginx = subprocess.Popen([NGINX, "-p", str(front_dir), "-c", str(conf), "-g", "daemon off;"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def _stop_nginx() -> None:
            nginx.terminate()
            try:
                nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                nginx.kill()

        stack.callback(_stop_nginx)
        front = f"http://127.0.0.1:{listen}"
        _wait_front(front, 20)
        engine = create_engine(normalize_db_url(db_url), pool_size=4, max_overflow=4, pool_pre_ping=True)
        stack.callback(engine.dispose)
        env = Environment(front, w.urls, w.process, db_url, redis, log, pg, engine)

        def _resume_all() -> None:  # a worker or Redis left paused by a failure must not outlive the run
            for route in env.routes():
                pid = env.worker_pid(route)
                if pid is not None:
                    try:
                        os.kill(pid, signal.SIGCONT)
                    except ProcessLookupError:
                        pass
            if redis.proc is not None and redis.proc.poll() is None:
                redis.signal(signal.SIGCONT)

        stack.callback(_resume_all)
        yield env


# -- a person's page ---------------------------------------------------------------------------


@dataclass
class Seen:
    """Something a page saw that may break an invariant: ``what`` at ``at`` (Unix s)."""

    at: float
    what: str


class Page:
    """A person's page at table ``code``, as ``static/js/api.js`` and the
    game page play it: one socket at a time through the front, ``hello``
    with the seat's token on every (re)connect, the reconnect to the owner
    with ``?owner=`` (once per owner), api.js's back-off, and a move when
    the view says it is this seat's turn, after a think.

    ``land``: where the next socket lands when the page asks the front for no
    owner, or for an owner the front cannot reach (``None``: nginx chooses;
    a route: nginx is made to send it there with its own map, as if its
    least-connections choice, or its fallback, had picked that worker)."""

    def __init__(self, env: Environment, index: int, code: str, token: str, name: str, address: str,
                 rng: random.Random, schedule: Schedule, notes: list[str], t0: float) -> None:
        self.env, self.index, self.code, self.token, self.name = env, index, code, token, name
        self.address, self.rng, self.schedule, self.notes, self.t0 = address, rng, schedule, notes, t0
        self.owner: str | None = None  #: api.js this.owner
        self.land: str | None = None
        self.retry = 0
        self.ws: Any = None
        self.worker: str | None = None  #: the route of the worker of the open socket
        self.opened: list[list[Any]] = []  #: [welcomed at, closed at or None, worker route]
        self.state: dict[str, Any] | None = None
        self.summary: dict[str, Any] | None = None
        self.replaced = False
        self.acked: dict[int, tuple[int, dict[str, Any]]] = {}  #: id -> (move number, move)
        self.sent: dict[int, tuple[int, dict[str, Any]]] = {}
        self.last_refusal: tuple[int | None, str | None] = (None, None)
        self.pending: int | None = None
        self.next_id = 100
        self.quiet_until = 0.0
        self.think_for: dict[int, float] = {}
        self.seen: list[Seen] = []
        self.away_from: list[int] = []  #: the person is away at their first move from each of these (a turn timer runs out)
        self.away_at: set[int] = set()
        #: faults started just before this page's first move at or after a move number and a time (monotonic)
        self.hooks: list[tuple[int, float, Callable[[], Awaitable[None]]]] = []
        self.offline_until = 0.0
        self.stopped = False
        self.changed = asyncio.Event()
        self.kick = asyncio.Event()  #: close the socket now (a reload, a moved socket, a grace run out)

    def note(self, text: str) -> None:
        self.notes.append(f"{time.time() - self.t0:7.2f} page {self.index}: {text}")

    # -- the socket (api.js TableSocket) ---------------------------------------------------------

    async def run(self, until: float) -> None:
        """Connect, read, reconnect, until ``until`` (monotonic) or :meth:`stop`."""
        from websockets.asyncio.client import connect

        while not self.stopped and time.monotonic() < until:
            wait = self.offline_until - time.monotonic()
            if wait > 0:
                await asyncio.sleep(min(wait, until - time.monotonic()))
                continue
            self.kick.clear()  # a close asked for while no socket was open: this connect is the new one
            query = self.owner if self.owner else None
            if self.land is not None:
                query = self.land  # the front's choice, made for it (see the class)
                self.land = None
            url = self.env.front.replace("http://", "ws://") + f"/ws/tables/{self.code}"
            if query:
                url += f"?owner={query}"
            code = 1006
            try:
                async with connect(url, local_addr=(self.address, 0), open_timeout=5, close_timeout=2,
                                   ping_interval=None) as ws:
                    self.ws = ws
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    code = await self._read(ws, until)
            except Exception as e:  # noqa: BLE001 - refused, reset, 502, 429: the page backs off
                status = getattr(getattr(e, "response", None), "status_code", "")
                self.note(f"socket failed: {type(e).__name__} {status}".rstrip())
            finally:
                self._closed()
            if self.is_stopped():  # (set by another task meanwhile)
                return
            if code == -1:  # this page closed it to reconnect at once (the owner, a reload)
                continue
            delay = reconnect_delay(code, self.retry, self.rng.random())
            self.retry += 1
            if delay is None:
                self.note(f"closed with {code}: no reconnect")
                return
            await asyncio.sleep(delay)

    def is_stopped(self) -> bool:
        return self.stopped

    def _closed(self) -> None:
        if self.opened and self.opened[-1][1] is None:
            self.opened[-1][1] = time.time()
        self.ws, self.worker, self.pending = None, None, None

    async def _read(self, ws: Any, until: float) -> int:
        from websockets.exceptions import ConnectionClosed

        kick = asyncio.ensure_future(self.kick.wait())
        try:
            while time.monotonic() < until and not self.stopped:
                recv = asyncio.ensure_future(ws.recv())
                done, _ = await asyncio.wait({recv, kick}, timeout=until - time.monotonic(),
                                             return_when=asyncio.FIRST_COMPLETED)
                if recv not in done:
                    recv.cancel()
                    if kick in done:
                        self.kick.clear()
                        await ws.close(1000)
                        return -1 if self.offline_until <= time.monotonic() else 1000
                    continue
                try:
                    raw = recv.result()
                except ConnectionClosed as e:
                    return e.rcvd.code if e.rcvd is not None else 1006
                msg = json.loads(raw)
                if await self._message(ws, msg):
                    await ws.close(1000)
                    return -1
            return 1000
        finally:
            kick.cancel()

    async def _message(self, ws: Any, msg: dict[str, Any]) -> bool:
        """Handle one message; ``True`` when the page reconnects to the owner."""
        kind = msg.get("type")
        if kind == "welcome":
            self.retry = 0
            self.worker = msg.get("worker")
            self.opened.append([time.time(), None, self.worker])
            self._table(msg.get("table"))
            owner = msg.get("owner")
            self.note(f"welcome on {self.worker} (owner {owner})")
            if owner and owner != self.owner:
                self.owner = owner
                if msg.get("worker") != owner:
                    return True
        elif kind == "state":
            self.state = msg
            self.changed.set()
        elif kind == "table":
            self._table(msg.get("table"))
        elif kind == "unseated":
            self.seen.append(Seen(time.time(), f"unseated on {self.worker}: {msg.get('message')}"))
        elif kind in ("ack", "error"):
            mid = msg.get("id")
            if kind == "error":
                code = msg.get("code")
                if code == "seat/replaced":
                    self.seen.append(Seen(time.time(), f"seat/replaced for its move on {self.worker}"))
                if code in ("auth/revoked", "auth/bad_token"):
                    self.seen.append(Seen(time.time(), f"{code} at hello on {self.worker}: {msg.get('message')}"))
                    self.stopped = True
                if mid is not None and mid == self.pending or (mid is None and code == "rate/limited"):
                    self.quiet_until = time.monotonic() + (2.0 if mid is None else 0.3)
                    mn = self.sent[mid][0] if mid in self.sent else None
                    if (mn, code) != self.last_refusal:
                        self.note(f"move {mn} refused: {code} (said once per move and code)")
                        self.last_refusal = (mn, code)
                    self.pending = None
            elif mid is not None and mid == self.pending:
                self.acked[mid] = self.sent[mid]
                self.pending = None
            self.changed.set()
        return False

    def _table(self, summary: dict[str, Any] | None) -> None:
        if not summary:
            return
        self.summary = summary
        seats = [s for s in summary.get("seats", []) if s.get("name") == self.name]
        replaced = bool(seats and seats[0].get("replaced"))
        if replaced and not self.replaced:
            self.seen.append(Seen(time.time(), f"its seat shown replaced by a bot (on {self.worker})"))
        self.replaced = replaced

    # -- playing -----------------------------------------------------------------------------

    async def play(self, until: float) -> None:
        """Move whenever the view says it is this seat's turn, after a think."""
        while not self.stopped and time.monotonic() < until:
            try:
                await asyncio.wait_for(self.changed.wait(), 0.1)
            except asyncio.TimeoutError:
                pass
            self.changed.clear()
            await self._maybe_move()

    async def _maybe_move(self) -> None:
        st = self.state
        if st is None or self.worker is None or self.pending is not None or time.monotonic() < self.quiet_until:
            return  # (self.worker: this socket's welcome came; a page's buttons wait for it)
        view = st["view"]
        if view.get("phase") != "bid" or view.get("to_move") != self.name or not view.get("legal"):
            return
        if (view.get("reveal_until") or 0) > time.time():
            return
        mn = int(view["move_number"])
        if any(k <= mn for k in self.away_from):
            self.away_from = [k for k in self.away_from if k > mn]
            self.away_at.add(mn)
            self.note(f"away at move {mn}: the turn timer runs out")
        if mn in self.away_at:
            return
        if mn not in self.think_for:
            self.think_for[mn] = time.monotonic() + self.rng.uniform(*self.schedule.think)
        if time.monotonic() < self.think_for[mn]:
            return
        due = [h for h in self.hooks if h[0] <= mn and h[1] <= time.monotonic()]
        for h in due:
            self.hooks.remove(h)
            await h[2]()
            if self.ws is None:
                return
        legal = view["legal"]
        if legal.get("challenge") and (self.rng.random() < self.schedule.challenge or not legal.get("raises")):
            move: dict[str, Any] = {"type": "challenge"}
        else:
            bid = self.rng.choice(legal["raises"][:3])
            move = {"type": "bid", "quantity": bid["quantity"], "face": bid["face"]}
        mid = self.next_id
        self.next_id += 1
        self.sent[mid] = (mn, move)
        self.pending = mid
        if self.last_refusal[0] != mn:
                self.note(f"move {mn}: {move.get('quantity', '')}{'x' + str(move['face']) if 'face' in move else 'challenge'}"
                      f" on {self.worker}")
        try:
            await self.ws.send(json.dumps({**move, "id": mid}))
        except Exception:  # noqa: BLE001 - the socket closed under it: no reply will come
            self.pending = None

    async def send(self, msg: dict[str, Any]) -> None:
        if self.ws is not None:
            try:
                await self.ws.send(json.dumps(msg))
            except Exception:  # noqa: BLE001
                pass

    def close_now(self, land: str | None, offline: float = 0.0, forget_owner: bool = False) -> None:
        """Close the socket: reconnect ``offline`` seconds later, landing on
        ``land``; ``forget_owner`` is a reload (a new page: no owner known)."""
        self.land = land
        if forget_owner:
            self.owner = None
        self.offline_until = time.monotonic() + offline
        self.kick.set()

    def open_at(self, t: float) -> bool:
        return any(a <= t and (b is None or t < b) for a, b, _ in self.opened)

    def longest_gap(self, start: float, end: float, paused: dict[str, list[tuple[float, float]]]) -> float:
        """The longest time in ``[start, end]`` (Unix s) this page had no
        open socket on a running worker (a socket on a paused worker counts
        as closed: the worker cannot say it holds it)."""
        cover: list[tuple[float, float]] = []
        for a, b, route in self.opened:
            b = end if b is None else b
            pieces = [(a, b)]
            for pa, pb in paused.get(route or "", []):
                pieces = [p for x, y in pieces for p in ((x, min(y, pa)), (max(x, pb), y)) if p[1] > p[0]]
            cover += pieces
        cover.sort()
        longest, at = 0.0, start
        for a, b in cover:
            if b <= at:
                continue
            if a > at:
                longest = max(longest, min(a, end) - at)
            at = max(at, b)
            if at >= end:
                break
        return max(longest, end - at)


# -- one schedule ------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What a schedule found: ``violations`` (empty: every invariant held),
    and its story (``notes``) for the report."""

    schedule: Schedule
    violations: list[str]
    notes: list[str]
    seconds: float
    beside: tuple[int, ...] = ()
    #: why the schedule's game could not be set up, through no invariant's fault
    #: (its creator's token came back only after the grace: the table had closed); "" when played
    not_played: str = ""

    def report(self, log_tail: str = "") -> str:
        replay = f"LIARS_DICE_SCHEDULE_SEED={self.schedule.seed}"
        if self.beside:
            replay += f" (it ran beside seeds {', '.join(map(str, self.beside))}: "
            replay += f"LIARS_DICE_SCHEDULE_SEED={','.join(map(str, (self.schedule.seed, *self.beside)))} replays them together)"
        lines = [f"VIOLATION in {self.schedule.describe()}", f"  replay: {replay}"]
        lines += [f"  - {v}" for v in self.violations]
        story = self.notes if len(self.notes) <= 80 else [*self.notes[:30], "...", *self.notes[-50:]]
        lines += ["  story (seconds from the create):"] + [f"    {n}" for n in story]
        if log_tail:
            lines += ["  workers' log (last lines):"] + [f"    {ln}" for ln in log_tail.splitlines()[-25:]]
        return "\n".join(lines)


def _address(seed: int, page: int) -> str:
    """A loopback address of each page's own (each person is another client to the limits)."""
    n = (seed * 2 + page) % 60000
    return f"127.{100 + page}.{n // 250}.{n % 250 + 2}"


async def _http(env: Environment, address: str, method: str, path: str, body: dict[str, Any] | None = None,
                note: Callable[[str], None] | None = None) -> Any:
    """A request to the front from ``address``, retried while the cluster is
    down (a fault under way): 60 tries, 0.5 s apart."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(transport=transport, base_url=env.front, timeout=10) as client:
        last = ""
        for _ in range(60):
            try:
                r = await client.request(method, path, json=body)
                if r.status_code < 500 and r.status_code != 429:
                    return r.json()
                last = f"{r.status_code} {r.text[:80]}"
            except httpx.HTTPError as e:
                last = type(e).__name__
            if note is not None:
                note(f"{method} {path}: {last} (tried again)")
            await asyncio.sleep(0.5)
        raise RuntimeError(f"{method} {path} failed: {last}")


class Runner:
    """Plays one schedule on ``env``."""

    def __init__(self, env: Environment, schedule: Schedule) -> None:
        self.env, self.s = env, schedule
        self.notes: list[str] = []
        self.t0 = time.time()
        self.pages: list[Page] = []
        self.code = ""
        self.tasks: list[asyncio.Task[Any]] = []

    def note(self, text: str) -> None:
        self.notes.append(f"{time.time() - self.t0:7.2f} {text}")

    def _owner(self) -> str | None:
        """The table's owner's route, or ``None`` (nobody's, or PostgreSQL is down: a fault)."""
        try:
            return self.env.owner_of(self.code)
        except Exception:  # noqa: BLE001 - the database is stopped: the target is then a guess
            return None

    def _route(self, target: str) -> str:
        """A worker's route for ``target``: ``owner``, ``replica`` (another than the owner) or a route."""
        owner = self._owner() or "w0"
        if target == "owner":
            return owner
        if target == "replica":
            others = [r for r in self.env.routes() if r != owner]
            return others[self.s.seed % len(others)] if others else owner
        return target

    async def play(self) -> Outcome:
        s, env = self.s, self.env
        rng = random.Random(s.seed * 7919 + 1)
        started = time.monotonic()
        names = (f"a{s.seed}", f"b{s.seed}")
        addresses = (_address(s.seed, 0), _address(s.seed, 1))
        made = await _http(env, addresses[0], "POST", "/api/tables", {
            "nickname": names[0], "preset": "classic", "seats": 2, "private": True,
            "options": {"dice_per_player": s.dice}, "turn_timer": s.turn_timer}, self.note)
        if "code" not in made:
            raise RuntimeError(f"create refused: {made}")
        self.code = made["code"]
        until = time.monotonic() + s.last_fault_end() + FINISH_MOST_SECONDS + 30
        # the host's page opens the table at once, as the lobby's page does; the other joins
        self._open(0, made["token"], names[0], addresses[0], rng, until)
        joined = await _http(env, addresses[1], "POST", f"/api/tables/{self.code}/join", {"nickname": names[1]},
                             self.note)
        if "token" not in joined:
            await self._stop()
            away = self.pages[0].longest_gap(self.t0, time.time(), env.stopped)
            if joined.get("error", {}).get("code") == "table/started" and away >= GRACE - SLACK:
                # the host's page had no socket for a whole grace (the create answered late, or
                # its worker was down under another schedule's fault): the table closed, rightly
                why = f"the host's page had no socket for {away:.1f} s after the create: the table had closed"
                self.note(why)
                return Outcome(s, [], self.notes, time.monotonic() - started, not_played=why)
            raise RuntimeError(f"join refused (the host's page at most {away:.1f} s without a socket): {joined}")
        self.note(f"table {self.code} made; owner {self._owner()}")
        self._open(1, joined["token"], names[1], addresses[1], rng, until)
        try:
            if not await self._start(time.monotonic() + START_SECONDS + s.start_after):
                self.note(f"the game did not start within {START_SECONDS + s.start_after:.0f} s")
                return Outcome(s, await self._finish(time.monotonic(), started=False), self.notes,
                               time.monotonic() - started)
            game_at = time.monotonic()
            self.note("game started")
            for f in s.faults:
                if f.at_move is not None:
                    self._hook(f, game_at)
                else:
                    self.tasks.append(asyncio.ensure_future(self._timed(f, game_at)))
            last_end = game_at + s.last_fault_end()
            violations = await self._finish(last_end)
        finally:
            await self._stop()
        return Outcome(s, violations, self.notes, time.monotonic() - started)

    def _open(self, i: int, token: str, name: str, address: str, rng: random.Random, until: float) -> None:
        """Page ``i`` opens the table (its socket and its player run as tasks)."""
        page = Page(self.env, i, self.code, token, name, address, random.Random(rng.random()), self.s, self.notes,
                    self.t0)
        if self.s.first[i] != "front":
            page.land = self._route(self.s.first[i])
        self.pages.append(page)
        self.tasks.append(asyncio.ensure_future(page.run(until)))
        self.tasks.append(asyncio.ensure_future(page.play(until)))

    async def _stop(self) -> None:
        for p in self.pages:
            p.stopped = True
            p.kick.set()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def _start(self, until: float) -> bool:
        """The host starts the game once both pages are connected and
        ``start_after`` has passed (retrying a refusal); whether it started."""
        host = self.pages[0]
        both: float | None = None
        while time.monotonic() < until:
            if both is None and all(p.opened for p in self.pages):
                both = time.monotonic()
            ready = both is not None and time.monotonic() >= both + self.s.start_after
            if ready and host.ws is not None and host.state is None:
                await host.send({"type": "start", "id": "start"})
            if host.state is not None or any(p.state is not None for p in self.pages):
                return True
            await asyncio.sleep(0.3)
        return False

    def _hook(self, f: Fault, game_at: float) -> None:
        page = self.pages[f.page]
        assert f.at_move is not None
        if f.kind == "turn_timer_out":
            page.away_from.append(f.at_move)
            return

        async def before_move() -> None:
            self.note(f"fault (page {f.page}'s move {f.at_move}): {f}")
            await self._fault(f)

        page.hooks.append((f.at_move, game_at + f.at, before_move))

    async def _timed(self, f: Fault, game_at: float) -> None:
        await asyncio.sleep(max(0.0, game_at + f.at - time.monotonic()))
        self.note(f"fault: {f}")
        await self._fault(f)

    async def _fault(self, f: Fault) -> None:
        """Start fault ``f``; what ends it later runs as a task of its own (so a
        fault before a move lets the move go during it)."""
        env = self.env
        if f.kind in PAGE_FAULTS:
            page = self.pages[f.page]
            if f.kind == "move_socket":
                page.close_now(self._route(f.target))
            elif f.kind == "reload":
                page.close_now(None if f.target == "front" else self._route(f.target), forget_owner=True)
            elif f.kind == "grace_out":
                page.close_now(None, offline=f.hold, forget_owner=True)
            return
        if f.kind in ("kill_worker", "restart_worker", "pause_worker"):
            route = self._route(f.target)
            lock = env.lock(route)
            if any(env.lock(r).locked() for r in env.routes()):
                # one worker at a time: with every worker down no schedule can be played at all
                self.note(f"  a worker is under another fault: {f.kind} of {route} skipped")
                return
            await lock.acquire()
            pid = env.worker_pid(route)
            if pid is None:
                lock.release()
                self.note(f"  {route} is down: skipped")
                return
            sig = {"kill_worker": signal.SIGKILL, "restart_worker": signal.SIGTERM, "pause_worker": signal.SIGSTOP}[f.kind]
            os.kill(pid, sig)
            self.note(f"  {route} (pid {pid}): {sig.name}")
            paused_at = time.time()

            async def end() -> None:
                try:
                    await asyncio.sleep(f.hold)
                    if f.kind == "pause_worker":
                        try:
                            os.kill(pid, signal.SIGCONT)
                        except ProcessLookupError:
                            pass
                        env.stopped.setdefault(route, []).append((paused_at, time.time()))
                        self.note(f"  {route}: SIGCONT")
                finally:
                    lock.release()

            self.tasks.append(asyncio.ensure_future(end()))
            return
        if f.kind in ("restart_redis", "pause_redis"):
            lock = env.lock("redis")
            if lock.locked():
                self.note("  Redis is under another fault: skipped")
                return
            await lock.acquire()
            if f.kind == "restart_redis":
                await asyncio.to_thread(env.redis.shutdown_nosave)
                self.note("  Redis: SHUTDOWN NOSAVE")
            else:
                env.redis.signal(signal.SIGSTOP)
                self.note("  Redis: SIGSTOP")

            async def end_redis() -> None:
                try:
                    await asyncio.sleep(f.hold)
                    if f.kind == "restart_redis":
                        await asyncio.to_thread(env.redis.start)
                        self.note("  Redis: started again, empty")
                    else:
                        env.redis.signal(signal.SIGCONT)
                        self.note("  Redis: SIGCONT")
                finally:
                    lock.release()

            self.tasks.append(asyncio.ensure_future(end_redis()))
            return
        if f.kind == "stop_postgres":
            if env.pg is None:
                self.note("  no PostgreSQL of the harness's own: skipped")
                return
            lock = env.lock("postgres")
            if lock.locked():
                self.note("  PostgreSQL is under another fault: skipped")
                return
            await lock.acquire()
            await asyncio.to_thread(env.pg.stop, "fast")
            self.note("  PostgreSQL stopped")

            async def end_pg() -> None:
                try:
                    await asyncio.sleep(f.hold)
                    await asyncio.to_thread(env.pg.start)
                    self.note("  PostgreSQL started")
                finally:
                    lock.release()

            self.tasks.append(asyncio.ensure_future(end_pg()))
            return
        raise ValueError(f"no such fault: {f.kind}")

    async def _finish(self, last_end: float, started: bool = True) -> list[str]:
        """Wait for the game's end (in the store) and the pages; check the invariants."""
        base = max(last_end, time.monotonic())
        deadline = base + (FINISH_SECONDS if started else 0.0)
        most = base + (FINISH_MOST_SECONDS if started else 0.0)
        status: str = ""
        events: list[tuple[int, str, dict[str, Any], float]] = []
        while time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            try:
                got = await asyncio.to_thread(self.env.stored, self.code)
            except Exception:  # noqa: BLE001 - PostgreSQL is down (a fault): look again
                continue
            if len(got[1]) > len(events):  # moving: not stuck (the bound is a stall, up to FINISH_MOST_SECONDS)
                deadline = min(most, max(deadline, time.monotonic() + STALL_SECONDS))
            status, events = got
            if status == "finished" and time.monotonic() >= last_end:
                break
        finished_at = time.monotonic()
        self.note(f"store: {status}, {len(_moves(events))} moves")
        # the pages have CONVERGE_SECONDS to show what the store holds
        while time.monotonic() < finished_at + CONVERGE_SECONDS:
            if all(p.stopped or p.ws is None or _shows(p, events) for p in self.pages):
                break
            await asyncio.sleep(0.2)
        for _ in range(20):  # the store as the pages are judged against it (PostgreSQL may be restarting)
            try:
                status, events = await asyncio.to_thread(self.env.stored, self.code)
                break
            except Exception:  # noqa: BLE001
                await asyncio.sleep(0.5)
        self.note("stored: " + " ".join(_brief(e) for e in events))
        for p in self.pages:
            view = p.state["view"] if p.state else {}
            self.note(f"page {p.index}: {len(p.acked)} moves acknowledged; on {p.worker}, shows move "
                      f"{view.get('move_number')} ({view.get('phase')}, {view.get('to_move')} to move)")
        return check(self.s, status, events, self.pages, self.env.stopped, self.t0, started)


def _brief(event: tuple[int, str, dict[str, Any], float]) -> str:
    """One stored event in a few characters, for a report: ``move:1b`` (seat 1, by a bot), ``replaced:0(grace)``."""
    seq, kind, p, _ = event
    if kind == "move":
        return f"{seq}:m{p.get('seat')}{'b' if p.get('by_bot') else ''}{'C' if p.get('challenge') else ''}"
    extra = f"({p['reason']})" if "reason" in p else ""
    return f"{seq}:{kind}{p.get('seat', '')}{extra}" if kind not in ("dealt", "committed") else f"{seq}:{kind[0]}"


def _moves(events: list[tuple[int, str, dict[str, Any], float]]) -> list[dict[str, Any]]:
    """The game's moves in order (one game per schedule's table)."""
    return [p for _, kind, p, _ in events if kind == "move"]


def _shows(page: Page, events: list[tuple[int, str, dict[str, Any], float]]) -> bool:
    """``page``'s last view shows the store's move number and phase (no
    view at all while the game has not started)."""
    if not any(k == "started" for _, k, _, _ in events):
        return page.state is None
    if page.state is None:
        return False
    view = page.state["view"]
    over = any(k == "finished" for _, k, _, _ in events)
    return int(view.get("move_number", -1)) == len(_moves(events)) and (view.get("phase") == "over") == over


def check(s: Schedule, status: str, events: list[tuple[int, str, dict[str, Any], float]], pages: list[Page],
          paused: dict[str, list[tuple[float, float]]], joined_at: float, started: bool = True) -> list[str]:
    """The invariants of the module's docstring, for one schedule's table
    whose seats were taken at ``joined_at`` (Unix s; each seat's grace runs
    from then until its first socket); one sentence per violation."""
    from liars_dice.server.core.tables import rebuild

    out: list[str] = []
    seqs = [e[0] for e in events]
    if not seqs or seqs != list(range(seqs[0], seqs[0] + len(seqs))):
        out.append(f"the stored events have a gap: {seqs}")
    try:
        rebuild([(e[0], e[1], e[2]) for e in events])
    except Exception as e:  # noqa: BLE001 - any refusal is the finding
        out.append(f"the stored events do not rebuild (a move number holding two moves?): {type(e).__name__}: {e}")
    moves = _moves(events)
    seat_of = {p.name: i for i, p in enumerate(pages)}
    for p in pages:
        # each acknowledged move is one stored move of its seat, not a bot's, with its action, at
        # the move number the page showed or later (a page behind may move at a later number)
        # (the same move sent again at the same number, its first reply lost with a socket, and
        # acknowledged again from the store of record, is one move: cluster._stored_truth)
        matched: set[int] = set()
        once = {(mn, json.dumps(move, sort_keys=True)): (mn, move) for mn, move in p.acked.values()}
        for mn, move in sorted(once.values(), key=lambda x: x[0]):
            want_bid = {"quantity": move["quantity"], "face": move["face"]} if move["type"] == "bid" else None
            found = next((k for k in range(mn, len(moves)) if k not in matched
                          and moves[k].get("seat") == seat_of[p.name] and not moves[k].get("by_bot")
                          and moves[k].get("bid") == want_bid
                          and bool(moves[k].get("challenge")) == (move["type"] == "challenge")), None)
            if found is None:
                stored = moves[mn] if mn < len(moves) else None
                out.append(f"page {p.index}'s acknowledged move {mn} ({move}) is not stored (stored move {mn}: {stored})")
            else:
                matched.add(found)
    if started and status != "finished":
        out.append(f"the game did not finish (status {status!r}, {len(moves)} moves stored): no event for "
                   f"{STALL_SECONDS:.0f} s, or none within {FINISH_SECONDS:.0f} s of the last fault, or not done "
                   f"{FINISH_MOST_SECONDS:.0f} s after it")
    for p in pages:
        if p.stopped and not p.seen:
            continue
        if p.ws is not None and not _shows(p, events):
            view = p.state["view"] if p.state else {}
            out.append(f"page {p.index} (open on {p.worker}) shows move {view.get('move_number')} "
                       f"({view.get('phase')}, {view.get('to_move')} to move); the store holds {len(moves)} moves"
                       f" ({status}), {CONVERGE_SECONDS:.0f} s after")
    # a seat given up (before the start) or given to a bot (after) while its person had a socket open
    losses: dict[int, list[tuple[float, str]]] = {0: [], 1: []}
    for seq, kind, payload, at in events:
        if kind in ("seat_freed", "replaced") and payload.get("seat") in losses:
            losses[payload["seat"]].append((at, f"{kind} (reason {payload.get('reason')}) stored as event {seq} "
                                                f"at {at - joined_at:.2f} s"))
    for i, p in enumerate(pages):
        since = joined_at
        for at, what in losses[i]:
            gap = p.longest_gap(since, at + SLACK, paused)
            if gap < GRACE - SLACK:
                out.append(f"page {i} lost its seat ({what}) with a socket open all along (its longest time "
                           f"without one: {gap:.1f} s, grace {GRACE:.0f} s); on its page: "
                           + ("; ".join(x.what for x in p.seen) or "nothing"))
            since = at
        if not losses[i]:
            for x in p.seen:
                if p.longest_gap(joined_at, x.at, paused) < GRACE - SLACK:
                    out.append(f"page {i}: {x.what}, with a socket open all along")
    return out


# -- many schedules ----------------------------------------------------------------------------


async def _run_one(env: Environment, schedule: Schedule) -> Outcome:
    runner = Runner(env, schedule)
    try:
        return await asyncio.wait_for(runner.play(), schedule.last_fault_end() + FINISH_MOST_SECONDS + 60)
    except Exception as e:  # noqa: BLE001 - a schedule that could not be played is a finding too
        return Outcome(schedule, [f"the schedule could not be played: {type(e).__name__}: {e}"], runner.notes,
                       time.time() - runner.t0)


async def run_schedules_async(env: Environment, seeds: list[int], together: int = 3,
                              on_outcome: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Play the schedules of ``seeds`` on ``env``, ``together`` at a time
    (each next one starts when one ends); every outcome, in seed order."""
    outcomes: dict[int, Outcome] = {}
    queue = list(seeds)
    running: dict[asyncio.Task[Outcome], int] = {}
    while queue or running:
        while queue and len(running) < together:
            seed = queue.pop(0)
            running[asyncio.ensure_future(_run_one(env, make_schedule(seed)))] = seed
        done, _ = await asyncio.wait(set(running), return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            seed = running.pop(task)
            outcome = task.result()
            outcome.beside = tuple(sorted(running.values()))
            outcomes[seed] = outcome
            if on_outcome is not None:
                on_outcome(outcome)
    return [outcomes[s] for s in seeds]


def run_schedules(env: Environment, seeds: list[int], together: int = 3,
                  on_outcome: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """:func:`run_schedules_async` on an event loop of its own."""
    # on a thread of its own: the browser tests, run earlier in the same process
    # (make test's second run), leave Playwright's event loop running in this thread
    from .helpers import run_in_thread

    return run_in_thread(run_schedules_async(env, seeds, together, on_outcome))


def seeds_from_env(default: list[int]) -> list[int]:
    """``LIARS_DICE_SCHEDULE_SEED`` (``S`` or ``S1,S2,...``) when set, else ``default``."""
    raw = os.environ.get("LIARS_DICE_SCHEDULE_SEED", "").strip()
    if not raw:
        return default
    return [int(x) for x in raw.split(",") if x.strip()]


def log_tail(env: Environment, lines: int = 25) -> str:
    try:
        return "\n".join(env.log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


__all__ = ["Environment", "Fault", "Outcome", "Page", "Schedule", "check", "environment", "make_schedule",
           "run_schedules", "seeds_from_env"]

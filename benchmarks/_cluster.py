"""A ``liars-dice serve --workers N`` cluster on loopback for the benchmarks
(``server_scale.py``, ``server_load.py --workers N``), imported as ``_cluster``.

- :func:`fresh_database`: a new PostgreSQL database per run (``CREATE DATABASE``
  with the role of the URL given; the role needs ``CREATEDB``), dropped after;
- :func:`private_redis`: a ``redis-server`` of its own on a free loopback port
  (no persistence), so that its command count is this run's alone;
- :func:`cluster`: the supervisor and its N workers on consecutive ports,
  waited for until every ``/healthz`` answers;
- :func:`nginx_front`: Debian's nginx with ``deploy/nginx/liars-dice.conf`` as
  shipped (only its ports replaced), in a prefix of its own;
- :class:`Counters`: PostgreSQL's committed transactions and inserted rows of
  that database (``pg_stat_database``) and Redis's processed commands and
  network bytes (``INFO stats``), read before and after a window.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_NGINX = ROOT / "deploy" / "nginx" / "liars-dice.conf"


def free_ports(n: int) -> int:
    """The first of ``n`` consecutive free loopback ports, below the kernel's
    ephemeral range: a port the OS hands out for ``bind(0)`` is also taken by
    outgoing connections, and a worker restarted on it found it in use."""
    import random

    low = 20000
    try:
        low = min(low, int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0]) - n - 1)
    except (OSError, ValueError, IndexError):
        pass
    pick = random.Random()
    while True:
        port = pick.randrange(10000, low)
        held = []
        try:
            for k in range(n):
                t = socket.socket()
                held.append(t)
                t.bind(("127.0.0.1", port + k))
            return port
        except OSError:
            continue
        finally:
            for t in held:
                t.close()


def _sa_url(url: str) -> str:
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


@contextmanager
def fresh_database(url: str) -> Iterator[str]:
    """A new, empty database on the server of ``url`` (same role); yields its URL.

    :raises SystemExit: one sentence when the role may not create databases.
    """
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ProgrammingError

    admin = create_engine(_sa_url(url), isolation_level="AUTOCOMMIT")
    name = f"ld_bench_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except ProgrammingError as e:
        admin.dispose()
        sys.exit(f"The role of {make_url(url).username!r} may not create a database for the benchmark "
                 f"(as a superuser: ALTER ROLE {make_url(url).username} CREATEDB): {str(e.orig).strip()}")
    new = make_url(url).set(database=name).render_as_string(hide_password=False)
    try:
        yield new
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def private_redis() -> Iterator[str]:
    """A ``redis-server`` of this run on a free loopback port; yields its URL."""
    exe = shutil.which("redis-server")
    if exe is None:
        sys.exit("redis-server is not installed (apt-get install redis-server), or pass --redis URL.")
    port = free_ports(1)
    proc = subprocess.Popen([exe, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
                             "--maxclients", "10000"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        import redis

        r = redis.Redis.from_url(url)
        deadline = time.monotonic() + 10
        while True:
            try:
                r.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        r.close()
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@dataclass
class Cluster:
    """A running supervisor: its workers' URLs and the supervisor's pid."""

    urls: list[str]
    supervisor: int

    def worker_pids(self) -> list[int]:
        """The live workers' pids: the supervisor's children, or with one worker
        (``--workers 1`` is the server itself, no supervisor) the process itself."""
        if len(self.urls) == 1:
            return [self.supervisor]
        try:
            raw = Path(f"/proc/{self.supervisor}/task/{self.supervisor}/children").read_text()
        except OSError:
            return []
        return [int(p) for p in raw.split()]


@dataclass
class Workers:
    """A running ``liars-dice serve --workers N``: the workers' base URLs
    (``http://127.0.0.1:PORT``, no slash) and the supervisor process."""

    urls: list[str]
    process: subprocess.Popen[bytes]


@contextmanager
def serve_workers(n: int, db: str, redis_url: str, options: list[str], log: Path, seconds: float = 90.0) -> Iterator[Workers]:
    """``liars-dice serve --workers n --db DB --redis REDIS`` plus ``options``
    on ``n`` consecutive free loopback ports (this interpreter, this
    ``sys.path``), yielded once every worker's ``/healthz`` answers; SIGTERM
    at the end (SIGKILL after 30 s). The tests of several workers
    (tests/server/test_failover.py, tests/e2e/test_e2e_workers.py) start
    theirs with it too.

    :raises RuntimeError: when the supervisor exits, or a worker does not
        answer within ``seconds`` (with the log's last lines).
    """
    port = free_ports(n)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "PYTHONUNBUFFERED": "1"}
    sup = subprocess.Popen(
        [sys.executable, "-c", "from liars_dice.cli import main; main()", "serve", "--workers", str(n),
         "--port", str(port), "--db", db, "--redis", redis_url, *options],
        env=env, stdout=log.open("a"), stderr=subprocess.STDOUT,
    )
    urls = [f"http://127.0.0.1:{port + i}" for i in range(n)]
    try:
        deadline = time.monotonic() + seconds
        for u in urls:
            while True:
                try:
                    if httpx.get(u + "/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or sup.poll() is not None:
                    raise RuntimeError(f"the workers did not start: {log.read_text()[-3000:]}")
                time.sleep(0.2)
        yield Workers(urls, sup)
    finally:
        sup.send_signal(signal.SIGTERM)
        try:
            sup.wait(timeout=30)
        except subprocess.TimeoutExpired:
            sup.kill()


@contextmanager
def cluster(workers: int, db: str, redis_url: str, extra: list[str], log: Path) -> Iterator[Cluster]:
    """:func:`serve_workers` for the benchmarks: URLs with a trailing slash."""
    log.write_text("")
    with serve_workers(workers, db, redis_url, extra, log) as w:
        yield Cluster([u + "/" for u in w.urls], w.process.pid)


@contextmanager
def nginx_front(ports: list[int], worker_connections: int = 8192,
                routes: list[int] | None = None) -> Iterator[tuple[str, int]]:
    """nginx on a free loopback port with the shipped server block, its upstream
    ports replaced by ``ports``; yields ``(front URL, nginx master pid)``.

    The shipped file is a server block; the ``nginx.conf`` around it (worker
    count, connections) is the operator's: here 1 worker process and
    ``worker_connections`` (Debian's default of 768 holds fewer than 200 tables of
    4 seats, whose every socket is two connections in nginx). The owner routes
    w0, w1, w2 (``--route w``) go to ``routes`` (default: ``ports``) in order."""
    exe = shutil.which("nginx") or "/usr/sbin/nginx"
    listen = free_ports(1)
    site = SHIPPED_NGINX.read_text().replace("listen 8080;", f"listen 127.0.0.1:{listen};")
    upstream = "\n".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=3s;" for p in ports)
    head, rest = site.split("upstream liars_dice_workers {", 1)
    body, tail = rest.split("}", 1)
    kept = "\n".join(ln for ln in body.splitlines() if "server 127.0.0.1:" not in ln)
    site = f"{head}upstream liars_dice_workers {{\n{upstream}{kept}}}{tail}"
    # each worker's own upstream (the owner routes, --route w): worker i is w{i}
    for i, p in enumerate((routes or ports)[:3]):
        site = re.sub(rf"(upstream liars_dice_w{i} {{ server )127\.0\.0\.1:\d+;", rf"\g<1>127.0.0.1:{p};", site)
    tmp = Path(tempfile.mkdtemp(prefix="ld-nginx-"))
    (tmp / "liars-dice.conf").write_text(site)
    for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp / d).mkdir()
    conf = tmp / "nginx.conf"
    conf.write_text(f"""
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
worker_rlimit_nofile {worker_connections * 2 + 100};
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections {worker_connections}; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/liars-dice.conf;
}}
""")
    check = subprocess.run([exe, "-t", "-p", str(tmp), "-c", str(conf)], capture_output=True, text=True)
    if check.returncode != 0:
        raise RuntimeError(f"nginx -t: {check.stderr}")
    proc = subprocess.Popen([exe, "-p", str(tmp), "-c", str(conf), "-g", "daemon off;"])
    front = f"http://127.0.0.1:{listen}/"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(front + "healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError((tmp / "error.log").read_text())
            time.sleep(0.1)
        yield front, proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        errors = (tmp / "error.log").read_text() if (tmp / "error.log").exists() else ""
        if errors.strip():
            print(f"nginx error.log ({len(errors.splitlines())} lines), last: {errors.splitlines()[-1][:300]}")


class Counters:
    """Counts of the database and the broker: ``snap()`` returns a dict;
    the difference of two snaps is what a window cost."""

    def __init__(self, db: str, redis_url: str) -> None:
        from sqlalchemy import create_engine
        from sqlalchemy.engine import make_url
        import redis

        self.dbname = make_url(db).database
        self.engine = create_engine(_sa_url(db), pool_size=1, max_overflow=0)
        self.redis = redis.Redis.from_url(redis_url)

    def snap(self) -> dict[str, float]:
        from sqlalchemy import text

        with self.engine.connect() as conn:
            # pg_stat_database is updated by each backend when it goes idle (at
            # most every PGSTAT_MIN_INTERVAL, 1 s): read it fresh.
            conn.execute(text("SELECT pg_stat_clear_snapshot()"))
            row = conn.execute(text("SELECT xact_commit, tup_inserted, tup_updated FROM pg_stat_database "
                                    "WHERE datname = :d"), {"d": self.dbname}).one()
        info = self.redis.info("stats")
        return {"pg_commits": float(row[0]), "pg_inserts": float(row[1]), "pg_updates": float(row[2]),
                "redis_commands": float(info["total_commands_processed"]),
                "redis_bytes_in": float(info["total_net_input_bytes"]),
                "redis_bytes_out": float(info["total_net_output_bytes"])}

    def close(self) -> None:
        self.engine.dispose()
        self.redis.close()


def diff(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    """``b - a`` key by key."""
    return {k: b[k] - a[k] for k in a}

"""One client holding the server with kept-alive connections (issue 16, fault 1).

There was no cap on plain HTTP connections per address, the request deadline
restarted after every response, and ``/healthz`` answered anyone: a client
sending one ``/healthz`` every few seconds on each of 1,100 connections kept
them all open, and under a soft limit of 1,024 open files (systemd's default)
every new request from anyone failed. These attack a real ``liars-dice serve``
(a subprocess with that file limit) from loopback address 127.0.0.2 while an
honest client on 127.0.0.3 uses the site.
"""

from __future__ import annotations

import os
import re
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from live import live_server
from liars_dice.server import Settings

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"


def _limited_files() -> None:  # runs in the server's process before it starts
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """``liars-dice serve`` under a limit of 1,024 open files; yields its URL and process id."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("liars-dice")), "serve", "--port", "0", "--db", f"sqlite:///{tmp_path / 't.db'}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, preexec_fn=_limited_files,
    )
    assert proc.stdout is not None
    try:
        deadline = time.monotonic() + 60
        url = None
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                raise AssertionError(f"the server exited: {proc.wait()}")
            m = re.search(r"open (http://\S+)/", line)
            url = m.group(1) if m else None
        assert url is not None, "the server did not print its URL"
        out = proc.stdout
        threading.Thread(target=lambda: [None for _ in out], daemon=True).start()  # a full pipe never blocks it
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class KeepAliveFlood:
    """``n`` connections from ``source``, each sending ``/healthz`` every
    ``every`` seconds (and reopened when the server closes it), until stopped."""

    def __init__(self, url: str, source: str, n: int, every: float = 1.5) -> None:
        parts = urlsplit(url)
        self.addr = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.source, self.n, self.every = source, n, every
        self.socks: list[socket.socket | None] = [None] * n
        self.stop = threading.Event()
        self.open_most = 0
        self.passes = 0  #: passes over all ``n`` connections done
        self._passed = threading.Condition()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def wait_passes(self, k: int, bound: float = 300.0) -> None:
        """Wait until the flood has passed over every connection ``k`` times (an
        event, not a time: under load a pass takes longer); ``bound`` is a last resort."""
        with self._passed:
            assert self._passed.wait_for(lambda: self.passes >= k or not self.thread.is_alive(), bound), self.passes
        assert self.passes >= k, f"the flood stopped after {self.passes} passes"

    def _open(self) -> socket.socket | None:
        s = socket.socket()
        try:
            s.bind((self.source, 0))
            s.settimeout(1.0)
            s.connect(self.addr)
            s.sendall(HEALTHZ)
            s.setblocking(False)
            return s
        except OSError:
            s.close()
            return None

    def _run(self) -> None:
        while not self.stop.is_set():
            start = time.monotonic()
            for i in range(self.n):
                if self.stop.is_set():
                    break
                s = self.socks[i]
                if s is not None:
                    try:
                        alive = s.recv(65536) != b""
                    except BlockingIOError:
                        alive = True
                    except OSError:
                        alive = False
                    if alive:
                        try:
                            s.send(HEALTHZ)
                        except OSError:
                            alive = False
                    if not alive:
                        s.close()
                        s = self.socks[i] = None
                if s is None:
                    self.socks[i] = self._open()
            self.open_most = max(self.open_most, sum(s is not None for s in self.socks))
            with self._passed:
                self.passes += 1
                self._passed.notify_all()
            self.stop.wait(max(0.0, self.every - (time.monotonic() - start)))

    def __enter__(self) -> "KeepAliveFlood":
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(timeout=60)
        for s in self.socks:
            if s is not None:
                s.close()


def _open_files(pid: int) -> int:
    """Files process ``pid`` holds open now."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def _sample_open_files(pid: int, n: int, every: float) -> list[int]:
    """``n`` counts of :func:`_open_files`, ``every`` seconds apart."""
    counts = []
    for _ in range(n):
        counts.append(_open_files(pid))
        time.sleep(every)
    return counts


def test_one_address_holding_a_thousand_keep_alive_connections_locks_no_one_out(server: tuple[str, int]) -> None:
    # Issue 16 fault 1: "1,005 such connections held the server at 1,024 open files.
    # For the whole run every new request from anyone failed".
    server, pid = server
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip("the attacker needs 1,000 sockets of its own (hard limit of open files under 2,048)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)) if hard != resource.RLIM_INFINITY else max(soft, 4096), hard))
    honest = httpx.Client(base_url=server, transport=httpx.HTTPTransport(local_address="127.0.0.3"), timeout=5)
    with KeepAliveFlood(server, "127.0.0.2", 1000) as flood:
        flood.wait_passes(4)  # the flood has tried every connection a few times over (was: 6 s)
        # The fewest of a pass's samples: a connection over the cap is accepted,
        # answered 429 and closed within a turn of the loop, but a sample taken in
        # that turn counts it (CI under load once saw 119 open at one instant; at
        # load 10-22 the median of a second's samples did too, issue 36 fault 10).
        # A connection the server keeps is in every sample.
        held = min(_sample_open_files(pid, 16, 0.1))
        answered = []
        for _ in range(5):
            r = honest.post("/api/tables", json={"nickname": "ann", "seats": 2})
            answered.append(r.status_code)
            honest.close()  # each a fresh connection, as a new visitor's would be
            honest = httpx.Client(base_url=server, transport=httpx.HTTPTransport(local_address="127.0.0.3"), timeout=5)
            assert honest.get("/api/tables").status_code == 200
    assert flood.open_most >= 900, flood.open_most  # the attack was on: its connections were opened
    assert answered == [201] * 5, answered
    assert held <= Settings().connections_per_address + 40, held  # the cap, plus the database, logs, listening socket


def test_a_kept_alive_connection_is_closed_after_its_lifetime_whatever_it_sends(tmp_path: Path) -> None:
    # Issue 16 fault 1: "The 10 s request_seconds deadline restarts after every response".
    s = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", connection_seconds=2.0)
    with live_server(s) as url:
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname, parts.port), timeout=5, source_address=("127.0.0.2", 0)) as c:
            start, answers = time.monotonic(), 0
            while time.monotonic() - start < 8.0:
                try:
                    c.sendall(HEALTHZ)
                    data = c.recv(4096)
                except OSError:
                    break
                if data == b"":
                    break
                answers += data.count(b"HTTP/1.1 200")
                time.sleep(0.3)
            lived = time.monotonic() - start
    assert lived < 4.0 and answers >= 3, (lived, answers)


def test_a_connection_serves_a_bounded_number_of_requests(tmp_path: Path) -> None:
    s = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", connection_requests=5)
    with live_server(s) as url:
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname, parts.port), timeout=5, source_address=("127.0.0.2", 0)) as c:
            answers = 0
            for _ in range(10):
                try:
                    c.sendall(HEALTHZ)
                    data = c.recv(4096)
                except OSError:
                    break
                if data == b"":
                    break
                answers += data.count(b"HTTP/1.1 200")
    assert answers == 5, answers


def test_one_address_past_its_connection_cap_is_told_so_and_others_are_served(tmp_path: Path) -> None:
    s = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", connections_per_address=3)
    with live_server(s) as url:
        parts = urlsplit(url)
        held = [socket.create_connection((parts.hostname, parts.port), timeout=5, source_address=("127.0.0.2", 0))
                for _ in range(3)]
        try:
            with socket.create_connection((parts.hostname, parts.port), timeout=5, source_address=("127.0.0.2", 0)) as c:
                c.sendall(HEALTHZ)
                answer = c.recv(4096)
            assert answer.startswith(b"HTTP/1.1 429") and b'"socket/too_many"' in answer, answer
            with httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address="127.0.0.3")) as other:
                assert other.get("/api/tables").status_code == 200
        finally:
            for h in held:
                h.close()
        time.sleep(0.3)
        with httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address="127.0.0.2")) as again:
            assert again.get("/api/tables").status_code == 200  # closed connections leave the count


def test_limit_concurrency_comes_from_the_settings_or_the_file_limit() -> None:
    from liars_dice.server.edge.http_deadline import FILES_RESERVED, uvicorn_config

    assert uvicorn_config(None, Settings(concurrency_max=500), host="127.0.0.1", port=1).limit_concurrency == 500
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    auto = uvicorn_config(None, Settings(), host="127.0.0.1", port=1)
    assert auto.limit_concurrency == max(64, soft - FILES_RESERVED)
    assert auto.proxy_headers is False  # uvicorn believed X-Forwarded-For from loopback (fault 2)

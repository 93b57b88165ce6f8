"""The shipped nginx front bounds one client (issue 16, fault 1 behind a proxy;
the benchmarks' attack held 1,100 idle keep-alive connections through it).

Behind nginx every worker sees nginx's address as the peer, so the workers'
own per-peer connection cap cannot hold one client. Here Debian's nginx runs
the shipped file in front of one plain ``liars-dice`` server (SQLite):

* one address (127.0.0.3) holds 300 idle keep-alive connections, and another
  (127.0.0.2) is still served at once;
* requests in flight per address are capped by ``limit_conn`` (96): 120
  requests held open from one address (slow uploads, each counted by nginx
  once its header is read) get 429 past 96, and the other address is served.
"""

from __future__ import annotations

import select
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from liars_dice.server import Settings

from .live import live_server
from _cluster import free_ports  # benchmarks/_cluster.py (tests/conftest.py puts benchmarks/ on the path)
from .test_nginx import NGINX, nginx_conf

pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed (.ci/run installs it)")

CAP = 96  # deploy/nginx/liars-dice.conf: limit_conn liars_dice_per_address


def _get(sock: socket.socket, host: str) -> int:
    sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            return 0
        head += chunk
    return int(head.split(b" ", 2)[1])


def _front(tmp_path: Path, port: int) -> tuple[subprocess.Popen[bytes], int]:
    assert NGINX is not None
    listen = free_ports(1)
    conf = nginx_conf(tmp_path, listen, [port, port, port])
    proc = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"])
    deadline = time.monotonic() + 20
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{listen}/healthz", timeout=2).status_code == 200:
                return proc, listen
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, (tmp_path / "error.log").read_text()
        time.sleep(0.1)


def _from(address: str, listen: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", listen), timeout=5, source_address=(address, 0))


def test_one_address_cannot_hold_the_front_and_another_is_still_served(tmp_path: Path) -> None:
    with live_server(Settings(db_url=f"sqlite:///{tmp_path}/n.db", trusted_proxies=("127.0.0.1",))) as url:
        proc, listen = _front(tmp_path, int(url.rsplit(":", 1)[1]))
        host = f"127.0.0.1:{listen}"
        held: list[socket.socket] = []
        try:
            for _ in range(300):  # idle keep-alive connections, each after one request
                s = _from("127.0.0.3", listen)
                held.append(s)
                assert _get(s, host) == 200
            other = _from("127.0.0.2", listen)
            assert _get(other, host) == 200, "another address is served while one holds 300 idle connections"
            other.close()
            for s in held:
                s.close()
            held.clear()
            # Requests in flight: a create whose body never comes is held by nginx (client_body_timeout 10 s).
            answers: list[int] = []
            for _ in range(CAP + 24):
                s = _from("127.0.0.3", listen)
                held.append(s)
                s.sendall(f"POST /api/tables HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                          "Content-Length: 1000\r\n\r\n{".encode())
            time.sleep(0.5)
            # At once for all (nginx ends a held body after client_body_timeout, 10 s).
            ready, _, _ = select.select(held, [], [], 0.5)
            for s in held:
                if s in ready:
                    head = s.recv(4096)
                    answers.append(int(head.split(b" ", 2)[1]) if head else 0)
                else:
                    answers.append(-1)  # still held: counted against the cap
            assert answers.count(-1) == CAP, answers
            assert answers.count(429) == 24, answers
            other = _from("127.0.0.2", listen)
            assert _get(other, host) == 200, "another address is served while one has its cap in flight"
            other.close()
        finally:
            for s in held:
                s.close()
            proc.terminate()
            proc.wait(timeout=10)

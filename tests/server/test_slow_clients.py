"""Slow clients (attack2): every HTTP request has a deadline to arrive (``request_seconds``).

uvicorn bounds only an idle keep-alive connection, and any byte resets that
timer: a client trickling its headers or its body a byte at a time held its
connection for ever (1,100 from one address stayed open past 40 s). These run
the real uvicorn server of ``liars-dice serve`` (``server.http_deadline.uvicorn_config``).
"""

from __future__ import annotations

import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from websockets.sync.client import connect

from live import live_server
from liars_dice.server import Settings
from liars_dice.server.edge.http_deadline import deadline_protocol


def _trickle(url: str, head: bytes, seconds: float) -> float | None:
    """Send ``head``, then one byte every 0.2 s for ``seconds``; the time the server
    closed the connection, or None if it was still open."""
    parts = urlsplit(url)
    start = time.monotonic()
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as s:
        s.sendall(head)
        s.settimeout(0.2)
        while time.monotonic() - start < seconds:
            try:
                s.sendall(b"a")
                data = s.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return time.monotonic() - start
            if data == b"":
                return time.monotonic() - start
    return None


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> object:
    db: Path = tmp_path_factory.mktemp("slow") / "t.db"
    with live_server(Settings(db_url=f"sqlite:///{db}", request_seconds=1.0)) as u:
        yield u


def test_headers_trickled_a_byte_at_a_time_are_cut_off(url: str) -> None:
    closed = _trickle(url, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ", 6.0)
    assert closed is not None and closed < 4.0, closed


def test_a_body_trickled_below_the_size_limit_is_cut_off(url: str) -> None:
    head = b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9000\r\n\r\n"
    closed = _trickle(url, head, 6.0)
    assert closed is not None and closed < 4.0, closed


def test_the_second_request_of_a_kept_alive_connection_has_its_own_deadline(url: str) -> None:
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = b""
        while b'{"ok":true' not in answer:  # the head and the body may come in two reads
            chunk = s.recv(4096)
            assert chunk, answer
            answer += chunk
        start = time.monotonic()
        s.sendall(b"GET /healthz HTTP/1.1\r\n")
        s.settimeout(0.2)
        closed = None
        while time.monotonic() - start < 6.0:
            try:
                s.sendall(b"X")
                if s.recv(4096) == b"":
                    closed = time.monotonic() - start
                    break
            except socket.timeout:
                continue
            except OSError:
                closed = time.monotonic() - start
                break
    assert closed is not None and closed < 4.0, closed


def test_honest_requests_and_websockets_outlive_the_deadline(url: str) -> None:
    with httpx.Client(base_url=url) as client:
        for _ in range(3):  # one kept-alive connection, each request well inside the deadline
            assert client.get("/healthz").json() == {"ok": True, "database": "ok"}
            time.sleep(0.4)
        t = client.post("/api/tables", json={"nickname": "ann", "seats": 2}).json()
    ws_url = url.replace("http://", "ws://") + f"/ws/tables/{t['code']}"
    with connect(ws_url) as ws:
        ws.send('{"type": "hello", "token": "%s"}' % t["token"])
        ws.recv(timeout=5)
        time.sleep(2.5)  # past the request deadline: an upgraded connection is not cut
        ws.send('{"type": "ping", "id": 7}')
        replies = [str(ws.recv(timeout=5))]
        while '"pong"' not in replies[-1] and len(replies) < 10:
            replies.append(str(ws.recv(timeout=5)))
        assert '"pong"' in replies[-1], replies


@pytest.mark.parametrize("seconds", [0, -1, float("inf"), float("nan")])
def test_the_deadline_is_a_positive_number(seconds: float) -> None:
    with pytest.raises(ValueError, match="request_seconds"):
        deadline_protocol(seconds)

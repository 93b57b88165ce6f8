"""Memory per open websocket (issue 16, "at most 250 KiB per open table"):
what the server holds for a socket that has said ``hello`` and waits, measured
with tracemalloc against a real uvicorn server (:mod:`live`), the client's own
allocations left out.

Here a socket held 40 KiB before and 23.5 KiB after (at 200 tables x 4 seats,
benchmarks/RESULTS.md, 37 KiB before): the router's exit stacks, exception wrappers and endpoint frames for
the socket's whole life (about 7 KiB), the opening handshake's request and
response kept by uvicorn and by websockets' parser (about 3.5 KiB), and an
``asyncio.Queue`` per connection (about 2 KiB). ``edge.session.TableSockets``,
``edge.http_deadline.LeanWebSocket`` and ``runtime.conn.Conn``'s deque remove them."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from live import live_server
from sockets import hello, ws_from

from liars_dice.server import Settings

N = 40


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    with live_server(Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", grace=600.0)) as u:
        yield u


def _server_heap() -> int:
    """Traced bytes allocated by the server's thread: not by this test, nor by the
    clients' reader threads (websockets' sync client)."""
    gc.collect()
    snap = tracemalloc.take_snapshot().filter_traces([
        tracemalloc.Filter(False, __file__, all_frames=True),
        tracemalloc.Filter(False, "*/websockets/sync/*", all_frames=True),
        tracemalloc.Filter(False, "*/tests/server/sockets.py", all_frames=True),
    ])
    return sum(s.size for s in snap.statistics("filename"))


def test_a_waiting_socket_holds_under_28_kib_of_the_servers_heap(url: str) -> None:
    code = httpx.post(f"{url}/api/tables", json={"nickname": "ann", "preset": "classic"}).json()["code"]
    warm = [ws_from(url, code, "127.0.0.1") for _ in range(4)]  # the first sockets' one-time costs
    for ws in warm:
        assert hello(ws, None)["type"] == "welcome"
    tracemalloc.start(12)
    try:
        before = _server_heap()
        held = [ws_from(url, code, "127.0.0.1") for _ in range(N)]
        for ws in held:
            assert hello(ws, None)["type"] == "welcome"
        per_socket = (_server_heap() - before) / N
    finally:
        tracemalloc.stop()
        for ws in warm + held:
            ws.close()
    assert per_socket < 28 * 1024, f"{per_socket / 1024:.1f} KiB per socket"


@pytest.mark.parametrize("path", ["/ws/tables/", "/ws/tables/ABCDEF/more", "/ws/elsewhere"])
def test_a_socket_at_no_tables_path_is_refused_at_the_handshake(url: str, path: str) -> None:
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    with pytest.raises(InvalidStatus) as e:
        connect(url.replace("http", "ws") + path, open_timeout=10)
    assert e.value.response.status_code == 403


def test_an_accepted_socket_keeps_no_handshake_headers(url: str) -> None:
    """``LeanWebSocket`` relies on uvicorn's ``request``/``response`` attributes and
    on websockets' parser holding the request: if either changes, this fails."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from websockets.http11 import Request

    code = httpx.post(f"{url}/api/tables", json={"nickname": "ann", "preset": "classic"}).json()["code"]
    ws = ws_from(url, code, "127.0.0.1")
    try:
        assert hello(ws, None)["type"] == "welcome"
        gc.collect()
        protocols = [o for o in gc.get_objects() if isinstance(o, WebSocketsSansIOProtocol)]
        assert protocols and all(vars(p)["request"] is None and vars(p)["response"] is None for p in protocols)
        # the server side's requests (the client's own request keeps its headers)
        held = [o for o in gc.get_objects() if isinstance(o, Request) and o.path.startswith("/ws/tables/")
                and o is not ws.request]
        assert held and all(len(r.headers) == 0 for r in held), [dict(r.headers) for r in held]
    finally:
        ws.close()


def test_a_refused_socket_whose_client_left_logs_no_traceback(tmp_path: Path) -> None:
    """A socket at no table, closed by its client right after the upgrade: the
    refusal finds the client gone and ends quietly. Before, 20 such sockets from
    an attacker logged 15-17 tracebacks of about 60 lines each. The server runs as
    ``liars-dice serve`` in its own process, so its log is the one an operator reads."""
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cli = str(Path(sys.executable).parent / "liars-dice")
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen([cli, "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 't.db'}"],
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while "open http://" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        _drop_refused_sockets(port)
        assert httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    text = log.read_text()
    assert "Exception in ASGI" not in text and "Traceback" not in text, text[:3000]


def _drop_refused_sockets(port: int) -> None:
    import base64
    import os
    import socket
    import time

    for i in range(20):
        s = socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.3.{i + 1}", 0))
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(f"GET /ws/tables/ZZZZZZ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        s.close()
    time.sleep(1.0)

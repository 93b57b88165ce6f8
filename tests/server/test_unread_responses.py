"""A client that reads none of its responses cannot hold a connection or a
worker's shutdown (issue 16; the stop-25 attacker): one connection with a
1 KiB receive buffer pipelined 90 GETs of a 44 KB static file and read
nothing. uvicorn's write then waited for ever: the connection outlived every
bound (64 such were open after 75 s, past ``connection_seconds``), and the
worker was still running 60 s after SIGTERM (uvicorn set no
``timeout_graceful_shutdown``). A client now has ``request_seconds`` to read
again, and shutdown gives the requests still served a bounded time."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any

from liars_dice.server import Settings

from .live import running_server


def _stuck_client(port: int, requests: int = 90) -> socket.socket:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /static/js/table.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * requests)
    return s


def test_a_client_that_reads_nothing_is_cut_off_and_shutdown_ends(tmp_path: Path) -> None:
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'u.db'}", request_seconds=1.0)
    with running_server(settings) as live:
        _cut_off_and_shut_down(live.server, live.port, live.thread)


def _cut_off_and_shut_down(server: Any, port: int, thread: threading.Thread) -> None:
    stuck = _stuck_client(port)
    try:
        # cut off within its second of not reading: the server's end is gone
        # (reading now finds the buffered bytes, then the reset or the end)
        time.sleep(3.0)
        got, ended = 0, False
        stuck.settimeout(5)
        try:
            while True:
                chunk = stuck.recv(65536)
                if not chunk:
                    ended = True
                    break
                got += len(chunk)
        except ConnectionResetError:
            ended = True
        except TimeoutError:
            pass
        assert ended, f"the connection was still open after {got} bytes"
        whole = 90 * (Path(__file__).parents[2] / "src/liars_dice/server/static/js/table.js").stat().st_size
        assert got < 0.75 * whole, (got, whole)  # cut off: not every response was sent
        # and a second such client does not hold the shutdown
        _stuck_client(port)
        time.sleep(0.3)
        t0 = time.monotonic()
        server.should_exit = True
        thread.join(30)
        assert not thread.is_alive(), "the server's shutdown waited on a client that reads nothing"
        assert time.monotonic() - t0 < 10
    finally:
        stuck.close()

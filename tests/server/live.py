"""A real uvicorn server on a loopback port, in a thread of the test process."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from liars_dice.server import Settings, create_app
from liars_dice.server.edge.http_deadline import uvicorn_config


@dataclass
class Live:
    """A running test server: uvicorn's ``Server`` (its ``server_state``,
    ``should_exit``), its port and the thread it runs in."""

    server: Any
    port: int
    thread: threading.Thread


@contextmanager
def running_server(settings: Settings) -> Iterator[Live]:
    """Serve ``create_app(settings)`` on 127.0.0.1 (a free port) with the
    server's own uvicorn settings; stops it at the end (at most 15 s)."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    config = uvicorn_config(create_app(settings), settings, host="127.0.0.1", port=port)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield Live(server, port, thread)
    finally:
        server.should_exit = True
        thread.join(timeout=15)


@contextmanager
def live_server(settings: Settings) -> Iterator[str]:
    """Serve ``create_app(settings)`` on 127.0.0.1 (a free port); yields the base URL."""
    with running_server(settings) as live:
        yield f"http://127.0.0.1:{live.port}"

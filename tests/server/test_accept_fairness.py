"""A burst of new connections does not queue a newcomer behind all of it
(issue 16, the stop-27 attacker): 1,216 connections from 19 loopback
addresses, each pipelining 50 ``GET /healthz``, kept a new client's
``GET /api/config`` waiting 22-26 s, though its TCP connection was made at
once. uvloop's libuv accepts one connection per event-loop turn (libuv
pull request 3696), so 1,081 connections waited in the listen queue while the
accepted ones were served, and a newcomer was last in it. asyncio's loop
accepts the whole queue in a turn, and then every connection is served in
turn: the newcomer waited at most 1.2 s in the same attack."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from liars_dice.server import Settings

from .live import running_server

ADDRESSES = [f"127.0.0.{i}" for i in range(2, 7)]
PER_ADDRESS = 60  # under the cap of 64 connections per address
PIPELINED = 30


def test_a_newcomer_is_served_before_a_burst_of_pipelined_connections_is(tmp_path: Path) -> None:
    with running_server(Settings(db_url=f"sqlite:///{tmp_path / 'a.db'}")) as live:
        _burst_then_newcomer(live.server, live.port)


def _burst_then_newcomer(server: Any, port: int) -> None:
    request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    flood: list[socket.socket] = []
    try:
        before = server.server_state.total_requests
        for address in ADDRESSES:
            for _ in range(PER_ADDRESS):
                s = socket.socket()
                s.bind((address, 0))
                s.connect(("127.0.0.1", port))
                s.sendall(request * PIPELINED)  # and never read: the answers wait in its buffer
                flood.append(s)
        newcomer = socket.create_connection(("127.0.0.1", port), timeout=60)
        newcomer.sendall(f"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        assert newcomer.recv(12).startswith(b"HTTP/1.1 200")
        served = server.server_state.total_requests - before
        newcomer.close()
        total = len(flood) * PIPELINED
        # the newcomer came after the whole burst, yet is answered while most of it still waits
        assert served < total / 2, f"{served} of the burst's {total} requests were served before the newcomer's"
    finally:
        for s in flood:
            s.close()

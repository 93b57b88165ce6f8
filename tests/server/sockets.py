"""Websocket clients from a chosen loopback address (127.0.0.2 and up), for
attacks from outside against a real server (:mod:`live`)."""

from __future__ import annotations

import json
import socket
from typing import Any
from urllib.parse import urlsplit

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect


def ws_from(url: str, code: str, source: str, headers: dict[str, str] | None = None) -> ClientConnection:
    """A websocket to table ``code`` of the server at ``url``, from loopback address
    ``source``, with ``headers`` added to its opening handshake."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    sock = socket.create_connection((host, port), timeout=10, source_address=(source, 0))
    ws: ClientConnection = connect(f"ws://{host}:{port}/ws/tables/{code}", sock=sock, open_timeout=10,
                                   additional_headers=headers).__enter__()
    return ws


def hello(ws: ClientConnection, token: str | None) -> dict[str, Any]:
    """Say hello; the ``welcome`` or the ``error`` that answers it."""
    ws.send(json.dumps({"type": "hello", "token": token, "id": 1}))
    return until(ws, lambda m: m["type"] in ("welcome", "error"))


def until(ws: ClientConnection, pred: Any, timeout: float = 10) -> dict[str, Any]:
    """The first message matching ``pred``."""
    while True:
        m: dict[str, Any] = json.loads(ws.recv(timeout=timeout))
        if pred(m):
            return m


def close_code(ws: ClientConnection, timeout: float = 10) -> int | None:
    """The code the server closes ``ws`` with (reading until it does)."""
    try:
        while True:
            ws.recv(timeout=timeout)
    except ConnectionClosed as e:
        return e.rcvd.code if e.rcvd is not None else None

"""Every websocket frame is bounded, against a real uvicorn server on loopback
(docs/server-protocol.md, "Websocket" and "Close codes").

Found from outside (attack, 2026-12-01): binary frames were answered before
the message rate was counted (2,000 frames drew 2,000 errors in 1.5 s, with a
rate of 40 per 2 s); every frame over the rate drew an error of its own (a
reply per frame, whatever the rate); and the 30 s to say ``hello`` started
again at every frame, so a ``ping`` every 10 s held an unwelcomed socket for
50 s and more (for ever).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from live import live_server
from sockets import close_code, hello, ws_from
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection

from liars_dice.server import Settings


def replies(ws: ClientConnection) -> tuple[list[dict[str, Any]], int | None]:
    """Every message until the server closes ``ws`` (or 3 s pass), and the close code."""
    got: list[dict[str, Any]] = []
    try:
        while True:
            got.append(json.loads(ws.recv(timeout=3)))
    except ConnectionClosed as e:
        return got, e.rcvd.code if e.rcvd is not None else None
    except TimeoutError:
        return got, None


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    db = tmp_path_factory.mktemp("frames") / "t.db"
    with live_server(Settings(db_url=f"sqlite:///{db}", message_rate="10 per 30 seconds", hello_timeout=1.5)) as u:
        yield u


def table(url: str) -> dict[str, Any]:
    return dict(httpx.post(f"{url}/api/tables", json={"nickname": "ann", "seats": 2}).json())


@pytest.mark.parametrize("frame", [b"\x00", '{"type": "ping"}'], ids=["binary", "text"])
def test_a_frame_flood_draws_a_bounded_number_of_replies_then_a_close(url: str, frame: str | bytes) -> None:
    t = table(url)
    ws = ws_from(url, t["code"], "127.0.0.2")
    assert hello(ws, t["token"])["type"] == "welcome"  # one of the 10 messages
    try:
        for _ in range(200):
            ws.send(frame)
    except ConnectionClosed:  # closed by the server mid-flood: what came before is still read
        pass
    got, code = replies(ws)
    answers = [m for m in got if m["type"] in ("pong", "error")]
    # 9 more allowed, 10 refused with a reply, the next closes the connection: never 200 replies.
    assert len(answers) <= 2 * 10 + 1, len(answers)
    assert sum(m.get("code") == "rate/limited" for m in answers) >= 10
    assert code == 4429


def test_binary_frames_count_against_the_rate(url: str) -> None:
    t = table(url)
    ws = ws_from(url, t["code"], "127.0.0.3")
    assert hello(ws, t["token"])["type"] == "welcome"
    for _ in range(9):
        ws.send(b"\x00")
    ws.send(json.dumps({"type": "ping", "id": 7}))  # the 11th message of the window
    got, _ = replies(ws)
    reply = next(m for m in got if m.get("id") == 7 or m.get("code") == "rate/limited")
    assert reply["type"] == "error" and reply["code"] == "rate/limited", got
    assert reply["id"] == 7, reply  # the refusal names the frame it drops (it said id: null before)


def test_a_rate_refusal_names_the_id_only_of_a_frame_within_bounds(url: str) -> None:
    """The id is read without the message's checks, so only from a JSON
    object of at most 512 characters within the depth bound; binary, garbage,
    a too-deep, a long or an oversized frame is refused with ``id: null``."""
    t = table(url)
    ws = ws_from(url, t["code"], "127.0.0.5")
    assert hello(ws, t["token"])["type"] == "welcome"
    for _ in range(9):
        ws.send(b"\x00")
    frames = [
        json.dumps({"type": "bid", "quantity": 3, "face": 4, "id": "move-12"}),  # over the rate: refused
        b"\x00",
        "not json",
        '{"id": 5, "x": ' + "[" * 40 + "]" * 40 + "}",
        json.dumps({"type": "chat", "text": "x" * 5000, "id": 6}),  # over the message bound
        json.dumps({"type": "chat", "text": "[" * 600, "id": 8}),  # within it, too long to scan for an id
        json.dumps({"type": "ping", "id": True}),
    ]
    for f in frames:
        ws.send(f)
    got, _ = replies(ws)
    refused = [m for m in got if m.get("code") == "rate/limited"]
    assert [m["id"] for m in refused[:7]] == ["move-12", None, None, None, None, None, None], refused


def test_the_hello_is_due_from_the_accept_whatever_else_is_sent(url: str) -> None:
    t = table(url)
    ws = ws_from(url, t["code"], "127.0.0.4")
    start = time.monotonic()
    try:
        for _ in range(6):  # a frame every 0.5 s, each under the 1.5 s hello_timeout
            ws.send(json.dumps({"type": "ping"}))
            time.sleep(0.5)
    except ConnectionClosed:
        pass
    assert close_code(ws) == 1008
    assert time.monotonic() - start < 1.5 + 1.0


def _status(url: str, head: bytes) -> bytes:
    """The status line the server at ``url`` answers to ``head`` sent in one write."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10, source_address=("127.0.0.5", 0)) as s:
        s.sendall(head)
        got = b""
        while b"\r\n" not in got:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    return got.split(b"\r\n")[0]


@pytest.mark.parametrize("size", [20_000, 100_000])
def test_a_request_head_over_16_kib_is_refused_even_when_it_arrives_in_one_read(url: str, size: int) -> None:
    host = url.split("//")[1]
    head = f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nX-Pad: {'a' * size}\r\n\r\n".encode()
    assert _status(url, head).startswith(b"HTTP/1.1 431"), size


def test_a_head_under_the_bound_and_a_body_in_the_same_read_are_served(url: str) -> None:
    host = url.split("//")[1]
    body = json.dumps({"nickname": "ann", "seats": 2, "pad": "x" * 10}).encode()
    head = (f"POST /api/tables HTTP/1.1\r\nHost: {host}\r\nX-Pad: {'a' * 8000}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    assert _status(url, head + body).split()[1] in (b"201", b"422")  # read and answered, not refused for its head
    assert _status(url, f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()).startswith(b"HTTP/1.1 200")


def test_a_ping_flood_is_closed_and_a_few_pings_are_answered(url: str) -> None:
    """Pings never reach the app, so ``message_rate`` did not count them: the
    stop-34 attacker's 4 sockets, never saying hello, drew 1.84 million pongs in
    10 s and slowed every other socket on the worker (0.8 to 109 ms)."""
    from liars_dice.server.edge.http_deadline import PING_FLOOD_CLOSE, PINGS_MAX

    code = table(url)["code"]
    with ws_from(url, code, "127.0.0.61") as ws:
        for _ in range(5):
            ws.ping().wait(5)  # answered
    with ws_from(url, code, "127.0.0.62") as ws:
        try:
            for _ in range(PINGS_MAX * 50):
                ws.ping()
        except ConnectionClosed:
            pass
        assert close_code(ws) == PING_FLOOD_CLOSE

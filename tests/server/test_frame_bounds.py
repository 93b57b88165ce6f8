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
    for _ in range(200):
        ws.send(frame)
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

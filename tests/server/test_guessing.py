"""Guessing table codes is bounded, and the guesser's household keeps its
tables (issue 36, fault 7: "Twenty lookups of codes that do not exist lock an
address out of every table for a minute, existing ones included: one person
guessing behind a home router locks out the whole household").

Past ``miss_rate``, a request by a code alone is refused alike whether the
code exists or not (the guesser learns nothing more); a request that proves a
right to the table (a websocket whose ``hello`` holds a seat there: its
token, or the signed-in account's seat) is served, and lookups that guess no
code (players, ratings, one's own seats) are not held by the misses.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from .helpers import create, join


def _missing(code: str) -> str:
    """A code of the same form that names no table."""
    return "".join("A" if ch != "A" else "B" for ch in code)


def _socket(client: TestClient, code: str, hello: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
    """The first answer to ``hello`` at ``code``, and the close code if the socket was closed."""
    with client.websocket_connect(f"/ws/tables/{code}") as ws:
        ws.send_text(json.dumps(hello))
        first = json.loads(ws.receive_text())
        try:
            ws.receive_text()
            return first, None
        except WebSocketDisconnect as e:
            return first, e.code


def test_a_guesser_is_bounded_and_the_seated_keep_their_tables(client: TestClient) -> None:
    t = create(client, "ann", seats=3)
    code = t["code"]
    bob = join(client, code, "bob")
    missing = _missing(code)
    for _ in range(20):  # miss_rate: 20/minute, all from this one address
        assert client.get(f"/api/tables/{missing}").status_code == 404
    # by code alone: refused alike, table or not
    real, fake = client.get(f"/api/tables/{code}"), client.get(f"/api/tables/{missing}")
    assert real.status_code == fake.status_code == 429 and real.json() == fake.json()
    assert real.json()["error"]["message"] == "Too many requests for tables that do not exist: try again later."
    # a seat's token proves the right to its table: welcomed, at once
    with client.websocket_connect(f"/ws/tables/{code}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": bob["token"], "id": 1}))
        welcome = json.loads(ws.receive_text())
        assert welcome["type"] == "welcome" and welcome["seat"] == bob["seat"], welcome
    # a visitor, a token of another table, or any hello at a missing code: refused alike (4429)
    refusals = [
        _socket(client, code, {"type": "hello", "token": None}),
        _socket(client, code, {"type": "hello", "token": "x" * 43}),
        _socket(client, missing, {"type": "hello", "token": bob["token"]}),
        _socket(client, missing, {"type": "hello", "token": None}),
    ]
    assert {json.dumps(r, sort_keys=True) for r in refusals} == {json.dumps(refusals[0], sort_keys=True)}, refusals
    assert refusals[0][0]["code"] == "rate/limited" and refusals[0][1] == 4429
    # lookups that guess no code are not held by the misses
    assert client.get("/api/leaderboard").status_code == 200
    assert client.get("/api/players/ann/games").status_code == 200
    assert client.get("/api/account").status_code == 200
    assert client.post("/api/my-games", json={"tokens": [t["token"]]}).status_code == 200

"""Visitors never lock the players out of their own table (issue 16, fault 3).

The table's socket cap counted visitors and seat holders together and refused
a socket before its ``hello`` was read: "Two addresses (64 + 36 visitors) fill
a table", after which a player who reloads is refused and loses the seat
after the grace. These fill a table with visitors from two loopback addresses
of a real uvicorn server at the default limits, then bring its players back.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from live import live_server
from sockets import close_code, hello, ws_from
from websockets.sync.client import ClientConnection

from liars_dice.server import Settings


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    with live_server(Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", grace=600.0, bot_delay=0.0)) as u:
        yield u


def _fill(url: str, code: str) -> tuple[list[ClientConnection], list[int | None]]:
    """Visitors from 127.0.0.2 and 127.0.0.3 (64 each, their addresses' cap)
    until the table refuses them; the ones watching, and the refused ones' close codes."""
    watching: list[ClientConnection] = []
    refused: list[int | None] = []
    for source in ("127.0.0.2", "127.0.0.3"):
        for _ in range(64):
            ws = ws_from(url, code, source)
            answer = hello(ws, None)
            if answer["type"] == "welcome":
                watching.append(ws)
            else:
                assert answer["code"] == "socket/too_many", answer
                refused.append(close_code(ws))
                ws.close()
    return watching, refused


def test_players_come_back_to_a_table_full_of_visitors(url: str) -> None:
    http = httpx.Client(base_url=url, timeout=10)
    t = http.post("/api/tables", json={"nickname": "ann", "seats": 3}).json()
    bob = http.post(f"/api/tables/{t['code']}/join", json={"nickname": "bob"}).json()
    watching, refused = _fill(url, t["code"])
    try:
        assert len(watching) == Settings().visitors_per_table and refused and set(refused) == {4429}, (len(watching), refused)
        # The host and a player (reloading their pages) still have room.
        for token, seat in ((t["token"], 0), (bob["token"], 1)):
            ws = ws_from(url, t["code"], "127.0.0.4")
            welcome = hello(ws, token)
            assert welcome["type"] == "welcome" and welcome["seat"] == seat, welcome
            ws.close()
        # A visitor's refusal touched no seat.
        seats = http.get(f"/api/tables/{t['code']}").json()["seats"]
        assert [s["name"] for s in seats][:2] == ["ann", "bob"], seats
    finally:
        for ws in watching:
            ws.close()


def test_a_visitor_leaving_makes_room_for_another(url: str) -> None:
    t = httpx.post(f"{url}/api/tables", json={"nickname": "ann", "seats": 2}).json()
    watching, _ = _fill(url, t["code"])
    try:
        watching.pop().close()
        for _ in range(50):  # the server counts the close once it has seen it
            ws = ws_from(url, t["code"], "127.0.0.4")
            if hello(ws, None)["type"] == "welcome":
                ws.close()
                break
            ws.close()
        else:
            pytest.fail("no room for a visitor after one left")
    finally:
        for ws in watching:
            ws.close()

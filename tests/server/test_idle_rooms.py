"""The finished and closed tables held in memory are bounded in number
(``Settings.idle_rooms_max``, docs/server-protocol.md "Limits").

Found from outside (attack, 2026-12-01): every finished table a client named
(``GET /api/tables/{code}``, its record or replay, a websocket) was loaded from
the database and kept for ``finished_ttl`` (300 s), as many as were named: 300
finished two-player games took the server's memory up by 62 KB each, and at the
lookup rate of 600 a minute per address the count had no bound but the database.
"""

from __future__ import annotations

from starlette.testclient import TestClient

from helpers import Player, close_all, create, running, wait_until
from liars_dice.server import Settings


def test_looking_up_finished_tables_holds_at_most_idle_rooms_max_of_them(db_url: str) -> None:
    settings = Settings(db_url=db_url, bot_delay=0.0, idle_rooms_max=3, finished_ttl=600.0)
    with running(settings) as client:
        service = client.app.state.service  # type: ignore[attr-defined]
        codes = []
        for _ in range(6):  # six closed tables: the host leaves before the start
            t = create(client, "ann")
            ann = Player(client, t["code"], t["token"])
            ann.send({"type": "leave", "id": 1})
            ann.wait(lambda m: m.get("id") == 1)
            codes.append(t["code"])
        close_all()
        for code in codes:  # out of memory, as after a restart or their eviction
            wait_until(lambda: not service.rooms[code].conns)
            del service.rooms[code]
        for code in codes:
            assert client.get(f"/api/tables/{code}").status_code == 200
        held = [c for c in codes if c in service.rooms]
        assert held == codes[-3:]
        # A dropped table is loaded again when asked for, and is the newest then.
        assert client.get(f"/api/tables/{codes[0]}").json()["code"] == codes[0]
        assert [c for c in service.rooms if c in codes] == [*codes[-2:], codes[0]]


def test_a_watched_finished_table_is_never_dropped(client: TestClient) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    t = create(client, "ann")
    ann = Player(client, t["code"], t["token"])
    ann.send({"type": "leave", "id": 1})
    ann.wait(lambda m: m.get("id") == 1)
    room = service.rooms[t["code"]]
    service.settings = Settings(db_url=service.settings.db_url, idle_rooms_max=0)
    service._drop_idle_rooms()
    assert service.rooms.get(t["code"]) is room  # ann's socket still watches it

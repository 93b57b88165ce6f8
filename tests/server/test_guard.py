"""Regression tests for issue 7's faults 1, 2, 4, 7, 8, 9 and 10: every input
bounded, every abuser slowed. Each test failed on the main branch before the
fix (the issue's attack, replayed) and asserts the right behaviour now."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import Player, create, join, running, wait_until
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from liars_dice.server import Settings


def post_raw(client: TestClient, path: str, body: bytes | Any, **headers: str) -> Any:
    return client.post(path, content=body, headers={"content-type": "application/json", **headers})


# -- fault 1: one request broke the lobby -------------------------------------------


def test_fault1_lone_surrogate_is_refused_before_anything_is_stored(client: TestClient) -> None:
    body = b'{"nickname": "ann", "options": {"face_names": [[2, "\\ud800", "c"]]}}'
    r = post_raw(client, "/api/tables", body)
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "table/invalid" and "surrogate" in err["message"] and err["message"].endswith(".")
    lobby = client.get("/api/tables")
    assert lobby.status_code == 200 and lobby.json()["tables"] == []
    # The same for a nickname, on create and on join.
    r = post_raw(client, "/api/tables", b'{"nickname": "a\\udc00n"}')
    assert r.status_code == 400 and r.json()["error"]["code"] == "name/invalid"
    t = create(client, "ann")
    r = post_raw(client, f"/api/tables/{t['code']}/join", b'{"nickname": "\\ud83d"}')
    assert r.status_code == 400 and r.json()["error"]["code"] == "name/invalid"
    assert client.get("/api/tables").status_code == 200


def test_fault1_one_broken_table_never_breaks_the_lobby(client: TestClient) -> None:
    good = create(client, "ann")
    bad = create(client, "bob")
    # A table that cannot be encoded (as one stored before the fix could be).
    import dataclasses

    room = client.app.state.service.rooms[bad["code"]]  # type: ignore[attr-defined]
    room.table = dataclasses.replace(room.table, rules_dict={**room.table.rules_dict, "face_names": [[2, "\ud800", "c"]]})
    r = client.get("/api/tables")
    assert r.status_code == 200
    assert [t["code"] for t in r.json()["tables"]] == [good["code"]]


# -- fault 2: no bound on sizes -------------------------------------------------------


def test_fault2_a_huge_body_is_refused_before_it_is_read(client: TestClient) -> None:
    names = [[f, "x" * 100_000, "y" * 100_000] for f in range(1, 7)]
    r = client.post("/api/tables", json={"nickname": "ann", "options": {"face_names": names}})
    assert r.status_code == 413 and r.json()["error"]["code"] == "request/too_large"

    def stream() -> Any:  # no Content-Length: counted while streaming
        for _ in range(200):
            yield b" " * 65536

    r = client.post("/api/tables", content=stream(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "request/too_large"
    assert client.get("/api/tables").json()["tables"] == []


def test_fault2_every_rule_option_string_is_bounded(client: TestClient) -> None:
    for options in (
        {"face_names": [[2, "d" * 41, "deuces"]]},
        {"face_names": [[f, "a", "b"] for f in range(1, 30)]},
        {"face_names": [[2, "deuce\u202e", "deuces"]]},
        {"ordering": "\u200b"},
    ):
        r = client.post("/api/tables", json={"nickname": "ann", "options": options})
        assert r.status_code == 400, (options, r.text)
        assert r.json()["error"]["code"] == "table/invalid", r.text
    assert client.get("/api/tables").json()["tables"] == []


def test_fault2_a_rules_file_obeys_the_same_text_rules_as_options(client: TestClient) -> None:
    """A pasted rules file (issue 9) is one more way in for face names: the same checks apply."""
    for text in (
        '{"preset": "classic", "face_names": [[2, "deuce\u202e", "deuces"]]}',
        '{"preset": "classic", "face_names": [[2, "' + "d" * 41 + '", "deuces"]]}',
        'preset = "classic"\nface_names = [[2, "\u200b", "deuces"]]\n',
    ):
        r = client.post("/api/tables", json={"nickname": "ann", "rules_text": text})
        assert r.status_code == 400, (text, r.text)
        assert r.json()["error"]["code"] == "table/invalid", r.text
    assert client.get("/api/tables").json()["tables"] == []
    r = client.post("/api/tables", json={"nickname": "ann", "rules_text": 'preset = "perudo"\n'})
    assert r.status_code == 201 and r.json()["table"]["rules"]["calza"] is True, r.text


# -- fault 4: no limits over HTTP -------------------------------------------------------


def test_fault4_creating_tables_is_capped_per_address(client: TestClient) -> None:
    codes = [r.json().get("code") for r in (client.post("/api/tables", json={"nickname": f"p{i}"}) for i in range(12))]
    statuses = [c is not None for c in codes]
    assert statuses[:8] == [True] * 8 and not any(statuses[8:]), codes
    r = client.post("/api/tables", json={"nickname": "p13"})
    assert r.status_code == 429 and r.json()["error"]["code"] == "table/too_many"
    assert len(client.get("/api/tables").json()["tables"]) == 8


def test_fault4_creating_tables_is_rate_limited_per_address(db_url: str) -> None:
    with running(Settings(db_url=db_url, open_tables_per_address=1000)) as client:
        statuses = [client.post("/api/tables", json={"nickname": f"p{i}"}).status_code for i in range(30)]
        assert statuses[:20] == [201] * 20 and set(statuses[20:]) == {429}, statuses


def test_fault4_guessing_codes_is_slowed(client: TestClient) -> None:
    statuses = [client.get(f"/api/tables/ZZZZ{i:02d}").status_code for i in range(30)]
    assert statuses[:20] == [404] * 20 and set(statuses[20:]) == {429}, statuses
    r = client.post("/api/tables/ZZZZ99/join", json={"nickname": "eve"})
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate/limited"


def test_fault4_joining_is_rate_limited(client: TestClient) -> None:
    t = create(client, "ann", seats=2)
    statuses = [client.post(f"/api/tables/{t['code']}/join", json={"nickname": f"n{i}"}).status_code for i in range(40)]
    assert statuses[0] == 200 and 429 in statuses and set(statuses) <= {200, 409, 429}


def test_fault4_sqlite_wal_is_truncated(tmp_path: Path) -> None:
    db = tmp_path / "wal.db"
    settings = Settings(db_url=f"sqlite:///{db}", bot_delay=0.0, wal_bytes=64 * 1024, create_rate="1000/minute",
                        open_tables_per_address=1000)
    with running(settings) as client:
        # A reader holding a snapshot keeps PASSIVE checkpoints from resetting the WAL.
        reader = sqlite3.connect(db)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM events").fetchall()
        for i in range(150):
            create(client, f"p{i}")
        wal = Path(str(db) + "-wal")
        assert wal.stat().st_size > 64 * 1024
        reader.rollback()
        reader.close()
        wait_until(lambda: wal.stat().st_size <= 64 * 1024, timeout=15)


# -- fault 7: deep JSON ------------------------------------------------------------------


def test_fault7_deep_json_gets_one_error_and_no_traceback(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    t = create(client, "ann")
    ann = Player(client, t["code"], t["token"])
    ann.send_raw("[" * 2000)
    err = ann.wait(lambda m: m["type"] == "error")
    assert err["code"] == "message/too_deep" and err["message"].endswith(".")
    ann.send({"type": "ping", "id": 1})
    assert ann.wait(lambda m: m["type"] in ("pong", "error"))["type"] == "pong"
    r = post_raw(client, "/api/tables", b"[" * 2000)
    assert r.status_code == 400 and r.json()["error"]["code"] == "message/too_deep"
    r = post_raw(client, "/api/tables", b'{"nickname": "ann", "options": {"a": ' + b"[" * 50 + b"]" * 50 + b"}}")
    assert r.status_code == 400 and r.json()["error"]["code"] == "message/too_deep"
    assert not [rec for rec in caplog.records if rec.exc_info], caplog.text


# -- fault 8: chat per connection, invisible text, look-alike names -----------------------


def test_fault8_chat_is_limited_per_seat_not_per_connection(client: TestClient) -> None:
    t = create(client, "ann")
    tabs: list[Player] = []
    refused = 0
    for _ in range(20):
        p = Player(client, t["code"], t["token"])
        if p.welcome["type"] == "error":
            assert p.welcome["code"] == "socket/too_many"
            refused += 1
            p.close()
        else:
            tabs.append(p)
    assert len(tabs) == 4 and refused == 16
    for i in range(10):
        for p in tabs:
            p.send({"type": "chat", "text": f"spam {i}", "id": i})
    answers = [p.wait(lambda m: m["type"] in ("ack", "error")) for p in tabs for _ in range(10)]
    assert sum(a["type"] == "ack" for a in answers) == 5
    assert {a["code"] for a in answers if a["type"] == "error"} == {"rate/limited"}
    room = client.app.state.service.rooms[t["code"]]  # type: ignore[attr-defined]
    assert len(room.table.chat) == 5


@pytest.mark.parametrize("text", ["\u200b", "a\u202egood", "\u2066x\u2069", "x\x00", "\ufeff"])
def test_fault8_invisible_and_bidi_chat_is_refused(client: TestClient, text: str) -> None:
    t = create(client, "ann")
    ann = Player(client, t["code"], t["token"])
    ann.send({"type": "chat", "text": text, "id": 1})
    err = ann.wait(lambda m: m["type"] in ("ack", "error"))
    assert err["type"] == "error" and err["code"] == "chat/invalid" and err["message"].endswith(".")


def test_fault8_look_alike_names_cannot_share_a_table(client: TestClient) -> None:
    t = create(client, "José", seats=4)
    for alike in ("Jose\u0301", "J\u043es\u00e9", "JOSÉ"):
        r = client.post(f"/api/tables/{t['code']}/join", json={"nickname": alike})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name/taken", (alike, r.text)
    assert join(client, t["code"], "Josefa")["seat"] == 1
    # The stored name is NFC.
    u = create(client, "Rene\u0301")
    assert u["table"]["seats"][0]["name"] == "Ren\u00e9"


# -- fault 9: browser hardening -------------------------------------------------------------


def test_fault9_websockets_from_another_origin_are_refused(client: TestClient) -> None:
    t = create(client, "ann")
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(f"/ws/tables/{t['code']}", headers={"origin": "https://evil.example"}) as ws:
            ws.receive_text()
    with client.websocket_connect(f"/ws/tables/{t['code']}", headers={"origin": "http://testserver"}) as ws:
        ws.send_text(json.dumps({"type": "hello"}))
        assert json.loads(ws.receive_text())["type"] == "welcome"


def test_fault9_allowed_origins_are_configurable(db_url: str) -> None:
    with running(Settings(db_url=db_url, allowed_origins=("https://friends.example",))) as client:
        t = create(client, "ann")
        with client.websocket_connect(f"/ws/tables/{t['code']}", headers={"origin": "https://friends.example"}) as ws:
            ws.send_text(json.dumps({"type": "hello"}))
            assert json.loads(ws.receive_text())["type"] == "welcome"
        with pytest.raises(WebSocketDisconnect):
            with client.websocket_connect(f"/ws/tables/{t['code']}", headers={"origin": "http://testserver"}) as ws:
                ws.receive_text()


def test_fault9_pages_carry_csp_and_frame_protection(client: TestClient) -> None:
    for path in ("/", "/static/js/app.js", "/api/tables"):
        r = client.get(path)
        assert r.status_code == 200
        csp = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
    # The page has no inline script, style or handler for the CSP to block.
    html = client.get("/").text
    assert "<style" not in html and " style=" not in html and " onclick=" not in html
    assert all("src=" in tag for tag in html.split("<script")[1:])


# -- fault 10: rule-breaking create requests ------------------------------------------------


@pytest.mark.parametrize("body", [{"seats": 1}, {"seats": 7}, {"turn_timer": 3}, {"turn_timer": 601}])
def test_fault10_rule_breaking_create_is_table_invalid(client: TestClient, body: dict[str, Any]) -> None:
    r = client.post("/api/tables", json={"nickname": "ann", **body})
    assert r.status_code == 400
    err = r.json()["error"]
    assert err["code"] == "table/invalid" and err["message"].endswith("."), err


def test_config_serves_every_limit(db_url: str) -> None:
    s = Settings(db_url=db_url, create_rate="7/minute", sockets_per_seat=3, json_depth=6)
    with running(s) as client:
        limits = client.get("/api/config").json()["limits"]
    for name in ("body_bytes", "json_depth", "create_rate", "miss_rate", "chat_rate_seat", "open_tables_per_address",
                 "sockets_per_address", "visitors_per_table", "sockets_per_seat", "wal_bytes", "max_message_bytes"):
        assert limits[name] == getattr(s, name), name
    assert limits == {**limits, **s.limits()}
    assert limits["create_rate"] == "7/minute"

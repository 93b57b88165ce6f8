"""HTTP API against the real app (Starlette TestClient, real SQLite file)."""

from __future__ import annotations

from helpers import Player, create, is_state, join
from starlette.testclient import TestClient

from liars_dice.records import replay


def test_config_lists_presets_options_and_registered_bots(client: TestClient) -> None:
    cfg = client.get("/api/config").json()
    assert {"wild-stars", "aces-wild", "classic"} <= set(cfg["presets"])
    assert cfg["presets"]["wild-stars"]["show_and_reroll"] is True
    from liars_dice.bots import REGISTRY

    assert cfg["bots"] == sorted(REGISTRY)
    assert cfg["seats"] == {"min": 2, "max": 6}


def test_create_gives_code_share_link_and_a_256_bit_token(client: TestClient) -> None:
    t = create(client, "ann", preset="wild-stars", seats=5, turn_timer=30, options={"dice_per_player": 4})
    assert len(t["code"]) == 6 and t["share_url"].endswith(f"/#/table/{t['code']}")
    assert len(t["token"]) >= 43  # token_urlsafe(32): 256 bits
    table = t["table"]
    assert table["n_seats"] == 5 and table["turn_timer"] == 30 and table["rules"]["dice_per_player"] == 4
    assert table["seats"][0]["name"] == "ann" and table["host"] == 0
    assert client.get(f"/api/tables/{t['code'].lower()}").json()["code"] == t["code"]


def test_bad_create_requests_are_refused_with_one_sentence(client: TestClient) -> None:
    cases = [
        ({"nickname": "ann", "seats": 7}, "table/invalid"),
        ({"nickname": "ann", "seats": 1}, "table/invalid"),
        ({"nickname": "ann", "preset": "poker"}, "table/invalid"),
        ({"nickname": "ann", "preset": "joker", "seats": 3}, "table/invalid"),
        ({"nickname": "ann", "options": {"faces": "six"}}, "table/invalid"),
        ({"nickname": "ann", "options": {"dice_per_player": 500}}, "table/invalid"),
        ({"nickname": "ann", "turn_timer": 1}, "table/invalid"),
        ({"nickname": "   "}, "name/invalid"),
        ({"nickname": "x" * 25}, "name/invalid"),
        ({"nickname": "ann", "extra": 1}, "message/invalid"),
    ]
    for body, code in cases:
        r = client.post("/api/tables", json=body)
        assert r.status_code in (400, 409, 422), (body, r.text)
        err = r.json()["error"]
        assert err["code"] == code, (body, err)
        assert err["message"].endswith("."), err
    assert client.get("/api/tables").json()["tables"] == []


def test_lobby_lists_open_public_tables_only(client: TestClient) -> None:
    pub = create(client, "ann")
    priv = create(client, "bob", private=True)
    codes = [t["code"] for t in client.get("/api/tables").json()["tables"]]
    assert pub["code"] in codes and priv["code"] not in codes
    # A private table is still reached by its code.
    assert join(client, priv["code"], "cy")["seat"] == 1


def test_join_rules(client: TestClient) -> None:
    t = create(client, "ann", seats=2)
    code = t["code"]
    r = client.post(f"/api/tables/{code}/join", json={"nickname": "ann"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "name/taken"
    assert join(client, code, "bob")["seat"] == 1
    r = client.post(f"/api/tables/{code}/join", json={"nickname": "cy"})
    assert r.json()["error"]["code"] == "table/full"
    r = client.post("/api/tables/ZZZZZZ/join", json={"nickname": "cy"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "table/not_found"
    assert code not in [x["code"] for x in client.get("/api/tables").json()["tables"]]  # full: not listed


def test_finished_game_record_replay_and_player_listing(client: TestClient) -> None:
    t = create(client, "ann", seats=3, options={"dice_per_player": 2})
    code = t["code"]
    assert client.get(f"/api/tables/{code}/record").json()["error"]["code"] == "game/not_finished"
    ann = Player(client, code, t["token"])
    ann.send({"type": "add_bot", "bot": "random"})
    ann.send({"type": "add_bot", "bot": "random"})
    ann.send({"type": "leave", "id": "x"})  # the host leaves before the start: the table closes
    assert ann.wait(lambda m: m.get("id") == "x")["type"] == "ack"
    assert client.get(f"/api/tables/{code}").json()["status"] == "closed"
    ann.close()

    t = create(client, "ann", seats=2, options={"dice_per_player": 2})
    code = t["code"]
    ann = Player(client, code, t["token"])
    ann.send({"type": "add_bot", "bot": "random"})
    ann.send({"type": "start", "id": "s"})
    assert ann.wait(lambda m: m.get("id") == "s")["type"] == "ack"
    ann.send({"type": "leave", "id": "l"})  # a bot takes over and plays to the end
    ann.wait(lambda m: is_state(m) and m["view"]["phase"] == "over")
    ann.close()
    r = client.get(f"/api/tables/{code}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    rec = r.json()
    result = replay(rec)
    assert result.ok and result.result()["winner"] in rec["players"] and len(rec["players"]) == 2
    rp = client.get(f"/api/tables/{code}/replay").json()
    assert rp["steps"][0]["move"] is None and rp["winner"] == result.result()["winner"]
    assert rp["rules"]["dice_per_player"] == 2  # custom options survive into the replay
    assert sum(1 for s in rp["steps"] if s["move"] is not None) == sum(len(r["moves"]) for r in rec["rounds"])
    games = client.get("/api/players/ann/games").json()["games"]
    assert [g["code"] for g in games] == [code]  # the closed table is not a game played
    mine = client.post("/api/my-games", json={"tokens": [t["token"]]}).json()["games"]
    assert mine[0]["code"] == code and mine[0]["status"] == "finished"


def test_config_serves_the_limits_of_the_settings_and_create_keeps_them(db_url: str) -> None:
    """Issue 7: every limit lives in Settings and /api/config serves it (it
    used to hard-code numbers the settings could change)."""
    from helpers import running

    from liars_dice.server import Settings

    s = Settings(db_url=db_url, chat_max=120, seats_max=4, turn_timer_min=10, max_message_bytes=2048, grace=30.0)
    with running(s) as client:
        cfg = client.get("/api/config").json()
        assert cfg["seats"] == {"min": 2, "max": 4}
        assert cfg["turn_timer"]["min"] == 10
        assert cfg["limits"]["chat_max"] == 120 and cfg["limits"]["message_max_bytes"] == 2048
        assert cfg["limits"]["grace"] == 30.0
        for body in ({"nickname": "ann", "seats": 5}, {"nickname": "ann", "turn_timer": 5}):
            err = client.post("/api/tables", json=body).json()["error"]
            assert err["code"] == "table/invalid" and err["message"].endswith("."), err


def test_one_error_tree_with_documented_codes() -> None:
    """Every server error is a LiarsDiceError with its own stable code, and
    docs/server-protocol.md lists every code."""
    from pathlib import Path

    from liars_dice.engine import LiarsDiceError
    from liars_dice.server.core import errors

    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.ServerError)
               and c is not errors.ServerError]
    codes = [c.code for c in classes]
    assert len(codes) == len(set(codes)) and all(issubclass(c, LiarsDiceError) for c in classes)
    doc = (Path(__file__).parents[2] / "docs" / "server-protocol.md").read_text()
    missing = [c for c in codes + ["message/too_large"] if f"`{c}`" not in doc]
    assert not missing, missing

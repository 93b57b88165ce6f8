"""Attack review of issue 7 (branch `attack`): what the fixed list did not
name, each found against a running `liars-dice serve` and reproduced here."""

from __future__ import annotations

import json

import pytest
from helpers import create
from starlette.testclient import TestClient


@pytest.mark.parametrize("raw", ["%E2%80%AEABC", "AB%E2%80%8BC", "%00", "ABC%ED%A0%80", "nope00", "AAAAAAA"])
def test_a_code_that_cannot_exist_is_never_repeated_back(client: TestClient, raw: str) -> None:
    """GET /api/tables/%E2%80%AEabc answered "There is no table with code ‮ABC.":
    the client's text, bidi override included, went back into a message the
    page shows. Codes outside the alphabet name no table: one fixed sentence."""
    for r in (
        client.get(f"/api/tables/{raw}"),
        client.get(f"/api/tables/{raw}/record"),
        client.post(f"/api/tables/{raw}/join", json={"nickname": "eve"}),
    ):
        assert r.status_code == 404, r.text
        assert r.json()["error"] == {"code": "table/not_found", "message": "There is no table with that code."}
    with client.websocket_connect(f"/ws/tables/{raw}") as ws:
        assert json.loads(ws.receive_text())["message"] == "There is no table with that code."


def test_share_link_redirects_only_to_a_code(client: TestClient) -> None:
    t = create(client, "ann")
    r = client.get(f"/t/{t['code'].lower()}", follow_redirects=False)
    assert r.headers["location"] == f"/#/table/{t['code']}"
    r = client.get("/t/%E2%80%AE%0d%0aX", follow_redirects=False)
    assert r.headers["location"] == "/#/"


def test_a_revoked_token_lists_nothing_in_my_games(client: TestClient) -> None:
    """After `leave`, POST /api/my-games with the old token still answered the
    table with its seat and name: the token outlived its seat (docs
    "Identities": after that it never again gets anything of the seat)."""
    from helpers import Player, join

    t = create(client, "ann", seats=3)
    b = join(client, t["code"], "bob")
    ann = Player(client, t["code"], t["token"])
    bob = Player(client, t["code"], b["token"])
    assert [g["seat"] for g in client.post("/api/my-games", json={"tokens": [b["token"]]}).json()["games"]] == [1]
    bob.send({"type": "leave", "id": 1})
    bob.wait(lambda m: m["type"] == "ack")
    assert client.post("/api/my-games", json={"tokens": [b["token"]]}).json()["games"] == []
    assert len(client.post("/api/my-games", json={"tokens": [t["token"], b["token"]]}).json()["games"]) == 1
    ann.close()
    bob.close()

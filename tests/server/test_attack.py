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

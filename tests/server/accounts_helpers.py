"""Helpers for the accounts tests: sign up and sign in through the real routes."""

from __future__ import annotations

import json
from typing import Any

from starlette.testclient import TestClient

PASSWORD = "correct horse battery staple"


def sign_up(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, Any]:
    r = client.post("/api/account/sign-up", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    return r.json()


def sign_in(client: TestClient, name: str, password: str = PASSWORD) -> dict[str, Any]:
    r = client.post("/api/account/sign-in", json={"name": name, "password": password})
    assert r.status_code == 200, r.text
    return r.json()


def csrf(session: dict[str, Any]) -> dict[str, str]:
    return {"X-CSRF-Token": session["csrf"]}


def hello_account(client: TestClient, code: str) -> tuple[Any, Any, dict[str, Any]]:
    """A websocket at ``code`` saying ``{"type": "hello", "account": true}`` with the
    client's session cookie: ``(context manager, socket, welcome or error)``."""
    cm = client.websocket_connect(f"/ws/tables/{code}")
    ws = cm.__enter__()
    ws.send_text(json.dumps({"type": "hello", "account": True}))
    return cm, ws, json.loads(ws.receive_text())

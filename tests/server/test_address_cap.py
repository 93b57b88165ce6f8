"""The per-address socket cap holds over real sockets with no proxy configured
(issue 16, fault 2: "opened 100 sockets on one table, past the per-address cap
of 64", by forging ``X-Forwarded-For``).

Stop 23's outside attack reported the cap "not enforced without
``--trusted-proxy``"; repeated by hand, the cap held. This counts it: a real
uvicorn server at ``sockets_per_address=5`` and no trusted proxy, sockets from
one loopback address (127.0.12.1) each carrying a new forged
``X-Forwarded-For``. The sixth and later are refused with ``socket/too_many``
and close code 4429, while another address (127.0.12.2) still gets in, and
closing a socket gives its place back.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from live import live_server
from sockets import close_code, hello, until, ws_from
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection

from liars_dice.server import Settings

CAP = 5


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    settings = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", grace=600.0, sockets_per_address=CAP)
    assert settings.trusted_proxies == ()
    with live_server(settings) as u:
        yield u


def _ws(url: str, code: str, source: str, forged: str) -> ClientConnection:
    return ws_from(url, code, source, {"X-Forwarded-For": forged, "X-Real-IP": forged, "Forwarded": f"for={forged}"})


def _answer(ws: ClientConnection) -> dict[str, object]:
    """The welcome, or the refusal: a socket over the cap is refused as soon as
    it is accepted, before its ``hello`` (which may then find it closed)."""
    try:
        return hello(ws, None)
    except ConnectionClosed:
        return until(ws, lambda m: m["type"] in ("welcome", "error"))


def test_forged_proxy_headers_do_not_lift_the_per_address_socket_cap(url: str) -> None:
    code = httpx.post(f"{url}/api/tables", json={"nickname": "ann", "preset": "classic"}).json()["code"]
    held: list[ClientConnection] = []
    answers: list[str] = []
    codes: list[int | None] = []
    try:
        for i in range(CAP + 3):
            ws = _ws(url, code, "127.0.12.1", f"198.51.100.{i + 1}")
            answer = _answer(ws)
            answers.append(str(answer["type"] if answer["type"] == "welcome" else answer["code"]))
            if answer["type"] == "welcome":
                held.append(ws)
            else:
                assert str(answer["message"]).endswith("."), answer
                codes.append(close_code(ws))
                ws.close()
        assert answers == ["welcome"] * CAP + ["socket/too_many"] * 3, answers
        assert codes == [4429] * 3, codes
        # another address is its own bucket
        other = _ws(url, code, "127.0.12.2", "198.51.100.200")
        assert _answer(other)["type"] == "welcome"
        held.append(other)
        # a closed socket gives its place back (the server counts the close)
        held.pop(0).close()
        for _ in range(50):
            again = _ws(url, code, "127.0.12.1", "198.51.100.99")
            answer = _answer(again)
            if answer["type"] == "welcome":
                held.append(again)
                break
            again.close()
        else:
            pytest.fail("a closed socket's place never came back: " + json.dumps(answer))
    finally:
        for ws in held:
            ws.close()

"""Helpers for the server tests: a websocket client that keeps every message."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from starlette.testclient import TestClient


OPEN: list["Player"] = []


def close_all() -> None:
    """Close every player still open (fixtures call this before the app stops)."""
    while OPEN:
        OPEN[-1].close()


class Player:
    """One websocket client over Starlette's TestClient, recording everything it receives."""

    def __init__(self, client: TestClient, code: str, token: str | None) -> None:
        self.cm = client.websocket_connect(f"/ws/tables/{code}")
        self.ws = self.cm.__enter__()
        OPEN.append(self)
        self.received: list[dict[str, Any]] = []
        self.inbox: list[dict[str, Any]] = []  # received, not yet taken by wait()
        self.token = token
        self.send({"type": "hello", "token": token})
        self.welcome = self.wait(lambda m: m["type"] == "welcome" or m["type"] == "error")

    def send(self, msg: dict[str, Any]) -> None:
        self.ws.send_text(json.dumps(msg))

    def send_raw(self, text: str) -> None:
        self.ws.send_text(text)

    def recv(self) -> dict[str, Any]:
        m = json.loads(self.ws.receive_text())
        self.received.append(m)
        self.inbox.append(m)
        return m

    def wait(self, pred: Callable[[dict[str, Any]], bool], limit: int = 5000) -> dict[str, Any]:
        """The first message not yet taken that matches ``pred``, receiving more as
        needed (the TestClient blocks on receive). Messages passed over stay
        for later waits."""
        for i, m in enumerate(self.inbox):
            if pred(m):
                del self.inbox[i]
                return m
        for _ in range(limit):
            m = self.recv()
            if pred(m):
                self.inbox.pop()
                return m
        raise AssertionError("no matching message")

    def last_state(self) -> dict[str, Any] | None:
        for m in reversed(self.received):
            if m["type"] == "state":
                return m
        return None

    def close(self) -> None:
        if self in OPEN:
            OPEN.remove(self)
            self.cm.__exit__(None, None, None)


def is_state(m: dict[str, Any]) -> bool:
    return m["type"] == "state"


def create(client: TestClient, nickname: str = "ann", **kw: Any) -> dict[str, Any]:
    body = {"nickname": nickname, "preset": "classic", "seats": 3, **kw}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def join(client: TestClient, code: str, nickname: str) -> dict[str, Any]:
    r = client.post(f"/api/tables/{code}/join", json={"nickname": nickname})
    assert r.status_code == 200, r.text
    return r.json()


def wait_until(pred: Callable[[], bool], timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.01)
    raise AssertionError("condition not met in time")


@contextmanager
def running(settings: Any, clock: Any = None) -> Iterator[TestClient]:
    """The real app under the TestClient; every player is closed before it
    stops. ``clock``: a :class:`~liars_dice.server.runtime.clock.ManualClock`
    for the app's timers and heartbeat (the test moves time), or ``None``."""
    from liars_dice.server import create_app

    with TestClient(create_app(settings, clock)) as c:
        try:
            yield c
        finally:
            close_all()


def run_in_thread(coro: Any) -> Any:
    """``asyncio.run(coro)`` on a thread of its own: the Playwright tests leave
    their sync API's event loop running in the main thread of an xdist worker,
    where ``asyncio.run`` refuses to start ("cannot be called from a running
    event loop")."""
    import asyncio
    import threading

    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = asyncio.run(coro)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller
            out["error"] = e

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["value"]

"""A worker's death loses nothing (issue 16): ``liars-dice serve --workers 2``
on PostgreSQL and Redis; the worker that owns a table is SIGKILLed mid-round.
Within the lease's length another worker takes the table over from its
events, the stand-in bot and the turn resume, the person whose socket died
reconnects to the live worker, and the game finishes: every acknowledged move
is in the record, none twice (the record replays), the events are numbered
without a gap.
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from liars_dice.records import replay
from liars_dice.server.core.errors import RateLimited
from liars_dice.server.core.config import normalize_db_url

from .conftest import POSTGRES_URL, REDIS_URL, reset_postgres, reset_redis
from _cluster import serve_workers  # benchmarks/_cluster.py (tests/conftest.py puts benchmarks/ on the path)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.skipif(not (POSTGRES_URL and REDIS_URL), reason="LIARS_DICE_TEST_POSTGRES_URL or LIARS_DICE_TEST_REDIS_URL is not set"),
]


class Person:
    """A person's browser, seen from the protocol: one websocket, reconnecting
    to the next worker when it drops (as the page does)."""

    def __init__(self, urls: list[str], code: str, token: str, at: int) -> None:
        self.urls, self.code, self.token, self.at = urls, code, token, at  # at: the URL used now
        self.ws: Any = None
        self.state: dict[str, Any] | None = None
        self.name = ""
        self.sent: int | None = None  # the move number of the move awaiting its reply
        self.acked: list[int] = []
        self.reconnects = 0
        self.refused = ""  # the last refusal's sentence (for a failure's message)
        self.quiet_until = 0.0  # no move before (monotonic): after a refusal, as a page waits for a click
        self.connect()

    def connect(self) -> None:
        from websockets.sync.client import connect

        url = self.urls[self.at % len(self.urls)].replace("http://", "ws://") + f"/ws/tables/{self.code}"
        self.ws = connect(url, open_timeout=3)
        self.ws.send(json.dumps({"type": "hello", "token": self.token}))
        self.sent = None

    def poll(self) -> list[dict[str, Any]]:
        out = []
        try:
            while True:
                m = json.loads(self.ws.recv(timeout=0.02))
                out.append(m)
                if m["type"] == "welcome":
                    self.name = m["name"]
                if m["type"] == "state":
                    self.state = m
                if m["type"] in ("ack", "error") and m.get("id") is not None and m.get("id") == self.sent:
                    if m["type"] == "ack":
                        self.acked.append(m["id"])
                    else:  # refused (a worker changing hands, the reveal): look again a little later
                        self.refused = m.get("message", "")
                        self.quiet_until = time.monotonic() + 0.3
                    self.sent = None
                elif m["type"] == "error" and m.get("id") is None and m.get("code") == RateLimited.code:
                    # A frame refused by the rate is not read, so its refusal has no id: the
                    # move it carried is lost, and waiting for its reply would wait for ever
                    # (the stall of one run in four before this was found).
                    self.refused = m.get("message", "")
                    self.quiet_until = time.monotonic() + 2.0
                    self.sent = None
        except TimeoutError:
            return out
        except Exception:  # noqa: BLE001 - the worker died: the page reconnects to another one
            self.reconnects += 1
            self.at += 1
            while True:
                try:
                    self.connect()
                    return out
                except Exception:  # noqa: BLE001
                    time.sleep(0.2)
                    self.at += 1

    def play(self, rng: random.Random) -> None:
        if self.state is None or self.sent is not None or time.monotonic() < self.quiet_until:
            return
        view = self.state["view"]
        if view["phase"] == "over" or view["to_move"] != self.name or not view.get("legal"):
            return
        if (view.get("reveal_until") or 0) > time.time():  # the page waits for the reveal, so does a person
            return
        mn = view["move_number"]
        legal = view["legal"]
        if legal["challenge"] and (rng.random() < 0.3 or not legal["raises"]):
            self.ws.send(json.dumps({"type": "challenge", "id": mn}))
        else:
            bid = rng.choice(legal["raises"][:3])
            self.ws.send(json.dumps({"type": "bid", "quantity": bid["quantity"], "face": bid["face"], "id": mn}))
        self.sent = mn


@contextmanager
def workers(n: int, tmp_path: Path) -> Iterator[list[str]]:
    """``liars-dice serve --workers n`` on fresh PostgreSQL and Redis; yields the workers' URLs."""
    assert POSTGRES_URL is not None and REDIS_URL is not None
    reset_postgres(POSTGRES_URL)
    reset_redis(REDIS_URL)
    # as deploy/systemd runs them behind the nginx front (its X-Forwarded-For believed)
    options = ["--grace", "600", "--bot-delay", "0.05", "--trusted-proxy", "127.0.0.2", "--route", "w"]
    with serve_workers(n, POSTGRES_URL, REDIS_URL, options, tmp_path / "out.txt", seconds=60) as w:
        yield w.urls


def play_killing_the_owner(create_url: str, join_url: str, ws_urls: list[list[str]], tmp_path: Path) -> float:
    """A game of ann, bob and a bot, created at ``create_url``, bob joining at
    ``join_url``; their sockets go to ``ws_urls[0]`` and ``ws_urls[1]`` (the
    next URL on a reconnect). After 4 moves, the table's owner is SIGKILLed.
    Checks the game finishes with nothing lost or applied twice; returns the
    failover time (seconds from the kill until moves go on)."""
    assert POSTGRES_URL is not None
    t = httpx.post(create_url + "/api/tables", json={"nickname": "ann", "preset": "classic", "seats": 3}).json()
    code = t["code"]
    j = httpx.post(join_url + f"/api/tables/{code}/join", json={"nickname": "bob"}).json()
    ann, bob = Person(ws_urls[0], code, t["token"], 0), Person(ws_urls[1], code, j["token"], 0)
    for m in ({"type": "add_bot", "bot": "probabilistic", "id": "b"}, {"type": "start", "id": "s"}):
        ann.ws.send(json.dumps(m))
        while not any(x.get("id") == m["id"] for x in ann.poll()):
            pass
    engine = create_engine(normalize_db_url(POSTGRES_URL))
    rng = random.Random(3)
    killed_at: float | None = None
    failover: float | None = None
    moved_at_kill = 0
    end = time.monotonic() + 240
    while time.monotonic() < end:
        for p in (ann, bob):
            p.poll()
            p.play(rng)
        st = ann.state or bob.state
        if st is None:
            continue
        mn = max((p.state or st)["view"]["move_number"] for p in (ann, bob))
        if killed_at is None and mn >= 4 and st["view"]["phase"] != "over":
            with engine.connect() as conn:
                owner = conn.execute(text("SELECT owner FROM table_leases")).scalar_one()
            os.kill(int(owner.split("-")[-2]), signal.SIGKILL)  # the worker id is host-pid-random
            killed_at, moved_at_kill = time.monotonic(), mn
        if killed_at is not None and failover is None and mn > moved_at_kill + 1:
            failover = time.monotonic() - killed_at
        if all(p.state is not None and p.state["view"]["phase"] == "over" for p in (ann, bob)):
            break
    else:
        views = [(p.name, p.at, p.sent, p.reconnects, p.refused, p.state and {k: p.state["view"].get(k) for k in ("phase", "move_number", "to_move")})
                 for p in (ann, bob)]
        raise AssertionError(f"the game did not finish: {views}\n" + (tmp_path / "out.txt").read_text()[-3000:])
    assert killed_at is not None and failover is not None
    with engine.connect() as conn:
        seqs = [r[0] for r in conn.execute(text("SELECT seq FROM events ORDER BY seq"))]
    engine.dispose()
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "the events are numbered without a gap"
    rec = httpx.get(join_url + f"/api/tables/{code}/record").json()
    assert replay(rec).ok, "nothing applied twice: the record replays"
    played = {n: 0 for n in ("ann", "bob")}
    for rnd in rec["rounds"]:
        for m in rnd["moves"]:
            if m["player"] in played and not m.get("by_bot"):
                played[m["player"]] += 1
    assert played["ann"] >= len(ann.acked) and played["bob"] >= len(bob.acked), "an acknowledged move was lost"
    assert ann.reconnects + bob.reconnects >= 1, "a socket of the killed worker reconnected"
    return failover


def test_sigkill_the_owner_mid_round_loses_nothing(tmp_path: Path) -> None:
    with workers(2, tmp_path) as urls:
        failover = play_killing_the_owner(urls[0], urls[1], [urls, urls[1:] + urls[:1]], tmp_path)
    print(f"failover: {failover:.2f} s (moves resumed after the SIGKILL)")


def test_tables_taken_over_still_count_under_their_addresss_cap(tmp_path: Path) -> None:
    """Stop 32's note: the address that made a table lived in its worker's
    memory only, so the worker that took a table over from a dead one counted
    it under no address, and the address could make its cap of tables again.
    It is stored with the table (``tables.creator``, migration 0005) and read
    back by the takeover."""
    assert POSTGRES_URL is not None and REDIS_URL is not None
    reset_postgres(POSTGRES_URL)
    reset_redis(REDIS_URL)
    options = ["--grace", "600", "--limit", "open_tables_per_address=2", "--limit", "create_rate=1000/minute"]

    def create(url: str) -> int:
        with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.3"), timeout=20) as c:
            return c.post(url + "/api/tables", json={"nickname": "ann", "seats": 2}).status_code

    with serve_workers(2, POSTGRES_URL, REDIS_URL, options, tmp_path / "out.txt", seconds=60) as w:
        first, second = w.urls
        assert [create(first), create(first)] == [201, 201]
        engine = create_engine(normalize_db_url(POSTGRES_URL))
        try:
            with engine.connect() as conn:
                owners = set(conn.execute(text("SELECT owner FROM table_leases")).scalars())
                assert set(conn.execute(text("SELECT creator FROM tables")).scalars()) == {"127.0.0.3"}
            assert len(owners) == 1
            dead = owners.pop()
            os.kill(int(dead.split("-")[-2]), signal.SIGKILL)
            # the lease (6 s) lapses, the other worker takes both tables over, and
            # the dead worker's shared counts stop counting (within a lease too)
            deadline = time.monotonic() + 40
            while True:
                with engine.connect() as conn:
                    now = set(conn.execute(text("SELECT owner FROM table_leases")).scalars())
                if now and dead not in now:
                    break
                assert time.monotonic() < deadline, (tmp_path / "out.txt").read_text()[-3000:]
                time.sleep(0.2)
        finally:
            engine.dispose()
        time.sleep(15)  # past the dead worker's counts in Redis
        assert create(second) == 429
        assert httpx.post(second + "/api/tables", json={"nickname": "bob", "seats": 2}).status_code == 201  # 127.0.0.1

"""Kill the real server mid-game (SIGKILL), restart it, and finish the game:
every game resumes at the same move with the same dice (issue 4, "Persistence"),
and with the same fair-dice seeds: the round in play keeps its commitment, its
rerolls after the restart come from its seed, and the downloaded record passes
``liars-dice verify`` (issue 7, "Fair dice anyone can check").

Runs ``liars-dice serve`` as a real process on loopback, with real websocket
clients (the ``websockets`` library).
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

import httpx
import pytest
from websockets.sync.client import connect

from liars_dice.records import replay

from .conftest import POSTGRES_URL, reset_postgres
from liars_dice.engine import Rules

from .test_secrecy import play_scripted, truth_by_move


class WsPlayer:
    """A real websocket client with the interface of the TestClient player."""

    def __init__(self, base: str, code: str, token: str | None) -> None:
        self._cm = connect(base.replace("http://", "ws://") + f"ws/tables/{code}", open_timeout=20)
        self.ws = self._cm.__enter__()
        self.received: list[dict[str, Any]] = []
        self.inbox: list[dict[str, Any]] = []
        self.token = token
        self.send({"type": "hello", "token": token})
        self.welcome = self.wait(lambda m: m["type"] in ("welcome", "error"))

    def send(self, msg: dict[str, Any]) -> None:
        self.ws.send(json.dumps(msg))

    def wait(self, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        for i, m in enumerate(self.inbox):
            if pred(m):
                del self.inbox[i]
                return m
        while True:
            m = json.loads(self.ws.recv(timeout=30))
            self.received.append(m)
            if pred(m):
                return m
            self.inbox.append(m)

    def last_state(self) -> dict[str, Any] | None:
        for m in reversed(self.received):
            if m["type"] == "state":
                return m
        return None

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


def start_server(cli: str, db: str, cwd: Path, bot_delay: float = 0.02,
                 extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [cli, "serve", "--port", "0", "--db", db, "--bot-delay", str(bot_delay), "--grace", "600", "--reveal-seconds", "0",
         *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"the server exited: {proc.wait()}")
        m = re.search(r"open (http://\S+/)", line)
        if m:
            return proc, m.group(1)
    raise AssertionError("the server did not print its URL")


def kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)


def run_restart(cli: str, db: str, tmp_path: Path) -> None:
    rng = random.Random(7)
    proc, base = start_server(cli, db, tmp_path)
    try:
        http = httpx.Client(base_url=base, timeout=20)
        page = http.get("/")  # the web UI, served by the server itself
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        t = http.post("/api/tables", json={"nickname": "ann", "preset": "wild-stars", "seats": 3}).json()
        code = t["code"]
        j = http.post(f"/api/tables/{code}/join", json={"nickname": "bob"}).json()
        ann, bob = WsPlayer(base, code, t["token"]), WsPlayer(base, code, j["token"])
        # Not the random bot, and no challenge by the people before the kill: under
        # wild-stars' difference loss, a random bid of 15 stars challenged costs 13
        # dice, and two such rounds ended the game at move 4, before the kill (CI, stop 13).
        ann.send({"type": "add_bot", "bot": "probabilistic", "id": "b"})
        ann.send({"type": "start", "id": "s"})
        ann.wait(lambda m: m.get("id") == "s")
        play_scripted([ann, bob], rng, show_rate=0.3, stop_after=6, challenge_rate=0.0)
        last = ann.last_state()
        assert last is not None and last["view"]["phase"] != "over", "the game ended before the kill"
        mn = last["view"]["move_number"]
        before = {
            p.welcome["name"]: p.wait(lambda m: m["type"] == "state" and m["view"]["move_number"] == mn)["view"]
            if p is bob else last["view"]
            for p in (ann, bob)
        }
        assert before["ann"]["move_number"] == before["bob"]["move_number"] >= 6
        ann.close(), bob.close()
    finally:
        kill(proc)

    proc, base = start_server(cli, db, tmp_path)
    try:
        ann, bob = WsPlayer(base, code, t["token"]), WsPlayer(base, code, j["token"])
        assert ann.welcome["seat"] == 0 and bob.welcome["seat"] == 1
        for p in (ann, bob):
            after = p.wait(lambda m: m["type"] == "state")["view"]
            old = before[p.welcome["name"]]
            for key in ("move_number", "hand", "shown", "dice", "bids", "results", "to_move", "round", "commitment"):
                assert after[key] == old[key], (key, after[key], old[key])
        play_scripted([ann, bob], rng, show_rate=0.3)
        ann.close(), bob.close()
        rec = httpx.get(base + f"api/tables/{code}/record", timeout=20).json()
        result = replay(rec)
        assert result.ok, result.result()
        # The round in play at the kill kept its seed: same commitment, dice and rerolls from it.
        # (The table's bot may end the round between the scripted stop and the kill: then no round
        # was in play, the view holds no commitment, and the next round is dealt after the restart.)
        r_kill = before["ann"]["round"] - 1
        if before["ann"]["commitment"] is not None:
            assert rec["rounds"][r_kill]["commitment"] == before["ann"]["commitment"]
        out = subprocess.run([cli, "verify", "-"], input=json.dumps(rec), capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert f"all {len(rec['rounds'])} rounds check out" in out.stdout
        # The dice held before the kill are the record's dice at that move.
        truth = truth_by_move(rec, Rules.preset("wild-stars"))
        st = truth[before["ann"]["move_number"]]
        for seat, name in enumerate(("ann", "bob")):
            assert list(st.hidden[seat]) == before[name]["hand"]
        games = httpx.get(base + "api/players/bob/games", timeout=20).json()["games"]
        assert code in [g["code"] for g in games]
    finally:
        kill(proc)


@pytest.mark.slow
def test_sigkill_and_restart_resumes_the_game_sqlite(cli: str, tmp_path: Path) -> None:
    run_restart(cli, f"sqlite:///{tmp_path / 'restart.db'}", tmp_path)


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="LIARS_DICE_TEST_POSTGRES_URL is not set")
def test_sigkill_and_restart_resumes_the_game_postgres(cli: str, tmp_path: Path) -> None:
    assert POSTGRES_URL is not None
    reset_postgres(POSTGRES_URL)
    run_restart(cli, POSTGRES_URL, tmp_path)


def test_serve_defaults(cli: str) -> None:
    """``liars-dice serve`` defaults: 127.0.0.1, port 8000, SQLite file liars-dice.db."""
    out = subprocess.run([cli, "serve", "--help"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}).stdout
    assert "127.0.0.1" in out and "8000" in out and "sqlite:///liars-dice.db" in out

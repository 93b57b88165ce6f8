"""Issue 36's runtime faults, each run to its end with a clock the test moves
(no sleep stands for a grace period or a heartbeat):

1. the page's own reconnect to the owner cost a connected person their seat:
   the worker it left ran the seat's grace, knew presence only for the
   tables it owned, and gave the seat up;
2. after Redis restarted empty, a table whose next mover sat on a replica
   stopped for good: the owner's batch was never published, and a replica
   learnt of a lost batch only from the gap in the next one;
9. a lone worker whose lease lapsed (starved of CPU) refused its own
   players' moves with ``server/moved`` although nobody else could take the table.

Real PostgreSQL and a real Redis (its own server for the restart), real
websockets through the app; the workers share one :class:`ManualClock`.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
from helpers import Player, create, is_state, join, running, wait_until
from sqlalchemy import create_engine, text

from liars_dice.server import Settings
from liars_dice.server.core.tables import SeatKind
from liars_dice.server.runtime.clock import ManualClock

from .conftest import POSTGRES_URL, REDIS_URL, reset_postgres, reset_redis

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.skipif(not (POSTGRES_URL and REDIS_URL), reason="PostgreSQL and Redis are not set"),
]

GRACE = 30.0


def _settings(redis_url: str | None = None) -> Settings:
    assert POSTGRES_URL is not None and REDIS_URL is not None
    reset_postgres(POSTGRES_URL)
    reset_redis(redis_url or REDIS_URL)
    return Settings(db_url=POSTGRES_URL, redis_url=redis_url or REDIS_URL, bot_delay=0.0, grace=GRACE)


def _room(client: Any, code: str) -> Any:
    return client.app.state.service.rooms[code]


def _grace_timers(client: Any, code: str) -> set[Any]:
    room = client.app.state.service.rooms.get(code)
    return set() if room is None else {k for k in room.timers if isinstance(k, tuple) and k[0] == "grace"}


def _settle(clock: ManualClock, seconds: float, step: float = 1.0) -> None:
    """Move time on by ``seconds`` in steps, letting each step's timers run."""
    moved = 0.0
    while moved < seconds:
        clock.advance(step)
        moved += step
        time.sleep(0.02)  # the app's loops run the timers that fell due (no wait stands for time)


def test_the_page_s_move_to_the_owner_keeps_the_seat_through_every_grace() -> None:
    """bob's page: first socket on worker b (a replica), then on the owner a
    (as api.js does after the welcome names the owner), then the first one
    closes. Time moves past three grace periods: bob keeps his seat, no
    worker but the owner ever holds a grace timer, and his moves go through.
    Then his socket on the owner closes while his replica socket... none is
    left: the owner gives the seat up one grace later, and only then."""
    s = _settings()
    clock = ManualClock()
    with running(s, clock) as a, running(s, clock) as b:
        t = create(a, "ann", seats=2)
        code = t["code"]
        j = join(b, code, "bob")
        ann = Player(a, code, t["token"])
        first = Player(b, code, j["token"])  # the page's first socket: any worker
        assert first.welcome["type"] == "welcome"
        owned = Player(a, code, j["token"])  # the welcome named the owner: the page moves there
        assert owned.welcome["type"] == "welcome" and owned.welcome["seat"] == 1
        first.close()
        wait_until(lambda: not _room(b, code).conns)
        assert not _grace_timers(b, code), "a replica never runs a seat's grace"
        _settle(clock, 3 * GRACE)
        assert _room(a, code).table.seats[1].kind is SeatKind.HUMAN
        owned.send({"type": "chat", "text": "still here", "id": "c"})
        assert owned.wait(lambda m: m.get("id") == "c")["type"] == "ack"
        ann.send({"type": "start", "id": "go"})
        assert ann.wait(lambda m: m.get("id") == "go")["type"] == "ack"
        owned.wait(is_state)
        _settle(clock, 3 * GRACE)
        assert _room(a, code).table.seats[1].kind is SeatKind.HUMAN
        assert not any(m["type"] == "unseated" for m in owned.received)


def test_a_seat_held_only_on_a_replica_is_kept_and_given_up_one_grace_after_it_goes() -> None:
    """bob's only socket is on the replica b. The owner's grace for his seat
    runs out again and again: each time it finds his socket on b (presence,
    read from Redis when it fires) and starts again. Once that socket closes,
    the seat is given up (before the start: freed) within two grace periods."""
    s = _settings()
    clock = ManualClock()
    with running(s, clock) as a, running(s, clock) as b:
        t = create(a, "ann", seats=2)
        code = t["code"]
        j = join(b, code, "bob")
        Player(a, code, t["token"])
        bob = Player(b, code, j["token"])
        assert bob.welcome["type"] == "welcome"
        _settle(clock, 5)  # presence trusted from two beats on
        assert _grace_timers(a, code) == {("grace", 1)}, "the owner keeps bob's grace"
        _settle(clock, 3 * GRACE)
        assert _room(a, code).table.seats[1].kind is SeatKind.HUMAN
        bob.close()
        wait_until(lambda: not _room(b, code).conns)
        _settle(clock, 2 * GRACE + 2)
        wait_until(lambda: _room(a, code).table.seats[1].kind is SeatKind.EMPTY)


# -- fault 2: Redis restarted empty ---------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def own_redis() -> Iterator[tuple[str, Any]]:
    """A Redis server of this test's own (it is restarted empty), and a function that restarts it."""
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.skip("redis-server is not installed")
    port = _free_port()
    procs: list[subprocess.Popen[bytes]] = []

    def start() -> None:
        procs.append(subprocess.Popen(
            [exe, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ))
        import redis

        r = redis.Redis(port=port)
        wait_until(lambda: _pings(r), 20)
        r.close()

    def stop() -> None:
        p = procs[-1]
        p.terminate()
        p.wait(10)

    start()
    try:
        yield f"redis://127.0.0.1:{port}/0", (start, stop)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(10)


def _pings(r: Any) -> bool:
    try:
        return bool(r.ping())
    except Exception:  # noqa: BLE001 - not up yet
        return False


def test_a_batch_never_published_reaches_the_replica_after_redis_comes_back_empty(own_redis: tuple[str, Any]) -> None:
    """ann on the owner a, bob on the replica b. Redis stops; ann bids (stored,
    never published); Redis comes back empty. With no further batch (bob is
    to move), b's next heartbeat finds its replica behind the store and reads
    it: bob is shown ann's bid and can answer it. On the old runtime b waited
    for a next batch that never came."""
    url, (start, stop) = own_redis
    s = _settings(url)
    clock = ManualClock()
    with running(s, clock) as a, running(s, clock) as b:
        t = create(a, "ann", seats=2, options={"dice_per_player": 2})
        code = t["code"]
        j = join(b, code, "bob")
        ann, bob = Player(a, code, t["token"]), Player(b, code, j["token"])
        ann.send({"type": "start", "id": "go"})
        assert ann.wait(lambda m: m.get("id") == "go")["type"] == "ack"
        view = bob.wait(is_state)["view"]
        if view["to_move"] == "bob":  # bob opens (forwarded while Redis is up): then it is ann's turn
            bob.send({"type": "bid", "quantity": 1, "face": 2, "id": "b0"})
            assert bob.wait(lambda m: m.get("id") == "b0")["type"] == "ack"
        wait_until(lambda: _room(a, code).table.state.to_move == 0)
        seq_before = _room(b, code).table.seq
        stop()
        ann.send({"type": "bid", "quantity": 3, "face": 2, "id": "a1"})
        assert ann.wait(lambda m: m.get("id") == "a1")["type"] == "ack"  # stored; its publish fails
        owner_seq = _room(a, code).table.seq
        assert owner_seq > seq_before
        start()  # back, empty
        deadline = time.monotonic() + 30
        while _room(b, code).table.seq < owner_seq and time.monotonic() < deadline:
            _settle(clock, 2.0)
        assert _room(b, code).table.seq == owner_seq, "the replica read the store within a few beats"
        shown = bob.wait(lambda m: is_state(m) and m["view"]["to_move"] == "bob" and m["view"]["phase"] == "bid")
        assert shown["view"]["current"] is not None
        bob.send({"type": "challenge", "id": "b1"})
        assert bob.wait(lambda m: m.get("id") == "b1")["type"] == "ack"


# -- fault 9: a lone worker's lease lapses ---------------------------------------------------------


def test_a_lone_worker_whose_lease_lapsed_takes_it_back_and_the_move_goes_through() -> None:
    """One worker on PostgreSQL and Redis; its lease of the table lapses (as
    when it gets a tenth of a core for a few seconds: set in the database).
    No other worker took it, so the person's move is stored, fenced as
    always, instead of ``server/moved``."""
    s = _settings()
    clock = ManualClock()
    assert POSTGRES_URL is not None
    with running(s, clock) as a:
        t = create(a, "ann", seats=2, options={"dice_per_player": 2})
        code = t["code"]
        j = join(a, code, "bob")
        ann, bob = Player(a, code, t["token"]), Player(a, code, j["token"])
        ann.send({"type": "start", "id": "go"})
        assert ann.wait(lambda m: m.get("id") == "go")["type"] == "ack"
        view = ann.wait(is_state)["view"]
        mover = ann if view["to_move"] == "ann" else bob
        engine = create_engine(POSTGRES_URL)
        with engine.begin() as conn:
            lapsed = conn.execute(text(
                "UPDATE table_leases SET expires_at = clock_timestamp() - interval '1 second' WHERE table_id = :t"
            ), {"t": _room(a, code).table.id}).rowcount
        engine.dispose()
        assert lapsed == 1
        mover.send({"type": "bid", "quantity": 1, "face": 3, "id": "m"})
        reply = mover.wait(lambda m: m.get("id") == "m")
        assert reply["type"] == "ack", reply
        assert _room(a, code).table.state.current_bid is not None

"""Accounts attacked from outside (the attack session after issue 18).

* one address may create only ``signup_rate_address`` accounts a day (at the
  sign-in rate alone, 10 a minute, it created 14,400 a day);
* a flood of sign-ins from many addresses, each under its own rate, cannot
  queue password checks without bound: past ``hash_waiting_max`` waiting,
  one more is refused ``rate/limited`` (429) at once (200 sign-ins from 200
  addresses made a real sign-in wait 13 s, and the wait grew with the flood;
  a 503 took a worker out of a load balancer, issue 36 fault 5).
"""

from __future__ import annotations

import asyncio
import collections
from pathlib import Path
from typing import Any

import httpx
import pytest
from accounts_helpers import PASSWORD
from helpers import run_in_thread, running
from live import live_server

from liars_dice.server import Settings
from liars_dice.server.edge.proxies import parse_proxies

#: cheap hashes for the tests that only count answers
CHEAP = {"argon2_time_cost": 1, "argon2_memory_kib": 8, "argon2_parallelism": 1}


def _settings(tmp_path: Path, **kw: Any) -> Settings:
    return Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", grace=60.0, bot_delay=0.0, **kw)


def test_one_address_creates_a_bounded_number_of_accounts(tmp_path: Path) -> None:
    s = _settings(tmp_path, signin_rate_address="1000/minute", **CHEAP)
    assert s.signup_rate_address == "20/day"
    with running(s) as c:
        # a taken name and a weak password are not accounts made: they do not count
        assert c.post("/api/account/sign-up", json={"name": "squat0", "password": "password"}).status_code == 400
        codes = [c.post("/api/account/sign-up", json={"name": f"squat{i}", "password": PASSWORD}).status_code
                 for i in range(10)]
        assert c.post("/api/account/sign-up", json={"name": "Squat1", "password": PASSWORD}).status_code == 409
        codes += [c.post("/api/account/sign-up", json={"name": f"squat{i}", "password": PASSWORD}).status_code
                  for i in range(10, 22)]
        assert codes == [201] * 20 + [429] * 2
        r = c.post("/api/account/sign-up", json={"name": "one more", "password": PASSWORD})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate/limited"
        assert "accounts created from your address" in r.json()["error"]["message"]
        # signing in (an account made before) is not held up by the sign-up rate
        r = c.post("/api/account/sign-in", json={"name": "squat3", "password": PASSWORD})
        assert r.status_code == 200
        assert c.get("/api/config").json()["limits"]["signup_rate_address"] == "20/day"


def test_a_flood_of_sign_ins_cannot_queue_password_checks_without_bound(tmp_path: Path) -> None:
    s = _settings(tmp_path, hash_waiting_max=2, trusted_proxies=parse_proxies(["127.0.0.2"]),
                  argon2_time_cost=3, argon2_memory_kib=32768, argon2_parallelism=1)
    with live_server(s) as url:
        with httpx.Client(base_url=url, timeout=60) as c:
            assert c.post("/api/account/sign-up", json={"name": "real", "password": PASSWORD}).status_code == 201

        async def flood() -> tuple[collections.Counter[int], set[str]]:
            got: collections.Counter[int] = collections.Counter()
            codes: set[str] = set()
            transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
            async with httpx.AsyncClient(base_url=url, transport=transport, timeout=120) as p:
                async def one(i: int) -> None:
                    r = await p.post("/api/account/sign-in", json={"name": f"x{i}", "password": "wrong password!"},
                                     headers={"X-Forwarded-For": f"198.51.100.{i + 1}"})
                    got[r.status_code] += 1
                    if r.status_code != 401:
                        codes.add(r.json()["error"]["code"])
                await asyncio.gather(*(one(i) for i in range(30)))
            return got, codes

        got, codes = run_in_thread(flood())
        assert got[429] >= 10 and got[401] + got[429] == 30, got  # 30 at once: at most 4 hashed, the rest refused
        assert codes == {"rate/limited"}
        with httpx.Client(base_url=url, timeout=60) as c:  # the flood over, the real player signs in
            assert c.post("/api/account/sign-in", json={"name": "real", "password": PASSWORD}).status_code == 200


def test_a_session_ended_without_word_still_closes_its_socket(tmp_path: Path) -> None:
    """A revocation made on another worker reaches this one on Redis pub/sub,
    which keeps nothing: here the session is revoked in the database and this
    worker is never told (a publish lost while its subscription was down).
    The socket must still close, at the next sweep; before, it stayed open and
    kept playing as the account until the session's expiry, 30 days on."""
    import json
    import time

    from accounts_helpers import csrf, hello_account, sign_up
    from sqlalchemy import update
    from starlette.websockets import WebSocketDisconnect

    from liars_dice.server.runtime.db import account_sessions_t
    from liars_dice.server.runtime.store import utcnow

    with running(_settings(tmp_path, session_check_seconds=0.3, **CHEAP)) as c:
        s = sign_up(c, "nadia")
        t = c.post("/api/tables", json={"nickname": "nadia", "seats": 2}, headers=csrf(s)).json()
        cm, ws, welcome = hello_account(c, t["code"])
        try:
            assert welcome["type"] == "welcome" and welcome["seat"] == 0
            engine = c.app.state.accounts.store.engine
            with engine.begin() as conn:  # revoked elsewhere; this worker is not told
                conn.execute(update(account_sessions_t).values(revoked_at=utcnow()))
            got: list[dict[str, Any]] = []
            closed = None
            deadline = time.monotonic() + 5
            n = 0
            try:
                while time.monotonic() < deadline:
                    n += 1
                    ws.send_text(json.dumps({"type": "ping", "id": n}))
                    while True:
                        m = json.loads(ws.receive_text())
                        got.append(m)
                        if m.get("id") == n:
                            break
                    time.sleep(0.1)
            except WebSocketDisconnect as e:
                closed = e.code
        finally:
            cm.__exit__(None, None, None)
        assert closed == 4401, "the revoked session's socket stayed open for 5 s"
        assert any(m.get("code") == "auth/signed_out" for m in got)


def test_an_ipv6_client_counts_by_its_network() -> None:
    from liars_dice.server.edge.proxies import address_key

    assert address_key("2001:db8:1:2::1") == address_key("2001:db8:1:2:ffff:1:2:3") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert address_key("::ffff:198.51.100.7") == "198.51.100.7" and address_key("198.51.100.7") == "198.51.100.7"
    assert address_key("testclient") == "testclient"


def test_one_ipv6_network_is_one_address_for_the_sign_in_rate(tmp_path: Path) -> None:
    """One host picks any address of its /64: counted one by one, ten sign-ins
    from ten addresses of one network all went through a rate of five."""
    s = _settings(tmp_path, signin_rate_address="5/minute", trusted_proxies=parse_proxies(["127.0.0.2"]), **CHEAP)
    with live_server(s) as url:
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=url, transport=transport, timeout=30) as proxy:
            def sign_in(client: str) -> int:
                return proxy.post("/api/account/sign-in", json={"name": "x", "password": "wrong password"},
                                  headers={"X-Forwarded-For": client}).status_code

            codes = [sign_in(f"2001:db8:1:2::{i + 1:x}") for i in range(8)]
            assert codes == [401] * 5 + [429] * 3
            assert sign_in("2001:db8:1:3::1") == 401  # another network is another subscriber


@pytest.mark.slow  # 200 sign-ins at once and their Argon2 hashes: alone, in the second run (a ReadError under -n 2 load)
def test_a_distributed_flood_of_wrong_sign_ins_does_not_hold_an_honest_one_back(tmp_path: Path) -> None:
    """Issue 36, fault 5: "100 client addresses through nginx, one wrong sign-in
    each, three waves: honest sign-ins took 28.6, 8.3, 34.3 and 11.9 s, and one
    got 503." The password checks wait in turns by address, the addresses whose
    sign-in failed behind the others (runtime/hashing.py): in the flood's second
    wave, an honest sign-in from a fresh address is answered 200, and no
    request of either gets a 5xx (main answered 503 to 4 honest sign-ins and
    167 of the flood's)."""
    s = _settings(tmp_path, trusted_proxies=parse_proxies(["127.0.0.2"]),
                  argon2_time_cost=2, argon2_memory_kib=16384, argon2_parallelism=1)
    assert s.hash_waiting_max == 16
    with live_server(s) as url:
        with httpx.Client(base_url=url, timeout=60) as c:
            assert c.post("/api/account/sign-up", json={"name": "real", "password": PASSWORD}).status_code == 201

        def proxy() -> httpx.AsyncClient:
            """The front's connections, new for each wave: a connection kept from the
            first wave sits idle past ``request_seconds`` on a loaded machine, the
            server cuts it, and reusing it raced the cut (httpx.ReadError)."""
            transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2", limits=httpx.Limits(max_connections=300))
            return httpx.AsyncClient(base_url=url, transport=transport, timeout=120)

        async def one(p: httpx.AsyncClient, i: int, got: collections.Counter[int], hashed: asyncio.Event) -> None:
            r = await p.post("/api/account/sign-in", json={"name": f"x{i}", "password": "wrong password!"},
                             headers={"X-Forwarded-For": f"198.51.100.{i + 1}"})
            got[r.status_code] += 1
            if r.status_code == 401:
                hashed.set()

        async def waves() -> tuple[list[collections.Counter[int]], int, int]:
            first: collections.Counter[int] = collections.Counter()
            async with proxy() as p:
                await asyncio.gather(*(one(p, i, first, asyncio.Event()) for i in range(100)))
            async with proxy() as p:
                second: collections.Counter[int] = collections.Counter()
                hashed = asyncio.Event()
                flood = [asyncio.ensure_future(one(p, i, second, hashed)) for i in range(100)]
                await hashed.wait()  # the wave's checks are queued: one has been hashed
                r = await p.post("/api/account/sign-in", json={"name": "real", "password": PASSWORD},
                                 headers={"X-Forwarded-For": "203.0.113.7"})
                waiting = sum(not f.done() for f in flood)
                await asyncio.gather(*flood)
                return [first, second], r.status_code, waiting

        (first, second), honest, waiting = run_in_thread(waves())
        for wave in (first, second):
            assert set(wave) <= {401, 429} and sum(wave.values()) == 100, wave  # never a 5xx
        assert honest == 200
        # Whether the honest check was answered ahead of the queued wave (``waiting``)
        # depends on how fast the machine hashes against how fast the wave connects:
        # 0 to 20 here between runs, so it is reported, not asserted (stop 35's note).
        print(f"flood requests still waiting when the honest sign-in was answered: {waiting}")

"""A table's sockets go to the worker that runs it (issue 16, docs/scaling.md
"Route a table's sockets to its owner").

A socket on another worker than the table's owner forwards each command to
the owner and relays its events back: on 2 cores two workers carried fewer
moves than one (x0.75, benchmarks/RESULTS.md). With ``--route w`` each worker
has a route (w0, w1, ...), a welcome names the owner's, and a socket opened
with ``?owner=ROUTE`` through the shipped nginx lands on that worker. These run
2 real workers on PostgreSQL and Redis behind Debian's nginx with the shipped
file (ports replaced).
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from _cluster import free_ports  # benchmarks/_cluster.py (tests/conftest.py puts benchmarks/ on the path)
from liars_dice.server.runtime.cluster import route_of, worker_id

from .conftest import POSTGRES_URL, REDIS_URL
from .sockets import hello, ws_from
from .test_failover import workers
from .test_nginx import NGINX
from .test_nginx_limits import _front_on

pytestmark = [
    pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow,
    pytest.mark.skipif(not (POSTGRES_URL and REDIS_URL), reason="needs PostgreSQL and Redis (.ci/run starts them)"),
    pytest.mark.skipif(NGINX is None, reason="nginx is not installed (.ci/run installs it)"),
]


def test_a_worker_id_carries_its_route() -> None:
    assert route_of(worker_id("w3")) == "w3" and len(worker_id("abcdefghijkl")) <= 64
    assert route_of(worker_id()) is None


def test_a_dead_predecessor_on_the_same_route_is_no_owner() -> None:
    # The supervisor restarts a killed w0 on its port within seconds; until the
    # dead one's lease expires the lease names "w0~<old id>": not this w0.
    from liars_dice.server.runtime.cluster import owner_route_for

    assert owner_route_for("w0~new", "w0~old") is None
    assert owner_route_for("w0~new", "w0~new") == "w0"
    assert owner_route_for("w0~new", "w1~x") == "w1"
    assert owner_route_for("w0~new", None) is None
    assert owner_route_for("host-1-abc", "host-2-def") is None  # no routes


def _welcome(url: str, code: str, token: str, owner: str | None = None) -> dict:
    path = f"{code}?owner={owner}" if owner is not None else code
    with ws_from(url, path, "127.0.0.5") as ws:
        return hello(ws, token)


def test_sockets_with_the_owners_route_land_on_the_owner(tmp_path: Path) -> None:
    with workers(2, tmp_path) as urls:
        ports = [int(u.rsplit(":", 1)[1]) for u in urls]
        dead = free_ports(1)  # w2 of the shipped file: a worker that is down
        proc, listen = _front_on(tmp_path, [ports[0], ports[1], dead])
        front = f"http://127.0.0.1:{listen}"
        try:
            made = httpx.post(front + "/api/tables", json={"nickname": "ann", "seats": 2}, timeout=10).json()
            code, token = made["code"], made["token"]
            first = _welcome(front, code, token)
            owner = first["owner"]
            assert owner in ("w0", "w1") and first["worker"] in ("w0", "w1"), first
            other = "w1" if owner == "w0" else "w0"
            # Each worker directly: both name the same owner, and themselves.
            direct = [_welcome(u, code, token) for u in urls]
            assert [w["worker"] for w in direct] == ["w0", "w1"] and {w["owner"] for w in direct} == {owner}
            # Through the front with the owner's route: always the owner's worker
            # (least connections alone would spread them over both).
            assert [_welcome(front, code, token, owner)["worker"] for _ in range(6)] == [owner] * 6
            assert [_welcome(front, code, token, other)["worker"] for _ in range(3)] == [other] * 3
            # Not a route of the map, or the route of a worker that is down: any worker serves it.
            assert _welcome(front, code, token, "evil.example:80")["type"] == "welcome"
            assert _welcome(front, code, token, "w2")["type"] == "welcome"
        finally:
            proc.terminate()
            proc.wait(timeout=10)

"""The open-table caps hold under parallel creates (issue 16, fault 5).

The total cap was checked before the write and counted after it: "16 parallel
creates made 2,014 tables against a cap of 2,000". These send creates in
parallel, from several loopback addresses, to a real uvicorn server.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from live import live_server

from liars_dice.server import Settings

BODY = {"nickname": "ann", "seats": 2}


def _create(url: str, source: str) -> int:
    with httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address=source), timeout=20) as c:
        return c.post("/api/tables", json=BODY).status_code


def _parallel(url: str, sources: list[str]) -> list[int]:
    with ThreadPoolExecutor(len(sources)) as pool:
        return list(pool.map(lambda s: _create(url, s), sources))


def test_parallel_creates_never_pass_the_total_cap(tmp_path: Path) -> None:
    s = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", open_tables_total=4, create_rate="1000/minute")
    with live_server(s) as url:
        statuses = _parallel(url, [f"127.0.0.{i}" for i in range(2, 18)])
        assert sorted(statuses) == [201] * 4 + [503] * 12, statuses
        assert len(httpx.get(f"{url}/api/tables").json()["tables"]) == 4
        assert _create(url, "127.0.0.30") == 503  # and it stays held


def test_parallel_creates_from_one_address_never_pass_its_cap(tmp_path: Path) -> None:
    s = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", open_tables_per_address=2, create_rate="1000/minute")
    with live_server(s) as url:
        statuses = _parallel(url, ["127.0.0.2"] * 10)
        assert sorted(statuses) == [201] * 2 + [429] * 8, statuses
        assert _create(url, "127.0.0.3") == 201  # another address has its own


def test_a_refused_create_gives_its_place_back(tmp_path: Path) -> None:
    s = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", open_tables_total=1, create_rate="1000/minute")
    with live_server(s) as url, httpx.Client(base_url=url) as c:
        assert c.post("/api/tables", json={**BODY, "seats": 99}).status_code == 400  # a bad table
        assert c.post("/api/tables", json=BODY).status_code == 201

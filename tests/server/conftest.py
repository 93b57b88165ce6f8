"""Fixtures: the real app on a fresh SQLite file (or PostgreSQL), through Starlette's TestClient."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import fastapi  # noqa: E402,F401  (the `server` extra, part of `dev`: `make test` installs it)

from starlette.testclient import TestClient  # noqa: E402

from liars_dice.server import Settings, create_app  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))

#: This xdist worker's name (``gw0``, ``gw1``...; ``main`` without xdist).
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")


def _worker_postgres_url(url: str | None) -> str | None:
    """The test database's URL with a schema of this process's own first in
    its ``search_path`` (``options=-csearch_path=...``, passed on to libpq):
    the tests of each xdist worker, and of each run, keep their tables apart,
    so the PostgreSQL tests spread over the workers (tests/conftest.py) and
    :func:`reset_postgres` drops every table the migrations made. The schema
    is created here and dropped when the process exits."""
    if not url:
        return None
    import atexit

    from sqlalchemy import text

    from liars_dice.server.runtime.db import make_engine

    schema = f"test_{WORKER}_{os.getpid()}"
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA IF NOT EXISTS {schema}"))
    engine.dispose()

    def _drop() -> None:
        e = make_engine(url)
        try:
            with e.begin() as c:
                c.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        finally:
            e.dispose()

    atexit.register(_drop)
    return url + ("&" if "?" in url else "?") + f"options=-csearch_path%3D{schema}"


def _worker_redis_url(url: str | None) -> str | None:
    """The test Redis server's URL with a database number of this xdist
    worker's own (1 to 15; ``gw0`` gets 1): :func:`reset_redis` empties only
    this worker's keys. Published events are not per database, but their
    channels name a table's random id (server/runtime/broker.py)."""
    if not url:
        return None
    from urllib.parse import urlsplit, urlunsplit

    number = int(WORKER[2:]) % 15 + 1 if WORKER.startswith("gw") else 0
    return urlunsplit(urlsplit(url)._replace(path=f"/{number}"))


POSTGRES_URL = _worker_postgres_url(os.environ.get("LIARS_DICE_TEST_POSTGRES_URL"))
REDIS_URL = _worker_redis_url(os.environ.get("LIARS_DICE_TEST_REDIS_URL"))


def reset_redis(url: str) -> None:
    """Empty this worker's test Redis database (:data:`REDIS_URL`)."""
    import redis

    r = redis.Redis.from_url(url)
    r.flushdb()
    r.close()


def reset_postgres(url: str) -> None:
    """Drop every table in this worker's schema (:data:`POSTGRES_URL`'s
    ``search_path``), whatever the migrations made."""
    from sqlalchemy import text

    from liars_dice.server.runtime.db import make_engine

    engine = make_engine(url)
    with engine.begin() as conn:
        schema = conn.execute(text("SELECT current_schema()")).scalar_one()
        assert schema is not None and schema.startswith("test_"), schema  # never the shared public schema
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    engine.dispose()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'test.db'}"


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(db_url=db_url, grace=60.0, bot_delay=0.0)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    from helpers import close_all

    with TestClient(create_app(settings)) as c:
        try:
            yield c
        finally:
            close_all()

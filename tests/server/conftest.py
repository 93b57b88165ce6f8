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

POSTGRES_URL = os.environ.get("LIARS_DICE_TEST_POSTGRES_URL")
REDIS_URL = os.environ.get("LIARS_DICE_TEST_REDIS_URL")


def reset_redis(url: str) -> None:
    """Empty the test Redis database (tests share one)."""
    import redis

    r = redis.Redis.from_url(url)
    r.flushdb()
    r.close()


def reset_postgres(url: str) -> None:
    """Drop every table of the server's schema (tests share one database)."""
    from sqlalchemy import text

    from liars_dice.server.runtime.db import make_engine

    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE IF EXISTS rating_history, ratings, account_sessions, accounts, table_leases, events, seats, tables, alembic_version CASCADE"))
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

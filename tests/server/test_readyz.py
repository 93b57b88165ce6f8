"""``GET /readyz``, readiness apart from liveness (issue 36, "What operators
expect": "A readiness probe apart from liveness (``/readyz``: the database,
Redis and this worker's lease heartbeat)")."""

from __future__ import annotations

import time

import pytest
from starlette.testclient import TestClient

from liars_dice.server import Settings

from .conftest import POSTGRES_URL, REDIS_URL, reset_postgres, reset_redis
from .helpers import running


def test_one_worker_is_ready_with_its_database(client: TestClient) -> None:
    r = client.get("/readyz")
    assert r.status_code == 200 and r.json() == {"ready": True, "database": "ok", "redis": "none", "heartbeat": "none"}
    assert client.get("/healthz").json() == {"ok": True, "database": "ok"}  # liveness, as before


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.skipif(not (POSTGRES_URL and REDIS_URL), reason="LIARS_DICE_TEST_POSTGRES_URL or LIARS_DICE_TEST_REDIS_URL is not set")
def test_a_worker_whose_heartbeat_is_late_is_not_ready_but_is_alive() -> None:
    """A worker of several: ready while Redis answers and its last heartbeat
    renewed its leases within a lease; one whose heartbeat is older than a
    lease (its tables may be another's now) is not ready, and still alive."""
    assert POSTGRES_URL is not None and REDIS_URL is not None
    reset_postgres(POSTGRES_URL)
    reset_redis(REDIS_URL)
    with running(Settings(db_url=POSTGRES_URL, redis_url=REDIS_URL, bot_delay=0.0, grace=600)) as client:
        r = client.get("/readyz")
        assert r.status_code == 200 and r.json() == {"ready": True, "database": "ok", "redis": "ok", "heartbeat": "ok"}
        readiness = client.app.state.readiness  # type: ignore[attr-defined]
        readiness.beat_at = time.monotonic() - readiness.lease_seconds - 1  # the clock moved past a lease
        r = client.get("/readyz")
        assert r.status_code == 503 and r.json()["heartbeat"] == "late" and r.json()["ready"] is False
        assert client.get("/healthz").status_code == 200

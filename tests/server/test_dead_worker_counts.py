"""A dead worker's open tables still count until another worker has taken them
over (stop 33's attacker: with the dead worker's counts gone at its alive key's
expiry, and the takeover's first heartbeat later, one address made 8 more
tables against a cap of 8 within a second, 5.3-6.4 s after a SIGKILL). Real
Redis: ``Broker.share_counts`` with ``keep_dead``."""

from __future__ import annotations

import asyncio

import pytest

from liars_dice.server.runtime.broker import Broker, counts_key

from .conftest import REDIS_URL, reset_redis

pytestmark = [pytest.mark.redis, pytest.mark.skipif(not REDIS_URL, reason="LIARS_DICE_TEST_REDIS_URL is not set")]


def test_a_dead_workers_open_tables_count_until_its_counts_expire() -> None:
    assert REDIS_URL is not None
    reset_redis(REDIS_URL)

    async def main() -> None:
        dead, live = Broker(REDIS_URL, "w-dead"), Broker(REDIS_URL, "w-live")
        try:
            await dead.alive(0.3)
            await live.alive(30)
            await dead.share_counts("open_tables", {"203.0.113.5": 8}, 30)
            await dead.share_counts("sockets", {"203.0.113.5": 3}, 30)
            await asyncio.sleep(0.5)  # the dead worker's alive key has expired; its counts have not
            assert await live.share_counts("open_tables", {}, 30, keep_dead=True) == {"203.0.113.5": 8}
            assert await live.share_counts("sockets", {}, 30) == {}  # other counts leave with the worker
            await live.redis.delete(counts_key("open_tables", "w-dead"))  # its counts expired
            assert await live.share_counts("open_tables", {}, 30, keep_dead=True) == {}
        finally:
            await dead.close()
            await live.close()

    asyncio.run(main())

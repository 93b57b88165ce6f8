"""A worker's shutdown cannot hang (issue 16): a fresh clone's CI once waited
600 s in the lifespan's shutdown of a 2-worker PostgreSQL and Redis test.
Every step of the shutdown is bounded (``runtime/closing.py``): a stuck one is
cancelled, left behind, and named in the log with the tasks still pending."""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import pytest
from helpers import run_in_thread

from liars_dice.server import Settings, create_app
from liars_dice.server.runtime import closing

from .conftest import REDIS_URL


async def stubborn(cancelled: list[bool]) -> None:
    """Swallows its first cancellation (what ``asyncio.wait_for`` would wait
    on for ever), and ends at the second (``asyncio.run``'s, at the test's end)."""
    while True:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(True)
            if len(cancelled) > 1:
                raise


def test_a_step_that_never_ends_is_given_up_on_and_named(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(closing, "STEP_SECONDS", 0.2)
    cancelled: list[bool] = []

    async def scenario() -> tuple[bool, float]:
        t0 = time.monotonic()
        done = await closing.within("the stubborn part", stubborn(cancelled))
        return done, time.monotonic() - t0

    with caplog.at_level(logging.ERROR, logger="liars_dice.server"):
        done, took = run_in_thread(scenario())
    assert done is False and took < 2.0
    assert cancelled == [True, True]  # asked once and left behind; then asyncio.run's at the end
    assert "shutdown: the stubborn part did not finish in 0 s" in caplog.text
    assert "stubborn at " in caplog.text and "test_shutdown.py" in caplog.text  # the pending task and its line


def test_a_step_that_fails_is_logged_and_shutdown_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    async def broken() -> None:
        raise ConnectionError("redis went away")

    async def scenario() -> bool:
        return await closing.within("the broken part", broken())

    with caplog.at_level(logging.ERROR, logger="liars_dice.server"):
        assert run_in_thread(scenario()) is True
    assert "shutdown: the broken part failed; going on" in caplog.text and "redis went away" in caplog.text


def test_the_app_stops_although_a_timer_will_not(tmp_path: object, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """A timer task that swallows its cancellation hung the lifespan's
    shutdown for ever before (``Scheduler.shutdown`` gathered it); now the
    app stops within its bound and the log names the timers."""
    from starlette.testclient import TestClient

    monkeypatch.setattr(closing, "STEP_SECONDS", 0.5)
    cancelled: list[bool] = []
    app = create_app(Settings(db_url=f"sqlite:///{tmp_path}/s.db", bot_delay=0.0))
    stopped = threading.Event()

    def run() -> None:
        with TestClient(app) as c:
            assert c.get("/healthz").status_code == 200

            async def add() -> None:
                task = asyncio.create_task(stubborn(cancelled))
                app.state.service.scheduler._tasks.add(task)

            c.portal.call(add)
        stopped.set()

    with caplog.at_level(logging.ERROR, logger="liars_dice.server"):
        t = threading.Thread(target=run, daemon=True)
        t.start()
        t.join(30)
    assert stopped.is_set(), "the app's shutdown hung on a timer that will not stop"
    assert cancelled and "shutdown: the timers did not finish" in caplog.text


@pytest.mark.redis
@pytest.mark.skipif(not REDIS_URL, reason="LIARS_DICE_TEST_REDIS_URL is not set")
def test_a_forwarded_command_still_running_is_cancelled_at_close() -> None:
    """The broker's close cancelled its readers but not the forwarded commands
    it was still answering: they outlived the broker, on a closed Redis client."""
    from liars_dice.server.runtime.broker import Broker, inbox

    started, cancelled = asyncio.Event(), []

    async def never_answers(request: dict[str, object]) -> dict[str, object]:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return {}

    async def on_events(table_id: str, first: int, events: list[tuple[str, dict[str, object]]]) -> None:
        pass

    async def scenario() -> tuple[float, list[bool]]:
        assert REDIS_URL is not None
        owner, sender = Broker(REDIS_URL, "closing-owner"), Broker(REDIS_URL, "closing-sender")
        await owner.redis.delete(inbox("closing-owner"))
        await owner.start(on_events, never_answers)
        try:
            await sender.send("closing-owner", {"type": "move"})
            await asyncio.wait_for(started.wait(), 10)
        finally:
            await sender.close()
        t0 = time.monotonic()
        await owner.close()
        await asyncio.sleep(0)  # a cancelled task runs its handler at the next turn
        return time.monotonic() - t0, list(cancelled)  # before asyncio.run cancels what is left

    took, at_close = run_in_thread(scenario())
    assert at_close == [True], "the forwarded command was left running after the broker closed"
    assert took < 10

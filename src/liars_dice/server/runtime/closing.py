"""Shutdown steps that cannot hang a worker's exit.

A worker's shutdown awaits other parts: Redis connections closing, tasks
cancelled, leases given back. Any of them can wait forever (a redis-py
connection whose ``wait_closed`` never returns, redis-py issue 3941; a task
that swallows its cancellation). :func:`within` bounds one step: past its
time the step is cancelled and left behind, and the log names it and every
task still pending, with the line each waits at.

Issue 16: a fresh clone's CI once hung 600 s in the lifespan's shutdown of a
2-worker PostgreSQL and Redis test; no thread was in a database call.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

log = logging.getLogger(__name__)

#: seconds one shutdown step may take before it is given up on
STEP_SECONDS = 5.0


def pending_tasks(most: int = 20) -> list[str]:
    """The tasks still pending but the caller's, as ``"name: coroutine at file:line"``
    (at most ``most``), for a log line."""
    here = asyncio.current_task()
    out: list[str] = []
    for task in asyncio.all_tasks():
        if task is here or task.done():
            continue
        frames = task.get_stack(limit=1)
        at = f"{frames[-1].f_code.co_filename}:{frames[-1].f_lineno}" if frames else "?"
        coro = task.get_coro()
        out.append(f"{task.get_name()}: {getattr(coro, '__qualname__', coro)} at {at}")
        if len(out) == most:
            break
    return out


async def within(what: str, step: Awaitable[object], steps: int = 1) -> bool:
    """Await ``step`` for at most ``steps`` times :data:`STEP_SECONDS`
    seconds (a step made of others gives their number); ``True`` if it finished.

    Past the time the step is cancelled and not awaited further (``asyncio.wait_for``
    would wait for a cancellation the step may never honour), and an error
    naming ``what`` and the pending tasks is logged. A step that raises is
    logged and counts as finished: shutdown goes on either way. Never raises
    but the caller's own cancellation.
    """
    seconds = steps * STEP_SECONDS
    task = asyncio.ensure_future(step)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
        log.error(
            "shutdown: %s did not finish in %.0f s; going on without it. Pending: %s",
            what, seconds, "; ".join(pending_tasks()) or "none",
        )
        return False
    if not task.cancelled() and task.exception() is not None:
        log.error("shutdown: %s failed; going on", what, exc_info=task.exception())
    return True

"""Giving a worker's freed memory back to the operating system.

Python hands the blocks of its larger objects (websocket buffers, message
texts, a finished table's events) to the C library's ``malloc``. When they are
freed, glibc keeps the pages for reuse unless they sit at the very top of its
heap, so a flood's high-water mark stayed with the worker: after an attack on 2
workers behind nginx their RSS ended 10.8% above its level before, against
5.8% for the same run without the ``bots_learn`` tables and 4.7% for the run
without the attacker (benchmarks/RESULTS.md, issue 16 "memory back within
10%"). ``malloc_trim(0)`` returns every free page of every glibc arena
(``madvise(MADV_DONTNEED)``), as Dask's workers do for the same reason.

Where the C library is not glibc (musl, macOS), there is nothing to call and
:func:`trim` returns ``False``.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
from collections.abc import Callable

from ...solver.endgame import evict_idle

log = logging.getLogger(__name__)


def _find_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:  # pragma: no cover - no C library found (not Linux)
        return None
    try:
        fn = ctypes.CDLL(name).malloc_trim  # CDLL: the GIL is released during the call
    except (OSError, AttributeError):  # pragma: no cover - musl or macOS: no malloc_trim
        return None
    fn.argtypes = [ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return fn


_TRIM = _find_trim()


def trim() -> bool:
    """Drop the endgame positions unused for their idle time
    (:func:`liars_dice.solver.endgame.evict_idle`), then return the free pages
    of the C heap to the operating system (glibc's ``malloc_trim(0)``;
    blocking, a few ms on a heap of 100 MiB).

    :returns: ``True`` if memory was given back, ``False`` if none could be
        (or the C library has no ``malloc_trim``)."""
    evict_idle()
    return bool(_TRIM(0)) if _TRIM is not None else False


class Trimmer:
    """Calls :func:`trim` every ``every`` seconds on a thread (the event loop
    goes on meanwhile), from :meth:`start` until :meth:`close`.

    :param every: seconds between two trims; ``<= 0``: none.
    """

    def __init__(self, every: float) -> None:
        self.every = every
        self.runs = 0  #: trims called
        self.trims = 0  #: of which gave memory back
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin the trims (on the running loop); a second call does nothing."""
        if self.every > 0 and self._task is None:
            self._task = asyncio.create_task(self._run(), name="liars-dice-trim")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            self.runs += 1
            try:
                if await asyncio.to_thread(trim):
                    self.trims += 1
            except Exception:  # noqa: BLE001  # pragma: no cover - a C call that failed: try again later
                log.exception("malloc_trim failed; trying again in %.0f s", self.every)

    async def close(self) -> None:
        """Stop the trims."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

"""The arena on Ray: games as Ray tasks, on a local Ray or an existing cluster.

Each task plays one chunk of game indices with :func:`~liars_dice.arena.run.play_one`,
exactly as a ``--jobs`` worker does; every game's dice and bot seeds come from
``(seed, game index)`` alone, so the outcomes, sorted by game, and the report
are the same as with ``--jobs``. A task starts the arena's external programs
(``cmd:`` entrants) on its worker and closes them when the chunk is done; the
program must therefore be installed on every node of a cluster.

``ray`` is imported only when this backend runs (the ``ray`` extra:
``pip install 'liars-dice-game[ray]'``). See ``docs/scaling.md``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..bots import Bot
from ..engine import LiarsDiceError
from .run import ArenaConfig, ArenaError, Outcome, _close_external, _external_bots, play_one

#: Most games in one Ray task: enough to amortise a task's overhead (about a
#: millisecond), few enough that progress moves and work spreads over a cluster.
MAX_CHUNK = 200


def ray_chunks(games: int, cpus: int) -> list[range]:
    """Game indices in chunks: about eight chunks per CPU, at most :data:`MAX_CHUNK` games each."""
    size = max(1, min(MAX_CHUNK, games // (max(1, cpus) * 8)))
    return [range(i, min(games, i + size)) for i in range(0, games, size)]


def play_chunk(config: ArenaConfig, games: range) -> list[Outcome]:
    """One Ray task: play ``games``, with this task's own external programs.

    :raises ArenaError: for a game that fails (the message names it).
    """
    external: dict[int, Bot] = {}
    try:
        try:
            _external_bots(config, external)
        except LiarsDiceError as e:
            raise ArenaError(e.message) from None
        return [play_one(config, g, external) for g in games]
    finally:
        _close_external(external)


def run_on_ray(
    config: ArenaConfig,
    cpus: int | None = None,
    address: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> list[Outcome]:
    """Play ``config.games`` games as Ray tasks; outcomes in game order.

    :param cpus: CPUs of the local Ray this starts (default: all); ignored
        with ``address``.
    :param address: an existing cluster (``ray://host:10001``, ``host:6379``
        or ``auto``); default: start a local Ray and stop it at the end.
    :param on_progress: called with the number of games just finished, as
        each task finishes.
    :raises ArenaError: when Ray is missing or cannot start or connect, or for
        the first game that fails (the other tasks are cancelled).
    """
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage reports leave the machine
    try:
        import ray
    except ImportError:
        raise ArenaError("The Ray backend needs the 'ray' extra: pip install 'liars-dice-game[ray]', or in a clone .venv/bin/pip install -e '.[ray]'.") from None
    started = not ray.is_initialized()
    if started:
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
        try:
            if address:
                ray.init(address=address, **options)
            else:
                ray.init(num_cpus=cpus, object_store_memory=100 * 1024**2, **options)
        except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError...
            where = f"the Ray cluster at {address}" if address else "a local Ray"
            raise ArenaError(f"Could not start or reach {where}: {e}".rstrip(".") + ".") from None
    try:
        total = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]  # ray leaves it untyped
        task = ray.remote(num_cpus=1, max_retries=0)(play_chunk)
        config_ref = ray.put(config)
        pending = [task.remote(config_ref, chunk) for chunk in ray_chunks(config.games, total)]
        outcomes: list[Outcome] = []
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                try:
                    part = ray.get(ready[0])
                except ray.exceptions.RayTaskError as e:
                    cause = e.cause
                    if isinstance(cause, ArenaError):
                        raise ArenaError(cause.message) from None
                    raise ArenaError(f"A Ray task failed: {type(cause).__name__}: {cause}.") from None
                outcomes.extend(part)
                if on_progress is not None:
                    on_progress(len(part))
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
    finally:
        if started:
            ray.shutdown()
    outcomes.sort(key=lambda o: o.game)
    return outcomes

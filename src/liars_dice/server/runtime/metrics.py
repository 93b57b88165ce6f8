"""Prometheus metrics of a worker (issue 36, "What operators expect"), with
``prometheus-client``, in its multiprocess mode across the workers of
``liars-dice serve --workers N``.

The supervisor (``cli/serve_workers.py``) makes a directory of its own for the
run, names it in ``PROMETHEUS_MULTIPROC_DIR`` for every worker (before they
import this module: the library chooses its storage at import), marks a dead
worker's files so, and removes the directory at its end. Without that
variable, one process keeps its metrics in memory.

``GET /metrics`` (:func:`exposition`) answers in the text format; the shipped
nginx refuses it to the public (``deploy/nginx/liars-dice.conf``), and the app
serves it only to a loopback or unix-socket peer (``edge/app.py``).

The metrics (every name begins ``liars_dice_``):

=============================  =========  ===========================================
``tables_open``                gauge      tables in this worker's memory (summed over live workers)
``sockets_open``               gauge      websockets open
``moves_total``                counter    commands that stored events (moves, chat, joins...)
``move_seconds``               histogram  a command's time from its check to its events applied
``store_commit_seconds``       histogram  one group commit of the store's writer
``database_errors_total``      counter    failed writes or reads of the store
``redis_errors_total``         counter    failed uses of Redis (rate limits, readiness)
``bot_queue_depth``            gauge      bots' decisions waiting for a slot
``hashes_waiting``             gauge      password hashes (Argon2id) waiting for the hashing threads
=============================  =========  ===========================================
"""

from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client import CONTENT_TYPE_LATEST as CONTENT_TYPE
from prometheus_client import REGISTRY

#: The environment variable of the multiprocess mode (prometheus-client's own).
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

#: Latency buckets, seconds: a move's and a commit's (1 ms to 10 s).
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

TABLES_OPEN = Gauge("liars_dice_tables_open", "Tables held in memory.", multiprocess_mode="livesum")
SOCKETS_OPEN = Gauge("liars_dice_sockets_open", "Websockets open.", multiprocess_mode="livesum")
MOVES = Counter("liars_dice_moves", "Commands that stored events (moves, chat, joins...).")
MOVE_SECONDS = Histogram("liars_dice_move_seconds", "A command's time from its check to its events applied.",
                         buckets=BUCKETS)
COMMIT_SECONDS = Histogram("liars_dice_store_commit_seconds", "One group commit of the store's writer.",
                           buckets=BUCKETS)
DATABASE_ERRORS = Counter("liars_dice_database_errors", "Failed writes or reads of the store.")
REDIS_ERRORS = Counter("liars_dice_redis_errors", "Failed uses of Redis.")
BOT_QUEUE_DEPTH = Gauge("liars_dice_bot_queue_depth", "Bots' decisions waiting for a slot.", multiprocess_mode="livesum")
HASHES_WAITING = Gauge("liars_dice_hashes_waiting", "Password hashes waiting for the hashing threads.",
                       multiprocess_mode="livesum")


def moved(seconds: float) -> None:
    """One command stored and applied in ``seconds`` (``runtime/service.py run``)."""
    MOVES.inc()
    MOVE_SECONDS.observe(seconds)


def exposition() -> bytes:
    """Every metric in Prometheus' text format: every live worker's, summed,
    in the multiprocess mode; this process's alone otherwise."""
    path = os.environ.get(MULTIPROC_ENV)
    if path and os.path.isdir(path):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=path)  # type: ignore[no-untyped-call]  # prometheus-client leaves it untyped
        return generate_latest(registry)
    return generate_latest(REGISTRY)


def worker_gone(pid: int, path: str) -> None:
    """Worker ``pid`` ended: its live gauges leave the sums of directory ``path``
    (the supervisor calls this; its counters and histograms stay counted)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid, path)  # type: ignore[no-untyped-call]  # prometheus-client leaves it untyped


__all__ = [
    "BOT_QUEUE_DEPTH", "COMMIT_SECONDS", "CONTENT_TYPE", "DATABASE_ERRORS", "HASHES_WAITING", "MOVES",
    "MOVE_SECONDS", "MULTIPROC_ENV", "REDIS_ERRORS", "SOCKETS_OPEN", "TABLES_OPEN", "exposition", "moved",
    "worker_gone",
]

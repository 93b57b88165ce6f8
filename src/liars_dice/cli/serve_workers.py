"""``liars-dice serve --workers N``: a supervisor of N worker processes on one
machine, sharing one PostgreSQL database and one Redis.

Worker ``i`` (from 0) is ``liars-dice serve`` itself, one process with its own
uvicorn on port ``port + i``; a front (``deploy/nginx/``) spreads the clients
over them. A worker that dies is started again after a second; meanwhile the
others take over its tables when their leases expire
(:mod:`liars_dice.server.runtime.ownership`). Ctrl+C (SIGINT) or SIGTERM stops
every worker. The same command on several machines, with the same URLs, makes
one cluster.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePath
from types import FrameType
from typing import Any, Protocol

#: Seconds before a dead worker is started again.
RESTART_SECONDS = 1.0


def cluster_problem(workers: int, db: str, redis: str) -> str | None:
    """The sentence refusing ``--workers``/``--redis`` as given, or ``None``."""
    postgres = db.startswith(("postgresql://", "postgres://", "postgresql+psycopg://"))
    if workers < 1:
        return f"--workers takes 1 or more, not {workers}."
    if workers > 1 and not (postgres and redis):
        return (f"--workers {workers} needs --db postgresql://... and --redis redis://...: "
                "the workers share their tables through PostgreSQL and Redis.")
    if redis and not postgres:
        return "--redis needs --db postgresql://...: workers share their tables through PostgreSQL, not SQLite."
    if redis and not redis.startswith(("redis://", "rediss://", "unix://")):
        return f"--redis takes a URL redis://HOST:PORT/DB, not {redis!r}."
    return None


class _Command(Protocol):
    """A command with its parameters (``click.Command`` or Typer's copy of it)."""

    @property
    def params(self) -> Sequence[Any]: ...


#: The options each worker gets from the supervisor itself, not from the command line.
OWN_OPTIONS = ("workers", "port", "unix_socket", "route")


def worker_argv(command: _Command, values: Mapping[str, Any]) -> list[str]:
    """The command line (without ``--port``/``--workers``) that gives a worker
    every option of ``command`` as the supervisor received it.

    Built from the command's own option list, so an option added to ``serve``
    later reaches the workers without a change here (before this, the workers
    silently ran without ``--trusted-proxy`` and ``--reveal-seconds``).
    Defaults are left out; a list option repeats its flag; a boolean flag
    appears only when set.

    Options are told by ``param_type_name == "option"``, not by class: recent Typer
    (0.29 here) carries its own copy of Click (``typer._click``), whose
    options are no ``click.Option`` (an ``isinstance`` test here passed none
    of them, and ``import click`` failed where Click was not installed).
    """
    argv: list[str] = []
    for param in command.params:
        if getattr(param, "param_type_name", None) != "option" or param.name is None or param.name in OWN_OPTIONS:
            continue
        if getattr(param, "envvar", None):
            continue  # goes by the environment (worker_env): a database password stays out of `ps`
        value = values.get(param.name)
        if value is None or value == param.default or value == () or value == []:
            continue
        flag = max(param.opts, key=len)
        if param.is_flag:
            if value:
                argv.append(flag)
        elif param.multiple:
            for item in value:
                argv += [flag, str(item)]
        else:
            argv += [flag, str(value)]
    return argv


def worker_env(command: _Command, values: Mapping[str, Any]) -> dict[str, str]:
    """The options of ``command`` that have an environment variable (the
    database and Redis URLs, which may hold passwords), as that environment
    for the workers: ``{"LIARS_DICE_DB": url, ...}``. A command line is
    readable by every user of the machine (``ps``); a process's environment
    only by its owner."""
    env: dict[str, str] = {}
    for param in command.params:
        name, var = getattr(param, "name", None), getattr(param, "envvar", None)
        if getattr(param, "param_type_name", None) == "option" and name and isinstance(var, str):
            value = values.get(name)
            if value not in (None, ""):
                env[var] = str(value)
    return env


def worker_socket(path: str, i: int) -> str:
    """Worker ``i``'s unix socket for ``--unix-socket path``: ``-i`` before the
    suffix (``/run/liars-dice/worker.sock`` -> ``/run/liars-dice/worker-0.sock``)."""
    p = PurePath(path)
    return str(p.with_name(f"{p.stem}-{i}{p.suffix}"))


def worker_command(i: int, port: int, argv: Sequence[str], unix_socket: str | None = None,
                   route: str | None = None) -> list[str]:
    """The command line of worker ``i``: ``liars-dice serve`` with ``argv``
    (every option but ``--workers``, ``--port``, ``--unix-socket`` and
    ``--route``) on port ``port + i``, or on :func:`worker_socket` of
    ``unix_socket`` when given; its route is ``route`` followed by ``i``."""
    where = ["--unix-socket", worker_socket(unix_socket, i)] if unix_socket else ["--port", str(port + i)]
    if route:
        where += ["--route", f"{route}{i}"]
    return [sys.executable, "-c", "from liars_dice.cli import main; main()", "serve", *argv, *where, "--workers", "1"]


def supervise(
    workers: int, port: int, argv: Sequence[str], env: Mapping[str, str] | None = None, unix_socket: str | None = None,
    route: str | None = None,
) -> int:
    """Run ``workers`` workers until SIGINT or SIGTERM, each with ``env`` added
    to this process's environment, on ports from ``port`` or on unix sockets
    named from ``unix_socket`` (:func:`worker_socket`), worker ``i``'s route
    ``route`` followed by ``i`` (:func:`worker_command`); returns the exit code (0)."""
    stopping = False

    def _stop(_sig: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    # The workers' metrics, summed by any one's /metrics (prometheus-client's
    # multiprocess mode): a directory of this run's own, removed at its end.
    from ..server.runtime.metrics import MULTIPROC_ENV, worker_gone

    shared = tempfile.mkdtemp(prefix="liars-dice-metrics-", dir=os.environ.get(MULTIPROC_ENV) or None)
    env = {**(env or {}), MULTIPROC_ENV: shared}
    try:
        return _supervise(workers, port, argv, env, unix_socket, route, lambda: stopping,
                          lambda pid: worker_gone(pid, shared))
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def _supervise(
    workers: int, port: int, argv: Sequence[str], env: Mapping[str, str], unix_socket: str | None,
    route: str | None, stopping: Callable[[], bool], gone: Callable[[int], None],
) -> int:
    procs: list[subprocess.Popen[bytes] | None] = [None] * workers
    died_at: list[float] = [0.0] * workers
    while not stopping():
        for i in range(workers):
            p = procs[i]
            if p is not None and p.poll() is not None:
                where = worker_socket(unix_socket, i) if unix_socket else f"port {port + i}"
                print(f"worker {i} ({where}) exited with {p.returncode}; starting it again", file=sys.stderr, flush=True)
                gone(p.pid)  # its gauges leave the sums
                procs[i], died_at[i] = None, time.monotonic()
            if procs[i] is None and time.monotonic() - died_at[i] >= RESTART_SECONDS:
                procs[i] = subprocess.Popen(worker_command(i, port, argv, unix_socket, route), env={**os.environ, **env})
        time.sleep(0.2)
    for p in procs:
        if p is not None and p.poll() is None:
            p.terminate()
    for p in procs:
        if p is not None:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
    return 0

"""Bots in seats: which bot plays for a person, and running a bot's decision
off the event loop (a strong bot may think for a while).

A decision runs on a thread of the worker (:data:`BOT_THREADS`), or, with
``Settings.bot_processes`` above 0, in processes of their own
(:class:`BotProcesses`) at a lower CPU priority: a table full of ``strong``
bots then no longer shares the worker's interpreter lock with the event loop
that answers the people, and when the machine is short of CPU the people's
moves are served first (issue 16: the attacker's ``bots_learn`` tables were
what kept the honest p99 over 100 ms on 2 workers).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import pickle
import random
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ...bots import REGISTRY, Bot, Decision, make_bot
from ...bots.names import DEFAULT_BOT
from ...engine import SeatView
from . import memory

log = logging.getLogger(__name__)

#: Preferred bots to play for a timed-out or departed person, strongest first.
PREFERRED = ("strong", "probabilistic", "random")

#: Threads that run the bots' decisions: a pool of their own, so that slow
#: database reads (the store's pool) never stop the bots' moves (issue 16
#: fault 10: with asyncio's shared default pool, 12 slow reads cut the bot
#: moves of the whole server from 52.7/s to 0.5/s).
BOT_THREADS = 4
_pool = ThreadPoolExecutor(BOT_THREADS, thread_name_prefix="liars-dice-bot")


def bot_kinds() -> list[str]:
    """Every registered bot kind (``random``, ``probabilistic``...), read at call
    time (bots merged later appear); the players' names of bots are
    :func:`liars_dice.bots.names.bot_names`."""
    return sorted(REGISTRY)


#: The bot the pages offer first: the terminal's default (``liars-dice play --bots``), issue 17 fault 1.
def default_bot() -> str:
    """The bots' default (:data:`liars_dice.bots.names.DEFAULT_BOT`, the terminal's
    too) if registered, else the strongest registered of :data:`PREFERRED`."""
    return DEFAULT_BOT if DEFAULT_BOT in REGISTRY else stand_in_name(None)


def stand_in_name(configured: str | None) -> str:
    """The bot that plays a move when the turn timer runs out, or takes over a
    seat: ``configured`` if registered, else the strongest of :data:`PREFERRED`."""
    if configured and configured in REGISTRY:
        return configured
    for name in PREFERRED:
        if name in REGISTRY:
            return name
    return bot_kinds()[0]


def new_bot(name: str) -> Bot:
    """:func:`liars_dice.bots.make_bot`, unseeded (online play)."""
    return make_bot(name)


def _start_bot_process(nice: int, trim_seconds: float = 10.0, worker: int | None = None) -> None:
    """A bot process's start: a lower CPU priority (``nice``), Ctrl+C left to
    the server, which closes the pool, and a thread that gives the process's
    freed memory back every ``trim_seconds`` (:func:`.memory.trim`; a
    ``strong`` bot's endgame positions are 17-30 MiB each, and the ones that
    leave its cache would otherwise stay with the process; 0: never)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice:
        try:
            os.nice(nice)
        except OSError:  # pragma: no cover - a nice value the system refuses
            pass
    if trim_seconds > 0:
        threading.Thread(target=_trim_every, args=(trim_seconds,), name="liars-dice-bot-trim", daemon=True).start()
    # The worker's pid as the worker gave it, not this process's parent now: a
    # worker killed while this process was still starting (spawn imports for
    # a second or more under load) had left it orphaned already, its parent
    # was init, and it watched init for good (seen in a loaded test run).
    watched = worker if worker is not None else os.getppid()
    threading.Thread(target=_exit_with, args=(watched,), name="liars-dice-bot-orphan", daemon=True).start()


#: seconds between two looks at whether a bot process's worker is still there
ORPHAN_CHECK_SECONDS = 1.0


def _exit_with(worker: int) -> None:
    """In a bot process: exit once its worker ``worker`` is gone (its parent
    changed). A worker killed with SIGKILL closes nothing, and a spawned pool
    process holds both ends of its own queue, so it never saw the end: stop
    31's attacker found 2 bot processes and the resource tracker per killed
    worker still there 800 s later (80-93 MiB each time, and the CPU of a
    decision under way). The resource tracker exits in turn once no process
    holds its pipe."""
    while os.getppid() == worker:
        time.sleep(ORPHAN_CHECK_SECONDS)
    os._exit(0)


def _trim_every(seconds: float) -> None:
    while True:
        time.sleep(seconds)
        memory.trim()


def _ready() -> int:
    """In a bot process: nothing but being there (its pid), so that the pool's
    processes start with the worker, not at its first bot decision."""
    return os.getpid()


def _decide_here(payload: bytes) -> bytes:
    """In a bot process: the pickled ``(bot, view)`` in, the pickled ``(decision,
    bot after it)`` out (the bot's state holds what it learned)."""
    bot, view = pickle.loads(payload)
    return pickle.dumps((bot.decide(view), bot), pickle.HIGHEST_PROTOCOL)


class BotProcesses:
    """Processes of their own for the bots' decisions (``Settings.bot_processes``).

    A bot goes to a process with the view and comes back with its decision and
    its state after it (a ``strong`` bot learns from the rounds it has seen),
    which is copied back into the worker's bot, so the seat's bot is one object
    wherever it thinks. A bot that cannot be pickled thinks on a thread. The pool's processes are started with ``spawn`` (the
    worker has threads), each with ``os.nice(nice)``. A process that dies (killed,
    out of memory) breaks the pool: the decisions that were waiting on it run
    on threads instead, the broken pool is shut down once, and one new pool is
    started, no sooner than ``restart_seconds`` after the last start, the
    decisions meanwhile running on threads (stop 31's attacker: one killed
    process with 30 decisions in flight started 51 pools, 104 processes, and
    the server stopped answering for 20 s, since every waiting decision
    started a pool of its own and shut down the one started before it).

    The processes are started at once, with the pool (and again with a new
    pool): their fixed cost (about 26 MiB each, what they import) is paid when
    the worker starts, and the first bot decisions find them ready.

    :param processes: how many processes (at least 1).
    :param nice: the processes' ``nice`` increment, 0-19 (10 by default).
    :param trim_seconds: seconds between two returns of a process's freed
        memory to the system (0: never).
    :param restart_seconds: the least time between two starts of a pool, so
        that processes that keep dying (out of memory) cost threads, not a
        storm of new interpreters.
    :raises ValueError: ``processes`` below 1.
    """

    def __init__(self, processes: int, nice: int = 10, trim_seconds: float = 10.0,
                 restart_seconds: float = 5.0) -> None:
        if processes < 1:
            raise ValueError(f"bot processes must be 1 or more, not {processes}")
        self.processes = processes
        self.nice = nice
        self.trim_seconds = trim_seconds
        self.restart_seconds = restart_seconds
        self.restarts = 0  #: pools started again after a process died
        self._started = time.monotonic()  # when the pool was last started
        self._pool: ProcessPoolExecutor | None = self._new_pool()
        self._closed = False

    def _new_pool(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start_bot_process, initargs=(self.nice, self.trim_seconds, os.getpid()))
        for _ in range(self.processes):  # each call finds no idle process, so the pool starts one
            pool.submit(_ready)
        return pool

    def pids(self) -> list[int]:
        """The process ids of the pool's processes started so far (none while
        a broken pool waits for its restart)."""
        if self._pool is None:
            return []
        return sorted(self._pool._processes)  # noqa: SLF001 - the executor names its processes nowhere else

    def _current(self) -> ProcessPoolExecutor | None:
        """The pool to send a decision to: a new one if the last broke and
        ``restart_seconds`` have passed since the last start, else None
        (the decision runs on a thread)."""
        if self._pool is None and not self._closed and time.monotonic() - self._started >= self.restart_seconds:
            self._pool, self._started = self._new_pool(), time.monotonic()
            self.restarts += 1
        return self._pool

    def _broken(self, pool: ProcessPoolExecutor) -> None:
        """``pool`` broke: set it aside, once, whichever of its waiting decisions sees it first."""
        if self._pool is pool:
            log.error("a bot process died: the decisions waiting on it run on threads, and a new pool starts "
                      "at a decision %.0f s or more after the last start", self.restart_seconds)
            self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)

    async def decide(self, bot: Bot, view: SeatView) -> Decision:
        """``bot.decide(view)`` in a bot process, ``bot`` updated in place.

        :raises Exception: what the bot's decision raised.
        """
        loop = asyncio.get_running_loop()
        try:
            payload = pickle.dumps((bot, view), pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - a bot that cannot travel thinks on a thread
            log.warning("bot %s cannot be sent to a bot process; it thinks on a thread", getattr(bot, "name", bot))
            return await loop.run_in_executor(_pool, bot.decide, view)
        pool = self._current()
        if pool is None:  # a broken pool waits for its restart
            return await loop.run_in_executor(_pool, bot.decide, view)
        try:
            decision: Decision
            decision, after = pickle.loads(await loop.run_in_executor(pool, _decide_here, payload))
        except BrokenProcessPool:
            self._broken(pool)
            return await loop.run_in_executor(_pool, bot.decide, view)
        vars(bot).update(vars(after))
        return decision

    def close(self) -> None:
        """Stop the processes (a decision under way is given up)."""
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


async def decide(bot: Bot, view: SeatView, where: str = "", processes: BotProcesses | None = None) -> Decision:
    """``bot.decide(view)`` on a thread of the bots' own pool
    (:data:`BOT_THREADS`), or in ``processes`` when given. A bot that raises is
    replaced, for this move, by a uniform choice among the legal actions."""
    try:
        if processes is not None:
            return await processes.decide(bot, view)
        return await asyncio.get_running_loop().run_in_executor(_pool, bot.decide, view)
    except Exception:  # noqa: BLE001 - a broken bot must not stall the table
        log.exception("bot %s failed %s", getattr(bot, "name", bot), where)
        return Decision(random.choice(view.legal_actions()))

"""The bots' own processes (``Settings.bot_processes``; runtime/bots_runner.py).

Issue 16's attack benchmark: on 2 workers, the attacker's ``bots_learn`` tables
of ``strong`` bots thought on threads of the workers, sharing the interpreter
lock with the event loop that answers the people. With ``bot_processes`` the
decisions run in processes of their own at a lower CPU priority. These tests
show a decision there is the bot's own (its state comes back), a dead process
costs no move, a bot that cannot travel still moves, and a whole game of
``strong`` bots on the real service ends that way.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from liars_dice.bots import Decision
from liars_dice.engine import Game, Rules, SeatView, SeededDice
from liars_dice.server.core.config import Settings
from liars_dice.server.core.tables import TableStatus
from liars_dice.server.runtime.bots_runner import BotProcesses, decide

from helpers import run_in_thread

from .bot_probe import LookingBot
from .test_store_faults import Service, until


class CountingBot:
    """The first legal action, with what a decision saw: the process it ran in,
    its nice value, and how many decisions this bot has made (state that must
    come back from the bot process)."""

    name = "counting"

    def __init__(self) -> None:
        self.decisions = 0
        self.pids: list[int] = []
        self.nice: int | None = None

    def decide(self, view: SeatView) -> Decision:
        self.decisions += 1
        self.pids.append(os.getpid())
        self.nice = os.nice(0)
        return Decision(view.legal_actions()[0])


class SleepyBot(CountingBot):
    """A counting bot that thinks for 0.3 s."""

    def decide(self, view: SeatView) -> Decision:
        time.sleep(0.3)
        return super().decide(view)


class LocalBot(CountingBot):
    """A bot that holds something pickle cannot carry (a lambda)."""

    def __init__(self) -> None:
        super().__init__()
        self.hook = lambda: None


def a_view() -> SeatView:
    game = Game.create(Rules.preset("classic"), ["p0", "p1", "p2"], [3, 3, 3])
    state = game.initial_state(0).roll(SeededDice(1))
    return state.view(state.to_move)


def test_a_decision_runs_in_a_lower_priority_process_and_the_bot_keeps_what_it_learned() -> None:
    pool = BotProcesses(1, nice=5)
    bot = CountingBot()
    view = a_view()

    async def go() -> list[Decision]:
        return [await pool.decide(bot, view) for _ in range(3)]

    try:
        decisions = run_in_thread(go())
    finally:
        pool.close()
    assert [d.action for d in decisions] == [view.legal_actions()[0]] * 3
    assert bot.decisions == 3, "the bot's state after each decision came back to the worker's bot"
    assert len(set(bot.pids)) == 1 and bot.pids[0] != os.getpid(), "the decisions ran in one other process"
    assert bot.nice == os.nice(0) + 5, "at the lower priority"


def test_the_processes_start_with_the_pool_not_at_the_first_decision() -> None:
    """The pool's fixed cost falls when the worker starts (stop 30's A/B saw
    +36% RSS inside the attack window: the process was born at the first bot
    decision there)."""
    pool = BotProcesses(2)
    try:
        deadline = time.monotonic() + 30
        while len(pool.pids()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        started = pool.pids()
    finally:
        pool.close()
    assert len(started) == 2 and os.getpid() not in started, "both processes were up before any decision"


def test_a_bot_process_holds_no_web_server_and_gives_its_freed_memory_back() -> None:
    """A bot process imports the bots, not FastAPI nor SQLAlchemy (26 against
    63 MiB at its start, benchmarks/bot_process_memory.py), and it runs the
    trims of its freed memory on a thread of its own."""
    pool = BotProcesses(1, trim_seconds=5)
    bot = LookingBot()
    try:
        run_in_thread(pool.decide(bot, a_view()))
    finally:
        pool.close()
    assert bot.pid not in (0, os.getpid())
    assert bot.heavy == [], f"the bot process imported {bot.heavy}"
    assert "liars-dice-bot-trim" in bot.threads


def test_a_bot_process_killed_costs_no_move_and_a_new_one_takes_over() -> None:
    pool = BotProcesses(1, restart_seconds=0)
    bot = CountingBot()
    view = a_view()

    async def go() -> None:
        await pool.decide(bot, view)
        os.kill(bot.pids[-1], signal.SIGKILL)
        await asyncio.sleep(0.5)
        await pool.decide(bot, view)  # the broken pool: this one on a thread of the worker
        await pool.decide(bot, view)  # and the next in the new pool's process

    try:
        run_in_thread(go())
    finally:
        pool.close()
    assert bot.decisions == 3 and pool.restarts == 1
    first, second, third = bot.pids
    assert second == os.getpid() and third not in (first, os.getpid())


def test_one_dead_process_with_many_decisions_waiting_starts_one_new_pool() -> None:
    """Stop 31's attacker: one SIGKILL with 30 decisions in flight started 51
    pools (104 processes; the server stopped answering for 20 s), since each
    waiting decision started a pool and shut down the one before it. Now the
    broken pool is set aside once; the decisions go to threads until
    ``restart_seconds`` have passed since the last start, and then one new
    pool takes the next."""
    pool = BotProcesses(1, restart_seconds=1.0)
    bots = [SleepyBot() for _ in range(12)]
    view = a_view()

    async def go() -> tuple[list[int], list[int]]:
        first = await pool.decide(bots[0], view)
        assert first is not None
        (victim,) = pool.pids()
        waiting = [asyncio.create_task(pool.decide(b, view)) for b in bots[1:]]
        await asyncio.sleep(0.1)  # one thinking in the process, ten queued behind it
        os.kill(victim, signal.SIGKILL)
        await asyncio.gather(*waiting)
        during = pool.pids()
        await asyncio.sleep(1.0)
        await pool.decide(bots[0], view)  # past restart_seconds: a new pool
        return during, pool.pids()

    try:
        during, after = run_in_thread(go())
    finally:
        pool.close()
    assert all(b.decisions >= 1 for b in bots), "every decision was made, the waiting ones on threads"
    assert during == [], "no pool was started while the broken one waited out restart_seconds"
    assert pool.restarts == 1 and len(after) == 1 and after != [victim_pid(bots)], (pool.restarts, after)


def victim_pid(bots: list[CountingBot]) -> int:
    """The process of the first decision (the one killed)."""
    return bots[0].pids[0]


def test_a_bot_that_cannot_be_pickled_thinks_on_a_thread(caplog: pytest.LogCaptureFixture) -> None:
    pool = BotProcesses(1)
    bot = LocalBot()

    try:
        d = run_in_thread(decide(bot, a_view(), "here", pool))
    finally:
        pool.close()
    assert d.action is not None and bot.pids == [os.getpid()]
    assert "cannot be sent to a bot process" in caplog.text


def test_the_settings_bound_the_processes_and_their_priority() -> None:
    assert Settings().bot_processes == 0, "the embedded default keeps bots on threads"
    assert Settings().with_overrides(["bot_processes=2", "bot_nice=19"]).bot_processes == 2
    with pytest.raises(ValueError, match="bot_nice takes at most 19"):
        Settings().with_overrides(["bot_nice=20"])
    with pytest.raises(ValueError, match="bot_processes takes at most 64"):
        Settings().with_overrides(["bot_processes=65"])


def test_a_game_of_strong_bots_ends_with_their_decisions_in_a_bot_process(tmp_path: Path) -> None:
    """The real service with ``bot_processes=1``: 3 strong bots (one a stand-in
    for the host, who left) play a game to its end."""
    from liars_dice.server.core.commands import AddBot, Start
    from liars_dice.server.core.messages import CreateTable
    from liars_dice.server.core.tables import Departure

    s = Service(tmp_path / "t.db", bot_delay=0.0, bot_processes=1, timeout_bot="strong")

    async def go() -> Any:
        svc = s.svc
        made = await svc.create_table(CreateTable(nickname="ann", seats=3, options={"dice_per_player": 2}), "ann", "http://x/")
        room = svc.rooms[made["code"]]
        for _ in range(2):
            await svc.run(room, AddBot(0, "strong"))
        await svc.run(room, Start(0, 0))
        await svc.leave(room, 0, Departure.LEAVE)
        await until(lambda: room.table.status is TableStatus.FINISHED, 120)
        pool = svc.turns.processes
        assert pool is not None and pool.restarts == 0
        workers = list(pool._pool._processes)  # noqa: SLF001 - the pool's live processes
        await s.close()
        return room, workers

    room, workers = run_in_thread(go())
    assert room.table.winner is not None
    assert workers and os.getpid() not in workers, "the decisions were made in a process of their own"


def test_the_bot_processes_exit_when_their_worker_is_killed(tmp_path: Path) -> None:
    """Stop 31's attacker: a worker killed with SIGKILL left its 2 bot
    processes and the resource tracker behind for good (ppid 1, 800 s later).
    A real worker process here: it starts a pool of 2, prints their pids, and
    is killed; both are gone within a few seconds."""
    code = ("import sys, time\n"
            "from liars_dice.server.runtime.bots_runner import BotProcesses\n"
            "pool = BotProcesses(2)\n"
            "while len(pool.pids()) < 2: time.sleep(0.05)\n"
            "time.sleep(1.0)\n"  # the processes' starts (their watch of the worker) are done
            "print(*pool.pids(), flush=True)\n"
            "time.sleep(600)\n")
    left = _left_after_killing(code, started=True)
    assert left == [], f"bot processes {left} outlived their worker"


def test_bot_processes_still_starting_exit_when_their_worker_is_killed() -> None:
    """A worker killed before its bot processes had started (spawn imports
    for a second or more under load): each process's parent was init by the
    time it looked, and it watched init for good (a loaded test run of stop
    34 found one still there). Killed here as soon as the pids exist."""
    code = ("import sys, time\n"
            "from liars_dice.server.runtime.bots_runner import BotProcesses\n"
            "pool = BotProcesses(2)\n"
            "while len(pool.pids()) < 2: time.sleep(0.01)\n"
            "print(*pool.pids(), flush=True)\n"
            "time.sleep(600)\n")
    left = _left_after_killing(code, started=False)
    assert left == [], f"bot processes {left} outlived their worker"


def _left_after_killing(code: str, *, started: bool) -> list[int]:
    """Run ``code`` as a worker (it prints its bot processes' pids), SIGKILL it
    once they are printed, and return those still running 20 s later (they
    are then killed). ``started``: check they run before the kill."""
    import subprocess
    import sys

    worker = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout is not None
        pids = [int(x) for x in worker.stdout.readline().split()]
        assert len(pids) == 2 and (not started or all(_alive(p) for p in pids))
        worker.kill()
        worker.wait(10)
        deadline = time.monotonic() + 20
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [p for p in pids if _alive(p)]
    finally:
        worker.kill()
    for p in left:
        os.kill(p, signal.SIGKILL)
    return left


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False

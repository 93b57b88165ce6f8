"""Fair turns for the bots' decisions (runtime/bot_queue.py).

Stop 31's attacker: 20 tables from one address under an accepted rules file
(9 faces, 10 dice), 6 ``strong`` bots each (250-500 ms of CPU per decision),
and the host gone; an honest table's bot then answered in 3.4-13.5 s instead of
3 ms, since every decision of the worker waited in one first-come queue. The
decisions now take the slots round-robin by the address that made the table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from liars_dice.server.core.commands import AddBot, Start
from liars_dice.server.core.messages import CreateTable
from liars_dice.server.core.tables import Departure
from liars_dice.server.runtime import bots_runner
from liars_dice.server.runtime.bot_queue import FairQueue

from helpers import run_in_thread

from .test_store_faults import Service, until


def test_a_key_with_many_waiting_gets_one_turn_in_each_round() -> None:
    """One slot held by ``a``, ten more of ``a`` waiting, then one of ``h``:
    ``h`` is served after one of ``a``, not after all ten."""
    q = FairQueue(1)
    order: list[str] = []

    async def one(key: str, hold: asyncio.Event) -> None:
        async with q.turn(key):
            order.append(key)
            await hold.wait()

    async def go() -> None:
        gates = [asyncio.Event() for _ in range(12)]
        tasks = [asyncio.create_task(one("a", gates[i])) for i in range(11)]
        await asyncio.sleep(0.01)
        tasks.append(asyncio.create_task(one("h", gates[11])))
        await asyncio.sleep(0.01)
        assert q.running == 1 and q.waiting() == 11
        for g in gates:
            g.set()  # each holder in turn lets go (a gate of one not yet served opens at its turn)
            await asyncio.sleep(0.01)
        await asyncio.gather(*tasks)

    asyncio.run(go())
    assert order.index("h") == 2, order
    assert q.running == 0 and q.waiting() == 0


def test_keys_take_turns_and_each_key_keeps_its_own_order() -> None:
    q = FairQueue(1)
    order: list[str] = []

    async def one(name: str) -> None:
        async with q.turn(name[0]):
            order.append(name)
            await asyncio.sleep(0)

    async def go() -> None:
        async with q.turn("x"):  # every one below waits
            tasks = [asyncio.create_task(one(n)) for n in ("a1", "a2", "a3", "b1", "b2", "c1")]
            await asyncio.sleep(0.01)
        await asyncio.gather(*tasks)

    asyncio.run(go())
    assert order == ["a1", "b1", "c1", "a2", "b2", "a3"]


def test_a_waiter_cancelled_gives_its_place_up_and_the_slots_are_never_lost() -> None:
    q = FairQueue(2)

    async def go() -> None:
        hold = asyncio.Event()

        async def holder(key: str) -> None:
            async with q.turn(key):
                await hold.wait()

        holders = [asyncio.create_task(holder(k)) for k in ("a", "b")]
        await asyncio.sleep(0.01)
        waiters = [asyncio.create_task(holder(k)) for k in ("a", "b", "c")]
        await asyncio.sleep(0.01)
        assert q.waiting() == 3
        waiters[1].cancel()
        await asyncio.sleep(0.01)
        assert q.waiting() == 2
        hold.set()
        await asyncio.gather(*holders, waiters[0], waiters[2])
        # cancelled at the moment its slot was handed over: the slot is passed on
        async with q.turn("x"), q.turn("y"):
            late = asyncio.create_task(holder("a"))
            await asyncio.sleep(0.01)
            other = asyncio.create_task(holder("b"))
            await asyncio.sleep(0.01)
        late.cancel()  # its future is done (the slot handed to it) but it has not run yet
        await asyncio.gather(late, other, return_exceptions=True)

    asyncio.run(go())
    assert q.running == 0 and q.waiting() == 0 and q.held == {}
    with pytest.raises(ValueError, match="1 slot or more"):
        FairQueue(0)


async def _settled(done: Callable[[], bool]) -> None:
    """Let the other tasks take turns until ``done()``: no clock, only the loop's
    own turns (at most 1,000)."""
    for _ in range(1000):
        if done():
            return
        await asyncio.sleep(0)  # one turn of the loop, not a wait on the clock
    raise AssertionError("the tasks never got there")


def test_no_key_holds_every_slot_and_a_freed_slot_goes_to_the_key_holding_fewest() -> None:
    """Issue 36, fault 8: one address's costly decisions held every slot, and
    another's waited for one of them to end. A key holds at most half the
    slots: another key's decision starts at once. A freed slot goes to the
    waiting key that holds the fewest."""
    q = FairQueue(4)
    order: list[str] = []

    async def go() -> None:
        gates = [asyncio.Event() for _ in range(11)]

        async def one(key: str, gate: asyncio.Event) -> None:
            async with q.turn(key):
                order.append(key)
                await gate.wait()

        attack = [asyncio.create_task(one("a", gates[i])) for i in range(8)]
        await _settled(lambda: q.waiting() == 6)
        assert q.running == 2 and q.held == {"a": 2} and q.waiting() == 6, "two of the four slots are kept from a"
        honest = asyncio.create_task(one("b", gates[8]))
        await _settled(lambda: order[-1] == "b")
        assert order[-1] == "b" and q.held == {"a": 2, "b": 1}, "b starts at once, with a's eight held or waiting"
        third = asyncio.create_task(one("c", gates[9]))
        await _settled(lambda: order[-1] == "c")
        assert order[-1] == "c" and q.held == {"a": 2, "b": 1, "c": 1}, "c takes the last slot"
        fourth = asyncio.create_task(one("d", gates[10]))
        await _settled(lambda: q.waiting() == 7)
        assert q.waiting() == 7
        gates[0].set()  # one of a's ends: its slot goes to d (holding none), not to a (holding 1)
        await _settled(lambda: order[-1] != "c")
        assert order[-1] == "d" and q.held == {"a": 1, "b": 1, "c": 1, "d": 1}, order
        for g in gates:
            g.set()
        await asyncio.gather(*attack, honest, third, fourth)

    asyncio.run(go())
    assert order.count("a") == 8 and q.running == 0 and q.held == {}
    assert [FairQueue(n).share for n in (1, 2, 3, 4, 5)] == [1, 1, 2, 2, 3]


def test_an_honest_tables_bot_moves_while_an_address_holds_all_it_may_and_more_wait(tmp_path: Path) -> None:
    """The real service: the address ``attacker`` holds every slot of the bots
    it may and 5 more of its decisions wait; an honest table's bot then moves
    at once, none of the attacker's having let go (issue 36, fault 8: before,
    the attacker held every slot and the honest bot waited for one to end)."""
    s = Service(tmp_path / "t.db", bot_delay=0.0)

    async def go() -> int:
        svc = s.svc
        queue = svc.turns.queue
        assert queue.slots == bots_runner.BOT_THREADS
        hold = asyncio.Event()

        async def attacker() -> None:
            async with queue.turn("attacker"):
                await hold.wait()

        held = [asyncio.create_task(attacker()) for _ in range(queue.slots + 5)]
        await until(lambda: queue.held.get("attacker") == queue.share, 5)
        waiting = queue.waiting()
        made = await svc.create_table(CreateTable(nickname="ann", seats=2), "ann", "http://x/", address="10.0.0.7")
        room = svc.rooms[made["code"]]
        assert room.creator == "10.0.0.7"
        await svc.run(room, AddBot(0, "probabilistic"))
        await svc.run(room, Start(0, 1))  # the bot (seat 1) opens
        await svc.leave(room, 0, Departure.LEAVE)
        moves = room.table.move_number
        await until(lambda: room.table.move_number > moves, 10)
        assert queue.held["attacker"] == queue.share and queue.waiting() == waiting
        hold.set()
        await asyncio.gather(*held, return_exceptions=True)
        await s.close()
        return waiting

    assert run_in_thread(go()) == 7


@pytest.mark.slow
def test_the_fairness_benchmark_runs() -> None:
    """``benchmarks/bot_fairness.py`` end to end on a tiny setting (its figures
    are in benchmarks/RESULTS.md): both phases, the honest table's moves counted."""
    import json
    import os
    import subprocess
    import sys

    bench = Path(__file__).resolve().parents[2] / "benchmarks"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, str(bench / "bot_fairness.py"), "--seconds", "1", "--warmup", "0"],
                         capture_output=True, text=True, timeout=300, env=env, cwd=bench)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    assert out.returncode == 0 and lines, out.stdout[-3000:] + out.stderr[-3000:]
    got = json.loads(lines[-1].removeprefix("RESULT "))
    assert set(got) == {"alone", "attacked", "ratio"} and got["alone"]["moves"] > 0, got

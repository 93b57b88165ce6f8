"""An honest table's bot under one address's costliest bots (issue 36, fault 8).

One worker's service in this process (SQLite, the bots' threads, no delay
before a bot's move, no reveal pause). The honest table: 6 seats of
``classic``, made from 10.0.0.7, every seat a ``strong`` bot (its host left, a
``strong`` stand-in plays for her). The attack: 8 tables (the per-address cap)
made from 10.0.0.66, 6 ``strong`` bots each at 9 faces and 10 dice (about
0.6 s of CPU a decision, against 6 ms in ``classic``). Each phase plays for
``--seconds`` after ``--warmup``: first the honest table alone, then with the
attack. A move's time is the time from the honest table's previous move to
it (the bot's wait for a slot, its decision, the store), each change of the
table's move number read every 5 ms; a finished honest game is replaced by a
new one. Prints each phase's median and p90 move time and the ratio of the
medians (with the attack / alone), then a ``RESULT {json}`` line.

    .venv/bin/python benchmarks/bot_fairness.py --seconds 20
    .venv/bin/python benchmarks/bot_fairness.py --seconds 20 --versus 6a44f91   # also the code of a git revision, in one run

``--versus REV`` runs this script on ``src/`` of ``REV`` (``git archive``) and
on this tree, one after the other, and prints both.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ATTACK_TABLES = 8  # Settings.open_tables_per_address
HUGE = {"faces": 9, "dice_per_player": 10}


async def _bots_table(svc: Any, address: str, seats: int, options: dict[str, int]) -> Any:
    from liars_dice.server.core.commands import AddBot, Start
    from liars_dice.server.core.messages import CreateTable
    from liars_dice.server.core.tables import Departure

    made = await svc.create_table(CreateTable(nickname="host", seats=seats, options=options), "host", "http://x/",
                                  address=address)
    room = svc.rooms[made["code"]]
    for _ in range(seats - 1):
        await svc.run(room, AddBot(0, "strong"))
    await svc.run(room, Start(0, 1))
    await svc.leave(room, 0, Departure.LEAVE)  # a strong stand-in takes the host's seat
    return room


async def _phase(svc: Any, seconds: float, warmup: float) -> list[float]:
    """The honest table's move times (s) over ``seconds`` after ``warmup``."""
    room = await _bots_table(svc, "10.0.0.7", 6, {})
    times: list[float] = []
    loop = asyncio.get_running_loop()
    start = loop.time()
    last_n, last_t = room.table.move_number, loop.time()
    while loop.time() - start < warmup + seconds:
        await asyncio.sleep(0.005)
        if room.table.status.value == "finished":
            room = await _bots_table(svc, "10.0.0.7", 6, {})
            last_n, last_t = room.table.move_number, loop.time()
            continue
        n = room.table.move_number
        if n != last_n:
            now = loop.time()
            if now - start > warmup:
                times.append((now - last_t) / max(1, n - last_n))
            last_n, last_t = n, now
    return times


async def _measure(seconds: float, warmup: float, folder: Path) -> dict[str, Any]:
    from liars_dice.server.core.config import Settings
    from liars_dice.server.runtime.db import make_engine, migrate
    from liars_dice.server.runtime.service import TableService
    from liars_dice.server.runtime.store import Store

    url = f"sqlite:///{folder / 'bots.db'}"
    engine = make_engine(url)
    migrate(engine)
    store = Store(engine)
    svc = TableService(Settings(db_url=url, bot_delay=0.0, reveal_seconds=0.0, grace=600.0, timeout_bot="strong",
                                open_tables_per_address=ATTACK_TABLES + 2), store)
    try:
        alone = await _phase(svc, seconds, warmup)
        for _ in range(ATTACK_TABLES):
            await _bots_table(svc, "10.0.0.66", 6, HUGE)
        attacked = await _phase(svc, seconds, warmup)
    finally:
        await svc.shutdown()
        await asyncio.to_thread(store.close)
        engine.dispose()
    out: dict[str, Any] = {}
    for name, got in (("alone", alone), ("attacked", attacked)):
        got.sort()  # no move at all in the phase: no median (None)
        out[name] = {"moves": len(got), "median_ms": round(1000 * statistics.median(got), 1) if got else None,
                     "p90_ms": round(1000 * got[int(0.9 * (len(got) - 1))], 1) if got else None}
    a, b = out["alone"]["median_ms"], out["attacked"]["median_ms"]
    out["ratio"] = round(b / a, 2) if a and b else None
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="measured seconds of each phase")
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--versus", default="", help="also run on src/ of this git revision, first")
    a = ap.parse_args()
    if a.versus:
        from _common import git_src

        results = {}
        for name, src in ((a.versus, git_src(a.versus)), ("this tree", Path(__file__).resolve().parents[1] / "src")):
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(Path(__file__).parent)])}
            out = subprocess.run([sys.executable, __file__, "--seconds", str(a.seconds), "--warmup", str(a.warmup)],
                                 capture_output=True, text=True, env=env, check=True).stdout
            results[name] = json.loads(out.rsplit("RESULT ", 1)[1])
            print(f"{name}: {json.dumps(results[name])}", flush=True)
        print("RESULT " + json.dumps(results))
        return
    import liars_dice

    with tempfile.TemporaryDirectory(prefix="ld-bot-fairness-") as folder:
        t0 = time.monotonic()
        got = asyncio.run(_measure(a.seconds, a.warmup, Path(folder)))
    print(f"liars_dice from {Path(liars_dice.__file__).parent}; {time.monotonic() - t0:.0f} s")
    for name in ("alone", "attacked"):
        print(f"{name}: {got[name]['moves']} moves, median {got[name]['median_ms']} ms, p90 {got[name]['p90_ms']} ms")
    print(f"median with the attack / alone: {got['ratio']}x")
    print("RESULT " + json.dumps(got))


if __name__ == "__main__":
    main()

"""Memory after finished games (issue 16 fault 12): does RSS come back once
finished tables have left memory?

Runs the real runtime in-process (``TableService`` over a ``Store`` on a
fresh SQLite file; no sockets): ``--batches`` batches of ``--games`` games,
each a table of ``--seats`` random bots (the host leaves at once, a stand-in
plays), ``--parallel`` at a time. After each batch it waits for the finished
tables to leave memory (``finished_ttl`` 0.2 s), collects garbage, and
prints RSS (``/proc/self/status`` VmRSS) and the rooms still held. With
``--trace`` it also prints the top allocation sites grown between the end
of the first batch and the end of the last (tracemalloc).

    PYTHONPATH=src python benchmarks/finished_memory.py --games 300 --batches 3 [--trim]

``--trim`` calls :func:`liars_dice.server.runtime.memory.trim` after each
batch, as a served worker does every ``trim_seconds``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import tempfile
import time
import tracemalloc
from pathlib import Path


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def main(args: argparse.Namespace) -> None:
    from liars_dice.server import Settings
    from liars_dice.server.core.commands import AddBot, Start
    from liars_dice.server.core.messages import CreateTable
    from liars_dice.server.core.tables import Departure, TableStatus
    from liars_dice.server.runtime.db import make_engine, migrate
    from liars_dice.server.runtime.service import TableService
    from liars_dice.server.runtime.memory import trim
    from liars_dice.server.runtime.store import Store

    tmp = Path(tempfile.mkdtemp(prefix="liars-mem-"))
    url = f"sqlite:///{tmp / 'mem.db'}"
    engine = make_engine(url)
    migrate(engine)
    store = Store(engine)
    settings = Settings(db_url=url, grace=600.0, bot_delay=0.0, timeout_bot="random", finished_ttl=0.2)
    svc = TableService(settings, store)

    async def game() -> None:
        made = await svc.create_table(
            CreateTable(nickname="ann", seats=args.seats, options={"dice_per_player": args.dice}), "ann", "http://x/"
        )
        room = svc.rooms[made["code"]]
        for _ in range(args.seats - 1):
            await svc.run(room, AddBot(0, "random"))
        await svc.run(room, Start(0, 0))
        await svc.leave(room, 0, Departure.LEAVE)
        while room.table.status is not TableStatus.FINISHED:
            await asyncio.sleep(0.02)

    async def batch() -> None:
        sem = asyncio.Semaphore(args.parallel)

        async def one() -> None:
            async with sem:
                await game()

        await asyncio.gather(*(one() for _ in range(args.games)))
        while svc.rooms:
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.3)
        gc.collect()
        if args.trim:  # what the server's Trimmer does every trim_seconds (runtime/memory.py)
            trim()

    print(f"start: RSS {rss_mb():.1f} MB")
    snap = None
    for b in range(1, args.batches + 1):
        t0 = time.perf_counter()
        await batch()
        print(f"after batch {b} ({args.games} games, {time.perf_counter() - t0:.1f} s): RSS {rss_mb():.1f} MB, "
              f"rooms held {len(svc.rooms)}, learner cache {len(svc.learner.cache)}")
        if args.trace and b == 1:
            tracemalloc.start(25)
            snap = tracemalloc.take_snapshot()
    if snap is not None:
        later = tracemalloc.take_snapshot()
        for stat in later.compare_to(snap, "traceback")[:8]:
            print(stat)
            for line in stat.traceback.format()[-8:]:
                print("   ", line)
    await svc.shutdown()
    store.close()
    engine.dispose()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--batches", type=int, default=3)
    ap.add_argument("--parallel", type=int, default=20)
    ap.add_argument("--seats", type=int, default=3)
    ap.add_argument("--dice", type=int, default=3)
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--trim", action="store_true", help="give the C heap's free pages back after each batch (malloc_trim)")
    asyncio.run(main(ap.parse_args()))

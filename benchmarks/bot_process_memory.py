"""Resident memory of one bot process (``Settings.bot_processes``), in this tree
and in a baseline tree, run in turn in the same session.

A worker with ``--limit bot_processes=N`` sends its bots' decisions to N
processes of its own (runtime/bots_runner.py). Each costs memory: what it
imports, and what its bots build while thinking (a ``strong`` bot's endgame
positions, 17-30 MiB each, solver/endgame.py). This script starts one such pool
in a fresh interpreter, plays ``--games`` whole games of ``strong`` bots through
it, and reads the process's RSS (``/proc/PID/status``) at three moments:

- *started*: once the process is up and has made one decision;
- *peak*: the highest RSS seen after any decision of the games;
- *idle*: ``--idle`` seconds after the last decision (what the process gives
  back by itself: freed pages, trimmed or not).

It prints the medians over ``--rounds`` interpreters per tree, and the ratios
baseline / this tree. The default baseline is ``0bfd703``, the tree in which the
processes were first measured (108-111 MiB each, benchmarks/RESULTS.md).

Run from the repository root::

    .venv/bin/python benchmarks/bot_process_memory.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from _common import git_src

CHILD = r"""
import asyncio, json, sys, time
from liars_dice.bots import make_bot
from liars_dice.engine import Game, Rules, SeededDice
from liars_dice.server.runtime.bots_runner import BotProcesses

games, idle = int(sys.argv[1]), float(sys.argv[2])


def rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def main():
    pool = BotProcesses(1)
    out = {}
    try:
        state = Game.create(Rules.preset("classic"), ["a", "b"], [2, 2]).initial_state(0).roll(SeededDice(0))
        await pool.decide(make_bot("random"), state.view(state.to_move))
        (pid,) = pool._pool._processes  # the one process of the pool
        out["started"] = rss_mib(pid)
        peak, decisions = 0.0, 0
        for g in range(games):
            preset = ("classic", "perudo", "aces-wild")[g % 3]
            game = Game.create(Rules.preset(preset), ["a", "b", "c"], [3, 3, 3])
            bots = [make_bot("strong", seed=g * 10 + s) for s in range(3)]
            state = game.initial_state(0).roll(SeededDice(g))
            while not state.is_over:
                if state.is_chance:
                    state = state.roll(SeededDice(g * 1000 + decisions))
                    continue
                seat = state.to_move
                d = await pool.decide(bots[seat], state.view(seat))
                state = state.apply(d.action, d.show)
                decisions += 1
                peak = max(peak, rss_mib(pid))
        out["peak"], out["decisions"] = peak, decisions
        time.sleep(idle)
        out["idle"] = rss_mib(pid)
    finally:
        pool.close()
    print(json.dumps(out))


asyncio.run(main())
"""


def measure(src: Path, games: int, idle: float) -> dict[str, float]:
    """``{"started", "peak", "idle": MiB, "decisions": n}`` of one bot process in tree ``src``."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(games), str(idle)], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(src)})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default="0bfd703", help="the git revision to compare with ('' for none)")
    ap.add_argument("--games", type=int, default=6, help="games of 3 strong bots per interpreter")
    ap.add_argument("--idle", type=float, default=15.0, help="seconds between the last decision and the idle reading")
    ap.add_argument("--rounds", type=int, default=3, help="interpreters per tree, the trees taking turns")
    args = ap.parse_args()

    here = Path(__file__).resolve().parent.parent / "src"
    peer_src = git_src(args.baseline) if args.baseline else None
    mine: list[dict[str, float]] = []
    peer: list[dict[str, float]] = []
    for _ in range(args.rounds):
        mine.append(measure(here, args.games, args.idle))
        if peer_src is not None:
            peer.append(measure(peer_src, args.games, args.idle))

    def line(name: str, runs: list[dict[str, float]]) -> dict[str, float]:
        med = {k: statistics.median(r[k] for r in runs) for k in ("started", "peak", "idle")}
        each = "; ".join(f"{r['started']:.0f}/{r['peak']:.0f}/{r['idle']:.0f}" for r in runs)
        print(f"{name}: one bot process, MiB started / peak / idle: medians {med['started']:.1f} / "
              f"{med['peak']:.1f} / {med['idle']:.1f} over {len(runs)} runs ({each}; "
              f"{runs[0]['decisions']:.0f} decisions each)")
        return med

    m = line("this tree", mine)
    if peer_src is not None:
        p = line(f"baseline {args.baseline}", peer)
        print("ratio baseline / this tree: " + ", ".join(f"{k} {p[k] / m[k]:.2f}x" for k in ("started", "peak", "idle")))
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

"""Two figures for `liars-dice play` (issue 2, "Done when"):

1. How long a 6-player ``liars-dice play --watch`` game takes, wall clock, the
   real command as a subprocess: median of ``--runs`` games (seeds 1..runs) per
   preset. Peer: the start-up of the same command (``liars-dice play --help``),
   which every game pays; the ratio shows how much of a game is start-up.
2. Random-bot games per second, 4-player ``classic``, in process through
   :func:`liars_dice.match.play_game` (the checked loop ``--watch`` uses),
   median of ``--runs`` batches. Peer: the same games through a bare engine
   loop with :meth:`State.apply_unchecked` (the fast path solvers use).

Usage::

    .venv/bin/python benchmarks/play_speed.py            # both figures
    .venv/bin/python benchmarks/play_speed.py --runs 7 --games 300

The machine is shared and noisy: quote medians, not single runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from liars_dice.bots import make_bot
from liars_dice.engine import Game, Rules, SeededDice
from liars_dice.match import play_game

CLI = str(Path(sys.executable).parent / "liars-dice")
PRESETS = ("wild-stars", "aces-wild", "classic")


def _wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.strip()}")
    return dt


def watch_times(runs: int) -> None:
    start_up = statistics.median(_wall([CLI, "play", "--help"]) for _ in range(runs))
    print(f"start-up peer: `liars-dice play --help` median {start_up:.3f} s over {runs} runs")
    print(f"{'preset':<11} {'median s':>9} {'min s':>7} {'max s':>7} {'x start-up':>11}")
    for preset in PRESETS:
        times = [
            _wall([CLI, "play", "--watch", "--rules", preset, "--players", "6", "--seed", str(seed)])
            for seed in range(1, runs + 1)
        ]
        med = statistics.median(times)
        print(f"{preset:<11} {med:>9.3f} {min(times):>7.3f} {max(times):>7.3f} {med / start_up:>11.2f}")


def _checked_batch(games: int, offset: int) -> float:
    game = Game.create(Rules.preset("classic"), ["a", "b", "c", "d"])
    t = time.perf_counter()
    for g in range(offset, offset + games):
        bots = [make_bot("random", 4 * g + i) for i in range(4)]
        play_game(game, bots, SeededDice(g), start=g % 4)
    return games / (time.perf_counter() - t)


def _unchecked_batch(games: int, offset: int) -> float:
    game = Game.create(Rules.preset("classic"), ["a", "b", "c", "d"])
    t = time.perf_counter()
    for g in range(offset, offset + games):
        rng, dice = random.Random(g), SeededDice(g)
        s = game.initial_state(g % 4)
        while not s.is_over:
            s = s.roll(dice) if s.is_chance else s.apply_unchecked(rng.choice(s.legal_actions()))
    return games / (time.perf_counter() - t)


def games_per_second(runs: int, games: int) -> None:
    checked = [_checked_batch(games, 10_000 * r) for r in range(runs)]
    unchecked = [_unchecked_batch(games, 10_000 * r) for r in range(runs)]
    mc, mu = statistics.median(checked), statistics.median(unchecked)
    print(f"random-bot games/s, 4-player classic, {games} games per batch, median of {runs} batches:")
    print(f"  play_game (checked, bots see views): {mc:8.1f}  (min {min(checked):.1f}, max {max(checked):.1f})")
    print(f"  peer, bare apply_unchecked loop:     {mu:8.1f}  (min {min(unchecked):.1f}, max {max(unchecked):.1f})")
    print(f"  ratio checked / unchecked:           {mc / mu:8.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="runs per figure (median taken); default 5")
    ap.add_argument("--games", type=int, default=200, help="games per games/s batch; default 200")
    ap.add_argument("--only", choices=("watch", "rate"), help="measure one figure only")
    args = ap.parse_args()
    if args.only in (None, "watch"):
        watch_times(args.runs)
    if args.only in (None, "rate"):
        games_per_second(args.runs, args.games)


if __name__ == "__main__":
    main()

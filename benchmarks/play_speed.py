"""Two figures for `liars-dice play` (issue 2, "Done when"):

1. How long a 6-player ``liars-dice play --watch`` game takes, the real
   command as a subprocess: median of ``--runs`` games (seeds 1..runs) per
   preset, wall clock and CPU (user + system) seconds. Peer: the start-up of
   the same command (``liars-dice play --help``), which every game pays; the
   CPU ratio shows how much more a game costs than starting up.
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
import resource
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


def _timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def watch_times(runs: int) -> None:
    """Runs interleave start-up and games, so load changes hit both alike."""
    start_up: list[tuple[float, float]] = []
    games: dict[str, list[tuple[float, float]]] = {p: [] for p in PRESETS}
    for seed in range(1, runs + 1):
        start_up.append(_timed([CLI, "play", "--help"]))
        for preset in PRESETS:
            games[preset].append(
                _timed([CLI, "play", "--watch", "--rules", preset, "--players", "6", "--seed", str(seed)])
            )
    su_wall = statistics.median(w for w, _ in start_up)
    su_cpu = statistics.median(c for _, c in start_up)
    print(f"6-player `play --watch` games, seeds 1..{runs}, median of {runs}, seconds:")
    print(f"{'':<11} {'wall':>6} {'min':>6} {'max':>6} {'cpu':>6} {'cpu x start-up':>15}")
    print(f"{'start-up':<11} {su_wall:>6.3f} {min(w for w, _ in start_up):>6.3f} "
          f"{max(w for w, _ in start_up):>6.3f} {su_cpu:>6.3f} {1.0:>15.2f}   (peer: `liars-dice play --help`)")
    for preset in PRESETS:
        walls = [w for w, _ in games[preset]]
        cpu = statistics.median(c for _, c in games[preset])
        print(f"{preset:<11} {statistics.median(walls):>6.3f} {min(walls):>6.3f} {max(walls):>6.3f} "
              f"{cpu:>6.3f} {cpu / su_cpu:>15.2f}")


def _checked_batch(games: int, offset: int) -> tuple[float, float]:
    """Games per wall second and per CPU second."""
    game = Game.create(Rules.preset("classic"), ["a", "b", "c", "d"])
    t, c = time.perf_counter(), time.process_time()
    for g in range(offset, offset + games):
        bots = [make_bot("random", 4 * g + i) for i in range(4)]
        play_game(game, bots, SeededDice(g), start=g % 4)
    return games / (time.perf_counter() - t), games / (time.process_time() - c)


def _unchecked_batch(games: int, offset: int) -> tuple[float, float]:
    game = Game.create(Rules.preset("classic"), ["a", "b", "c", "d"])
    t, c = time.perf_counter(), time.process_time()
    for g in range(offset, offset + games):
        rng, dice = random.Random(g), SeededDice(g)
        s = game.initial_state(g % 4)
        while not s.is_over:
            s = s.roll(dice) if s.is_chance else s.apply_unchecked(rng.choice(s.legal_actions()))
    return games / (time.perf_counter() - t), games / (time.process_time() - c)


def games_per_second(runs: int, games: int) -> None:
    checked: list[tuple[float, float]] = []
    unchecked: list[tuple[float, float]] = []
    for r in range(runs):  # interleaved, so load changes hit both alike
        checked.append(_checked_batch(games, 10_000 * r))
        unchecked.append(_unchecked_batch(games, 10_000 * r))
    print(f"random-bot games/s, 4-player classic, {games} games per batch, median of {runs} batches:")
    print(f"  {'':<38} {'wall':>7} {'min':>7} {'max':>7} {'per CPU s':>10}")
    meds = []
    for label, rows in (("play_game (checked, bots see views)", checked),
                        ("peer: bare apply_unchecked loop", unchecked)):
        walls = [w for w, _ in rows]
        cpu = statistics.median(c for _, c in rows)
        meds.append((statistics.median(walls), cpu))
        print(f"  {label:<38} {meds[-1][0]:>7.1f} {min(walls):>7.1f} {max(walls):>7.1f} {cpu:>10.1f}")
    print(f"  ratio checked / unchecked: wall {meds[0][0] / meds[1][0]:.2f}, CPU {meds[0][1] / meds[1][1]:.2f}")


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

"""Engine speed: random playouts per second on the `openspiel` preset against
OpenSpiel's own `liars_dice` (pyspiel, C++), side by side in one process run.

Both sides play the same game: two players, one round, the highest face (6)
wild, a raise is a higher quantity of any face or the same quantity of a
higher face, and the game ends at the first challenge. A playout starts from
the initial state, rolls the dice from a seeded source, and picks uniformly
among the legal actions until the game ends. Python drives both loops, so the
figure is what a bot, solver or arena written in Python gets from each engine.

    ours:    state.roll(dice) / rng.choice(state.legal_actions()) / state.apply_unchecked(a)
    ours (checked): the same with the checked state.apply(a)
    pyspiel: rng.choice(state.chance_outcomes()) / rng.choice(state.legal_actions()) / state.apply_action(a)

OpenSpiel rolls one die per chance node; ours rolls a whole deal in one call.

Run: .venv/bin/python benchmarks/engine_vs_openspiel.py [--playouts 20000] [--repeats 7]
Needs the `openspiel` extra: .venv/bin/pip install -e '.[openspiel]'
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from collections.abc import Callable

from _common import our_game, our_playouts, pyspiel_runner, require_pyspiel

from liars_dice.engine import SeededDice


def ours(dice_each: int, checked: bool = False) -> Callable[[int, int], float]:
    """A runner of ``n`` random playouts of our engine; returns playouts per second."""
    game = our_game(dice_each)

    def run(n: int, seed: int) -> float:
        rng, dice = random.Random(seed), SeededDice(seed)
        t = time.perf_counter()
        our_playouts(game, n, rng, dice, checked)
        return n / (time.perf_counter() - t)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--playouts", type=int, default=20_000, help="playouts per timed run (1 die each; 5 dice: a quarter)")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per side; the median is reported")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON as well")
    args = parser.parse_args()
    require_pyspiel()

    rows = []
    for dice_each in (1, 5):
        n = args.playouts if dice_each == 1 else max(1, args.playouts // 4)
        runners = {
            "ours": ours(dice_each),
            "ours (checked apply)": ours(dice_each, checked=True),
            "pyspiel": pyspiel_runner(dice_each),
        }
        for run in runners.values():  # warm-up
            run(max(1, n // 20), 0)
        rates: dict[str, list[float]] = {k: [] for k in runners}
        for r in range(args.repeats):  # interleaved, so machine noise hits every side alike
            for name, run in runners.items():
                rates[name].append(run(n, r + 1))
        med = {k: statistics.median(v) for k, v in rates.items()}
        rows.append({
            "dice_each": dice_each,
            "playouts_per_run": n,
            "median_playouts_per_s": {k: round(v) for k, v in med.items()},
            "ratio_ours_to_pyspiel": round(med["ours"] / med["pyspiel"], 3),
            "ratio_checked_to_pyspiel": round(med["ours (checked apply)"] / med["pyspiel"], 3),
        })

    print(f"Random playouts per second, `openspiel` preset vs pyspiel liars_dice "
          f"(median of {args.repeats} runs; Python {platform.python_version()})")
    print(f"{'dice each':>9}  {'ours':>10}  {'ours checked':>12}  {'pyspiel':>10}  {'ours/pyspiel':>12}  {'checked/pyspiel':>15}")
    for row in rows:
        m = row["median_playouts_per_s"]
        print(f"{row['dice_each']:>9}  {m['ours']:>10,}  {m['ours (checked apply)']:>12,}  {m['pyspiel']:>10,}  "
              f"{row['ratio_ours_to_pyspiel']:>12.2f}  {row['ratio_checked_to_pyspiel']:>15.2f}")
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

"""Batched engine speed: random playouts per second of `liars_dice.batch` at
B = 1,024 games against OpenSpiel's own `liars_dice` (pyspiel, C++), side by
side in one process run, runs interleaved.

Both sides play the same game: the `openspiel` preset (two players, one round,
the highest face wild, plain raises, the game ends at the first challenge)
with 5 dice each by default. A playout rolls the dice and picks uniformly
among the legal actions until the game ends.

    batch:         g.step(g.sample_legal()); finished games restart in place (autoreset)
    batch (mask):  the same, drawing each game's action from g.legal_mask()
                   (the full (B, n_actions) mask, as an RL policy would see it)
    pyspiel:       rng.choice(state.chance_outcomes()) / rng.choice(state.legal_actions()) / state.apply_action(a)

A batched run counts only games that finished within it.

Run: .venv/bin/python benchmarks/batch_vs_openspiel.py [--dice 5] [--batch 1024] [--repeats 7]
Needs the `openspiel` extra: .venv/bin/pip install -e '.[openspiel]'
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np
from _common import pyspiel_runner, require_pyspiel

from liars_dice.batch import BatchGame
from liars_dice.engine import Rules


def batched(dice_each: int, batch: int, mask: bool = False) -> Callable[[int, int], float]:
    """A runner of at least ``n`` batched random playouts; returns playouts per second."""

    def run(n: int, seed: int) -> float:
        g = BatchGame(Rules.preset("openspiel"), 2, batch, dice=dice_each, seed=seed)
        rng = np.random.default_rng(seed)
        done = 0
        t = time.perf_counter()
        while done < n:
            if mask:
                legal = g.legal_mask()
                pick = (rng.random(batch) * legal.sum(axis=1)).astype(np.int64)
                actions = (np.cumsum(legal, axis=1) > pick[:, None]).argmax(axis=1)
            else:
                actions = g.sample_legal()
            done += int(np.count_nonzero(g.step(actions, check=False, autoreset=True).game_over))
        return done / (time.perf_counter() - t)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dice", type=int, default=5, help="dice each (default 5)")
    parser.add_argument("--batch", type=int, default=1024, help="games stepped at once (default 1024)")
    parser.add_argument("--playouts", type=int, default=5_000, help="pyspiel playouts per timed run (batched: 40x)")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per side; the median is reported")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON as well")
    args = parser.parse_args()
    require_pyspiel()

    n = args.playouts
    runners = {
        "batch": (batched(args.dice, args.batch), 40 * n),
        "batch (mask)": (batched(args.dice, args.batch, mask=True), 10 * n),
        "pyspiel": (pyspiel_runner(args.dice), n),
    }
    for run, k in runners.values():  # warm-up
        run(max(1, k // 20), 0)
    rates: dict[str, list[float]] = {k: [] for k in runners}
    for r in range(args.repeats):  # interleaved, so machine noise hits every side alike
        for name, (run, k) in runners.items():
            rates[name].append(run(k, r + 1))
    med = {k: statistics.median(v) for k, v in rates.items()}
    row = {
        "dice_each": args.dice,
        "batch": args.batch,
        "repeats": args.repeats,
        "median_playouts_per_s": {k: round(v) for k, v in med.items()},
        "ratio_batch_to_pyspiel": round(med["batch"] / med["pyspiel"], 2),
        "ratio_batch_mask_to_pyspiel": round(med["batch (mask)"] / med["pyspiel"], 2),
    }
    print(f"Random playouts per second, `openspiel` preset, {args.dice} dice each, B = {args.batch:,} "
          f"vs pyspiel liars_dice (median of {args.repeats} runs; Python {platform.python_version()}, "
          f"numpy {np.__version__})")
    m = row["median_playouts_per_s"]
    print(f"{'batch':>12}  {'batch (mask)':>12}  {'pyspiel':>10}  {'batch/pyspiel':>13}  {'mask/pyspiel':>12}")
    print(f"{m['batch']:>12,}  {m['batch (mask)']:>12,}  {m['pyspiel']:>10,}  "
          f"{row['ratio_batch_to_pyspiel']:>13.2f}  {row['ratio_batch_mask_to_pyspiel']:>12.2f}")
    if args.json:
        print(json.dumps(row, indent=1))


if __name__ == "__main__":
    main()

"""The CFR equilibrium value of the ``openspiel`` preset through our Python
OpenSpiel game (issue 10): OpenSpiel's own C++ CFR+ solver on
``cached_tree(python_liars_dice_ld(rules=openspiel, dice=1))`` (one round, one die
each), against the known value -7/258 and against the same solver on OpenSpiel's
C++ ``liars_dice``.

The test suite checks the value after 75 iterations
(tests/test_openspiel_cfr_value.py); this script shows the whole convergence on
both games side by side; its figures are in benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/openspiel_cfr_value.py --iterations 300
"""

from __future__ import annotations

import argparse
import time

import pyspiel

import liars_dice.integrations.openspiel  # noqa: F401  (registers python_liars_dice_ld)

TARGET = -7 / 258


def value(game: object, iterations: int, report: list[int]) -> list[tuple[int, float, float]]:
    solver = pyspiel.CFRPlusSolver(game)
    out = []
    t = time.perf_counter()
    for i in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if i in report:
            v = pyspiel.expected_returns(game.new_initial_state(), solver.average_policy(), -1, True)[0]
            out.append((i, v, time.perf_counter() - t))
            print(f"  {i:5d} iterations: value {v:+.6f} (error {v - TARGET:+.6f}), {time.perf_counter() - t:.0f} s", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=300)
    args = ap.parse_args()
    report = sorted({50, 100, 200, args.iterations} & set(range(1, args.iterations + 1)))
    print(f"target -7/258 = {TARGET:.6f}")
    print("OpenSpiel C++ liars_dice, C++ CFR+:")
    value(pyspiel.load_game("liars_dice"), args.iterations, report)
    print("our python_liars_dice_ld (openspiel preset, 1 die each) under cached_tree, C++ CFR+:")
    value(pyspiel.load_game("cached_tree(game=python_liars_dice_ld(dice=1,players=2,rules=openspiel))"), args.iterations, report)


if __name__ == "__main__":
    main()

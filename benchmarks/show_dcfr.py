"""Discounted CFR against CFR+ on the same ``wild-stars`` show trees (issue 11;
docs/solver.md "Show-and-reroll").

For each round and bid cap, runs :class:`~liars_dice.solver.shows.ShowCFRPlus`
(the peer: OpenSpiel's CFR+ loop) and :class:`~liars_dice.solver.shows.ShowDCFR`
(Brown & Sandholm, AAAI 2019; alpha 1.5, beta 0, gamma 2) on one tree, checking
the average policy's exploitability every 10 iterations, until it is at most
the target; prints the iterations and CPU seconds of each (checks included) and
the ratios CFR+ / DCFR, and the values they reach.

    .venv/bin/python benchmarks/show_dcfr.py --rounds 2,1,3 2,1,4 1,2,4 --target 0.001
"""

from __future__ import annotations

import argparse
import time

from liars_dice.engine import Rules
from liars_dice.solver.shows import ShowCFRPlus, ShowDCFR, ShowGame, ShowTree


def run(game: ShowGame, algo: type[ShowCFRPlus], target: float, limit: int) -> tuple[int, float, float, float]:
    """``(iterations, CPU seconds, exploitability, value)`` of one solve to ``target``."""
    cfr = algo(game)
    start = time.process_time()
    expl = float("inf")
    while cfr.iterations < limit:
        cfr.iterate(10)
        expl = game.exploitability(cfr.average_policy())
        if expl <= target:
            break
    seconds = time.process_time() - start
    return cfr.iterations, seconds, expl, game.expected_value(cfr.average_policy())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", nargs="+", default=["2,1,3", "2,1,4", "1,2,4"], help="a,b,cap: dice and bid cap")
    ap.add_argument("--target", type=float, default=1e-3)
    ap.add_argument("--limit", type=int, default=3000, help="most iterations of one solve")
    a = ap.parse_args()
    rules = Rules.preset("wild-stars")
    print("| round | bids per history | CFR+ iterations | CFR+ CPU s | DCFR iterations | DCFR CPU s "
          "| iterations CFR+/DCFR | CPU CFR+/DCFR | value CFR+ | value DCFR |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for spec in a.rounds:
        x, y, cap = (int(v) for v in spec.split(","))
        game = ShowGame(ShowTree(rules, (x, y), cap))
        ci, cs, ce, cv = run(game, ShowCFRPlus, a.target, a.limit)
        di, ds, de, dv = run(game, ShowDCFR, a.target, a.limit)
        print(f"| {x} vs {y} | at most {cap} | {ci} | {cs:.1f} | {di} | {ds:.1f} | {ci / di:.2f} | {cs / ds:.2f} "
              f"| {cv:+.5f} ({ce:.5f}) | {dv:+.5f} ({de:.5f}) |", flush=True)


if __name__ == "__main__":
    main()

"""Solver benchmark (issue 3, section 7): time to exploitability <= 0.001 on
`openspiel` 1 vs 1, our CFR+ against OpenSpiel's C++ ``CFRPlusSolver`` on
``liars_dice``, side by side in one process.

    .venv/bin/pip install open_spiel   # or: pip install -e '.[openspiel]'
    .venv/bin/python benchmarks/solver_vs_openspiel.py [--repeats 5] [--openspiel-repeats 1]

Ours: wall time of ``liars_dice.solve`` (tree building and an exact
exploitability check every 10 iterations included). OpenSpiel: the summed time
of ``evaluate_and_update_policy`` calls only, up to the first checkpoint at
which ``pyspiel.exploitability`` of the average policy is <= the target; its
checks (about 12 s each here) are not counted, in OpenSpiel's favour.
Checkpoints: every 50 iterations, then every 10 from iteration 250.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time


def ours(target: float) -> dict[str, float]:
    from liars_dice.solver import solve

    r = solve("openspiel", (1, 1), target_exploitability=target)
    return {"seconds": r.seconds, "iterations": r.iterations, "exploitability": r.exploitability}


def openspiel(target: float, max_iterations: int = 2000) -> dict[str, float]:
    import pyspiel

    game = pyspiel.load_game("liars_dice")
    solver = pyspiel.CFRPlusSolver(game)
    spent = 0.0
    expl = float("inf")
    at_200 = None
    for it in range(1, max_iterations + 1):
        t = time.perf_counter()
        solver.evaluate_and_update_policy()
        spent += time.perf_counter() - t
        if it % 50 == 0 or (it >= 250 and it % 10 == 0):
            expl = pyspiel.exploitability(game, solver.average_policy())
            if it == 200:
                at_200 = expl
            print(f"  openspiel: iteration {it}, {spent:.1f} s, exploitability {expl:.6f}", flush=True)
            if expl <= target:
                break
    return {"seconds": spent, "iterations": it, "exploitability": expl, "exploitability_at_200": at_200}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", type=float, default=1e-3)
    ap.add_argument("--repeats", type=int, default=5, help="runs of our solver (median reported)")
    ap.add_argument("--openspiel-repeats", type=int, default=1, help="runs of OpenSpiel's (median reported)")
    args = ap.parse_args()

    from liars_dice.solver import build_game, exploitability
    from liars_dice.solver.cfr import CFRPlus

    game = build_game(__import__("liars_dice.engine", fromlist=["Rules"]).Rules.preset("openspiel"), (1, 1))
    cfr = CFRPlus(game)
    cfr.iterate(200)
    our_200 = exploitability(game, cfr.average_policy())

    runs = [ours(args.target) for _ in range(args.repeats)]
    for r in runs:
        print(f"  ours: {r['iterations']} iterations, {r['seconds']:.3f} s, exploitability {r['exploitability']:.6f}")
    os_runs = [openspiel(args.target) for _ in range(args.openspiel_repeats)]
    our_med = statistics.median(r["seconds"] for r in runs)
    os_med = statistics.median(r["seconds"] for r in os_runs)
    out = {
        "target": args.target,
        "ours_seconds_median": our_med,
        "ours_seconds": [r["seconds"] for r in runs],
        "ours_iterations": runs[0]["iterations"],
        "ours_exploitability_at_200": our_200,
        "openspiel_seconds_median": os_med,
        "openspiel_seconds": [r["seconds"] for r in os_runs],
        "openspiel_iterations": os_runs[0]["iterations"],
        "openspiel_exploitability_at_200": os_runs[0]["exploitability_at_200"],
        "ratio_ours_over_openspiel": our_med / os_med,
        "speedup": os_med / our_med,
    }
    print(json.dumps(out, indent=1))
    print(
        f"time to exploitability <= {args.target}: ours {our_med:.2f} s (median of {len(runs)}), "
        f"OpenSpiel CFRPlusSolver {os_med:.1f} s (median of {len(os_runs)}): ratio {our_med / os_med:.4f} "
        f"(ours is {os_med / our_med:.0f}x faster)"
    )


if __name__ == "__main__":
    main()

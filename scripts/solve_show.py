"""Solve one ``wild-stars`` show-and-reroll round at a bid cap, with a log, for
long runs in the background (issue 11; docs/solver.md "Show-and-reroll").

``--leaf round``: +1/-1 for the winner of the challenge (what ``liars-dice
solve`` reports); ``--leaf table``: whole-game values, the round's opener's
chance to win the game, with the packaged tables' ``(1, 1)`` value as the leaf
(what ``scripts/build_wild_stars_tables.py`` solves). Writes
``OUT/show_<a><b>_d<cap>.npz`` (the average policy, loadable by
``ShowPolicy.load`` and by ``build_wild_stars_tables.py --solved OUT``) every
``--save-every`` checks and at the end, and ``OUT/show_<a><b>_d<cap>.json``
(value, exploitability, iterations, CPU seconds, peak memory).

    nohup timeout 2h nice -n 10 .venv/bin/python scripts/solve_show.py --dice 2 1 --cap 6 --leaf table \\
        --out /tmp/shows-table > /tmp/shows-table-21-d6.log 2>&1 &
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from liars_dice.engine import Rules
from liars_dice.solver.endgame import leaf_value_for, read_entries
from liars_dice.solver.payoff import single_round_value
from liars_dice.solver.shows import ShowCFRPlus, ShowDCFR, ShowGame, ShowPolicy, ShowTree

TABLES = Path(__file__).resolve().parent.parent / "src" / "liars_dice" / "data" / "endgame-wild-stars.npz"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dice", type=int, nargs=2, required=True)
    ap.add_argument("--cap", type=int, required=True, help="most bids in a history")
    ap.add_argument("--leaf", choices=["round", "table"], required=True)
    ap.add_argument("--target", type=float, default=1e-3)
    ap.add_argument("--max-iterations", type=int, default=5000)
    ap.add_argument("--check-every", type=int, default=10)
    ap.add_argument("--save-every", type=int, default=5, help="save the average policy every this many checks")
    ap.add_argument("--no-shows", action="store_true", help="the same round with show_and_reroll off (the baseline)")
    ap.add_argument("--algorithm", choices=["dcfr", "cfr+"], default="dcfr")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    if a.cap < 1 or a.check_every < 1 or a.save_every < 1 or a.max_iterations < 0 or not a.target >= 0:
        ap.error("--cap, --check-every and --save-every are at least 1, --max-iterations and --target at least 0.")
    rules = Rules.preset("wild-stars")
    if a.no_shows:
        rules = rules.with_options(show_and_reroll=False)
    dice = (a.dice[0], a.dice[1])
    if a.leaf == "table":
        tables = read_entries(TABLES, Rules.preset("wild-stars"))
        leaf = leaf_value_for({(1, 1): tables[(1, 1)].value})
    else:
        leaf = single_round_value
    a.out.mkdir(parents=True, exist_ok=True)
    stem = a.out / f"{'noshow' if a.no_shows else 'show'}_{dice[0]}{dice[1]}_d{a.cap}"
    t0, c0 = time.perf_counter(), time.process_time()
    game = ShowGame(ShowTree(rules, dice, a.cap, max_states=2_000_000), leaf)
    cfr = ShowDCFR(game) if a.algorithm == "dcfr" else ShowCFRPlus(game)
    print(f"{dice} cap {a.cap} leaf {a.leaf} shows {not a.no_shows} {a.algorithm}: {game.tree.n_states:,} states, "
          f"built in {time.process_time() - c0:.1f} CPU s", flush=True)
    checks = 0
    expl = float("inf")

    def save(done: bool) -> None:
        avg = cfr.average_policy()
        if not a.no_shows:
            ShowPolicy(game.tree, avg).save(stem.with_suffix(".npz"))
        stats = {"dice": list(dice), "cap": a.cap, "leaf": a.leaf, "show_and_reroll": not a.no_shows, "algorithm": a.algorithm,
                 "states": game.tree.n_states, "value": game.expected_value(avg), "exploitability": expl,
                 "iterations": cfr.iterations, "cpu_seconds": round(time.process_time() - c0, 1),
                 "wall_seconds": round(time.perf_counter() - t0, 1),
                 "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, "done": done}
        stem.with_suffix(".json").write_text(json.dumps(stats) + "\n")
        print("saved", stats, flush=True)

    while cfr.iterations < a.max_iterations:
        cfr.iterate(min(a.check_every, a.max_iterations - cfr.iterations))
        expl = game.exploitability(cfr.average_policy())
        checks += 1
        print(f"it {cfr.iterations} expl {expl:.6f} cpu {time.process_time() - c0:.0f} s", flush=True)
        if expl <= a.target:
            break
        if checks % a.save_every == 0 and cfr.iterations < a.max_iterations:
            save(False)
    save(expl <= a.target)


if __name__ == "__main__":
    import sys

    from liars_dice.engine import LiarsDiceError

    try:  # attack4: bad sizes and files gave tracebacks; one sentence instead
        main()
    except (LiarsDiceError, OSError, ValueError, KeyError) as e:
        sys.exit(f"error: {e}")

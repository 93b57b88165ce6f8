"""Rebuild ``src/liars_dice/data/endgame-wild-stars.npz`` with show-and-reroll
(issue 11; seed 000 "Show and reroll"): the 3-dice positions ``(1, 2)`` and
``(2, 1)`` are solved on the show tree (:mod:`liars_dice.solver.shows`),
histories capped at ``--show-depth-cap`` bids; ``(1, 1)`` has no show to make;
the 4-dice positions are kept from the file as they are (no-show strategies,
solved with the no-show values of the 3-dice positions as leaves: their show
trees at any useful cap are beyond this machine's budget, docs/solver.md).

    .venv/bin/python scripts/build_wild_stars_tables.py --show-depth-cap 6
    .venv/bin/python scripts/build_wild_stars_tables.py --show-depth-cap 6 --solved /tmp/shows-runs/table

``--solved DIR`` reuses policies saved by ``scripts/solve_show.py --leaf table``
(or ``liars-dice solve --save``, or this script's ``--save-dir``) as
``DIR/show_<a><b>_d<cap>.npz``; their value and exploitability are computed
again here, against this file's leaf values, so a reused policy is checked,
not trusted (and refused above ``--target``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from liars_dice.engine import Rules
from liars_dice.solver.endgame import TableEntry, leaf_value_for, positions, read_entries, save_tables
from liars_dice.solver.shows import ShowGame, ShowPolicy
from liars_dice.solver.solve import SolveResult, solve

OUT = Path(__file__).resolve().parent.parent / "src" / "liars_dice" / "data" / "endgame-wild-stars.npz"
SHOW_POSITIONS = [(1, 2), (2, 1)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--show-depth-cap", type=int, default=4, help="most bids in a history of a show position")
    ap.add_argument("--target", type=float, default=1e-3, help="target exploitability of each show position")
    ap.add_argument("--solved", type=Path, help="reuse saved show policies from this folder")
    ap.add_argument("--save-dir", type=Path, help="also save each new show policy here")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    rules = Rules.preset("wild-stars")
    old = read_entries(OUT, rules)
    values = {(1, 1): old[(1, 1)].value}
    entries: dict[tuple[int, int], TableEntry] = {(1, 1): old[(1, 1)]}
    for pos in SHOW_POSITIONS:
        start = time.perf_counter()
        leaf = leaf_value_for(values)
        saved = a.solved / f"show_{pos[0]}{pos[1]}_d{a.show_depth_cap}.npz" if a.solved else None
        if saved is not None and saved.exists():
            pol = ShowPolicy.load(saved)
            if pol.rules.to_dict() != rules.to_dict() or pol.dice != pos:
                raise SystemExit(f"{saved} is not a wild-stars {pos} policy.")
            game = ShowGame(pol.tree, leaf)
            stats = saved.with_suffix(".json")  # the solve's own figures, if kept beside it
            iterations = int(json.loads(stats.read_text())["iterations"]) if stats.exists() else 0
            res = SolveResult(game.expected_value(pol.strategy), game.exploitability(pol.strategy), iterations,
                              time.perf_counter() - start, pol, show_and_reroll=True)
            if res.exploitability > a.target:
                raise SystemExit(f"{saved} is {res.exploitability:.5f} from equilibrium here, above the target {a.target}.")
            how = f"reused {saved}"
        else:
            res = solve(rules, pos, a.target, 2000, leaf_value=leaf, max_depth=a.show_depth_cap)
            how = f"{res.iterations} iterations"
            if a.save_dir:
                res.policy.save(a.save_dir / f"show_{pos[0]}{pos[1]}_d{a.show_depth_cap}.npz")
        entries[pos] = TableEntry.solved(pos, res)
        values[pos] = res.value
        print(f"wild-stars {pos[0]} vs {pos[1]} with shows, at most {a.show_depth_cap} bids: value {res.value:+.5f} "
              f"(the file had {old[pos].value:+.5f}), exploitability {res.exploitability:.5f}, {how}, "
              f"{res.seconds:.1f} s", flush=True)
    for pos in positions(4):
        entries.setdefault(pos, old[pos])
    save_tables(a.out, rules, [entries[p] for p in positions(4)])
    print("wrote", a.out, f"({a.out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()

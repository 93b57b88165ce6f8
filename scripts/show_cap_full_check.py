"""How far from equilibrium a capped show policy is in the FULL round (issue 11;
docs/solver.md "Show-and-reroll").

A policy solved with histories capped at ``cap`` bids challenges at the cap;
embedded in the full show tree (every history, 7.7 million public states at
``wild-stars`` 2 vs 1) it challenges at and beyond the cap, and the full
tree's best responses say what that costs against an opponent free to bid on.
Prints, per saved policy ``FOLDER/show_<a><b>_d<cap>.npz``: its value in the
full round (equal to its value in the capped round, to rounding: the same
play; printed as a check of the embedding), its exploitability in the capped
round, and its exploitability in the full round. The full tree is built once
per position (about 1 GB) and one exploitability costs about one CFR iteration
on it (two best-response sweeps).

    .venv/bin/python scripts/show_cap_full_check.py /tmp/shows-runs/table --leaf table --dice 2 1
"""

from __future__ import annotations

import argparse
import re
import resource
import time
from pathlib import Path

from liars_dice.engine import Rules
from liars_dice.solver.endgame import leaf_value_for, read_entries
from liars_dice.solver.payoff import single_round_value
from liars_dice.solver.shows import ShowGame, ShowPolicy, ShowTree, embed_capped

TABLES = Path(__file__).resolve().parent.parent / "src" / "liars_dice" / "data" / "endgame-wild-stars.npz"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--leaf", choices=["round", "table"], required=True)
    ap.add_argument("--dice", type=int, nargs=2, required=True)
    ap.add_argument("--faces", type=int, default=6, help="dice faces (3: a quick check of the embedding)")
    a = ap.parse_args()
    if not a.folder.is_dir():
        ap.error(f"{a.folder} is not a folder of solve_show.py results.")
    if not any(a.folder.glob(f"show_{a.dice[0]}{a.dice[1]}_d*.npz")):  # before building the full tree (13 s, 1 GB)
        ap.error(f"{a.folder} holds no solve_show.py results of {a.dice[0]} vs {a.dice[1]}.")
    rules = Rules.preset("wild-stars").with_options(faces=a.faces)
    if a.leaf == "table":
        leaf = leaf_value_for({(1, 1): read_entries(TABLES, Rules.preset("wild-stars"))[(1, 1)].value})
    else:
        leaf = single_round_value
    dice = (a.dice[0], a.dice[1])
    c0 = time.process_time()
    full = ShowGame(ShowTree(rules, dice, None, max_states=20_000_000), leaf)
    print(f"{dice[0]} vs {dice[1]} full round: {full.tree.n_states:,} public states, built in "
          f"{time.process_time() - c0:.0f} CPU s", flush=True)
    for f in sorted(a.folder.glob(f"show_{dice[0]}{dice[1]}_d*.npz")):
        if not re.match(r"show_\d\d_d\d+\.npz", f.name):
            continue
        pol = ShowPolicy.load(f)
        if pol.rules.to_dict() != rules.to_dict():
            continue
        c1 = time.process_time()
        capped = ShowGame(pol.tree, leaf)
        strategy = embed_capped(pol, full.tree)
        v_full = full.expected_value(strategy)
        e_full = full.exploitability(strategy)
        print(f"| {dice[0]} vs {dice[1]} | at most {pol.tree.max_depth} | {capped.expected_value(pol.strategy):+.5f} "
              f"| {v_full:+.5f} | {capped.exploitability(pol.strategy):.5f} | {e_full:.5f} |  "
              f"({time.process_time() - c1:.0f} CPU s, peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB)",
              flush=True)


if __name__ == "__main__":
    import sys

    from liars_dice.engine import LiarsDiceError

    try:  # attack4: bad sizes and files gave tracebacks; one sentence instead
        main()
    except (LiarsDiceError, OSError, ValueError, KeyError) as e:
        sys.exit(f"error: {e}")

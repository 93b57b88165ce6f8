"""Build ``src/liars_dice/data/endgame-joker.npz``: equilibrium tables for the
``joker`` preset's equal-dice single rounds, for the ``strong`` bot's endgames.

``joker`` is single-round, so each position's payoff is +1/-1 for the
challenge winner and positions are independent. 1 vs 1 is solved on its full
tree; 2 vs 2 with histories capped at ``--depth`` bids (the solver's
``max_depth``; beyond the cap ``endgame_policy`` declines and the bot's own
search plays). Uses ``liars_dice.solver`` (CFR+).

    .venv/bin/python scripts/build_joker_endgame.py            # about 7 minutes here
"""

from __future__ import annotations

import argparse
from pathlib import Path

from liars_dice.engine import Rules
from liars_dice.solver.endgame import TableEntry, save_tables
from liars_dice.solver.solve import solve

OUT = Path(__file__).resolve().parent.parent / "src" / "liars_dice" / "data" / "endgame-joker.npz"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=int, default=6, help="most bids in a 2 vs 2 history")
    ap.add_argument("--two", action=argparse.BooleanOptionalAction, default=True, help="include 2 vs 2")
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args()
    rules = Rules.preset("joker")
    entries = []
    r = solve(rules, (1, 1), target_exploitability=5e-4)
    print(f"1 vs 1: value {r.value:+.5f}, exploitability {r.exploitability:.5f}, {r.iterations} it, {r.seconds:.1f} s")
    entries.append(TableEntry((1, 1), r))
    if a.two:
        r = solve(rules, (2, 2), target_exploitability=3e-3, max_iterations=400, check_every=50, max_depth=a.depth)
        print(f"2 vs 2 (at most {a.depth} bids): value {r.value:+.5f}, exploitability {r.exploitability:.5f}, "
              f"{r.iterations} it, {r.seconds:.1f} s", flush=True)
        entries.append(TableEntry((2, 2), r))
    save_tables(a.out, rules, entries)
    print("wrote", a.out)


if __name__ == "__main__":
    main()

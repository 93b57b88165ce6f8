"""Build ``src/liars_dice/data/endgame-joker.npz``: equilibrium tables for the
``joker`` preset's equal-dice single rounds, for the ``strong`` bot's endgames.

``joker`` is single-round, so each position's payoff is +1/-1 for the
challenge winner and positions are independent. 1 vs 1 is solved on its full
tree to ``endgame.WHOLE_TARGET`` and stored whole (every node, issue 37); 2 vs 2
with histories capped at ``--depth`` bids (the solver's ``max_depth``; beyond
the cap ``endgame_policy`` declines and the bot's own search plays), kept from
the file at ``--out`` unless ``--fresh``. Uses ``liars_dice.solver`` (CFR+).

    .venv/bin/python scripts/build_joker_endgame.py            # 1 vs 1 again, 2 vs 2 kept: under a minute
    .venv/bin/python scripts/build_joker_endgame.py --fresh    # both: about 7 minutes here
"""

from __future__ import annotations

import argparse
from pathlib import Path

from liars_dice.engine import Rules
from liars_dice.solver.endgame import TableEntry, read_entries, save_tables, solve_tables
from liars_dice.solver.solve import solve

OUT = Path(__file__).resolve().parent.parent / "src" / "liars_dice" / "data" / "endgame-joker.npz"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=int, default=6, help="most bids in a 2 vs 2 history")
    ap.add_argument("--two", action=argparse.BooleanOptionalAction, default=True, help="include 2 vs 2")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--fresh", action="store_true", help="solve 2 vs 2 again rather than keep the file's")
    a = ap.parse_args()
    rules = Rules.preset("joker")
    known = {} if a.fresh else read_entries(a.out, rules)
    one = next(solve_tables(rules, max_total=2))  # 1 vs 1 alone, to endgame.WHOLE_TARGET
    assert one.result is not None
    print(f"1 vs 1: value {one.value:+.5f}, exploitability {one.exploitability:.5f}, {one.iterations} it, "
          f"{one.result.seconds:.1f} s", flush=True)
    entries = [one]
    if a.two and (2, 2) in known and known[(2, 2)].max_depth == a.depth:
        print("2 vs 2: kept from", a.out)
        entries.append(known[(2, 2)])
    elif a.two:
        r = solve(rules, (2, 2), target_exploitability=3e-3, max_iterations=400, check_every=50, max_depth=a.depth)
        print(f"2 vs 2 (at most {a.depth} bids): value {r.value:+.5f}, exploitability {r.exploitability:.5f}, "
              f"{r.iterations} it, {r.seconds:.1f} s", flush=True)
        entries.append(TableEntry.solved((2, 2), r))
    save_tables(a.out, rules, entries)
    print("wrote", a.out)


if __name__ == "__main__":
    main()

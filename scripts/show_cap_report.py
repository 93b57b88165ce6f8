"""What the show is worth, per position and bid cap, from the solves of
``scripts/solve_show.py`` (issue 11; docs/solver.md "Show-and-reroll: what the
show is worth").

Reads ``FOLDER/show_<a><b>_d<cap>.npz`` (a show policy) with the
``noshow_<a><b>_d<cap>.json`` of the same round solved with ``show_and_reroll``
off, and prints one markdown row per round and cap: the value with shows (the
opener's, computed again here from the policy, so a saved policy is checked,
not trusted), its exploitability within the capped round, the probability that
its play reaches the cap (deals and rerolls included: there the capped tree
forces a challenge), the value and exploitability without shows, and the
show's worth (with minus without, to the opener). ``--leaf table`` reads the
values as whole-game ones with the packaged tables' ``(1, 1)`` value as leaf;
``--leaf round``, +1/-1 per round. ``--sample`` also plays seeded 3-dice rounds
with the packaged tables and counts their shows.

    .venv/bin/python scripts/show_cap_report.py /tmp/shows-runs/table --leaf table --sample
    .venv/bin/python scripts/show_cap_report.py /tmp/shows-runs/round --leaf round
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

import numpy as np

from liars_dice.engine import Game, Rules
from liars_dice.solver.endgame import endgame_moves, leaf_value_for, read_entries
from liars_dice.solver.payoff import single_round_value
from liars_dice.solver.shows import ShowGame, ShowPolicy

TABLES = Path(__file__).resolve().parent.parent / "src" / "liars_dice" / "data" / "endgame-wild-stars.npz"


def depth_reach_shows(pol: ShowPolicy) -> np.ndarray:
    """``(max_depth + 1,)``: probability that play reaches each number of bids."""
    r = ShowGame(pol.tree).reach(pol.strategy)
    out = np.zeros(pol.tree.max_depth + 1)
    for g, (r0, r1) in zip(pol.tree.groups, r):
        out[g.depth] += float((r0.sum(axis=1) * r1.sum(axis=1)).sum())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--leaf", choices=["round", "table"], required=True)
    ap.add_argument("--sample", action="store_true", help="also count the packaged tables' shows in sample rounds")
    a = ap.parse_args()
    if not a.folder.is_dir():
        ap.error(f"{a.folder} is not a folder of solve_show.py results.")
    if not any(a.folder.glob("show_*_d*.npz")):
        ap.error(f"{a.folder} holds no solve_show.py results (show_*_d*.npz).")
    rules = Rules.preset("wild-stars")
    if a.leaf == "table":
        leaf = leaf_value_for({(1, 1): read_entries(TABLES, rules)[(1, 1)].value})
    else:
        leaf = single_round_value
    print("| round | bids per history | public states | V with shows | exploitability | iterations "
          "| play reaching the cap | V without shows | exploitability | show's worth |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    found = []
    for f in a.folder.glob("show_*_d*.npz"):
        m = re.match(r"show_(\d)(\d)_d(\d+)\.npz", f.name)
        if m:
            found.append(((int(m[1]), int(m[2])), int(m[3]), f))
    for dice, cap, f in sorted(found, key=lambda x: (-x[0][0], x[1])):
        pol = ShowPolicy.load(f)
        game = ShowGame(pol.tree, leaf)
        value, expl = game.expected_value(pol.strategy), game.exploitability(pol.strategy)
        stats = json.loads(f.with_suffix(".json").read_text())
        reach = depth_reach_shows(pol)[-1]
        plain_file = f.with_name(f"noshow_{dice[0]}{dice[1]}_d{cap}.json")
        plain = json.loads(plain_file.read_text()) if plain_file.exists() else None
        tail = (f"{plain['value']:+.5f} | {plain['exploitability']:.5f} | {value - plain['value']:+.5f}"
                if plain else "| |")
        unfinished = "" if stats.get("done", True) else " (unfinished)"
        print(f"| {dice[0]} vs {dice[1]} | at most {cap} | {pol.tree.n_states:,} | {value:+.5f} | {expl:.5f}{unfinished} "
              f"| {stats['iterations']} | {reach:.4f} | {tail} |", flush=True)
    if a.sample:
        sample_shows()


def sample_shows(rounds: int = 300, seed: int = 0) -> None:
    """How often the packaged tables show: ``rounds`` seeded 3-dice rounds played by
    :func:`endgame_moves` alone until it declines (the cap, a rare history)."""
    rules = Rules.preset("wild-stars")
    rng = random.Random(seed)
    shows = decisions = declined = 0
    for _ in range(rounds):
        a, b = rng.choice([(2, 1), (1, 2)])
        st = Game.create(rules, ["a", "b"], [a, b]).initial_state(0).deal(
            [[rng.randint(1, 6) for _ in range(a)], [rng.randint(1, 6) for _ in range(b)]])
        while st.phase.value == "bid":
            moves = endgame_moves(st.view(st.to_move))
            if moves is None:
                declined += 1
                break
            decisions += 1
            action, show = rng.choices(list(moves), weights=list(moves.values()))[0]
            shows += bool(show)
            st = st.apply(action, show=list(show))
            if st.phase.value == "reroll":
                st = st.reroll([rng.randint(1, 6) for _ in st.hidden[st.to_move]])
    print(f"packaged tables: {decisions} table decisions in {rounds} rounds, {shows} shows, "
          f"{declined} rounds left to the search (cap or rare history)")


if __name__ == "__main__":
    import sys

    from liars_dice.engine import LiarsDiceError

    try:  # attack4: bad sizes and files gave tracebacks; one sentence instead
        main()
    except (LiarsDiceError, OSError, ValueError, KeyError) as e:
        sys.exit(f"error: {e}")

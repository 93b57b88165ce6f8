"""How much of a 3-dice ``wild-stars`` round the bid cap of the show solve cuts
off (issue 11; docs/solver.md "Show-and-reroll: sizes and caps").

For each saved show policy (``show_<a><b>_d<cap>.npz`` as written by
``scripts/build_wild_stars_tables.py --save-dir``) prints its public states,
value, exploitability within the capped game, and the probability that
equilibrium play reaches each number of bids, the cap last (where the capped
tree forces a challenge); then the no-show values of the same positions
(full rounds) from the tables before shows. Reach includes chance (deals and
rerolls). Values are whole-game, to the round's opener, as in the tables.
Last, how often the packaged tables show, over seeded sample rounds.

    git show e352e5d:src/liars_dice/data/endgame-wild-stars.npz > /tmp/noshow.npz
    .venv/bin/python scripts/show_cap_report.py /tmp/srt --before /tmp/noshow.npz
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

import numpy as np

from liars_dice.engine import Game, Rules
from liars_dice.solver.endgame import EndgameTables, endgame_moves, leaf_value_for
from liars_dice.solver.shows import ShowGame, ShowPolicy


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
    ap.add_argument("--before", type=Path, required=True,
                    help="the no-show wild-stars tables: git show e352e5d:src/liars_dice/data/endgame-wild-stars.npz > FILE")
    a = ap.parse_args()
    before = EndgameTables.load(a.before)
    leaf = leaf_value_for({(1, 1): before.values[(1, 1)]})
    for f in sorted(a.folder.glob("show_*_d*.npz")):
        m = re.match(r"show_(\d)(\d)_d(\d+)\.npz", f.name)
        if not m:
            continue
        pol = ShowPolicy.load(f)
        game = ShowGame(pol.tree, leaf)
        dr = depth_reach_shows(pol)
        print(f"{pol.dice[0]} vs {pol.dice[1]} with shows, at most {pol.tree.max_depth} bids: "
              f"{pol.tree.n_states:,} states, value {game.expected_value(pol.strategy):+.5f}, exploitability "
              f"{game.exploitability(pol.strategy):.5f}, P(reach the cap) {dr[-1]:.4f}, "
              f"P(reach d bids) {np.round(dr, 4).tolist()}")
    for dice in ((2, 1), (1, 2)):
        print(f"{dice[0]} vs {dice[1]} no shows, full round (the tables before issue 11): value "
              f"{before.values[dice]:+.5f}, exploitability {before.exploitability[dice]:.5f}")
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
    main()

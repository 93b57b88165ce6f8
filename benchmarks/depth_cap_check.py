"""How much does capping histories at D bids cost? (docs/solver.md, endgame tables)

Solves a round exactly and with histories capped at D bids, then embeds the
capped policy in the full tree (a player facing more than D bids challenges)
and measures that policy's exact exploitability in the full round.

    .venv/bin/python benchmarks/depth_cap_check.py --rules classic --dice 2 1 --caps 6 8
"""

from __future__ import annotations

import argparse

import numpy as np

from liars_dice.engine import Rules
from liars_dice.solver import build_game, exploitability, expected_value, solve


def embed(capped, full_game) -> list[np.ndarray]:
    """The capped policy on the full tree; beyond the cap, challenge."""
    full_tree, ctree = full_game.tree, capped.tree
    out = []
    for d, dep in enumerate(full_tree.depths):
        n = full_game.n_hands(d % 2)
        pol = np.zeros((dep.n_edges, n))
        if d < ctree.max_depth:
            cdep = ctree.depths[d]
            rows = np.array([ctree.locate_mask(d, int(m)) for m in dep.masks])
            # Same node, same actions in the same order: copy the block.
            for r_full, r_cap in enumerate(rows):
                s, k = dep.starts[r_full], dep.n_actions[r_full]
                cs = cdep.starts[r_cap]
                pol[s : s + k] = capped.strategy[d][cs : cs + k]
        else:
            pol[dep.challenge_edges] = 1.0
        out.append(pol)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--dice", type=int, nargs=2, default=(2, 1))
    ap.add_argument("--caps", type=int, nargs="+", default=[6, 8])
    ap.add_argument("--target", type=float, default=1e-3)
    args = ap.parse_args()
    rules = Rules.preset(args.rules).with_options(single_round=True)
    dice = tuple(args.dice)
    full = solve(rules, dice, args.target)
    print(f"{args.rules} {dice[0]} vs {dice[1]} full tree: value {full.value:+.6f}, exploitability "
          f"{full.exploitability:.6f}, {full.iterations} iterations, {full.seconds:.1f} s")
    game = build_game(rules, dice)
    for cap in args.caps:
        r = solve(rules, dice, args.target, max_depth=cap)
        emb = embed(r.policy, game)
        print(f"  cap {cap}: value {r.value:+.6f} (full {full.value:+.6f}), exploitability in the capped game "
              f"{r.exploitability:.6f}, in the full round {exploitability(game, emb):.6f} "
              f"(value there {expected_value(game, emb):+.6f}), {r.seconds:.1f} s")


if __name__ == "__main__":
    main()

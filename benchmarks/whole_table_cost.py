"""What a table stored whole would cost at a larger position (issue 37, item 1's 2 vs 1 target).

Solves one position of a preset's whole-game tables with CFR+ (round payoffs from
the shipped values of the smaller positions, no shows: ``liars-dice solve --tables``'s
solve of that position), then stores its policy as the one die each tables are
stored (``uint16``), with every node, or only the nodes the actor's own play
reaches with at least a given probability (chance included). Prints the solve's
CPU time and peak memory, and per threshold the nodes kept, the compressed size,
the exploitability of the stored policy (uniform at the nodes left out), and an
upper bound on it whatever plays at the nodes left out (a bot's search): the
solve's exploitability plus the actor's own reach summed over the nodes left out
(a best responder enters them at most that often, and gains at most 2 there, for
NashConv / 2).

    .venv/bin/python benchmarks/whole_table_cost.py classic 2 1
"""

from __future__ import annotations

import argparse
import io
import resource
import time

import numpy as np

from liars_dice.engine import Rules
from liars_dice.solver import solve
from liars_dice.solver.endgame import _edges_of, _GameView, leaf_value_for, tables_for
from liars_dice.solver.exploitability import exploitability
from liars_dice.solver.passes import reach
from liars_dice.solver.solve import build_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("preset")
    ap.add_argument("dice", type=int, nargs=2)
    ap.add_argument("--target", type=float, default=1e-3)
    ap.add_argument("--thresholds", type=float, nargs="+", default=[0.0, 1e-9, 1e-6])
    a = ap.parse_args()
    dice = (a.dice[0], a.dice[1])
    rules = Rules.preset(a.preset).with_options(show_and_reroll=False)
    tables = tables_for(Rules.preset(a.preset))
    values = dict(tables.values) if tables else {}
    if tables is not None and (pos := tables.position(dice)) is not None:
        stored, total = sum(len(n) for n in pos.nodes), sum(d.n_nodes for d in pos.tree.depths)  # type: ignore[union-attr]
        print(f"shipped table: {stored:,} of {total:,} nodes stored ({stored / total:.1%})", flush=True)
    c0 = time.process_time()
    r = solve(rules, dice, a.target, 5000, leaf_value=leaf_value_for(values))
    print(f"solve to {a.target:g}: {r.iterations} iterations, {time.process_time() - c0:.0f} CPU s, {r.seconds:.0f} s "
          f"wall, exploitability {r.exploitability:.5f}, peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB", flush=True)
    pol = r.policy
    game = build_game(rules, dice, leaf_value_for(values))
    gr = reach(_GameView(pol.tree, pol.hands), pol.strategy)  # type: ignore[arg-type]
    for thr in a.thresholds:
        arrays, q, left_out = {}, [], 0.0
        for d, dep in enumerate(pol.tree.depths):
            actor = d % 2
            own = gr[actor][d] @ pol.hands[actor].weights
            nodes = np.nonzero(own >= thr)[0] if thr > 0 else np.arange(dep.n_nodes)
            left_out += float(own[own < thr].sum()) if thr > 0 else 0.0
            edges = _edges_of(dep.starts, dep.n_actions, nodes)
            stored_d = np.rint(pol.strategy[d][edges] * 65535).astype(np.uint16)
            arrays[f"d{d}_nodes"], arrays[f"d{d}_policy"] = nodes.astype(np.int32), stored_d
            full = np.zeros_like(pol.strategy[d])
            full[edges] = stored_d
            sums = np.add.reduceat(full, dep.starts, axis=0)[dep.edge_node]
            n = dep.n_actions[dep.edge_node][:, None]
            q.append(np.where(sums > 0, full / np.where(sums > 0, sums, 1), 1.0 / n))
        buf = io.BytesIO()
        np.savez_compressed(buf, **arrays)
        kept = sum(len(v) for k, v in arrays.items() if k.endswith("nodes"))
        print(f"own reach >= {thr:g}: {kept:,} nodes, {buf.tell() / 1e6:.2f} MB compressed, exploitability "
              f"{exploitability(game, q):.5f}, at most {r.exploitability + left_out:.5f} whatever plays "
              f"the nodes left out", flush=True)


if __name__ == "__main__":
    main()

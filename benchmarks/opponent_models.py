"""``strong`` with a fitted opponent model against the dudo.ai networks, and against the
exact equilibrium (safety): single ``joker`` rounds, d vs d dice (issue 11, "Targets").

1. **Records.** ``--records`` rounds of the networks against plain ``strong``
   (seat-balanced like ``strength_dudo.py``, dice ``SeededDice(10**6 + r)``, apart
   from the evaluation dice; the bots' own draws seeded apart from the dice: :data:`RECORD_SEEDS`) are written as game records to ``--out`` and the
   model of the networks' seat name ``dudo`` is fitted from them with
   ``liars_dice.bots.opponent_model.fit`` (what ``liars-dice model fit`` runs).
2. **Against the networks.** ``--rounds`` rounds, ``strong`` given the model,
   ``strong`` in seat ``r % 2``, first mover ``(r // 2) % 2``, dice ``SeededDice(seed + r)``,
   ``strong``'s draws ``STRONG_SEED + seed + r``.
3. **Safety.** The same rounds against the exact equilibrium (plain ``strong``,
   which plays the solver's tables at 1 and 2 dice each), the model still the networks'.

Also prints the best-response ceiling against the model and the plan's mixing weight.

    LIARS_DICE_DUDO_MODELS=/work/shared/peers/dudo-ai/models \\
    nice -n 10 .venv/bin/python benchmarks/opponent_models.py --dice 1 --records 2000 --rounds 2000 --jobs 2

Needs onnxruntime (the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dudo_adapter import DudoBot  # noqa: E402
from strength_4p import wilson  # noqa: E402

from liars_dice.bots import make_bot  # noqa: E402
from liars_dice.bots.exploit import N0, P_MAX, PlanBudget, plan_for  # noqa: E402
from liars_dice.bots.opponent_model import OpponentModel, fit  # noqa: E402
from liars_dice.bots.strong import StrongBot  # noqa: E402
from liars_dice.engine import Game, Rules, SeededDice  # noqa: E402
from liars_dice.match import play_game  # noqa: E402
from liars_dice.records import record_from_state  # noqa: E402

_MODEL: OpponentModel | None = None
#: Seeds of round ``r``'s records: ``SEEDS[x] + r``, one stream per source of chance.
RECORD_SEEDS = {"dice": 10**6, "strong": 3 * 10**6, "networks": 5 * 10**6, "mix": 7 * 10**6}
#: Added to ``seed + r`` for ``strong``'s own draws in the evaluated rounds (the dice use ``seed + r``).
STRONG_SEED = 10**7
#: The plans' settings, the same in the parent (which plans before the pool forks,
#: so workers inherit the cached plans) and in the workers.
_SETTINGS: dict = {"p_max": P_MAX, "n0": N0, "budget": PlanBudget()}


def record_round(args: tuple) -> str:
    """Record round ``r`` of the networks (seat name ``dudo``) against ``who``
    (plain ``strong``, or any registered bot; ``strong+random``: ``random`` in
    odd rounds; ``plan``: ``strong`` given the worker's model, playing its plan,
    with ``epsilon`` the optional fifth element, default 0.02)."""
    d, r, who, offset = args[:4]
    r += offset
    me, start = r % 2, (r // 2) % 2
    names = ["strong", "dudo"] if me == 0 else ["dudo", "strong"]
    game = Game.create(Rules.preset("joker"), names, dice=(d, d))
    bots: list = [None, None]
    name = who if "+" not in who else who.split("+")[r % 2]
    if name == "plan":  # on-policy: the bot that will use the model, with the model so far
        assert _MODEL is not None
        eps = args[4] if len(args) > 4 else 0.02
        bots[me] = StrongBot(RECORD_SEEDS["strong"] + r, models={"dudo": _MODEL}, epsilon=eps,
                             plan_budget=_SETTINGS["budget"])
        bots[1 - me] = DudoBot(first=start, seed=RECORD_SEEDS["networks"] + r)
        final = play_game(game, bots, SeededDice(RECORD_SEEDS["dice"] + r), start=start)
        return json.dumps(record_from_state(final))
    # Each source of chance has its own seed: a bot seeded like the dice draws its
    # first move from the same Mersenne Twister output as the deal (random.Random
    # of one seed), so its sampling followed its dice (records before 2026-11-30
    # 20:00: the networks never challenged an opening 1x4 holding a 2, which they do
    # a third of the time).
    bots[me] = make_bot(name, RECORD_SEEDS["strong"] + r)
    bots[1 - me] = DudoBot(first=start, seed=RECORD_SEEDS["networks"] + r)
    final = play_game(game, bots, SeededDice(RECORD_SEEDS["dice"] + r), start=start)
    return json.dumps(record_from_state(final))


def _init(model_json: str, settings: dict) -> None:
    global _MODEL
    _MODEL = OpponentModel.loads(model_json)
    _SETTINGS.update(settings)
    import liars_dice.bots.exploit as ex

    ex.P_MAX, ex.N0 = settings["p_max"], settings["n0"]


def one_round(args: tuple[int, int, int, str, float]) -> int:
    """1 if ``strong`` with the model wins round ``r`` against ``opponent`` (``dudo`` or ``equilibrium``)."""
    d, r, seed, opponent, eps = args
    me, start = r % 2, (r // 2) % 2
    names = ["strong", "dudo"] if me == 0 else ["dudo", "strong"]
    game = Game.create(Rules.preset("joker"), names, dice=(d, d))
    assert _MODEL is not None
    bots: list = [None, None]
    # strong's own seed apart from the dice's (see record_round)
    bots[me] = StrongBot(STRONG_SEED + seed + r, models={"dudo": _MODEL}, epsilon=eps, plan_budget=_SETTINGS["budget"])
    bots[1 - me] = DudoBot(first=start, seed=seed * 7919 + r) if opponent == "dudo" else make_bot("strong", seed * 7919 + r)
    final = play_game(game, bots, SeededDice(seed + r), start=start)
    return int(final.winner == me)


def _plan_job(args: tuple[str, int, int, float, dict]) -> dict:
    """One role's plan in a worker; returns that worker's plan cache."""
    model_json, d, role, eps, settings = args
    import liars_dice.bots.exploit as ex

    plan_for(Rules.preset("joker"), OpponentModel.loads(model_json), (d, d), role, eps, settings["budget"],
             settings["p_max"], settings["n0"])
    return dict(ex._CACHE)


def _cached(fn):  # type: ignore[no-untyped-def]
    memo: dict = {}

    def wrapped(view):  # type: ignore[no-untyped-def]
        key = (tuple(sorted(view.hand)), view.bids)
        if key not in memo:
            memo[key] = fn(view)
        return memo[key]

    return wrapped


def exact(model_path: str | OpponentModel, epsilon: float, quiet: bool = False) -> dict[str, dict[str, float]]:
    """Exact expected results at one die each (every deal and move walked,
    ``bots.exploit.evaluate``): the equilibrium tables, the plan's best response
    and the safe mixture, against the networks and against the equilibrium.

    :returns: per opponent (``networks``, ``equilibrium``) the seat-balanced win rates,
        and under ``plans`` per role its ``loss``, ``lambda`` and ``worst``."""
    from liars_dice.bots.exploit import _table_fn, evaluate, plan_fn

    rules = Rules.preset("joker")
    model = model_path if isinstance(model_path, OpponentModel) else OpponentModel.loads(Path(model_path).read_text())
    eq = _cached(_table_fn(rules))
    rows = {}
    for opp_name in ("networks", "equilibrium"):
        rates = {"equilibrium": 0.0, "plan": 0.0, "safe mixture": 0.0}
        for role in (0, 1):
            opp = _cached(DudoBot(first=0).probabilities) if opp_name == "networks" else eq
            plan = plan_for(rules, model, (1, 1), role, epsilon, p_max=_SETTINGS["p_max"], n0=_SETTINGS["n0"])
            assert plan is not None
            br = _cached(plan_fn(plan, rules))

            sign = 1.0 if role == 0 else -1.0
            pair = [opp, opp]
            pair[role] = eq
            v_eq = sign * evaluate(rules, (pair[0], pair[1]), (1, 1))
            pair[role] = br
            v_br = sign * evaluate(rules, (pair[0], pair[1]), (1, 1))
            v_mix = plan.lam * v_br + (1 - plan.lam) * v_eq
            for k, v in (("equilibrium", v_eq), ("plan", v_br), ("safe mixture", v_mix)):
                rates[k] += (1 + v) / 4  # seat-balanced: half the rounds in each role
        rows[opp_name] = rates
        if not quiet:
            print(f"against the {opp_name}: " + ", ".join(f"{k} {v:.4f}" for k, v in rates.items()), flush=True)
    for role in (0, 1):
        plan = plan_for(rules, model, (1, 1), role, epsilon, p_max=_SETTINGS["p_max"], n0=_SETTINGS["n0"])
        assert plan is not None
        rows[f"role{role}"] = {"loss": plan.loss, "lambda": plan.lam, "worst": plan.worst}
    return rows


def _projected(game, eq, net_tabs, modelled: int, context) -> tuple[dict, float]:  # type: ignore[no-untyped-def]
    """The networks' policy of seat ``modelled`` averaged over the histories of each
    context ``context(hand, bids)``, weighted by how often play reaches them (the
    networks against the equilibrium tables, as in the records); and its total
    variation from the networks' own policy, weighted the same way."""
    import numpy as np

    from liars_dice.solver.passes import reach

    tree, hands = game.tree, game.hands
    exploiter = 1 - modelled
    r = reach(game, [net_tabs[modelled][d] if d % 2 == modelled else eq[d] for d in range(len(eq))])
    acc: dict = {}
    rows = []
    for d in range(modelled, len(tree.depths), 2):
        dep = tree.depths[d]
        if d == tree.max_depth and d < tree.n_bids:
            continue
        opp = r[exploiter][d] @ hands[exploiter].weights
        for row in range(dep.n_nodes):
            bids = tuple(b for j, b in enumerate(tree.bids) if int(dep.masks[row]) >> j & 1)
            s, acts = int(dep.starts[row]), tree.actions(d, row)
            for col, hand in enumerate(hands[modelled].hands):
                w = float(r[modelled][d][row, col] * opp[row] * hands[modelled].weights[col]) + 1e-12
                key = context(tuple(hand), bids)
                sums, total = acc.setdefault(key, ({}, [0.0]))
                for i, a in enumerate(acts):
                    sums[a] = sums.get(a, 0.0) + w * net_tabs[modelled][d][s + i, col]
                total[0] += w
                rows.append((d, col, key, s, acts, w))
    out = {d: np.array(t) for d, t in net_tabs[modelled].items()}
    tv = weight = 0.0
    for d, col, key, s, acts, w in rows:
        sums, total = acc[key]
        for i, a in enumerate(acts):
            out[d][s + i, col] = sums[a] / total[0]
        tv += w * 0.5 * float(np.abs(out[d][s:s + len(acts), col] - net_tabs[modelled][d][s:s + len(acts), col]).sum())
        weight += w
    return out, tv / weight


def projections(model_path: str, p_maxes: list[float], n0: float) -> None:
    """The back-off's hypothesis, tested on the networks' exact policy at one die
    each: how much of it is a function of coarser contexts (the hand and the
    last one or two bids, and the place in the round; or only how many of the
    hand's dice match the last bid), by total variation where play goes and by
    the data-biased response to that projection, trusted everywhere and, for
    the back-off's context, with the model's back-off evidence."""
    from liars_dice.bots.exploit import model_counts, table_strategy
    from liars_dice.solver.best_response import tabulate
    from liars_dice.solver.endgame import leaf_value_for, tables_for
    from liars_dice.solver.passes import RoundGame, backward, reach
    from liars_dice.solver.payoff import terminal_payoffs
    from liars_dice.solver.restricted import restricted_response
    from liars_dice.solver.solve import build_game

    rules = Rules.preset("joker")
    model = OpponentModel.loads(Path(model_path).read_text())
    tables = tables_for(rules)
    assert tables is not None
    depth = tables.max_depth[(1, 1)]
    game = build_game(rules, (1, 1), leaf_value_for(tables.values), depth)
    game = RoundGame(game.tree, game.hands, terminal_payoffs(game.tree, game.hands, leaf_value_for(tables.values)))
    tree, hands = game.tree, game.hands
    eq, _ = table_strategy(tables, game)
    net = [tabulate(tree, hands, DudoBot(first=0).probabilities, a) for a in (0, 1)]

    def matching(hand: tuple, bid) -> int:  # type: ignore[no-untyped-def]
        return sum(1 for x in hand if x == bid.face or (bid.face != 1 and x == 1))

    contexts = {
        "hand, last two bids": lambda hand, bids: (hand, bids[-2:]),
        "hand, last bid": lambda hand, bids: (hand, bids[-1:]),
        "matching dice, last bid": lambda hand, bids: (matching(hand, bids[-1]) if bids else hand, bids[-1:]),
    }
    for name, context in contexts.items():
        tabs, tvs = {}, []
        for m in (0, 1):
            tabs[m], tv = _projected(game, eq, net, m, context)
            tvs.append(tv)
        trusts = {"everywhere": None}
        if name == "hand, last bid":
            trusts["with the model's back-off evidence"] = "evidence"
        for trust, how in trusts.items():
            for p in p_maxes:
                vals = []
                for role in (0, 1):
                    tab, mod = tabs[1 - role], 1 - role

                    def fn(view, tab=tab, mod=mod):  # type: ignore[no-untyped-def]
                        d, row = tree.locate([b for _, b, _ in view.bids])
                        col = hands[mod].index(tuple(sorted(view.hand)))
                        s = int(tree.depths[d].starts[row])
                        return {a: float(tab[d][s + i, col]) for i, a in enumerate(tree.actions(d, row))}

                    counts = model_counts(model, (1, 1), role, tree) if how else None
                    res = restricted_response(rules, fn, (1, 1), role, p_max=p, counts=counts, n0=n0,
                                              iterations=_SETTINGS["budget"].iterations, max_depth=depth,
                                              leaf_value=leaf_value_for(tables.values), game_value=tables.values[(1, 1)])
                    pol = [net[1 - role][d] if d % 2 != role else res.policy.strategy[d] for d in range(len(eq))]
                    vals.append(float(hands[role].weights @ backward(game, role, pol, reach(game, pol)[1 - role])))
                rate = sum((1 + v) / 2 for v in vals) / 2
                print(f"networks projected on ({name}): total variation {tvs[0]:.4f} / {tvs[1]:.4f} (opener / "
                      f"responder); trusted {trust}, p_max {p}, n0 {n0}: {rate:.4f} against the networks", flush=True)


def sweep(model_path: str, p_maxes: list[float], n0s: list[float], epsilon: float, oracle: bool = False) -> None:
    """Per ``p_max`` and ``n0``, at one die each, exact on the round's tree: the
    plan's value against its model, against the networks and its loss against
    the equilibrium tables (an upper bound), as seat-balanced win rates; the
    equilibrium's own rates first (``p_max`` 0)."""
    import numpy as np

    from liars_dice.bots.exploit import equilibrium_loss, table_strategy
    from liars_dice.solver.best_response import tabulate
    from liars_dice.solver.endgame import leaf_value_for, tables_for
    from liars_dice.solver.passes import RoundGame, backward, reach
    from liars_dice.solver.payoff import terminal_payoffs
    from liars_dice.solver.solve import build_game

    rules = Rules.preset("joker")
    model = OpponentModel.loads(Path(model_path).read_text())
    tables = tables_for(rules)
    assert tables is not None
    game = build_game(rules, (1, 1), leaf_value_for(tables.values), tables.max_depth[(1, 1)])
    game = RoundGame(game.tree, game.hands, terminal_payoffs(game.tree, game.hands, leaf_value_for(tables.values)))
    eq, _ = table_strategy(tables, game)
    net = DudoBot(first=0)
    opponents = {"model": [tabulate(game.tree, game.hands, model.policy, a) for a in (0, 1)],
                 "networks": [tabulate(game.tree, game.hands, net.probabilities, a) for a in (0, 1)]}

    def value(mine: list[np.ndarray], role: int, theirs: dict[int, np.ndarray]) -> float:
        pol = [theirs[d] if d % 2 != role else mine[d] for d in range(len(mine))]
        r = reach(game, pol)
        return float(game.hands[role].weights @ backward(game, role, pol, r[1 - role]))

    def rate(values: list[float]) -> float:
        return sum((1 + v) / 2 for v in values) / 2

    print("| p_max | n0 | vs model | vs networks | vs equilibrium (bound) | loss (roles 0, 1) | exploitability (roles 0, 1) | lambda (roles 0, 1) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    base = {k: rate([value(eq, role, opp[1 - role]) for role in (0, 1)]) for k, opp in opponents.items()}
    print(f"| 0 (equilibrium) | | {base['model']:.4f} | {base['networks']:.4f} | 0.5000 | | | |", flush=True)
    for n0 in n0s:
        for p in p_maxes:
            plans = [plan_for(rules, model, (1, 1), role, epsilon, _SETTINGS["budget"], p, n0) for role in (0, 1)]
            if any(pl is None for pl in plans):
                print(f"| {p} | {n0} | no plan |")
                continue
            vals = {k: rate([value(pl.result.policy.strategy, pl.role, opp[1 - pl.role]) for pl in plans])  # type: ignore[union-attr]
                    for k, opp in opponents.items()}
            loss = [equilibrium_loss(tables, pl.result) for pl in plans]  # type: ignore[union-attr]
            print(f"| {p} | {n0} | {vals['model']:.4f} | {vals['networks']:.4f} | {0.5 - sum(loss) / 4:.4f} | "
                  f"{loss[0]:.4f}, {loss[1]:.4f} | {plans[0].worst:.4f}, {plans[1].worst:.4f} | "  # type: ignore[union-attr]
                  f"{plans[0].lam:.2f}, {plans[1].lam:.2f} |", flush=True)  # type: ignore[union-attr]
    if not oracle:
        return
    # The oracle: the networks' exact distributions as the model, trusted at the
    # situations the records saw (the table's exact counts), as far as the model's
    # back-off evidence goes (what the plans trust), or everywhere.
    from liars_dice.bots.exploit import model_counts
    from liars_dice.solver.restricted import restricted_response

    for where in ("observed", "with the back-off's evidence", "everywhere"):
        for n0 in n0s:
            for p in p_maxes:
                vals = []
                for role in (0, 1):
                    counts = (model_counts(model, (1, 1), role) if where == "observed" else
                              model_counts(model, (1, 1), role, game.tree) if where != "everywhere" else None)
                    res = restricted_response(rules, net.probabilities, (1, 1), role, p_max=p, counts=counts, n0=n0,
                                              iterations=_SETTINGS["budget"].iterations, max_depth=tables.max_depth[(1, 1)],
                                              leaf_value=leaf_value_for(tables.values), game_value=tables.values[(1, 1)])
                    vals.append(value(res.policy.strategy, role, opponents["networks"][1 - role]))
                print(f"oracle trusted {where}, p_max {p}, n0 {n0}: {rate(vals):.4f} against the networks", flush=True)


def stage_sizes(spec: str, records: int) -> list[int]:
    """``--stages``: ``N`` splits ``records`` into N stages (the last takes the remainder),
    ``A,B,...`` gives each stage's size."""
    if "," in spec:
        sizes = [int(x) for x in spec.split(",")]
    else:
        n = int(spec)
        sizes = [records // n] * n
        sizes[-1] += records - sum(sizes)
    if not sizes or any(x <= 0 for x in sizes):
        raise SystemExit(f"--stages {spec}: every stage needs at least one record")
    return sizes


def on_policy(d: int, sizes: list[int], offset: int, mix: float, epsilon: float, jobs: int,
              out: str, record_settings: dict) -> list[dict]:
    """Records gathered **on-policy**, in stages: stage 0's rounds against plain
    ``strong`` (the equilibrium), then each stage's rounds against ``strong``
    given the model fitted on every record so far, playing its plan (in a share
    ``mix`` of the rounds, drawn per round with seed ``RECORD_SEEDS["mix"] + r``;
    the rest against plain ``strong``), refitting after each stage. Rounds run
    on from ``offset`` with the seeds of :func:`record_round`, so stage 0 is the
    start of the ordinary record set. After each stage the exact figures of
    :func:`exact` (one die each). ``record_settings``: the plans' ``p_max``/``n0``
    while recording (the evaluation's are ``_SETTINGS``).

    :returns: one row per stage."""
    import random

    recs: list[str] = []
    model: OpponentModel | None = None
    rows = []
    start = 0
    for k, size in enumerate(sizes):
        t0 = time.perf_counter()
        tasks = []
        for r in range(start, start + size):
            plan = model is not None and random.Random(RECORD_SEEDS["mix"] + offset + r).random() < mix
            tasks.append((d, r, "plan" if plan else "strong", offset, epsilon))
        if model is None:
            with mp.Pool(jobs) as pool:
                recs += pool.map(record_round, tasks, chunksize=16)
        else:
            with mp.Pool(jobs, initializer=_init, initargs=(model.dumps(), record_settings)) as pool:
                recs += pool.map(record_round, tasks, chunksize=16)
        start += size
        model = fit(recs, "dudo")
        if out:
            folder = Path(out)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"stage{k}-{len(recs)}.model.json").write_text(model.dumps())
        ex = exact(model, epsilon, quiet=True) if d == 1 else {}
        row: dict[str, object] = {"stage": k, "records": len(recs), "against_plan": sum(t[2] == "plan" for t in tasks),
               "situations": len(model.table), "seconds": round(time.perf_counter() - t0, 1)}
        if ex:
            row.update(networks=round(ex["networks"]["safe mixture"], 4),
                       equilibrium=round(ex["equilibrium"]["safe mixture"], 4),
                       networks_eq_alone=round(ex["networks"]["equilibrium"], 4),
                       loss=[round(ex[f"role{i}"]["loss"], 4) for i in (0, 1)],
                       lam=[round(ex[f"role{i}"]["lambda"], 4) for i in (0, 1)],
                       worst=[round(ex[f"role{i}"]["worst"], 4) for i in (0, 1)])
        rows.append(row)
        print(f"stage {k}: {len(recs)} records ({row['against_plan']} of this stage's {size} against the plan), "
              f"{len(model.table)} situations; " + (
                  f"exact vs networks {row['networks']:.4f}, vs equilibrium {row['equilibrium']:.4f}, "
                  f"loss {row['loss']}, lambda {row['lam']}, worst {row['worst']}; " if ex else "")
              + f"{row['seconds']} s", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dice", default="1,2")
    ap.add_argument("--records", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--epsilon", type=float, default=0.02)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--against", default="dudo,equilibrium")
    ap.add_argument("--out", default="", help="folder for the records and the model (default: none kept)")
    ap.add_argument("--ceiling", action="store_true", help="only print the exact best response to the networks (1v1)")
    ap.add_argument("--exact", default="", help="a model file: print the exact expected win rates at 1v1 (no sampling)")
    ap.add_argument("--record-against", default="strong",
                    help="who plays the networks in the records: a bot name, or A+B alternating")
    ap.add_argument("--model", default="", help="a fitted model file to use instead of recording and fitting")
    ap.add_argument("--record-offset", type=int, default=0,
                    help="records rounds offset.. offset + records - 1 (seeds RECORD_SEEDS + round): another, independent set")
    ap.add_argument("--p-max", type=float, default=P_MAX)
    ap.add_argument("--n0", type=float, default=N0)
    ap.add_argument("--plan-iterations", type=int, default=PlanBudget().iterations)
    ap.add_argument("--plan-seconds", type=float, default=PlanBudget().seconds)
    ap.add_argument("--plan-cells", type=int, default=PlanBudget().max_cells)
    ap.add_argument("--plan-cache", default="", help="a file keeping the plans between runs (pickle; trusted input only)")
    ap.add_argument("--sweep", default="", help="a model file: the p_max table at 1v1 (exact, on the tree)")
    ap.add_argument("--sweep-p-max", default="0.2,0.4,0.6,0.7,0.8,0.9,1.0")
    ap.add_argument("--sweep-n0", default="")
    ap.add_argument("--oracle", action="store_true", help="with --sweep: also the networks' own distributions as the model")
    ap.add_argument("--projections", default="", help="a model file: the networks' policy projected on coarser contexts (1v1, exact)")
    ap.add_argument("--stages", default="",
                    help="records gathered on-policy: N equal stages of --records (or sizes A,B,...), the first "
                         "against plain strong, each later one against strong playing its plan on the model so far; "
                         "prints each stage's exact figures (1v1) and writes the stages' models to --out")
    ap.add_argument("--stage-mix", type=float, default=1.0,
                    help="with --stages: the share of a later stage's rounds against the plan (the rest: plain strong)")
    ap.add_argument("--record-p-max", type=float, default=None,
                    help="with --stages: the recording plans' p_max (default: --p-max)")
    ap.add_argument("--record-n0", type=float, default=None, help="with --stages: the recording plans' n0 (default: --n0)")
    a = ap.parse_args()
    out: dict[str, object] = {}
    _SETTINGS.update(p_max=a.p_max, n0=a.n0,
                     budget=PlanBudget(a.plan_iterations, a.plan_seconds, a.plan_cells))
    import liars_dice.bots.exploit as ex

    ex.P_MAX, ex.N0 = a.p_max, a.n0  # the defaults StrongBot's plans use
    if a.projections:
        projections(a.projections, [float(x) for x in a.sweep_p_max.split(",")], a.n0)
        return
    if a.sweep:
        sweep(a.sweep, [float(x) for x in a.sweep_p_max.split(",")],
              [float(x) for x in (a.sweep_n0 or str(a.n0)).split(",")], a.epsilon, a.oracle)
        return
    if a.exact:
        exact(a.exact, a.epsilon)
        return
    if a.stages:
        rec_settings = dict(_SETTINGS)
        rec_settings.update(p_max=a.p_max if a.record_p_max is None else a.record_p_max,
                            n0=a.n0 if a.record_n0 is None else a.record_n0)
        for d in (int(x) for x in a.dice.split(",")):
            rows = on_policy(d, stage_sizes(a.stages, a.records), a.record_offset, a.stage_mix, a.epsilon, a.jobs,
                             a.out, rec_settings)
            out[f"{d}v{d} stages {a.stages}"] = rows
        print(json.dumps(out))
        return
    if a.ceiling:
        from liars_dice.solver import best_response

        for d in (int(x) for x in a.dice.split(",")):
            values = []
            for role in (0, 1):
                net = DudoBot(first=0)
                br = best_response(Rules.preset("joker"), net.probabilities, (d, d), player=role)
                values.append(br.value)
            rate = sum((1 + v) / 2 for v in values) / 2
            print(f"{d}v{d}: best response to the networks, value as opener {values[0]:+.4f}, as responder "
                  f"{values[1]:+.4f}; seat-balanced win rate {rate:.4f}", flush=True)
        return
    for d in (int(x) for x in a.dice.split(",")):
        t0 = time.perf_counter()
        if a.model:
            model = OpponentModel.loads(Path(a.model).read_text())
        else:
            with mp.Pool(a.jobs) as pool:
                recs = pool.map(record_round, [(d, r, a.record_against, a.record_offset) for r in range(a.records)], chunksize=16)
            model = fit(recs, "dudo")
        if a.out and not a.model:
            folder = Path(a.out) / (f"{d}v{d}-{a.records}" + ("" if a.record_against == "strong" else f"-{a.record_against}"))
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "dudo.model.json").write_text(model.dumps())
        rules = Rules.preset("joker")
        import pickle

        import liars_dice.bots.exploit as ex

        if a.plan_cache and Path(a.plan_cache).exists():  # plans of an earlier run (same model, settings)
            ex._CACHE.update(pickle.loads(Path(a.plan_cache).read_bytes()))
        if a.jobs >= 2 and a.p_max > 0:  # the two roles' plans side by side; the parent keeps both
            with mp.Pool(2) as pool:
                for cache in pool.map(_plan_job, [(model.dumps(), d, role, a.epsilon, dict(_SETTINGS)) for role in (0, 1)]):
                    ex._CACHE.update(cache)
        plans = [plan_for(rules, model, (d, d), role, a.epsilon, _SETTINGS["budget"], a.p_max, a.n0) for role in (0, 1)]
        if a.plan_cache:
            Path(a.plan_cache).write_bytes(pickle.dumps(dict(ex._CACHE)))
        info = {} if a.p_max <= 0 else {
            f"role{p.role}": {"lambda": round(p.lam, 4), "value_vs_restricted": round(p.value, 4),
                              "loss_vs_eq": round(p.loss, 4), "worst": round(p.worst, 4),
                              "observed": p.observed, "iterations": p.result.iterations,
                              "seconds": round(p.result.seconds, 1)}
            for p in plans if p is not None
        }
        print(f"{d}v{d}: model of {model.records} records ({model.rounds} rounds), bluff rate "
              f"{model.bluff_rate():.3f}; plans {json.dumps(info)}; {time.perf_counter() - t0:.0f} s", flush=True)
        for opp in [x for x in a.against.split(",") if x]:
            t1 = time.perf_counter()
            tasks = [(d, r, a.seed, opp, a.epsilon) for r in range(a.rounds)]
            with mp.Pool(a.jobs, initializer=_init, initargs=(model.dumps(), dict(_SETTINGS))) as pool:
                res = pool.map(one_round, tasks, chunksize=16)
            wins = sum(res)
            lo, hi = wilson(wins, a.rounds)
            out[f"{d}v{d} {opp} {a.records}"] = {"wins": wins, "rounds": a.rounds, "win_rate": wins / a.rounds, "ci95": [lo, hi]}
            print(f"{d}v{d} vs {opp}, model from {a.records} records: strong wins {wins}/{a.rounds} = "
                  f"{wins / a.rounds:.3f} (95% CI {lo:.3f}-{hi:.3f}); {time.perf_counter() - t1:.0f} s", flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()

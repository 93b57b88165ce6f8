"""The show-and-reroll solver shares its CFR+ loop, node sweeps, bid list and
policy files with the plain round solver (the ``duplicates`` report on
solver/shows.py, issue 11). Sharing must not change a result: these are the
values and exploitabilities of 30 CFR+ iterations recorded before the code was
shared (commit e352e5d), to 1e-12. (``solve`` runs show trees with Discounted
CFR since; the show rows run the CFR+ loop, ``ShowCFRPlus``, directly.)"""

from __future__ import annotations

import pytest

from liars_dice.engine import Rules
from liars_dice.solver import solve
from liars_dice.solver.policy import Policy
from liars_dice.solver.shows import ShowCFRPlus, ShowGame, ShowPolicy, ShowTree

SMALL = Rules.preset("wild-stars").with_options(faces=3, single_round=True)

RECORDED = [
    (SMALL, (2, 1), 0.2706601013794731, 0.022893142979411085),
    (SMALL, (1, 2), -0.11760445079547192, 0.013536538755458682),
    (Rules.preset("classic"), (1, 1), -0.02712907309880231, 0.015694478654922805),
    (SMALL.with_options(show_and_reroll=False), (2, 1), 0.13491493087210832, 0.02082038330035965),
]


@pytest.mark.parametrize(("rules", "dice", "value", "expl"), RECORDED, ids=["shows-2v1", "shows-1v2", "classic-1v1", "no-show-2v1"])
def test_thirty_iterations_give_the_recorded_results(rules: Rules, dice: tuple[int, int], value: float, expl: float,
                                                     tmp_path) -> None:
    policy: Policy | ShowPolicy
    if rules.show_and_reroll:
        game = ShowGame(ShowTree(rules, dice))
        cfr = ShowCFRPlus(game)
        cfr.iterate(30)
        avg = cfr.average_policy()
        got = (game.expected_value(avg), game.exploitability(avg))
        policy = ShowPolicy(game.tree, avg)
    else:
        r = solve(rules, dice, target_exploitability=0.0, max_iterations=30, check_every=10)
        assert r.iterations == 30
        got = (r.value, r.exploitability)
        policy = r.policy
    assert got[0] == pytest.approx(value, abs=1e-12)
    assert got[1] == pytest.approx(expl, abs=1e-12)
    # The shared file code writes and reads both kinds of policy unchanged.
    path = tmp_path / "p.npz"
    policy.save(path)
    back = (ShowPolicy if isinstance(policy, ShowPolicy) else Policy).load(path)
    assert len(back.strategy) == len(policy.strategy)
    assert all((a == b).all() for a, b in zip(back.strategy, policy.strategy))

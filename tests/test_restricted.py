"""The data-biased / restricted Nash response (issue 11; Johanson & Bowling,
AISTATS 2009; Johanson, Zinkevich & Bowling, NIPS 2007): its two ends are the
equilibrium and the best response, and in between it trades exploitability for
value against the model."""

from __future__ import annotations

import pytest

from liars_dice.engine import CHALLENGE, Bid, Rules
from liars_dice.solver import SolverError, best_response, solve
from liars_dice.solver.endgame import leaf_value_for, solve_tables
from liars_dice.solver.restricted import confidence, restricted_response

SMALL = Rules.preset("classic").with_options(faces=3, single_round=True)


def lazy(view):  # type: ignore[no-untyped-def]
    """An exploitable player: mostly the smallest raise, challenges 30% of the time."""
    legal = view.legal_actions()
    bids = [a for a in legal if isinstance(a, Bid)]
    out = {}
    if CHALLENGE in legal:
        out[CHALLENGE] = 0.3 if bids else 1.0
    if bids:
        rest = 1 - sum(out.values())
        out[bids[0]] = rest * (0.8 if len(bids) > 1 else 1.0)
        for b in bids[1:]:
            out[b] = rest * 0.2 / (len(bids) - 1)
    return out


@pytest.fixture(scope="module")
def eq21() -> float:
    return solve(SMALL, (2, 1), 1e-4).value


@pytest.mark.parametrize("player", [0, 1])
def test_no_confidence_is_the_equilibrium(eq21: float, player: int) -> None:
    r = restricted_response(SMALL, lazy, (2, 1), player, p_max=0.0, iterations=1000, game_value=eq21)
    mine = eq21 if player == 0 else -eq21
    assert r.value == pytest.approx(mine, abs=0.01)
    assert r.worst_value == pytest.approx(mine, abs=0.01)
    assert abs(r.exploitability) <= 0.01


@pytest.mark.parametrize("player", [0, 1])
def test_full_confidence_is_the_best_response(eq21: float, player: int) -> None:
    br = best_response(SMALL, lazy, (2, 1), player)
    r = restricted_response(SMALL, lazy, (2, 1), player, p_max=1.0, iterations=1000, game_value=eq21)
    assert r.value_vs_model == pytest.approx(br.value, abs=0.01)
    assert r.value == pytest.approx(br.value, abs=0.01)  # the restricted player is the model
    assert r.exploitability > 0.3  # the best response to a lazy player is itself exploitable


def test_more_confidence_wins_more_against_the_model_and_risks_more(eq21: float) -> None:
    seen = [restricted_response(SMALL, lazy, (2, 1), 1, p_max=p, iterations=800, game_value=eq21)
            for p in (0.0, 0.25, 0.5, 0.75, 1.0)]
    expl = [r.exploitability for r in seen]
    vs_model = [r.value_vs_model for r in seen]
    assert all(b >= a - 2e-3 for a, b in zip(expl, expl[1:])), expl
    assert all(b >= a - 2e-3 for a, b in zip(vs_model, vs_model[1:])), vs_model  # type: ignore[operator]
    assert expl[-1] > expl[0] + 0.3 and vs_model[-1] > vs_model[0] + 0.2  # type: ignore[operator]


def test_counts_give_the_confidence_per_information_set(eq21: float) -> None:
    # counts at every information set of the modelled player, all huge: the same as p_max everywhere
    from liars_dice.solver import build_game
    from liars_dice.solver.best_response import _history

    game = build_game(SMALL, (2, 1))
    counts = {}
    for d in range(0, len(game.tree.depths), 2):
        for row, mask in enumerate(game.tree.depths[d].masks):
            for hand in game.hands[0].hands:
                counts[(hand, tuple(_history(game.tree, int(mask))))] = 10**9
    plain = restricted_response(SMALL, lazy, (2, 1), 1, p_max=0.6, iterations=600, game_value=eq21)
    data = restricted_response(SMALL, lazy, (2, 1), 1, p_max=0.6, counts=counts, n0=1.0, iterations=600, game_value=eq21)
    assert data.value == pytest.approx(plain.value, abs=1e-6)
    # one observed information set: the model is asked there only, and trusted a little
    hand = game.hands[0].hands[0]
    one = restricted_response(SMALL, lazy, (2, 1), 1, p_max=1.0, counts={(hand, ()): 10}, n0=10.0,
                              iterations=600, game_value=eq21)
    assert one.model_calls == 1 and one.value_vs_model is None
    none = restricted_response(SMALL, lazy, (2, 1), 1, p_max=1.0, counts={}, iterations=600, game_value=eq21)
    assert none.model_calls == 0 and abs(none.exploitability) <= 0.01
    assert one.value >= none.value - 1e-3


def test_confidence_formula() -> None:
    assert confidence(0, 0.8, 5.0) == 0.0
    assert confidence(5, 0.8, 5.0) == pytest.approx(0.4)
    assert confidence(10**9, 0.8, 5.0) == pytest.approx(0.8)


def test_whole_game_payoffs_at_a_table_position() -> None:
    """With the tables' continuation values (not +1 / -1), no confidence gives the position's value."""
    rules = Rules.preset("classic").with_options(faces=3)
    entries = {e.dice: e for e in solve_tables(rules, max_total=3, target_exploitability=2e-3)}
    leaf = leaf_value_for({d: e.value for d, e in entries.items()})
    r = restricted_response(rules, lazy, (2, 1), 0, p_max=0.0, iterations=1000, leaf_value=leaf,
                            game_value=entries[(2, 1)].value)
    assert r.worst_value == pytest.approx(entries[(2, 1)].value, abs=0.01)
    r1 = restricted_response(rules, lazy, (2, 1), 0, p_max=1.0, iterations=1000, leaf_value=leaf,
                             game_value=entries[(2, 1)].value)
    assert r1.value_vs_model > r.value_vs_model + 0.05  # type: ignore[operator]


def test_bad_input_is_refused_in_one_sentence() -> None:
    for kwargs, words in (
        ({"p_max": 1.5}, "p_max"),
        ({"player": 2}, "seat 0 or 1"),
        ({"n0": 0}, "n0"),
        ({"iterations": 0}, "at least 1"),
        ({"max_model_calls": 3}, "information sets"),
    ):
        with pytest.raises(SolverError, match=words):
            restricted_response(SMALL, lazy, (1, 1), **kwargs)  # type: ignore[arg-type]
    with pytest.raises(SolverError, match="show-and-reroll"):
        restricted_response(Rules.preset("wild-stars"), lazy, (2, 1))


def test_backward_best_responds_where_a_mask_says() -> None:
    """``passes.backward`` with per-depth node masks: all set is the best
    response, none set is the policy (used to bound a loss where a policy is not stored)."""
    import numpy as np

    from liars_dice.solver import build_game
    from liars_dice.solver.passes import backward, reach

    game = build_game(SMALL, (2, 1))
    pol = game.uniform_policy()
    r = reach(game, pol)
    every = [np.ones(dep.n_nodes, dtype=bool) for dep in game.tree.depths]
    none = [np.zeros(dep.n_nodes, dtype=bool) for dep in game.tree.depths]
    for p in (0, 1):
        assert np.allclose(backward(game, p, pol, r[1 - p], best_response=every),
                           backward(game, p, pol, r[1 - p], best_response=True))
        assert np.allclose(backward(game, p, pol, r[1 - p], best_response=none), backward(game, p, pol, r[1 - p]))
        some = [m.copy() for m in none]
        some[2][0] = True
        v = game.hands[p].weights @ backward(game, p, pol, r[1 - p], best_response=some)
        assert game.hands[p].weights @ backward(game, p, pol, r[1 - p]) <= v + 1e-12


def test_a_target_stops_early_and_its_gap_falls() -> None:
    """``target`` stops CFR+ at the first check where the restricted game's NashConv / 2
    is at most it; a tighter target runs longer."""
    loose = restricted_response(SMALL, lazy, (2, 1), 1, p_max=0.5, iterations=4000, target=0.02, check_every=10,
                                game_value=0.0)
    tight = restricted_response(SMALL, lazy, (2, 1), 1, p_max=0.5, iterations=4000, target=0.002, check_every=10,
                                game_value=0.0)
    assert loose.iterations < tight.iterations < 4000


def test_hostile_limits_and_counts_are_refused_in_one_sentence() -> None:
    """attack4: NaN iterations ran 0 iterations and returned a policy; NaN, inf, text or
    negative counts were ignored, gave a wrong sentence, or a ValueError/TypeError;
    malformed count keys a TypeError; a negative max_depth was silently taken as 1."""
    nan = float("nan")
    for kwargs, words in (
        ({"iterations": nan}, "whole numbers"),
        ({"iterations": 2.5}, "whole numbers"),
        ({"check_every": nan}, "whole numbers"),
        ({"seconds": nan}, "seconds"),
        ({"seconds": -1.0}, "seconds"),
        ({"game_value": nan}, "game_value"),
        ({"counts": {((1,), ()): nan}}, "count is a finite number"),
        ({"counts": {((1,), ()): float("inf")}}, "count is a finite number"),
        ({"counts": {((1,), ()): -5}}, "count is a finite number"),
        ({"counts": {((1,), ()): "x"}}, "count is a finite number"),
        ({"counts": {(3, 4): 1}}, "count's key"),
        ({"counts": {None: 1}}, "count's key"),
        ({"max_depth": 0}, "max_depth"),
        ({"max_depth": -1}, "max_depth"),
        # attack4 leftovers, taken until the next stop: a bool seat, infinite n0 (no trust), a NaN target
        ({"player": True}, "seat 0 or 1"),
        ({"n0": float("inf")}, "finite count"),
        ({"target": nan}, "target"),
        ({"target": -0.1}, "target"),
    ):
        with pytest.raises(SolverError, match=words):
            restricted_response(SMALL, lazy, (1, 1), **kwargs)  # type: ignore[arg-type]
    with pytest.raises(SolverError, match="whole numbers"):  # (1.5, 1) was truncated to (1, 1)
        restricted_response(SMALL, lazy, (1.5, 1))  # type: ignore[arg-type]


def test_huge_dice_are_refused_at_once() -> None:
    """attack4: (10**6, 10**6) dice enumerated 12 million bids for 40 s before the
    tree's size check; (100000, 1) with max_depth 1 passed it and took 17 GB."""
    import time

    from liars_dice.solver.tree import BidTree

    start = time.perf_counter()
    for dice, cap in (((10**6, 10**6), None), ((100_000, 1), 1)):
        with pytest.raises(SolverError, match="pairs of hands"):
            restricted_response(SMALL, lazy, dice)
        with pytest.raises(SolverError, match="pairs of hands"):
            BidTree(Rules.preset("classic"), dice, cap)
    assert time.perf_counter() - start < 5  # a bound on refusing, not a benchmark

"""solver.best_response: exact best response to a fixed policy (issue 11)."""

from __future__ import annotations

from itertools import product

import pytest

from liars_dice.engine import CHALLENGE, Bid, Game, Rules
from liars_dice.solver import SolverError, best_response, best_response_values, build_game, policy_fn_of, solve


@pytest.fixture(scope="module")
def openspiel_rough():
    # A policy far from equilibrium (few iterations), so best responses gain a lot.
    return solve("openspiel", (1, 1), target_exploitability=0.0, max_iterations=5, check_every=5)


@pytest.mark.parametrize("player", [0, 1])
def test_matches_the_solvers_exploitability_computation(openspiel_rough, player: int) -> None:
    # The best response to the CFR+ average policy is the solver's own best-response value.
    pol = openspiel_rough.policy
    game = build_game(pol.rules, (1, 1))
    expected = best_response_values(game, pol.strategy)[player]
    got = best_response("openspiel", policy_fn_of(pol), (1, 1), player=player)
    assert got.method == "public tree"
    assert got.value == pytest.approx(expected, abs=1e-12)
    assert got.value > (openspiel_rough.value if player == 0 else -openspiel_rough.value) + 0.01


def _brute_force(rules: Rules, dice: tuple[int, int], player: int, fn) -> float:
    """The best response by enumerating every pure strategy of the responder
    on its information sets (hand, bids): exponential, for tiny games only."""
    game = Game.create(rules, ["p0", "p1"], list(dice))
    faces = range(1, rules.faces + 1)
    deals = [(h0, h1) for h0 in product(faces, repeat=dice[0]) for h1 in product(faces, repeat=dice[1])]
    infosets: dict = {}

    def collect(state) -> None:
        if state.is_over:
            return
        seat = state.to_move
        if seat == player:
            infosets[(tuple(sorted(state.hidden[seat])), tuple(b for _, b, _ in state.bids))] = state.legal_actions()
        for a in state.legal_actions():
            collect(state.apply_unchecked(a))

    for h0, h1 in deals:
        collect(game.initial_state(0).deal([list(h0), list(h1)]))
    def play(state, strat) -> float:
        if state.is_over:
            return 1.0 if state.winner == player else -1.0
        seat = state.to_move
        if seat == player:
            return play(state.apply_unchecked(strat[(tuple(sorted(state.hidden[seat])), tuple(b for _, b, _ in state.bids))]), strat)
        return sum(p * play(state.apply_unchecked(a), strat) for a, p in fn(state.view(seat)).items() if p > 0)

    # A hand's information sets are its own, so the best pure strategy is
    # found hand by hand: every pure strategy of that hand, played on its deals.
    total = 0.0
    for hand in {tuple(sorted(d[player])) for d in deals}:
        keys = sorted((k for k in infosets if k[0] == hand), key=repr)
        mine = [d for d in deals if tuple(sorted(d[player])) == hand]
        best = -2.0
        for choice in product(*(infosets[k] for k in keys)):
            strat = dict(zip(keys, choice))
            best = max(best, sum(play(game.initial_state(0).deal([list(h0), list(h1)]), strat) for h0, h1 in mine))
        total += best
    return total / len(deals)


@pytest.mark.parametrize("player", [0, 1])
def test_matches_brute_force_on_the_smallest_round(player: int) -> None:
    # The smallest round: two faces (openspiel rules, 2 wild), one die each, so
    # the responder's pure strategies can all be enumerated and played out.
    rules = Rules.preset("openspiel").with_options(faces=2, wild_face=2)
    rough = solve(rules, (1, 1), target_exploitability=0.0, max_iterations=3, check_every=3)
    fn = policy_fn_of(rough.policy)
    expected = _brute_force(rules, (1, 1), player, fn)
    assert best_response(rules, fn, (1, 1), player=player).value == pytest.approx(expected, abs=1e-12)
    assert best_response(rules, fn, (1, 1), player=player, method="walk").value == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("preset", ["classic", "wild-stars"])
def test_public_tree_and_engine_walk_agree(preset: str) -> None:
    # Two independent methods (numpy sweep over the bid tree; engine walk by
    # information set) on a 2 vs 1 round of three-faced dice.
    rules = Rules.preset(preset).with_options(faces=3, show_and_reroll=False, single_round=True)
    rough = solve(rules, (2, 1), target_exploitability=0.0, max_iterations=4, check_every=4)
    fn = policy_fn_of(rough.policy)
    for player in (0, 1):
        tree = best_response(rules, fn, (2, 1), player=player)
        walk = best_response(rules, fn, (2, 1), player=player, method="walk")
        assert tree.value == pytest.approx(walk.value, abs=1e-12)


def test_best_response_policy_achieves_the_value(openspiel_rough) -> None:
    # Playing the returned best response against the fixed policy earns the value.
    pol = openspiel_rough.policy
    fn = policy_fn_of(pol)
    br = best_response("openspiel", fn, (1, 1), player=1)
    game = Game.create(Rules.preset("openspiel"), ["p0", "p1"], [1, 1])

    def play(state) -> float:
        if state.is_over:
            return 1.0 if state.winner == 1 else -1.0
        view = state.view(state.to_move)
        if state.to_move == 1:
            return play(state.apply_unchecked(br.action(view)))
        return sum(p * play(state.apply_unchecked(a)) for a, p in fn(view).items() if p > 0)

    total = sum(play(game.initial_state(0).deal([[a], [b]])) for a in range(1, 7) for b in range(1, 7)) / 36
    assert total == pytest.approx(br.value, abs=1e-12)


def test_depth_cap_matches_the_capped_solver() -> None:
    rules = Rules.preset("classic")
    rough = solve(rules, (1, 1), target_exploitability=0.0, max_iterations=5, check_every=5, max_depth=3)
    game = build_game(rules, (1, 1), max_depth=3)
    fn = policy_fn_of(rough.policy)
    for player in (0, 1):
        expected = best_response_values(game, rough.policy.strategy)[player]
        assert best_response(rules, fn, (1, 1), player=player, max_depth=3).value == pytest.approx(expected, abs=1e-12)
        assert best_response(rules, fn, (1, 1), player=player, max_depth=3, method="walk").value == pytest.approx(
            expected, abs=1e-12
        )


def test_bad_policies_and_caps_are_refused() -> None:
    with pytest.raises(SolverError, match="sum to"):
        best_response("openspiel", lambda v: {CHALLENGE: 0.5} if v.bids else {Bid(1, 2): 0.5}, (1, 1))
    with pytest.raises(SolverError, match="illegal move"):
        best_response("openspiel", lambda v: {Bid(1, 2): 1.0}, (1, 1), player=0)
    with pytest.raises(SolverError, match="more than 100 states"):
        best_response("openspiel", lambda v: {CHALLENGE: 1.0} if v.bids else {Bid(1, 2): 1.0}, (1, 1), method="walk",
                      max_states=100)
    with pytest.raises(SolverError, match="seat 0 or 1"):
        best_response("openspiel", lambda v: {CHALLENGE: 1.0}, (1, 1), player=2)

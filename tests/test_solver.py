"""The CFR+ solver, exploitability, policy files and the solve command (issue 3, section 2)."""

from __future__ import annotations

import json
import random
import subprocess
from itertools import product

import numpy as np
import pytest

from liars_dice.engine import CHALLENGE, Bid, Game, Rules, legal_actions
from liars_dice.solver import (
    BidTree,
    Policy,
    SolverError,
    best_response_values,
    build_game,
    expected_value,
    exploitability,
    solve,
)
from liars_dice.solver.cfr import CFRPlus
from liars_dice.solver.hands import enumerate_hands
from liars_dice.solver.outcome import challenge_outcome


@pytest.fixture(scope="module")
def openspiel_1v1():
    return solve("openspiel", (1, 1), target_exploitability=2e-4)


def test_openspiel_1v1_value_is_minus_7_over_258(openspiel_1v1) -> None:
    # The known game value of OpenSpiel's liars_dice with one die each (issue 3, section 2).
    assert openspiel_1v1.exploitability <= 2e-4
    assert abs(openspiel_1v1.value - (-7 / 258)) <= 1e-3


def test_liars_dice_solve_is_the_solver() -> None:
    import liars_dice

    assert liars_dice.solve is solve


def test_exploitability_decreases_toward_zero() -> None:
    game = build_game(Rules.preset("openspiel"), (1, 1))
    cfr = CFRPlus(game)
    seen = []
    for n in (5, 20, 100, 200):
        cfr.iterate(n - cfr.iterations)
        seen.append(exploitability(game, cfr.average_policy()))
    assert seen == sorted(seen, reverse=True) and len(set(seen)) == 4
    assert seen[-1] < 0.002


def test_best_response_to_uniform_gains() -> None:
    game = build_game(Rules.preset("openspiel"), (1, 1))
    uniform = game.uniform_policy()
    b0, b1 = best_response_values(game, uniform)
    v = expected_value(game, uniform)
    assert b0 - v > 0.5 and b1 + v > 0.5
    assert exploitability(game, uniform) == pytest.approx((b0 + b1) / 2)


def test_hands_are_multisets_with_multinomial_weights() -> None:
    h = enumerate_hands(2, 6)
    assert h.n_hands == 21
    assert h.weights.sum() == pytest.approx(1.0)
    assert h.weights[h.index((3, 3))] == pytest.approx(1 / 36)
    assert h.weights[h.index((5, 2))] == pytest.approx(2 / 36)


def test_tree_follows_rules_bid_order() -> None:
    # Seed 000 bidding track: the tree's bids are the engine's legal opening bids, in rank order.
    rules = Rules.preset("wild-stars")
    tree = BidTree(rules, (2, 1))
    assert tree.bids == [a for a in legal_actions(rules, None, 3) if isinstance(a, Bid)]
    depth, row = tree.locate([Bid(1, 2), Bid(1, 1)])
    assert depth == 2
    assert tree.actions(depth, row) == legal_actions(rules, Bid(1, 1), 3)
    with pytest.raises(SolverError):
        tree.locate([Bid(1, 3), Bid(1, 2)])


def test_calza_between_two_players_is_refused_in_one_sentence() -> None:
    """docs/solver.md "Calza": a two-player calza cannot be scored +1/-1."""
    with pytest.raises(SolverError, match="does not model calza"):
        solve(Rules.preset("perudo").with_options(calza_min_players=2), (1, 1))


def test_perudo_rounds_never_open_on_pacos() -> None:
    """RULES.md perudo Opening: the solver's root offers no paco bid; pacos follow later."""
    result = solve("perudo", (1, 1), max_iterations=5)
    root = result.policy.action_probabilities((2,), [])
    assert root and all(b.face != 1 for b in root)
    assert any(getattr(b, "face", 0) == 1 for b in result.policy.action_probabilities((2,), [Bid(1, 2)]))


def test_too_large_a_tree_is_refused_in_one_sentence() -> None:
    with pytest.raises(SolverError, match="at most 2,097,152"):
        solve("classic", (2, 2))


@pytest.mark.parametrize("preset", ["wild-stars", "aces-wild", "classic", "openspiel", "joker", "perudo"])
def test_challenge_outcome_matches_the_engine(preset: str) -> None:
    # The solver's count-only challenge result agrees with the engine's challenge (RULES.md, seeds).
    rules = Rules.preset(preset)
    rng = random.Random(7)
    for _ in range(300):
        dice = (rng.randint(1, 3), rng.randint(1, 3))
        opener = rng.randint(0, 1)
        g = Game.create(rules.with_options(min_players=2, max_players=2), ["a", "b"], list(dice))
        s = g.initial_state(opener).deal([[rng.randint(1, 6) for _ in range(d)] for d in dice])
        while True:
            acts = [a for a in s.legal_actions()]
            a = rng.choice(acts)
            if a is CHALLENGE:
                break
            s = s.apply_unchecked(a)
        bidder = s.bidder
        count = s.count()
        after = s.apply_unchecked(CHALLENGE)
        res = after.results[-1]
        # Re-index so the bidder's seat is the solver's player `bidder`.
        o = challenge_outcome(rules, dice, bidder, s.current_bid.quantity, count)
        assert o.dice == after.dice
        assert o.winner == after.winner
        assert o.next_opener == res.next_opener
        assert (o.round_winner == bidder) == (res.loser != bidder)


@pytest.mark.parametrize(
    ("preset", "dice"),
    [("openspiel", (1, 1)), ("classic", (2, 1)), ("wild-stars", (1, 2)), ("aces-wild", (2, 1)), ("perudo", (2, 1))],
)
def test_expected_value_agrees_with_the_engine_walk(preset: str, dice: tuple[int, int]) -> None:
    # An independent check of tree, wild rules and payoffs: walk every deal and
    # history with the engine (three-faced dice keep the walk small). Perudo's
    # two-player rounds have no calza and no palifico (RULES.md perudo), so only
    # its conversions and its rule against opening on pacos are in play.
    extra = {"calza": False, "palifico": False} if preset == "perudo" else {}
    if preset == "wild-stars":  # the plain tree here; shows have their own walk (tests/test_solver_shows.py)
        extra = {"show_and_reroll": False}
    rules = Rules.preset(preset).with_options(
        faces=3, wild_face=3 if preset == "openspiel" else 1, single_round=True, **extra
    )
    result = solve(rules, dice, target_exploitability=0.05)
    pol = result.policy
    game = Game.create(rules, ["p0", "p1"], list(dice))

    def walk(state, prob: float) -> float:
        if state.is_over:
            return prob * (1.0 if state.winner == 0 else -1.0)
        bids = [b for _, b, _ in state.bids]
        probs = pol.action_probabilities(state.hidden[state.to_move], bids)
        assert set(probs) <= set(state.legal_actions())
        return sum(walk(state.apply_unchecked(a), prob * p) for a, p in probs.items() if p > 0)

    total = 0.0
    n = 3 ** sum(dice)
    for h0 in product(range(1, 4), repeat=dice[0]):
        for h1 in product(range(1, 4), repeat=dice[1]):
            total += walk(game.initial_state(0).deal([list(h0), list(h1)]), 1 / n)
    assert total == pytest.approx(result.value, abs=1e-9)


def test_policy_round_trip(tmp_path, openspiel_1v1) -> None:
    path = tmp_path / "policy.npz"
    openspiel_1v1.policy.save(path)
    back = Policy.load(path)
    assert back.rules == openspiel_1v1.policy.rules
    for a, b in zip(back.strategy, openspiel_1v1.policy.strategy):
        np.testing.assert_array_equal(a, b)
    probs = back.action_probabilities((4,), [Bid(1, 2)])
    assert sum(probs.values()) == pytest.approx(1.0)
    assert probs == openspiel_1v1.policy.action_probabilities((4,), [Bid(1, 2)])
    (tmp_path / "junk.npz").write_bytes(b"not a policy")
    with pytest.raises(SolverError, match="not a readable policy"):
        Policy.load(tmp_path / "junk.npz")


def test_policy_is_a_distribution_over_legal_actions(openspiel_1v1) -> None:
    rules = Rules.preset("openspiel")
    probs = openspiel_1v1.policy.action_probabilities((6,), [Bid(1, 5)])
    assert list(probs) == legal_actions(rules, Bid(1, 5), 2)
    assert sum(probs.values()) == pytest.approx(1.0)


@pytest.mark.slow
def test_openspiel_agrees_on_exploitability_and_value() -> None:
    import pyspiel  # the `openspiel` extra, part of `dev`: `make test` installs it
    from open_spiel.python.algorithms import exploitability as os_exploitability
    from open_spiel.python.algorithms.expected_game_score import policy_value

    from liars_dice.integrations.openspiel.policies import tabular_policy

    result = solve("openspiel", (1, 1), target_exploitability=1e-3)
    game = pyspiel.load_game("liars_dice")
    tabular = tabular_policy(result.policy, game)
    assert os_exploitability.exploitability(game, tabular) == pytest.approx(result.exploitability, abs=1e-6)
    # Player 0 opens and the value is player 0's, as in OpenSpiel.
    assert policy_value(game.new_initial_state(), [tabular, tabular])[0] == pytest.approx(result.value, abs=1e-6)


def test_solve_command_json(cli: str, tmp_path) -> None:
    out = subprocess.run(
        [cli, "solve", "--rules", "openspiel", "--dice", "1", "1", "--target-exploitability", "0.01", "--json",
         "--save", str(tmp_path / "p.npz")],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"value", "exploitability", "iterations", "seconds", "show_and_reroll"}
    assert data["show_and_reroll"] is False  # openspiel has no show-and-reroll
    assert data["exploitability"] <= 0.01 and data["iterations"] > 0
    assert Policy.load(tmp_path / "p.npz").dice == (1, 1)


def test_solve_command_max_iterations(cli: str) -> None:
    out = subprocess.run(
        [cli, "solve", "--rules", "joker", "--dice", "1", "1", "--target-exploitability", "0", "--max-iterations",
         "7", "--json"], capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["iterations"] == 7


def test_solve_command_bad_input(cli: str) -> None:
    out = subprocess.run([cli, "solve", "--rules", "nope"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "no rule set called 'nope'" in out.stderr
    out = subprocess.run([cli, "solve", "--rules", "classic", "--dice", "2", "2"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "16,777,216 public histories" in out.stderr
    # attack2: --dice 1000 1000 summed comb(12000, d) for 43 s before saying no; now at once
    out = subprocess.run([cli, "solve", "--dice", "1000", "1000"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "pairs of hands; the solver handles at most" in out.stderr, out.stderr


def test_capped_tree_forces_a_challenge_at_the_cap() -> None:
    rules = Rules.preset("classic")
    tree = BidTree(rules, (2, 2), max_depth=3)
    depth, row = tree.locate([Bid(1, 2), Bid(1, 3), Bid(2, 2)])
    assert tree.actions(depth, row) == [CHALLENGE]
    with pytest.raises(SolverError, match="stops at 3"):
        tree.locate([Bid(1, 2), Bid(1, 3), Bid(2, 2), Bid(3, 3)])
    result = solve(rules, (2, 2), target_exploitability=0.02, max_depth=3)
    assert result.exploitability <= 0.02
    assert result.policy.tree.max_depth == 3


def test_solve_command_max_depth(cli: str) -> None:
    out = subprocess.run(
        [cli, "solve", "--rules", "classic", "--dice", "2", "2", "--max-depth", "2", "--target-exploitability",
         "0.05", "--json"], capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["exploitability"] <= 0.05


def test_solve_command_refuses_hostile_sizes_at_once(cli: str) -> None:
    """attack4: --dice 100000 1 --max-depth 1 grew to 17 GB; --tables --max-total 1000000
    listed every position first (12 GB in 30 s); --max-depth -3 solved a 1-bid cap;
    --show-depth-cap -1 and --depth-cap 0 were taken. Each is now one sentence, exit 2."""
    for args, words in (
        (["--rules", "classic", "--dice", "100000", "1", "--max-depth", "1"], "pairs of hands"),
        (["--rules", "classic", "--max-depth", "-3"], "at least 1, not -3"),
        (["--rules", "wild-stars", "--tables", "--max-total", "1000000"], "pairs of hands"),
        (["--rules", "wild-stars", "--tables", "--max-total", "12"], "lower --max-total or --depth-cap"),
        (["--rules", "wild-stars", "--tables", "--depth-cap", "0"], "at least 1, not 0"),
        (["--rules", "classic", "--tables", "--max-total", "1"], "at least 2 dice"),
    ):
        out = subprocess.run([cli, "solve", *args, "--out", "/nonexistent/t.npz"], capture_output=True, text=True,
                             timeout=30)
        assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stderr, (args, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr

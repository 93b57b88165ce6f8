"""Show-and-reroll in the round solver (issue 11; seed 000 "Show and reroll", RULES.md wild-stars)."""

from __future__ import annotations

import json
from itertools import product

import numpy as np
import pytest
from typer.testing import CliRunner

from liars_dice.cli import app
from liars_dice.engine import Bid, Game, Rules
from liars_dice.solver import SolverError, best_response, solve
from liars_dice.solver.shows import ShowGame, ShowPolicy, ShowTree

# Three-faced wild-stars (the star is face 1) keeps the engine walks small; the
# show rule is the seed's: after a bid, show some hidden dice, reroll the rest,
# at least one stays hidden.
SMALL = Rules.preset("wild-stars").with_options(faces=3, single_round=True)


@pytest.fixture(scope="module", params=[(2, 1), (1, 2)], ids=["2v1", "1v2"])
def small(request):
    return request.param, solve(SMALL, request.param, target_exploitability=0.002)


def test_exactness_against_the_engine_best_response(small) -> None:
    # The independent exact computation: best responses walked through the
    # engine (every deal, show and reroll) must equal the solver's own.
    dice, result = small
    assert result.show_and_reroll
    assert isinstance(result.policy, ShowPolicy)
    game = ShowGame(result.policy.tree)
    own = game.best_response_values(result.policy.strategy)
    fn = result.policy.policy_fn()
    for player in (0, 1):
        walked = best_response(SMALL, fn, dice, player=player)
        assert walked.method == "engine walk"
        assert walked.value == pytest.approx(own[player], abs=1e-9)
    assert (own[0] + own[1]) / 2 == pytest.approx(result.exploitability, abs=1e-12)
    assert result.exploitability <= 0.002


def test_value_agrees_with_an_engine_walk_of_the_policy(small) -> None:
    dice, result = small
    fn = result.policy.policy_fn()
    game = Game.create(SMALL, ["p0", "p1"], list(dice))

    def walk(state) -> float:
        if state.is_over:
            return 1.0 if state.winner == 0 else -1.0
        if state.is_chance:  # a reroll after a show
            n = len(state.hidden[state.to_move])
            return sum(walk(state.reroll(list(f))) for f in product((1, 2, 3), repeat=n)) / 3**n
        total = 0.0
        for move, p in fn(state.view(state.to_move)).items():
            if p > 0:
                action, show = move if isinstance(move, tuple) else (move, ())
                assert state.is_legal(action, show)
                total += p * walk(state.apply_unchecked(action, show))
        return total

    deals = list(product(product((1, 2, 3), repeat=dice[0]), product((1, 2, 3), repeat=dice[1])))
    value = sum(walk(game.initial_state(0).deal([list(a), list(b)])) for a, b in deals) / len(deals)
    assert value == pytest.approx(result.value, abs=1e-9)


def test_shows_are_used_and_worth_something(small) -> None:
    # The shower's equilibrium value beats the no-show equilibrium's by more
    # than both exploitabilities: the show is worth something on three faces.
    dice, result = small
    plain = solve(SMALL.with_options(show_and_reroll=False), dice, target_exploitability=0.002)
    shower_gain = (result.value - plain.value) * (1 if dice[0] == 2 else -1)
    assert shower_gain > 0.05
    pol = result.policy
    shown = sum(float(s[g.edge_show > 0].sum()) for g, s in zip(pol.tree.groups, pol.strategy))
    assert shown > 0


def test_no_hand_shows_faces_it_lacks(small) -> None:
    _, result = small
    for g, s in zip(result.policy.tree.groups, result.policy.strategy):
        assert np.all(s[~g.legal] == 0)
        sums = np.add.reduceat(s, g.starts, axis=0)
        np.testing.assert_allclose(sums, 1.0, atol=1e-9)
        if g.hidden[g.actor] < 2:  # a show needs two hidden dice (one must stay hidden)
            assert np.all(g.edge_show == 0)


def test_lookup_by_history_with_shows(small) -> None:
    dice, result = small
    pol = result.policy
    if dice[0] == 2:
        probs = pol.action_probabilities((1, 2), [])
        assert ((Bid(1, 2), (1,)) in probs) and ((Bid(1, 2), (3,)) not in probs)
        after = pol.action_probabilities((3,), [(Bid(1, 2), (1,))])
        assert sum(after.values()) == pytest.approx(1.0)
    with pytest.raises(SolverError, match="not in this tree"):
        pol.action_probabilities((1,), [(Bid(1, 2), (1, 1, 1))])


def test_one_die_each_has_no_show_to_make() -> None:
    # 1 vs 1: nobody hides two dice, so the plain tree is the whole round.
    with_shows = solve("wild-stars", (1, 1), target_exploitability=0.01)
    plain = solve(Rules.preset("wild-stars").with_options(show_and_reroll=False), (1, 1), target_exploitability=0.01)
    assert with_shows.show_and_reroll and not plain.show_and_reroll
    assert with_shows.value == plain.value


def test_save_and_load(tmp_path, small) -> None:
    _, result = small
    path = tmp_path / "p.npz"
    result.policy.save(path)
    back = ShowPolicy.load(path)
    for a, b in zip(back.strategy, result.policy.strategy):
        np.testing.assert_array_equal(a, b)
    (tmp_path / "bad.npz").write_bytes(b"nope")
    with pytest.raises(SolverError, match="not a readable"):
        ShowPolicy.load(tmp_path / "bad.npz")


def test_state_cap_is_one_sentence() -> None:
    with pytest.raises(SolverError, match=r"more than 1,000 public states.*max_depth"):
        ShowTree(Rules.preset("wild-stars"), (2, 1), max_states=1000)


def test_cli_json_reports_show_and_reroll() -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["solve", "--rules", "wild-stars", "--dice", "2", "1", "--max-depth", "2",
                              "--target-exploitability", "0.01", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout.strip().splitlines()[-1])["show_and_reroll"] is True
    out = runner.invoke(app, ["solve", "--rules", "classic", "--dice", "1", "1", "--max-depth", "2", "--json"])
    assert json.loads(out.stdout.strip().splitlines()[-1])["show_and_reroll"] is False


def test_huge_show_rounds_are_refused_at_once() -> None:
    # Test as an attacker: --dice 1000 1000 under wild-stars must not enumerate
    # hands and shows of a thousand dice before saying no (it did, for ever:
    # the suite's per-test timeout is what a regression meets).
    stars = Rules.preset("wild-stars")
    for dice, depth in (((1000, 1000), None), ((1000, 1000), 1), ((3, 3), None)):
        with pytest.raises(SolverError, match="public states|pairs of hands"):
            ShowTree(stars, dice, depth)


def test_dcfr_and_cfr_plus_reach_the_same_equilibrium_value() -> None:
    # Discounted CFR (Brown & Sandholm 2019), which `solve` runs on show trees,
    # against the CFR+ loop on the same three-faced tree: both average policies
    # are epsilon-equilibria, so their values lie within the sum of twice their
    # exploitabilities (NashConv / 2) of each other; no hand shows a face it lacks.
    from liars_dice.solver.shows import ShowCFRPlus, ShowDCFR, ShowGame, ShowTree

    game = ShowGame(ShowTree(SMALL, (2, 1)))
    results = []
    for algo in (ShowCFRPlus(game), ShowDCFR(game)):
        algo.iterate(150)
        avg = algo.average_policy()
        results.append((game.expected_value(avg), game.exploitability(avg)))
        for g, p in zip(game.tree.groups, avg):
            assert not (p * ~g.legal).any()
            assert np.allclose(np.add.reduceat(p, g.starts, axis=0), 1.0)
    (v0, e0), (v1, e1) = results
    assert e1 < 0.002
    assert abs(v0 - v1) <= 2 * (e0 + e1)


def test_dcfr_discounts_regrets_and_the_average() -> None:
    # One iteration (t = 1): positive and negative regrets are both halved
    # (t**1.5 / (t**1.5 + 1) = t**0 / (t**0 + 1) = 1/2), and the average holds
    # that iteration's strategy weighted by own reach (the previous sum, zero,
    # times (1/2)**2). Regrets may stay negative, unlike CFR+.
    from liars_dice.solver.shows import ShowCFRPlus, ShowDCFR, ShowGame, ShowTree

    game = ShowGame(ShowTree(SMALL, (2, 1), 3))
    plain, dcfr = ShowCFRPlus(game), ShowDCFR(game)
    start = [p.copy() for p in dcfr.policy]
    r = game.reach(start)
    plain.iterate(1)
    dcfr.iterate(1)
    g0 = game.tree.groups[0]  # the root: player 0's first update, from the uniform policy in both
    assert (plain.regret[0] >= 0).all() and (dcfr.regret[0] < 0).any()
    assert np.allclose(np.maximum(dcfr.regret[0], 0) * 2, plain.regret[0])
    assert np.allclose(dcfr.cumulative[0], r[0][0][g0.edge_node] * start[0])


def test_a_capped_policy_embedded_in_the_full_round_plays_the_same() -> None:
    # The capped tree forces a challenge at the cap; embedded in the full round
    # the policy challenges there and beyond (scripts/show_cap_full_check.py).
    # Same play, same value; and against an opponent free to bid past the cap
    # the policy can only be exploited as much or more than a full-round solve.
    from liars_dice.solver.shows import ShowDCFR, embed_capped

    full = ShowGame(ShowTree(SMALL, (2, 1)))
    capped = ShowGame(ShowTree(SMALL, (2, 1), 3))
    cfr = ShowDCFR(capped)
    cfr.iterate(60)
    pol = ShowPolicy(capped.tree, cfr.average_policy())
    strategy = embed_capped(pol, full.tree)
    assert full.expected_value(strategy) == pytest.approx(capped.expected_value(pol.strategy), abs=1e-12)
    assert full.exploitability(strategy) > capped.exploitability(pol.strategy) + 0.05  # three faces: 3 of 9 bids
    with pytest.raises(SolverError):
        embed_capped(pol, ShowTree(SMALL, (1, 2)))


def test_show_scripts_refuse_bad_arguments_in_one_sentence(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """attack4: solve_show.py looped for ever at --check-every 0 and gave tracebacks
    for huge dice or a negative cap; show_cap_report.py printed an empty table for a
    missing folder; show_cap_full_check.py built the 7-million-state full round (13 s,
    1 GB) before finding no results. Each now stops with one sentence."""
    import subprocess
    import sys
    from pathlib import Path

    scripts = Path(__file__).resolve().parent.parent / "scripts"
    out = str(tmp_path / "o")
    for args, words in (
        (["solve_show.py", "--dice", "1", "2", "--cap", "3", "--leaf", "round", "--check-every", "0", "--out", out],
         "at least 1"),
        (["solve_show.py", "--dice", "1", "2", "--cap", "-1", "--leaf", "round", "--out", out], "at least 1"),
        (["solve_show.py", "--dice", "1000000", "1", "--cap", "3", "--leaf", "round", "--out", out], "pairs of hands"),
        (["show_cap_report.py", "--leaf", "round", str(tmp_path / "none")], "is not a folder"),
        (["show_cap_report.py", "--leaf", "round", str(tmp_path)], "holds no solve_show.py results"),
        (["show_cap_full_check.py", "--leaf", "round", "--dice", "1", "2", str(tmp_path)], "holds no solve_show.py"),
    ):
        proc = subprocess.run([sys.executable, str(scripts / args[0]), *args[1:]], capture_output=True, text=True,
                              timeout=30)
        assert proc.returncode != 0 and words in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)

"""Policies across the OpenSpiel border (issue 19 "OpenSpiel policies"): a
solved policy of ours as an OpenSpiel TabularPolicy of our game and of the
built-in liars_dice, read by OpenSpiel's own exploitability; any bot of ours as
an OpenSpiel policy and as a pyspiel.Bot.
"""

from __future__ import annotations

import json

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402
from open_spiel.python.algorithms.expected_game_score import policy_value  # noqa: E402

from liars_dice.bots import make_bot  # noqa: E402
from liars_dice.engine import Bid, Rules  # noqa: E402
from liars_dice.integrations.openspiel import SHORT_NAME  # noqa: E402
from liars_dice.integrations.openspiel.policies import BotPolicy, openspiel_bot, tabular_policy  # noqa: E402
from liars_dice.solver import SolverError, solve  # noqa: E402

#: The openspiel rules on three faces (the third wild): a game small enough to enumerate in a second.
SMALL = Rules.preset("openspiel").with_options(name="openspiel-3-faces", faces=3, wild_face=3)


def _ours(rules: Rules, dice: int = 1) -> object:
    return pyspiel.load_game(SHORT_NAME, {"rules": json.dumps(rules.to_dict()), "players": 2, "dice": dice})


def test_a_solved_policy_exports_to_our_game_with_the_same_exploitability_and_value() -> None:
    result = solve(SMALL, (1, 1), target_exploitability=1e-3)
    game = _ours(SMALL)
    tabular = tabular_policy(result.policy, game)
    assert os_exploitability.exploitability(game, tabular) == pytest.approx(result.exploitability, abs=1e-9)
    assert policy_value(game.new_initial_state(), [tabular, tabular])[0] == pytest.approx(result.value, abs=1e-9)


@pytest.mark.slow
def test_a_solved_policy_exports_to_openspiel_s_builtin_liars_dice() -> None:
    """The built-in C++ game (rules openspiel, one die each): OpenSpiel's
    exploitability of the export is the solver's. Slow (about 100 s on the
    loaded 2-core machine): TabularPolicy walks the game's ~300,000 histories
    from Python."""
    result = solve("openspiel", (1, 1), target_exploitability=0.05)
    game = pyspiel.load_game("liars_dice")
    tabular = tabular_policy(result.policy, game)
    assert os_exploitability.exploitability(game, tabular) == pytest.approx(result.exploitability, abs=1e-6)


def test_a_policy_for_another_game_is_refused_in_one_sentence() -> None:
    result = solve(SMALL, (1, 1), target_exploitability=0.05)
    with pytest.raises(SolverError, match="OpenSpiel's liars_dice is the openspiel rules"):
        tabular_policy(result.policy, pyspiel.load_game("liars_dice"))
    with pytest.raises(SolverError, match="the policy is openspiel-3-faces"):
        tabular_policy(result.policy, _ours(Rules.preset("openspiel")))


def test_a_bot_of_ours_is_an_openspiel_policy() -> None:
    """OpenSpiel's exploitability reads the bot's policy: a distribution over
    the legal ids at every information state, 1 on the bot's choice."""
    game = _ours(SMALL)
    pol = BotPolicy(game, make_bot("probabilistic", 1))
    gap = os_exploitability.exploitability(game, pol)
    assert 0.0 < gap <= 2.0  # a fixed rule of thumb is exploitable
    state = game.new_initial_state()
    for a in (0, 1):
        state.apply_action(a)
    probs = pol.action_probabilities(state)
    assert sorted(probs) == state.legal_actions() and sorted(probs.values())[-1] == 1.0 and sum(probs.values()) == 1.0


def test_a_bot_of_ours_is_a_pyspiel_bot_with_shows() -> None:
    """pyspiel.evaluate_bots plays whole wild-stars games (bids, shows after a
    bid, rerolls) between two of our bots; every action is legal, or pyspiel raises."""
    game = pyspiel.load_game(SHORT_NAME, {"rules": "wild-stars", "players": 2, "dice": 2})
    for seed in range(3):
        bots = [openspiel_bot(make_bot("strong", seed)), openspiel_bot(make_bot("random", seed + 10))]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        assert sorted(returns) == [-1.0, 1.0]


def test_the_wrapper_reads_a_mixed_bot_s_probabilities_not_one_sampled_move() -> None:
    """Issue 37: through BotPolicy, OpenSpiel's exploitability of ``random``
    is the exact one of its uniform policy (``policy_exploitability``); when
    the wrapper took one sampled move per information state it read a pure
    strategy instead."""
    from liars_dice.bots.base import policy_fn
    from liars_dice.solver.exploitability import policy_exploitability

    game = _ours(SMALL)
    ours = policy_exploitability(SMALL, policy_fn(make_bot("random", 0)), (1, 1))
    assert os_exploitability.exploitability(game, BotPolicy(game, make_bot("random", 0))) == pytest.approx(
        ours.value, abs=1e-9
    )


def test_the_wrapper_reads_strong_s_tables_at_one_die_each_in_classic() -> None:
    """Classic, one die each: at every opening (each die the opener may hold)
    and every reply to a few openings, the wrapper's probabilities are the
    tables' mixed policy (``endgame_moves``), several moves each."""
    from liars_dice.solver.endgame import endgame_moves

    game = pyspiel.load_game(SHORT_NAME, {"rules": "classic", "players": 2, "dice": 1})
    pol = BotPolicy(game, make_bot("strong", 0))
    enc = game.setup.encoding
    mixed = 0
    for d0 in range(6):
        for d1 in range(6):
            state = game.new_initial_state()
            state.apply_action(d0)
            state.apply_action(d1)
            for bid in (None, Bid(1, 3), Bid(1, 6)):
                st = state.clone()
                if bid is not None:
                    st.apply_action(enc.encode(bid))
                table = endgame_moves(st.pos.state.view(st.current_player()))
                assert table is not None
                want = {a: 0.0 for a in st.legal_actions()}
                for (action, _), p in table.items():
                    want[enc.encode(action)] += p
                got = pol.action_probabilities(st)
                assert got == pytest.approx(want, abs=1e-12)
                mixed += sum(p > 0 for p in got.values()) > 1
    assert mixed >= 20

"""The CFR equilibrium value of the ``openspiel`` preset through our Python
OpenSpiel game (issue 10 "OpenSpiel", tests): OpenSpiel's own C++ CFR+ solver
(``pyspiel.CFRPlusSolver``) on ``cached_tree`` of ``python_liars_dice_ld`` with the
``openspiel`` rules, two seats, one die each (one round), reaches the known game
value -7/258 for the first player within 1e-3.

-7/258 (-0.027131782945736) is the value of OpenSpiel's ``liars_dice`` with one
die each, as OpenSpiel's ``sequence_form_lp_test.py`` states it (from Neller and
Lanctot 2013, "An Introduction to Counterfactual Regret Minimization"). CFR+ is
deterministic, and on OpenSpiel's C++ ``liars_dice`` its average policy is
within 1e-3 from 75 iterations on (error +3.8e-4 at 75, -5.5e-4 at 100,
-1.5e-3 at 50: ``benchmarks/openspiel_cfr_value.py``). Our game gives the same
tree, so the same values; a wrong legal action, chance outcome, information
state or payoff in our game moves the value off.

It is the one long test of the OpenSpiel integration: ``cached_tree`` walks our
Python game once (about 300,000 histories, ~1 GB), then each CFR+ iteration runs
in C++ (about 0.5-3 s on the shared 2-core machine). Measured time of the whole
test: see benchmarks/RESULTS.md "CFR value test".
"""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

from liars_dice.integrations.openspiel import SHORT_NAME  # noqa: E402  (registers the game)

#: The value of two-player, one-die Liar's Dice for the first player.
VALUE = -7 / 258
#: CFR+ iterations after which the average policy's value is within 1e-3 of VALUE.
ITERATIONS = 75


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_cfr_plus_reaches_the_game_value_through_our_python_game() -> None:
    game = pyspiel.load_game(f"cached_tree(game={SHORT_NAME}(dice=1,players=2,rules=openspiel))")
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(ITERATIONS):
        solver.evaluate_and_update_policy()
    value = pyspiel.expected_returns(game.new_initial_state(), solver.average_policy(), -1, True)
    assert value[0] == pytest.approx(VALUE, abs=1e-3)
    assert value[0] + value[1] == pytest.approx(0.0, abs=1e-12)

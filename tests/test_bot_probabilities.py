"""A bot gives its move probabilities (issue 37, item 2): ``action_probabilities(view)``
for every built-in bot, the distribution its ``decide`` samples from, and the
OpenSpiel wrapper reads it instead of one sampled move per information state.
"""

from __future__ import annotations

import random

import pytest

from liars_dice.bots import make_bot
from liars_dice.bots.base import Decision, MixedBot, action_probabilities, as_moves, sample
from liars_dice.engine import CHALLENGE, Bid, Game, Rules, SeededDice
from liars_dice.solver.endgame import endgame_moves


def _views(preset: str, dice: int, n: int = 12):
    """Views of the seat to move along seeded games between probabilistic bots."""
    rules = Rules.preset(preset)
    out = []
    for seed in range(n):
        state = Game.create(rules, ["a", "b"], [dice, dice]).initial_state().roll(SeededDice(seed))
        mover = make_bot("probabilistic", seed)
        for _ in range(seed % 4):
            if state.is_over or state.phase.value != "bid":
                break
            d = mover.decide(state.view(state.to_move))
            state = state.apply(d.action, d.show)
        if not state.is_over and state.phase.value == "bid":
            out.append(state.view(state.to_move))
    return out


@pytest.mark.parametrize("name", ["random", "probabilistic", "strong"])
@pytest.mark.parametrize("preset,dice", [("classic", 1), ("wild-stars", 2), ("perudo", 3)])
def test_every_built_in_bot_gives_legal_probabilities_that_decide_samples_from(name: str, preset: str, dice: int) -> None:
    bot = make_bot(name, 7)
    assert isinstance(bot, MixedBot)
    for view in _views(preset, dice):
        probs = action_probabilities(bot, view)
        assert sum(probs.values()) == pytest.approx(1.0, abs=1e-9)
        legal = view.legal_actions()
        for d, p in probs.items():
            assert p >= 0 and d.action in legal and tuple(sorted(d.show)) in view.legal_shows()
        support = {d for d, p in probs.items() if p > 0}
        for seed in range(4):
            assert make_bot(name, seed).decide(view) in support


def test_random_is_uniform_and_probabilistic_splits_its_near_equal_raises() -> None:
    views = _views("classic", 3, 30)
    probs = action_probabilities(make_bot("random"), views[0])
    assert all(p == pytest.approx(1 / len(views[0].legal_actions())) for p in probs.values())
    # probabilistic's seeded choices fall on every decision it gives, in even shares
    view = next(v for v in views if len(action_probabilities(make_bot("probabilistic"), v)) > 1)
    bot_probs = action_probabilities(make_bot("probabilistic"), view)
    share = set(round(p, 12) for p in bot_probs.values())
    assert len(share) == 1
    seen = {make_bot("probabilistic", s).decide(view) for s in range(60)}
    assert seen == set(bot_probs)


def test_strong_gives_the_tables_mixed_policy_where_they_play() -> None:
    """At one die each in classic the tables play: strong's probabilities are
    theirs (several moves), not one sampled move."""
    mixed = 0
    for view in _views("classic", 1, 30):
        table = endgame_moves(view)
        if table is None:
            continue
        probs = action_probabilities(make_bot("strong", 1), view)
        assert probs == {Decision(a, s): pytest.approx(p) for (a, s), p in table.items()}
        mixed += len(probs) > 1
    assert mixed >= 5


def test_a_bot_without_probabilities_gives_its_one_move() -> None:
    class Pure:
        name = "pure"

        def decide(self, view):  # type: ignore[no-untyped-def]
            return Decision(CHALLENGE) if view.current_bid else Decision(Bid(1, 2))

    view = _views("classic", 2)[0]
    assert action_probabilities(Pure(), view) == {Pure().decide(view): 1.0}


def test_sample_and_the_solver_s_move_form() -> None:
    probs = {Decision(Bid(1, 2)): 0.25, Decision(Bid(1, 3), (3,)): 0.75, Decision(CHALLENGE): 0.0}
    assert as_moves(probs) == {Bid(1, 2): 0.25, (Bid(1, 3), (3,)): 0.75, CHALLENGE: 0.0}
    rng = random.Random(0)
    draws = [sample(probs, rng) for _ in range(400)]
    assert Decision(CHALLENGE) not in draws and 0.65 < draws.count(Decision(Bid(1, 3), (3,))) / 400 < 0.85
    with pytest.raises(ValueError, match="no move with a positive probability"):
        sample({Decision(CHALLENGE): 0.0}, rng)

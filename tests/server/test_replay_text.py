"""The replay page's narration of a challenge (issue 4, "a replay page that
steps through a finished game"): the count and each loss in words."""

from __future__ import annotations

from liars_dice.engine import CHALLENGE, Bid, Game, Rules
from liars_dice.server.views import replay_steps


def test_challenge_step_names_the_count_and_the_dice_lost() -> None:
    game = Game.create(Rules.preset("classic"), ["ann", "bob"], [1, 1])
    s = game.initial_state(0).deal([[3], [5]])
    s = s.apply(Bid(2, 3)).apply(CHALLENGE)  # count 1 < 2: ann loses her die and the game
    steps = replay_steps(game, 0, s)
    text = steps[-1]["text"]
    assert text == "bob challenges ann's two 3s: the count is 1; ann loses 1 die.", text

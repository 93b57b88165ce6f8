"""The replay page's narration of a challenge (issue 4, "a replay page that
steps through a finished game"): the count and each loss in words."""

from __future__ import annotations

from liars_dice.engine import CHALLENGE, Bid, Game, Rules
from liars_dice.server.core.views import replay_steps


def test_challenge_step_names_the_count_and_the_dice_lost() -> None:
    game = Game.create(Rules.preset("classic"), ["ann", "bob"], [1, 1])
    s = game.initial_state(0).deal([[3], [5]])
    s = s.apply(Bid(2, 3)).apply(CHALLENGE)  # count 1 < 2: ann loses her die and the game
    steps = replay_steps(game, 0, s)
    text = steps[-1]["text"]
    assert text == "Bob challenges ann's two 3s: the count is 1; ann loses 1 die.", text


def test_served_words_and_counted_dice_come_from_the_engine() -> None:
    """Issue 8 "The browser renders what the server sends": each bid carries the
    engine's words ("three aces" under aces-wild, seed 003), each reveal which
    dice counted, and a classic round opened on 1s counts 1s only (seed 004)."""
    from liars_dice.server.core.views import result_json

    aw = Rules.preset("aces-wild")
    game = Game.create(aw, ["ann", "bob"], [2, 2])
    s = game.initial_state(0).deal([[1, 5], [1, 3]]).apply(Bid(3, 1))
    steps = replay_steps(game, 0, s.apply(CHALLENGE))
    bid_step = steps[1]
    assert bid_step["text"] == "Ann bids three aces."
    assert bid_step["state"]["bids"][0]["words"] == "three aces" and bid_step["state"]["bids"][0]["label"] == "3x1"
    assert bid_step["state"]["counted"] == {"ann": [True, False], "bob": [True, False]}
    r = result_json(s.apply(CHALLENGE).results[-1], game.players, aw)
    assert r["bid_words"] == "three aces" and r["counted"] == {"ann": [True, False], "bob": [True, False]}
    assert r["perfect"] is False

    classic = Rules.preset("classic")
    g2 = Game.create(classic, ["ann", "bob"], [2, 2])
    s2 = g2.initial_state(0).deal([[1, 5], [1, 5]]).apply(Bid(2, 1)).apply(Bid(2, 5)).apply(CHALLENGE)
    r2 = result_json(s2.results[-1], g2.players, classic)
    assert r2["wilds_active"] is False and r2["counted"] == {"ann": [False, True], "bob": [False, True]}
    assert r2["bid_words"] == "two 5s"
